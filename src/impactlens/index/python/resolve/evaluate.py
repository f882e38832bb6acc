"""The evaluator: candidate values of an encoded expression, across modules.

:class:`Evaluator` answers "what may this expression be" for the expressions extract.py
encoded (``Enc``), against the facts of the modules they name, which it obtains only
through a :class:`ModuleLookup` — so an answer depends on nothing else. Each answer is a
list of candidate values (:mod:`.values`) plus an ``inferred`` flag: True when a step
relied on an annotation, a return-type inference or a field's assigned values rather
than on names alone. Every question is memoized for the evaluator's lifetime (one file's
resolution) with a cycle guard (:mod:`.memo`).

Class lookups (MRO, attributes, fields) are in :mod:`.classes`, module lookups (members,
``__all__``) in :mod:`.modules`; both are mixed into the one evaluator, whose memos a
flow's evaluator shares (:meth:`Evaluator.for_flow`).
"""

from __future__ import annotations

from typing import Any

from impactlens.index.python.facts import (
    B_CLASS,
    B_DEF,
    B_IMPORT,
    B_PARAM,
    CLASS,
    F_GENERATOR,
    FUNCTION,
    MODULE,
    Enc,
    PyFileFacts,
)
from impactlens.index.python.resolve import builtin_types
from impactlens.index.python.resolve.classes import ClassLookup
from impactlens.index.python.resolve.fixtures import Fixtures
from impactlens.index.python.resolve.memo import memo
from impactlens.index.python.resolve.modules import BUILTINS, ModuleLookup, Modules
from impactlens.index.python.resolve.values import (
    EMPTY,
    GLOBALS,
    LOCATIONS,
    NONE_V,
    OPAQUE,
    U_NAME,
    U_RECV,
    XI,
    Builtin,
    BuiltinInstance,
    BuiltinMember,
    Class,
    CopiedMethod,
    DictDisplay,
    External,
    ExternalMember,
    ExternalValue,
    Field,
    FixedTuple,
    Function,
    Generator,
    Instance,
    Items,
    Mapping,
    Module,
    NoneValue,
    Property,
    PropertyObject,
    SeqDisplay,
    Sequence,
    Super,
    TypeAlias,
    Unknown,
    Val,
    Variable,
)
from impactlens.index.python.strong_updates import nested_name

_BUILTIN_RESULT = {
    "str": "str", "repr": "str", "format": "str", "ascii": "str", "chr": "str", "hex": "str",
    "oct": "str", "bin": "str", "int": "int", "len": "int", "hash": "int", "ord": "int",
    "id": "int", "abs": "int", "float": "float", "bool": "bool", "isinstance": "bool",
    "issubclass": "bool", "callable": "bool", "hasattr": "bool", "all": "bool", "any": "bool",
    "dict": "dict", "bytes": "bytes", "bytearray": "bytearray", "complex": "complex",
    "object": "object", "range": "range", "slice": "slice", "memoryview": "memoryview",
}
_SEQ_BUILTINS = frozenset({"list", "sorted", "reversed", "tuple", "set", "frozenset", "iter"})
_ITERATED = (SeqDisplay, Sequence, Generator)  # what an ``__iter__`` may return directly
# memos that do not depend on the values of a flow's parameters (argflow.py): shared
# between a file's evaluator and the evaluators of its flows
_UNTYPED_PARAM = ("p",)  # the encoding of a parameter without an annotation
_PARAMETER_FREE = ("_mods", "_module_members", "_mro", "_exports", "_class_attrs", "_xbase",
                   "_framework_keys")
MAX_DEPTH = 50  # nested binding evaluations before a value is taken as unknown
MAX_RETURN_DEPTH = 40  # nested return-value (and type alias) evaluations


def _add(out: Items, got: Items) -> None:
    """Append the candidates of ``got`` not yet in ``out`` (candidates stay ordered)."""
    for g in got:
        if g not in out:
            out.append(g)


class Evaluator(Modules, ClassLookup, Fixtures):
    """Evaluates encoded expressions for one file's resolution (memoized per instance)."""

    def __init__(self, facts: PyFileFacts, lookup: ModuleLookup) -> None:
        self.facts = facts
        self.lookup = lookup
        self.sibling = facts.is_test or facts.is_conftest
        self._mods: dict[str, PyFileFacts | None] = {facts.module: facts}
        self._module_members: dict[Any, Items | None] = {}
        self._exports: dict[Any, frozenset[str] | None] = {}
        self._mro: dict[Any, Any] = {}
        self._class_attrs: dict[Any, tuple[Items, bool]] = {}
        self._xbase: dict[Any, str] = {}
        self._framework_keys: dict[str, Any] = {}
        self._fields: dict[Any, tuple[Items, bool]] = {}
        self._bindings: dict[Any, tuple[Items, bool]] = {}
        self._returns: dict[Any, tuple[Items, bool]] = {}
        self._yields: dict[Any, Items] = {}
        self._conftests_of: dict[str, list[PyFileFacts]] = {}
        self._module_fixtures: dict[str, dict[str, int]] = {}
        self._iter: dict[Any, Items] = {}
        self._entries: dict[Any, Items | None] = {}
        self._dvals: dict[Any, Items] = {}
        self._attr_memo: dict[tuple[int, int, Any], tuple[Enc, tuple[Items, bool]]] = {}
        self.depth = 0
        # an argument flow (argflow.py): values of the flowed parameters,
        # (module, function scope, name) -> values
        self.flowed: dict[tuple[str, int, str], Items] = {}

    def for_flow(self, flowed: dict[tuple[str, int, str], Items]) -> Evaluator:
        """An evaluator of the same file with parameters bound to flowed values, sharing
        the memos those values cannot change."""
        child = Evaluator(self.facts, self.lookup)
        for name in _PARAMETER_FREE:
            setattr(child, name, getattr(self, name))
        child.flowed = flowed
        return child

    # ------------------------------------------------------------ expressions
    def ev(self, facts: PyFileFacts, scope: int, enc: Enc, recv: Any) -> tuple[Items, bool]:
        """Candidates for an encoded expression (locations not dereferenced)."""
        return _EVAL.get(enc[0], _unknown)(self, facts, scope, enc, recv)

    def vals(self, facts: PyFileFacts, scope: int, enc: Enc, recv: Any) -> tuple[Items, bool]:
        """Candidate values of an expression (locations dereferenced)."""
        items, inf = self.ev(facts, scope, enc, recv)
        return self.deref(items, inf)

    def deref(self, items: Items, inf: bool = False) -> tuple[Items, bool]:
        """Replace locations by the values stored in them."""
        for it in items:
            if type(it) in LOCATIONS:
                break
        else:
            return items, inf
        out: Items = []
        for it in items:
            t = type(it)
            if t is Variable:
                got, i2 = self.variable_vals(it)
            elif t is Field:
                got, i2 = self.field_vals(it.module, it.scope, it.name, it.recv)
            elif t is Property:
                got, _ = self.returns(it.module, it.scope, it.recv)
                i2 = True
            else:
                if it not in out:
                    out.append(it)
                continue
            inf = inf or i2
            _add(out, got)
        return out, inf

    def ev_attr(self, facts: PyFileFacts, scope: int, enc: Enc,
                recv: Any) -> tuple[Items, bool]:
        # attribute encodings are shared within a scope (extract.py), so one memo entry
        # serves every read of e.g. ``self.x`` and keeps long chains linear
        key = (id(enc), scope, recv)
        got = self._attr_memo.get(key)
        if got is not None and got[0] is enc:
            return got[1]
        base, inf = self.ev(facts, scope, enc[1], recv)
        if not base:
            res = EMPTY
        else:
            items, inf2 = self.attr(base, enc[2])
            res = (items, inf or inf2)
            if enc[1][0] == "n" and facts.scopes[scope].muts:
                res = self._stored_attr(facts, scope, enc, res)
        self._attr_memo[key] = (enc, res)
        return res

    def _stored_attr(self, facts: PyFileFacts, scope: int, enc: Enc,
                     res: tuple[Items, bool]) -> tuple[Items, bool]:
        """``obj.fn`` where this function stored ``obj.fn = value`` on its local ``obj``:
        the stored values join (and stand in for an attribute the class does not know)."""
        rows = facts.scopes[scope].muts.get(enc[1][1])
        key = "." + enc[2]
        stored: Items = []
        for k, e, s in rows or ():
            if k == key:
                got, _ = self.vals(facts, s, e, None)
                _add(stored, [g for g in got if type(g) is not NoneValue])
        if not stored:
            return res
        known = [v for v in res[0] if type(v) is not Unknown]
        _add(known, stored)
        return known, True

    def ev_from(self, facts: PyFileFacts, scope: int, enc: Enc,
                recv: Any) -> tuple[Items, bool]:
        got = self.module_member(enc[1], enc[2])
        if got is None:
            return [External("X", enc[1] + "." + enc[2])], False
        if not got:
            return [U_NAME], False
        return got, False

    def ev_import(self, facts: PyFileFacts, scope: int, enc: Enc,
                  recv: Any) -> tuple[Items, bool]:
        name = enc[1]
        target = self.mod(name)
        if target is not None:
            return [Module("M", target.module)], False
        if self._is_namespace_pkg(facts, name):
            return [Module("M", name)], False
        return [External("X", name)], False

    def ev_or(self, facts: PyFileFacts, scope: int, enc: Enc, recv: Any) -> tuple[Items, bool]:
        out: Items = []
        inf = False
        for e in enc[1]:
            items, i2 = self.ev(facts, scope, e, recv)
            inf = inf or i2
            _add(out, items)
        return out, inf

    def ev_isinstance(self, facts: PyFileFacts, scope: int, enc: Enc,
                      recv: Any) -> tuple[Items, bool]:
        """``x`` narrowed by ``isinstance(x, (A, B))``: an instance of any."""
        out: Items = []
        for e in enc[1]:
            vals, _ = self.vals(facts, scope, e, recv)
            for v in vals:
                t = type(v)
                if t is Class:
                    out.append(Instance("I", v.module, v.scope))
                elif t is External:
                    out.append(external_instance(v.dotted))
                elif t is Builtin:
                    out.append(XI)
        return out or [U_RECV], True

    def ev_not_instance(self, facts: PyFileFacts, scope: int, enc: Enc,
                        recv: Any) -> tuple[Items, bool]:
        """``x`` after ``if isinstance(x, A): return``: x's values but A's instances."""
        vals, inf = self.vals(facts, scope, enc[1], recv)
        excluded: set[tuple[str, int]] = set()
        for e in enc[2]:
            excluded.update((v.module, v.scope) for v in self.vals(facts, scope, e, recv)[0]
                            if type(v) is Class)
        if not excluded:
            return vals, inf
        return [v for v in vals if type(v) is not Instance
                or excluded.isdisjoint(self.mro((v.module, v.scope))[0])], inf

    def ev_class_of(self, facts: PyFileFacts, scope: int, enc: Enc,
                    recv: Any) -> tuple[Items, bool]:
        """``type(x)``."""
        vals, inf = self.vals(facts, scope, enc[1], recv)
        out: Items = []
        for v in vals:
            t = type(v)
            if t is Instance:
                out.append(Class("C", v.module, v.scope))
            elif t is ExternalValue or t is BuiltinInstance:
                out.append(XI)
            else:
                out.append(U_RECV)
        return out, inf

    # ----------------------------------------------------------------- names
    def ev_name(self, facts: PyFileFacts, scope: int, enc: Enc,
                recv: Any) -> tuple[Items, bool]:
        name, reach = enc[1], enc[2]
        scopes = facts.scopes
        sc = scopes[scope]
        if type(reach) is int:
            reach = sc.lreach[reach]
        if reach:
            if sc.kind == FUNCTION:
                if len(reach) == 1:
                    return self.binding_vals(facts, scope, reach[0], recv)
                return self._local_vals(facts, scope, reach, recv)
            return self.scope_binding_items(facts, scope, reach, name, recv)
        s = scope
        first = True
        while s >= 0:
            sc = scopes[s]
            if sc.kind == MODULE:
                return self.module_name(facts, name)
            if first or sc.kind == FUNCTION:
                if not (sc.kind == FUNCTION and name in sc.glob):
                    bids = sc.byname.get(name)
                    if bids:
                        if sc.kind == FUNCTION:
                            return self._local_vals(facts, s, bids, recv)
                        return self.scope_binding_items(facts, s, bids, name, recv)
                elif first:
                    return self.module_name(facts, name)
            first = False
            s = sc.parent
        return [U_NAME], False

    def _local_vals(self, facts: PyFileFacts, scope: int, bids: Any,
                    recv: Any) -> tuple[Items, bool]:
        if len(bids) == 1:
            return self.binding_vals(facts, scope, bids[0], recv)
        out: Items = []
        inf = False
        for b in bids:
            got, i2 = self.binding_vals(facts, scope, b, recv)
            inf = inf or i2
            _add(out, got)
        return out, inf

    def scope_binding_items(self, facts: PyFileFacts, scope: int, bids: Any, name: str,
                            recv: Any) -> tuple[Items, bool]:
        """Bindings of a module or class scope: definitions, imports or locations."""
        sc = facts.scopes[scope]
        out: Items = []
        assign: list[int] = []
        inf = False
        for b in bids:
            bind = sc.binds[b]
            if bind[4] in (B_DEF, B_CLASS, B_IMPORT):
                got, i2 = self.ev(facts, scope, bind[1], recv)
                inf = inf or i2
                _add(out, got)
            else:
                assign.append(b)
        if assign:
            if sc.kind == MODULE:
                out.append(Variable("V", facts.module, name, tuple(assign)))
            else:
                out.append(Field("FLD", facts.module, scope, name, None))
        return out, inf

    def module_name(self, facts: PyFileFacts, name: str) -> tuple[Items, bool]:
        """A name read at module level after the module ran (globals of functions)."""
        got = self.module_member(facts.module, name)
        if got:
            return got, False
        if name in BUILTINS:
            return [Builtin("B", name)], False
        return [U_NAME], False

    def variable_vals(self, v: Variable) -> tuple[Items, bool]:
        facts = self.mod(v.module)
        if facts is None:
            return [U_RECV], False
        out: Items = []
        inf = False
        for b in v.bindings:
            got, i2 = self.binding_vals(facts, 0, b, None)
            inf = inf or i2
            _add(out, got)
        return out, inf

    @memo("_bindings", ([], False),
          key=lambda facts, scope, bid, recv: (facts.module, scope, bid, recv))
    def binding_vals(self, facts: PyFileFacts, scope: int, bid: int,
                     recv: Any) -> tuple[Items, bool]:
        """Values of one binding of a name."""
        if self.depth > MAX_DEPTH:
            return [U_RECV], False
        self.depth += 1
        try:
            sc = facts.scopes[scope]
            bind = sc.binds[bid]
            flowed = self.flowed.get((facts.module, scope, bind[0])) if (
                self.flowed and bind[4] == B_PARAM) else None
            given = flowed or (self.fixture_value(facts, scope, bind[0])
                               if bind[1] == _UNTYPED_PARAM else None)
            res = (given, True) if given else self.vals(facts, scope, bind[1], recv)
            if sc.muts and bind[0] in sc.muts:
                res = (_with_mutation(res[0], (facts.module, scope, bind[0])), res[1])
        finally:
            self.depth -= 1
        return res

    # ------------------------------------------------------------ containers
    def mut_entries(self, mutation: Any) -> list[tuple[Any, PyFileFacts, int, Enc]]:
        """(key, facts, scope, value enc) entries stored into a container variable."""
        if mutation is None:
            return []
        facts = self.mod(mutation[0])
        if facts is None:
            return []
        return [(k, facts, s, e) for k, e, s in facts.scopes[mutation[1]].muts.get(mutation[2], ())]

    # a display holding a value computed from itself (``d[k] = d.get(k) + 1``): nothing more
    @memo("_dvals", [])
    def display_values(self, v: Val) -> Items:
        """Every value a dict display holds: its entries and the later stores into it."""
        out: Items = []
        facts = self.mod(v.module)
        if facts is None:
            return out
        encs = [(facts, v.scope, e) for e in v.enc[2]]
        encs.extend((efacts, es, e) for _k, efacts, es, e in self.mut_entries(v.mutation))
        for efacts, es, e in encs:
            got, _ = self.vals(efacts, es, e, v.recv)
            _add(out, [g for g in got if type(g) is not NoneValue])
        return out

    @memo("_entries", None)
    def entry_vals(self, v: Val, key: Any) -> Items | None:
        """Values of ``display[key]`` (literal key), or None if the entry is unknown."""
        facts = self.mod(v.module)
        if facts is None:
            return None
        cands: list[tuple[PyFileFacts, int, Enc]] = []
        if type(v) is DictDisplay:
            keys = [self.literal_key(facts, v.scope, k) for k in v.enc[1]]
            if key in keys:
                cands.append((facts, v.scope, v.enc[2][keys.index(key)]))
        elif -len(v.elems) <= key < len(v.elems):
            cands.append((facts, v.scope, v.elems[key]))
        for k, efacts, es, e in self.mut_entries(v.mutation):
            if k is None or k == key:
                cands.append((efacts, es, e))
        if not cands:
            return None
        out: Items = []
        inner = (v.mutation[0], v.mutation[1], nested_name(v.mutation[2], key)) if (
            v.mutation is not None and isinstance(key, str | int)) else None
        for cfacts, cs, e in cands:
            got, _ = self.vals(cfacts, cs, e, v.recv)
            for g in got:
                if inner is not None and (type(g) is DictDisplay or type(g) is SeqDisplay) \
                        and g.mutation is None:
                    g = g._replace(mutation=inner)  # later ``d[key][k] = x`` stores
                if g not in out and type(g) is not NoneValue:
                    out.append(g)
        return out

    def literal_key(self, facts: PyFileFacts, scope: int, key: Any) -> Any:
        """A subscript's key: a literal, ``("slice", lo, hi)``, or for ``("key", enc)``
        (a name) the str every binding of the constant it names holds; else None."""
        if type(key) is not tuple or key[0] != "key":
            return key
        items, _ = self.ev(facts, scope, key[1], None)
        lits: set[str] = set()
        for it in items:
            if type(it) is not Variable:
                return None
            vfacts = self.mod(it.module)
            if vfacts is None:
                return None
            for b in it.bindings:
                benc = vfacts.scopes[0].binds[b][1]
                if benc[0] != "k" or len(benc) < 3:
                    return None
                lits.add(benc[2])
        return lits.pop() if len(lits) == 1 else None

    def ev_sub(self, facts: PyFileFacts, scope: int, enc: Enc, recv: Any) -> tuple[Items, bool]:
        """``base[key]``."""
        vals, inf = self.vals(facts, scope, enc[1], recv)
        key = self.literal_key(facts, scope, enc[2])
        out: Items = []
        for v in vals:
            t = type(v)
            if t is Class:
                out.append(v)  # Generic[T] alias
            elif t is SeqDisplay and type(key) is tuple and v.mutation is None:
                out.append(v._replace(elems=v.elems[key[1]:key[2]]))  # a literal slice
            elif (t is DictDisplay and key is not None) or (
                    t is SeqDisplay and isinstance(key, int)):
                got = self.entry_vals(v, key)
                out.extend(got if got is not None else [U_RECV])
            elif t is SeqDisplay or t is Sequence or t is Generator:
                out.extend(self.iterate([v]))
            elif t is FixedTuple:
                out.extend(self.unpack([v], key) if isinstance(key, int) and key >= 0
                           else self.iterate([v]))
            elif t is Mapping:
                out.extend(v.values)
            elif t is Instance:
                out.extend(self.dunder_returns(v, "__getitem__") or [U_RECV])
            elif t is BuiltinInstance and v.typename in ("str", "bytes"):
                out.append(v)
            else:
                out.append(U_RECV)
        return out, inf

    def unpack(self, vals: Items, i: int) -> Items:
        """Element ``i`` of destructuring each value (``a, b = value``)."""
        out: Items = []
        for v in vals:
            t = type(v)
            if t is SeqDisplay:
                got = self.entry_vals(v, i)
                got = got if got is not None else [U_RECV]
            elif t is FixedTuple:
                got = list(v.parts[i]) if i < len(v.parts) else [U_RECV]
            elif t is NoneValue:
                continue
            else:
                got = self.iterate([v])
            _add(out, got)
        return out

    def iterate(self, vals: Items) -> Items:
        """Element values of iterating each value (memoized per value; cycle-safe)."""
        if len(vals) == 1:
            return list(self._iterate_one(vals[0]))
        out: Items = []
        for v in vals:
            _add(out, self._iterate_one(v))
        return out

    # in progress: a container holding itself adds nothing
    @memo("_iter", [])
    def _iterate_one(self, v: Val) -> Items:
        out: Items = []
        t = type(v)
        if t is SeqDisplay:
            sfacts = self.mod(v.module)
            if sfacts is None:
                return out
            elems = [(sfacts, v.scope, e) for e in v.elems]
            elems.extend((efacts, es, e) for _k, efacts, es, e in self.mut_entries(v.mutation))
            for efacts, es, e in elems:
                got, _ = self.vals(efacts, es, e, v.recv)
                for g in got:
                    if g not in out and type(g) is not NoneValue:
                        out.append(g)
        elif t is Sequence:
            _add(out, list(v.items))
        elif t is Generator:
            _add(out, self.yields(v.module, v.scope, v.recv))
        elif t is FixedTuple:
            for part in v.parts:
                _add(out, list(part))
        elif t is Mapping:
            _add(out, list(v.keys))
        elif t is BuiltinInstance and v.typename in ("str",):
            out.append(v)
        elif t is DictDisplay:
            out.append(BuiltinInstance("K", "str"))
        elif t is Instance:
            _add(out, self._iterate_instance(v) or [U_RECV])
        elif t is NoneValue:
            return out
        else:
            out.append(U_RECV)
        return out

    def _iterate_instance(self, v: Instance) -> Items:
        """Elements of iterating an instance: through its ``__iter__`` (and what that
        returns: a container, a generator, or an iterator with ``__next__``)."""
        res: Items = []
        for x in self.dunder_returns(v, "__iter__"):
            if type(x) in _ITERATED:
                res.extend(self.iterate([x]))
            elif type(x) is Instance:  # an iterator: elements come from __next__
                res.extend(self.dunder_returns(x, "__next__"))
            else:
                res.append(U_RECV)
        return res

    def dunder_returns(self, v: Instance, dunder: str) -> Items:
        """What the repository functions an instance's class gives for ``dunder`` return."""
        got, _ = self.class_attr((v.module, v.scope), dunder, True)
        out: Items = []
        for f in got:
            if type(f) is Function:
                r, _ = self.returns(f.module, f.scope, f.recv)
                out.extend(r)
        return out

    def enter(self, vals: Items) -> Items:
        """The values ``with value as x`` binds."""
        out: Items = []
        for v in vals:
            t = type(v)
            if t is Instance:
                got, _ = self.class_attr((v.module, v.scope), "__enter__", True)
                if not got:
                    got, _ = self.class_attr((v.module, v.scope), "__aenter__", True)
                res: Items = []
                for it in got:
                    if type(it) is Function:
                        r, _ = self.returns(it.module, it.scope, it.recv)
                        res.extend(r)
                    else:
                        res.append(U_RECV if type(it) is Unknown else XI)
                out.extend(res or [U_RECV])
            elif t is Sequence:
                out.extend(v.items)  # @contextmanager def f() -> Iterator[T]
            elif t is Generator:
                out.extend(self.yields(v.module, v.scope, v.recv))  # ...: yield x
            elif t is ExternalValue or t is External:
                out.append(XI)
            else:
                out.append(U_RECV)
        return out

    # ----------------------------------------------------------------- calls
    def ev_call(self, facts: PyFileFacts, scope: int, enc: Enc,
                recv: Any) -> tuple[Items, bool]:
        """The result of calling ``enc[1]``."""
        fitems, inf = self.ev(facts, scope, enc[1], recv)
        fvals, inf = self.deref(fitems, inf)
        out: Items = []
        for v in fvals:
            t = type(v)
            if t is Function or t is CopiedMethod:
                got, i2 = self.returns(v.module, v.scope, v.recv)
                inf = inf or i2
            elif t is Class:
                got = [Instance("I", v.module, v.scope)]
            elif t is Instance:
                got, i2 = self.call_instance(v)
                inf = inf or i2
            elif t is External:
                if len(enc) > 2 and v.dotted.rpartition(".")[2] in ("copy", "deepcopy"):
                    got, _ = self.vals(facts, scope, enc[2], recv)
                else:
                    got = [ExternalValue("XI", v.dotted) if looks_like_class(v.dotted) else XI]
            elif t is ExternalValue or t is ExternalMember:
                got = [XI]
            elif t is BuiltinMember:
                got = builtin_types.result(self, facts, scope, v, enc, recv)
            elif t is Builtin:
                got = self.builtin_result(facts, scope, v.name, enc, recv)
            else:
                got = [U_RECV]
            _add(out, got)
        return out, inf

    def builtin_result(self, facts: PyFileFacts, scope: int, name: str, enc: Enc,
                       recv: Any) -> Items:
        k = _BUILTIN_RESULT.get(name)
        if k is not None:
            return [BuiltinInstance("K", k)]
        if len(enc) > 2 and (name in _SEQ_BUILTINS or name == "next"):
            vals, _ = self.vals(facts, scope, enc[2], recv)
            elems = self.iterate(vals)
            if name == "next":
                return elems
            return [Sequence("SEQ", tuple(elems))]
        if name == "open":
            return [XI]
        if name in builtin_types.PSEUDO:  # ``set()``, ``list()``: an empty container
            return [BuiltinInstance("K", name)]
        return [U_RECV]

    def call_instance(self, v: Instance) -> tuple[Items, bool]:
        return self.dunder_returns(v, "__call__") or [U_RECV], True

    @memo("_returns", ([], True))
    def returns(self, module: str, func_scope: int, recv: Any) -> tuple[Items, bool]:
        """Values a call of function ``func_scope`` returns."""
        facts = self.mod(module)
        if facts is None:
            return [U_RECV], True
        sc = facts.scopes[func_scope]
        out: Items = []
        if self.depth > MAX_RETURN_DEPTH:
            return [U_RECV], True
        self.depth += 1
        try:
            if sc.ret is not None:
                out, _ = self.vals(facts, func_scope, sc.ret, recv)
            elif sc.flags & F_GENERATOR:
                out = [Generator("GEN", module, func_scope, recv)]
            elif not sc.returns:
                out = [NONE_V]
            else:
                for e in sc.returns:
                    vals, _ = self.vals(facts, func_scope, e, recv)
                    _add(out, vals)
        finally:
            self.depth -= 1
        return out, True

    @memo("_yields", [])
    def yields(self, module: str, func_scope: int, recv: Any) -> Items:
        """Values a generator function yields (``yield x``; ``yield from`` is unknown)."""
        facts = self.mod(module)
        out: Items = []
        if facts is not None:
            for e in facts.scopes[func_scope].yields:
                vals, _ = self.vals(facts, func_scope, e, recv)
                _add(out, vals)
        return out

    # ----------------------------------------------------------- annotations
    def ev_ann(self, facts: PyFileFacts, scope: int, enc: Enc,
               recv: Any) -> tuple[Items, bool]:
        alts, ctx, value = enc[1], enc[2], enc[3]
        out = self.ann_vals(facts, ctx, alts, recv)
        if (not out or all(type(o) is Unknown for o in out)) and value is not None:
            got, _ = self.vals(facts, ctx, value, recv)
            return got, True
        return out, True

    def ann_vals(self, facts: PyFileFacts, ctx: int, alts: tuple[Enc, ...],
                 recv: Any) -> Items:
        """Values an annotation's alternatives describe (evaluated in scope ``ctx``)."""
        out: Items = []
        for a in alts:
            t = a[0]
            if t == "t":
                vals, _ = self.vals(facts, ctx, a[1], recv)
                out.extend(self._annotated_instances(vals, recv))
            elif t == "none":
                out.append(NONE_V)
            elif t == "seq":
                out.append(Sequence("SEQ", tuple(self.ann_vals(facts, ctx, a[1], recv))))
            elif t == "type":
                for v in self.ann_vals(facts, ctx, a[1], recv):
                    if type(v) is Instance:
                        out.append(Class("C", v.module, v.scope))
            elif t == "tup":
                out.append(FixedTuple("TUP", tuple(tuple(self.ann_vals(facts, ctx, part, recv))
                                                   for part in a[1])))
            elif t == "map":
                out.append(Mapping("MAP", tuple(self.ann_vals(facts, ctx, a[1], recv)),
                                   tuple(self.ann_vals(facts, ctx, a[2], recv))))
            elif t == "self":
                if recv is not None:
                    out.append(Instance("I", *recv))
                elif facts.scopes[ctx].kind == CLASS:
                    out.append(Instance("I", facts.module, ctx))
        return out

    def _annotated_instances(self, vals: Items, recv: Any) -> Items:
        """``x: A``: instances of the classes ``A`` evaluates to."""
        out: Items = []
        for v in vals:
            vt = type(v)
            if vt is Class:
                out.append(Instance("I", v.module, v.scope))
            elif vt is TypeAlias:  # a type alias: its own annotation
                afacts = self.mod(v.module)
                if afacts is not None and self.depth < MAX_RETURN_DEPTH:
                    self.depth += 1
                    try:
                        out.extend(self.ann_vals(afacts, v.scope, v.alts, recv))
                    finally:
                        self.depth -= 1
            elif vt is External:
                out.append(external_instance(v.dotted))
            elif vt is Builtin or vt is ExternalValue:
                out.append(XI)
            elif vt is Unknown:
                out.append(v)
        return out

    # ------------------------------------------------------------ attributes
    def attr(self, base: Items, name: str) -> tuple[Items, bool]:
        """Candidates of ``base.name`` for each candidate of ``base``."""
        if len(base) == 1:
            v = base[0]
            t = type(v)
            if t is Instance:
                return self.class_attr((v.module, v.scope), name, True)
            if t is ExternalValue or t is BuiltinInstance:
                return [external_member(v, name)], False
        base, inf = self.deref(base)
        out: Items = []
        for v in base:
            t = type(v)
            if t is Module:
                got = self.module_member(v.module, name)
                if got is None:
                    got = [External("X", v.module + "." + name)]
                elif not got:
                    got = [U_NAME]
            elif t is Instance:
                got, i2 = self.class_attr((v.module, v.scope), name, True)
                inf = inf or i2
            elif t is Class:
                got, i2 = self.class_attr((v.module, v.scope), name, False)
                inf = inf or i2
            elif t is Super:
                got, i2 = self.super_attr(v, name)
            elif t is External:
                got = [External("X", v.dotted + "." + name)]
            elif t is ExternalValue or t is BuiltinInstance or t is SeqDisplay or (
                    t is DictDisplay):
                got = [external_member(v, name)]
            elif t in OPAQUE:
                got = [XI]
            elif t is Function:
                got = [XI]  # function attributes (decorator-added): outside the repo
            elif t is NoneValue:
                continue
            elif t is Unknown:
                got = [v]
            else:
                got = [U_RECV]
            _add(out, got)
        return out, inf


# classes of the standard library whose names are not capitalized
_LOWER_CLASSES = frozenset({
    "datetime.datetime", "datetime.date", "datetime.time", "datetime.timedelta",
    "collections.defaultdict", "collections.deque", "array.array", "decimal.localcontext"})
# annotations naming no class whose methods could be called
_NOT_CLASSES = ("typing.", "typing_extensions.", "types.")


def looks_like_class(dotted: str) -> bool:
    """Whether calling external ``dotted`` builds an instance of it: a capitalized last
    name (``queue.Queue``, not ``os.getcwd``; not an ALL_CAPS constant) or a known one."""
    last = dotted.rpartition(".")[2]
    return ((last[:1].isupper() and not last.isupper() and not dotted.startswith(_NOT_CLASSES))
            or dotted in _LOWER_CLASSES)


def external_instance(dotted: str) -> ExternalValue:
    """An instance of the external class an annotation or ``isinstance`` names."""
    return XI if dotted.startswith(_NOT_CLASSES) else ExternalValue("XI", dotted)


def external_member(v: Any, name: str) -> Any:
    """``v.name`` of an external value: a named member when ``v``'s class is known."""
    if type(v) is ExternalValue:
        return ExternalMember("XM", v.dotted + "." + name) if v.dotted else XI
    return builtin_types.member(v, name) or XI


def _with_mutation(vals: Items, mutation: tuple[str, int, str]) -> Items:
    """A container variable's displays, marked with the variable (its later stores)."""
    return [v._replace(mutation=mutation) if type(v) is SeqDisplay or type(v) is DictDisplay
            else v for v in vals]


# --------------------------------------------------------------- dispatch table
# one handler per encoding tag (facts.py lists them); each takes
# (evaluator, facts, scope, enc, recv) and returns (candidates, inferred)
def _unknown(ev: Evaluator, facts: PyFileFacts, scope: int, enc: Enc,
             recv: Any) -> tuple[Items, bool]:
    return [U_RECV], False


def _constant(value: Val) -> Any:
    def handler(ev: Evaluator, facts: PyFileFacts, scope: int, enc: Enc,
                recv: Any) -> tuple[Items, bool]:
        return [value], False
    return handler


def _iterated(ev: Evaluator, facts: PyFileFacts, scope: int, enc: Enc,
              recv: Any) -> tuple[Items, bool]:
    vals, inf = ev.vals(facts, scope, enc[1], recv)
    return ev.iterate(vals), inf


def _entered(ev: Evaluator, facts: PyFileFacts, scope: int, enc: Enc,
             recv: Any) -> tuple[Items, bool]:
    vals, inf = ev.vals(facts, scope, enc[1], recv)
    return ev.enter(vals), True if vals else inf


def _unpacked(ev: Evaluator, facts: PyFileFacts, scope: int, enc: Enc,
              recv: Any) -> tuple[Items, bool]:
    vals, inf = ev.vals(facts, scope, enc[1], recv)
    return ev.unpack(vals, enc[2]), inf


def _super(ev: Evaluator, facts: PyFileFacts, scope: int, enc: Enc,
           recv: Any) -> tuple[Items, bool]:
    if enc[1] < 0:
        return [U_RECV], False
    return [Super("SUP", facts.module, enc[1], recv)], False


_EVAL: dict[str, Any] = {
    "n": Evaluator.ev_name,
    "a": Evaluator.ev_attr,
    "c": Evaluator.ev_call,
    "self": lambda ev, facts, scope, enc, recv: (
        [Instance("I", *(recv or (facts.module, enc[1])))], False),
    "an": Evaluator.ev_ann,
    "k": lambda ev, facts, scope, enc, recv: ([BuiltinInstance("K", enc[1])], False),
    "none": _constant(NONE_V),
    "def": lambda ev, facts, scope, enc, recv: (
        [Function("F", facts.module, enc[1], False, None)], False),
    "cls": lambda ev, facts, scope, enc, recv: ([Class("C", facts.module, enc[1])], False),
    "from": Evaluator.ev_from,
    "imp": Evaluator.ev_import,
    "or": Evaluator.ev_or,
    "sub": Evaluator.ev_sub,
    "it": _iterated,
    "en": _entered,
    "isi": Evaluator.ev_isinstance,
    "nisi": Evaluator.ev_not_instance,
    "clsp": lambda ev, facts, scope, enc, recv: (
        [Class("C", *(recv or (facts.module, enc[1])))], False),
    "sup": _super,
    "ctype": Evaluator.ev_class_of,
    "sl": lambda ev, facts, scope, enc, recv: (
        [SeqDisplay("SL", facts.module, scope, enc[2], recv, None, enc[1])], False),
    "dl": lambda ev, facts, scope, enc, recv: (
        [DictDisplay("DL", facts.module, scope, enc, recv, None)], False),
    "glob": _constant(GLOBALS),
    "dyn": lambda ev, facts, scope, enc, recv: ([], False),
    "ix": _unpacked,
    "prop": lambda ev, facts, scope, enc, recv: (
        [PropertyObject("PROPOBJ", facts.module, scope, enc)], False),
    "alias": lambda ev, facts, scope, enc, recv: (
        [TypeAlias("ALIAS", facts.module, enc[2], enc[1])], False),
}
