"""Class lookups of the evaluator: C3 linearization of repository classes, attribute
lookup through the MRO (methods, properties, class attributes, instance fields), the
attribute ``super()`` gives, and the values a field is assigned."""

from __future__ import annotations

from typing import Any

from impactlens.index.python.facts import (
    B_CLASS,
    B_DEF,
    B_IMPORT,
    F_CLASSMETHOD,
    F_PROPERTY,
    F_STATICMETHOD,
    Enc,
    PyFileFacts,
    Scope,
)
from impactlens.index.python.resolve import frameworks
from impactlens.index.python.resolve.memo import memo
from impactlens.index.python.resolve.values import (
    U_RECV,
    XI,
    Builtin,
    Class,
    ClassKey,
    External,
    ExternalMember,
    ExternalValue,
    Field,
    Function,
    Items,
    Property,
    Super,
)

# a class's MRO and its gap: None (every base known), "external" (a base outside the
# repository) or "unknown" (a base that evaluates to nothing known)
Mro = tuple[list[ClassKey], str | None]


class ClassLookup:
    """MRO and attribute lookups, mixed into :class:`~.evaluate.Evaluator` (whose
    ``mod``, ``ev`` and ``vals`` they use)."""

    _mro: dict[Any, Mro]
    _class_attrs: dict[Any, tuple[Items, bool]]
    _fields: dict[Any, tuple[Items, bool]]
    _xbase: dict[Any, str]

    # a class among its own bases: the class alone, gap unknown
    @memo("_mro", guard_for=lambda ck: ([ck], "unknown"))
    def mro(self, ck: ClassKey) -> Mro:
        """C3 linearization of repo classes; second item: "external" / "unknown" gaps."""
        facts = self.mod(ck[0])  # type: ignore[attr-defined]
        if facts is None:
            return [ck], "unknown"
        sc = facts.scopes[ck[1]]
        gap: str | None = None
        seqs: list[list[ClassKey]] = []
        direct: list[ClassKey] = []
        built = frameworks.copied_base(self, ck)
        for benc in sc.bases:
            if built is not None and benc[0] == "c":  # a declared factory builds this base
                vals: Items = [Class("C", *built)]
            else:
                vals, _ = self.vals(facts, sc.parent, benc, None)  # type: ignore[attr-defined]
            found = False
            for v in vals:
                t = type(v)
                if t is Class:
                    bk = (v.module, v.scope)
                    if bk not in direct and bk != ck:
                        direct.append(bk)
                        bm, bgap = self.mro(bk)
                        seqs.append(list(bm))
                        if bgap == "unknown" or gap is None:
                            gap = bgap or gap
                    found = True
                elif t is Builtin:
                    if v.name != "object":
                        gap = gap or "external"
                    found = True
                elif t is External or t is ExternalValue:
                    gap = gap or "external"
                    found = True
            if not found:
                gap = "unknown"
        seqs.append(list(direct))
        return [ck, *c3(seqs)], gap

    @memo("_class_attrs", ([], False))
    def class_attr(self, ck: ClassKey, name: str, on_instance: bool, start: int = 0,
                   recv: Any = None) -> tuple[Items, bool]:
        """``name`` looked up on class ``ck`` (on an instance of it when ``on_instance``)
        through its MRO from position ``start``, for receiver class ``recv``."""
        order, gap = self.mro(ck)
        recv = recv or ck
        if name == "__class__" and on_instance:
            return [Class("C", *recv)], False
        for k in order[start:]:
            facts = self.mod(k[0])  # type: ignore[attr-defined]
            if facts is None:
                continue
            sc = facts.scopes[k[1]]
            bids = sc.final.get(name) or sc.byname.get(name)
            if bids:
                return self._class_member(facts, k, sc, bids, name, on_instance, recv), False
            if on_instance and name in sc.inst:
                return [Field("FLD", k[0], k[1], name, recv)], False
        declared = (frameworks.copied_method(self, order, name) if on_instance
                    else frameworks.created_attr(self, order, name))
        if declared:
            return declared, False
        if gap == "external":
            # the external base's, named by that base (``unittest.TestCase.assertEqual``)
            base = self.external_base(ck)
            if not base:
                return [XI], False
            dotted = base + "." + name
            return [ExternalMember("XM", dotted) if on_instance else External("X", dotted)], False
        if name.startswith("__") and name.endswith("__"):
            return [XI], False  # object's own dunders
        # not defined statically: set from outside, by a metaclass or __getattr__
        return [U_RECV], False

    @memo("_xbase", "")
    def external_base(self, ck: ClassKey) -> str:
        """The dotted name of the first base outside the repository in ``ck``'s MRO (its
        attributes not defined in the repository are that base's), or ""."""
        for k in self.mro(ck)[0]:
            facts = self.mod(k[0])  # type: ignore[attr-defined]
            if facts is None:
                continue
            sc = facts.scopes[k[1]]
            for benc in sc.bases:
                vals, _ = self.vals(facts, sc.parent, benc, None)  # type: ignore[attr-defined]
                for v in vals:
                    if type(v) is External:
                        return str(v.dotted)
        return ""

    def _class_member(self, facts: PyFileFacts, k: ClassKey, sc: Scope, bids: Any,
                      name: str, on_instance: bool, recv: ClassKey) -> Items:
        out: Items = []
        assign = False
        for b in bids:
            bind = sc.binds[b]
            kind = bind[4]
            if kind == B_DEF:
                out.append(_method(facts, bind[1][1], on_instance, recv))
            elif kind in (B_CLASS, B_IMPORT):
                got, _ = self.ev(facts, k[1], bind[1], None)  # type: ignore[attr-defined]
                out.extend(got)
            elif bind[1][0] == "prop":
                out.extend(self._property_object(facts, k[1], bind[1], on_instance, recv))
            else:
                assign = True
        if assign:
            out.append(Field("FLD", k[0], k[1], name, recv if on_instance else None))
        return out

    def _property_object(self, facts: PyFileFacts, class_scope: int, enc: Enc,
                         on_instance: bool, recv: ClassKey) -> Items:
        """``name = property(fget, fset)`` in a class body."""
        vals = self.vals  # type: ignore[attr-defined]
        getters, _ = vals(facts, class_scope, enc[1], None)
        setter = None
        if enc[2] is not None:
            setters, _ = vals(facts, class_scope, enc[2], None)
            setter = next(((f.module, f.scope) for f in setters if type(f) is Function), None)
        return [Property("P", g.module, g.scope, recv, setter) if on_instance
                else Function("F", g.module, g.scope, False, None)
                for g in getters if type(g) is Function]

    def super_attr(self, v: Super, name: str) -> tuple[Items, bool]:
        """``super().name`` inside class ``v.scope`` for receiver ``v.recv``."""
        cls_key = (v.module, v.scope)
        recv = v.recv or cls_key
        order, _gap = self.mro(recv)
        try:
            pos = order.index(cls_key) + 1
        except ValueError:
            order, _gap = self.mro(cls_key)
            pos = 1
            recv = cls_key
        return self.class_attr(recv, name, True, pos, recv)

    @memo("_fields", ([], True))
    def field_vals(self, module: str, class_scope: int, name: str,
                   recv: Any) -> tuple[Items, bool]:
        """Values of a field: its class-level bindings and every ``self.name = ...`` in the
        methods of the receiver's classes (evaluated with ``self`` as the receiver);
        declared annotations, when present, win over assigned values."""
        facts = self.mod(module)  # type: ignore[attr-defined]
        if facts is None:
            return [U_RECV], True
        sc = facts.scopes[class_scope]
        encs: list[tuple[PyFileFacts, int, Enc]] = []
        for b in sc.byname.get(name, ()):
            encs.append((facts, class_scope, sc.binds[b][1]))
        for enc, _l, _e, method_scope in sc.inst.get(name, ()):
            encs.append((facts, method_scope, enc))
        if recv is not None:
            order, _gap = self.mro(recv)
            for k in order:
                if k == (module, class_scope):
                    continue
                kfacts = self.mod(k[0])  # type: ignore[attr-defined]
                if kfacts is None:
                    continue
                for enc, _l, _e, method_scope in kfacts.scopes[k[1]].inst.get(name, ()):
                    encs.append((kfacts, method_scope, enc))
        annotated = [x for x in encs if x[2][0] == "an"]
        out: Items = []
        for efacts, s, e in annotated or encs:
            vals, _ = self.vals(efacts, s, e, recv)  # type: ignore[attr-defined]
            for v in vals:
                if v not in out:
                    out.append(v)
        return out, True


def _method(facts: PyFileFacts, func_scope: int, on_instance: bool,
            recv: ClassKey) -> Function | Property:
    """What a ``def`` in a class body gives when read on the class or an instance."""
    fl = facts.scopes[func_scope].flags
    if fl & F_PROPERTY:
        return (Property("P", facts.module, func_scope, recv, None) if on_instance
                else Function("F", facts.module, func_scope, False, recv))
    if fl & F_STATICMETHOD:
        return Function("F", facts.module, func_scope, False, None)
    if fl & F_CLASSMETHOD:
        return Function("F", facts.module, func_scope, True, recv)
    return Function("F", facts.module, func_scope, on_instance, recv)


def c3(seqs: list[list[ClassKey]]) -> list[ClassKey]:
    """C3 merge of the bases' linearizations (depth-first order when inconsistent)."""
    out: list[ClassKey] = []
    seqs = [list(s) for s in seqs if s]
    while seqs:
        for s in seqs:
            head = s[0]
            if not any(head in other[1:] for other in seqs):
                break
        else:
            # inconsistent hierarchy: fall back to depth-first order
            for s in seqs:
                for c in s:
                    if c not in out:
                        out.append(c)
            return out
        out.append(head)
        seqs = [[c for c in s if c != head] for s in seqs]
        seqs = [s for s in seqs if s]
    return out
