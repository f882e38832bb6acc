"""Site resolution: the edges and unresolved sites of a scope's calls and references.

:class:`Sites` asks an :class:`~.evaluate.Evaluator` what each call site's callee and each
reference's target may be, and emits the edges (``call``, ``instantiate``, ``use``) and
the sites it cannot follow (unresolved, with a reason). It also seeds the receiver-class
contexts (:mod:`.contexts`) and the argument flows (argflow.py) the calls start. The
object :func:`~impactlens.index.python.resolve.resolver` yields is a ``Sites``.
"""

from __future__ import annotations

from typing import Any

from impactlens.index.python import argflow
from impactlens.index.python.facts import (
    FUNCTION,
    MODULE,
    P_POS,
    P_POSONLY,
    Enc,
    PyFileFacts,
)
from impactlens.index.python.resolve.contexts import ReceiverContexts
from impactlens.index.python.resolve.edges import (
    K_CALL,
    K_INSTANTIATE,
    K_USE,
    R_AMBIGUOUS,
    R_EXACT,
    R_INFERRED,
    U_DYNAMIC_GETATTR,
    U_EVAL,
    U_EXTERNAL,
    U_GLOBALS,
    U_IMPORTLIB,
    U_MODULE_GETATTR,
    U_REGISTRY_DISPATCH,
    U_UNKNOWN_NAME,
    U_UNKNOWN_RECEIVER,
    Sink,
    call_detail,
    deco_detail,
    render,
    site_names,
    site_text,
    use_detail,
)
from impactlens.index.python.resolve.evaluate import Evaluator
from impactlens.index.python.resolve.memo import memo
from impactlens.index.python.resolve.modules import ModuleLookup
from impactlens.index.python.resolve.values import (
    Builtin,
    BuiltinMember,
    Class,
    ClassKey,
    CopiedMethod,
    DictDisplay,
    External,
    ExternalMember,
    ExternalValue,
    Field,
    Function,
    Instance,
    Items,
    Module,
    Property,
    SeqDisplay,
    Unknown,
    Val,
    Variable,
)

_EXTERNAL = frozenset({External, ExternalValue, ExternalMember, BuiltinMember})
_IMPLICIT = frozenset({"deco", "raise", "iter", "with", "op", "classdef"})
_CALLBACK_BUILTINS = frozenset({"map", "filter", "sorted", "min", "max"})
_SPECIAL_REASONS = {"getattr": U_DYNAMIC_GETATTR, "eval": U_EVAL, "importlib": U_IMPORTLIB,
                    "globals": U_GLOBALS}
# what an unknown callee stands for: a name bound nowhere, one a module __getattr__ serves
_UNKNOWN_REASONS = {"name": U_UNKNOWN_NAME, "lazy": U_MODULE_GETATTR}
# a function or class referred to by name ("ref") or by a dotted-path string ("path")
_REF_ACCESS = {"r": use_detail("ref"), "p": use_detail("path")}
_MAX_CALLEES = 64  # candidate callees followed per site (locations add their values)
_NO_WRAPPERS: tuple[Items, bool] = ([], False)
# a dunder call the interpreter makes: (call detail's argument count, bound)
_DUNDER = call_detail(0, (), False, False, True)


class Sites:
    """Resolves one file's sites (and, on demand, other files' scopes) into raw edges."""

    def __init__(self, facts: PyFileFacts, lookup: ModuleLookup,
                 evaluator: Evaluator | None = None) -> None:
        ev = evaluator or Evaluator(facts, lookup)
        self.facts = facts
        self.lookup = lookup
        self.evaluator = ev
        # the evaluator's questions, asked here and by the resolver's users (test
        # discovery, argument flows, the closed world, the edit's obligations)
        self.mod, self.ev, self.vals, self.deref = ev.mod, ev.ev, ev.vals, ev.deref
        self.mro, self.class_attr, self.returns = ev.mro, ev.class_attr, ev.returns
        self.module_member, self.entry_vals = ev.module_member, ev.entry_vals
        self.contexts = ReceiverContexts(ev)
        self.self_sites, self.ctx_names = self.contexts.self_sites, self.contexts.ctx_names
        self._scope_edges: dict[Any, Sink] = {}
        self._wrap: dict[Any, tuple[Items, bool]] = {}
        # argument flows (argflow.py): the queue, what was queued, the budget shared
        # with the flows' own resolvers, and how deep in flows this resolver is
        self.flows: list[Any] = []
        self.flow_seen: set[Any] = set()
        self.flow_budget = [argflow.MAX_FLOWS]
        self.flow_depth = 0
        self._flow_names: dict[tuple[str, int], frozenset[str]] = {}
        self._param_uses: dict[tuple[str, int], Any] = {}

    def flow_child(self, flowed: dict[tuple[str, int, str], Items],
                   undecorated: list[ClassKey]) -> Sites:
        """The resolver of an argument flow: parameters bound to ``flowed`` values, and
        the ``undecorated`` functions (passed as defined) called without their wrappers."""
        child = Sites(self.facts, self.lookup, self.evaluator.for_flow(flowed))
        child.contexts.share_memos(self.contexts)
        child._flow_names = self._flow_names
        child._param_uses = self._param_uses
        child.flow_budget = self.flow_budget
        child.flow_depth = self.flow_depth + 1
        for k in undecorated:
            child._wrap[(k,)] = _NO_WRAPPERS
        return child

    def receiver_contexts(self, raw: list[Any]) -> None:
        """Add the edges inherited code gives for the receivers seeded so far."""
        self.contexts.run(self, raw)

    # ------------------------------------------------------------------ ids
    def scope_id(self, module: str, scope: int) -> str:
        facts = self.evaluator._mods.get(module) or self.mod(module)
        if facts is None:
            return module
        return facts.scopes[scope].qual

    def item_id(self, it: Val) -> str | None:
        """The node id a value or location denotes, if any."""
        t = type(it)
        if t is Function or t is Class or t is Property:
            return self.scope_id(it.module, it.scope)
        if t is Variable:
            return it.module + "." + it.name
        if t is Field:
            return self.scope_id(it.module, it.scope) + "." + it.name
        if t is Module:
            return str(it.module)
        return None

    def _call_edge(self, sink: Sink, src: str, f: Any, line: int, res: str,
                   detail: str) -> None:
        """A call edge from ``src`` to function (or property getter) ``f``."""
        sink.edges.append((src, self.scope_id(f.module, f.scope), K_CALL, line, res, detail,
                           (f.module, f.scope)))

    # ---------------------------------------------------------------- calls
    def resolve_call(self, facts: PyFileFacts, scope: int, site: Any, src: str, sink: Sink,
                     recv: Any) -> None:
        """The edges (or the unresolved site) of one call site of ``scope``."""
        line, fenc, special = site[0], site[1], site[7]
        if special is not None:
            kind = special[0]
            if kind == "importlib" and special[1] is not None:
                return
            if kind in _IMPLICIT:
                self._implicit_call(facts, scope, site, kind, src, sink, recv)
                return
            text = (render(fenc) + "(...)") if kind != "globals" else render(fenc)
            sink.unresolved.append((line, facts.scopes[scope].qual, _SPECIAL_REASONS[kind],
                                    text[:160], tuple(special[2])))
            return
        if fenc[0] == "sub":
            if fenc[1][0] == "glob":
                return
            key = self.evaluator.literal_key(facts, scope, fenc[2])
            if key is None or not self._dict_key_known(facts, scope, fenc[1], key, recv):
                entries = [] if key is not None else self._any_entry(facts, scope, fenc[1],
                                                                     recv)
                if entries:  # a computed key into displays the repository wrote in full
                    self._emit_callee(facts, scope, entries, True, site, src, sink, recv)
                    return
                names = self._registry_names(facts, scope, fenc[1], recv)
                sink.unresolved.append((line, facts.scopes[scope].qual, U_REGISTRY_DISPATCH,
                                        site_text(fenc), names))
                return
        items, inf = self.ev(facts, scope, fenc, recv)
        self._emit_callee(facts, scope, items, inf, site, src, sink, recv)

    def _implicit_call(self, facts: PyFileFacts, scope: int, site: Any, kind: str, src: str,
                       sink: Sink, recv: Any) -> None:
        """Calls the interpreter makes: decorator factories' results, ``raise Error``,
        ``for`` (``__iter__``/``__next__``) and ``with`` (``__enter__``/``__exit__``)."""
        line, fenc, special = site[0], site[1], site[7]
        if kind == "op":
            self._dunder_call(facts, scope, site, src, sink, recv)
            return
        if kind == "classdef":
            self._class_creation(facts, site, src, sink)
            return
        if kind == "deco":
            items, inf = self.ev(facts, scope, fenc, recv)
            self._emit_callee(facts, scope, items, inf, site, src, sink, recv, quiet=True)
            return
        vals, inf = self.vals(facts, scope, fenc, recv)
        if kind == "raise":
            classes = [v for v in vals if type(v) is Class]
            if classes:
                self._emit_callee(facts, scope, classes, inf, site, src, sink, recv,
                                  quiet=True)
            return
        first, second = special[1], special[2]
        res = R_INFERRED if inf else R_EXACT
        for v in vals:
            if type(v) is not Instance:
                continue
            for f in self._methods(v, first):
                self._call_edge(sink, src, f, line, res, _DUNDER)
                if kind == "iter":  # the __next__ of the iterators __iter__ returns
                    rets, _ = self.returns(f.module, f.scope, f.recv)
                    for rv in rets:
                        if type(rv) is Instance:
                            self._method_edges(rv, second, src, line, R_INFERRED, _DUNDER,
                                               sink)
            if kind == "with":
                self._method_edges(v, second, src, line, res,
                                   call_detail(3, (), False, False, True), sink)

    def _methods(self, v: Instance, name: str) -> list[Function]:
        """The repository functions ``name`` gives on instance ``v``."""
        got, _ = self.class_attr((v.module, v.scope), name, True)
        return [f for f in got if type(f) is Function]

    def _method_edges(self, v: Instance, name: str, src: str, line: int, res: str,
                      detail: str, sink: Sink) -> bool:
        """Call edges from ``src`` to method ``name`` of instance ``v``; False if none."""
        fs = self._methods(v, name)
        for f in fs:
            self._call_edge(sink, src, f, line, res, detail)
        return bool(fs)

    def _dunder_call(self, facts: PyFileFacts, scope: int, site: Any, src: str, sink: Sink,
                     recv: Any) -> None:
        """``a + b`` → ``a.__add__`` (else ``b.__radd__``), ``x[k]``, ``len(x)``, ``k in x``...
        Only for receivers of a known repository class that defines the method."""
        line, fenc, nargs, special = site[0], site[1], site[2], site[7]
        _op, dunder, rdunder, right = special
        found = self._dunder_edges(facts, scope, fenc, dunder, nargs, line, src, sink, recv)
        if not found and dunder.startswith("__i") and rdunder:
            found = self._dunder_edges(facts, scope, fenc, rdunder, nargs, line, src, sink,
                                       recv)
        elif not found and right is not None and rdunder:
            self._dunder_edges(facts, scope, right, rdunder, nargs, line, src, sink, recv)

    def _dunder_edges(self, facts: PyFileFacts, scope: int, enc: Enc, dunder: str,
                      nargs: int, line: int, src: str, sink: Sink, recv: Any) -> bool:
        if enc[0] == "u":
            return False
        vals, inf = self.vals(facts, scope, enc, recv)
        found = False
        for v in vals:
            if type(v) is Instance and self._method_edges(
                    v, dunder, src, line, R_INFERRED if inf else R_EXACT,
                    call_detail(nargs, (), False, False, True), sink):
                found = True
        return found

    def _class_creation(self, facts: PyFileFacts, site: Any, src: str, sink: Sink) -> None:
        """``class C(Base, metaclass=M)`` calls ``Base.__init_subclass__`` and ``M``'s
        ``__new__``/``__init__`` (the metaclass may come from a base)."""
        line = site[0]
        ck = (facts.module, site[1][1])
        order, _gap = self.mro(ck)
        if len(order) > 1:
            got, _ = self.class_attr(ck, "__init_subclass__", False, 1)
            for f in got:
                if type(f) is Function:
                    self._call_edge(sink, src, f, line, R_EXACT,
                                    call_detail(0, (), False, True, True))
        for k in order:
            kfacts = self.mod(k[0])
            meta = kfacts.scopes[k[1]].meta if kfacts is not None else None
            if kfacts is None or meta is None:
                continue
            metas, _ = self.vals(kfacts, kfacts.scopes[k[1]].parent, meta, None)
            for m in metas:
                if type(m) is not Class:
                    continue
                for name, n in (("__new__", 4), ("__init__", 3)):
                    got, _ = self.class_attr((m.module, m.scope), name, True)
                    for f in got:
                        if type(f) is Function:
                            self._call_edge(sink, src, f, line, R_EXACT,
                                            call_detail(n, (), False, True, name == "__init__"))
            break

    def _dict_key_known(self, facts: PyFileFacts, scope: int, base: Enc, key: Any,
                        recv: Any) -> bool:
        """``table["lit"]`` / ``items[2]`` into a display whose entry is known."""
        vals, _ = self.vals(facts, scope, base, recv)
        if not vals:
            return False
        for v in vals:
            if (type(v) is DictDisplay or (type(v) is SeqDisplay and isinstance(key, int))) \
                    and self.entry_vals(v, key) is not None:
                continue
            return False
        return True

    def _any_entry(self, facts: PyFileFacts, scope: int, base: Enc, recv: Any) -> Items:
        """Every value ``base[key]`` may give for a key not known statically, when ``base``
        is only list/tuple/dict displays whose entries are all known; else []."""
        vals, _ = self.vals(facts, scope, base, recv)
        out: Items = []
        for v in vals:
            if type(v) is not DictDisplay and type(v) is not SeqDisplay:
                return []
            got = (self.evaluator.display_values(v) if type(v) is DictDisplay
                   else self.evaluator.iterate([v]))
            for g in got:
                if type(g) is Unknown:
                    return []  # a store of a value not known: the registry stays open
                if g not in out:
                    out.append(g)
        return out

    def _registry_names(self, facts: PyFileFacts, scope: int, base: Enc,
                        recv: Any) -> tuple[str, ...]:
        """The names of a registry-dispatch site: its own, then the functions and classes
        the registry displays hold."""
        names: list[str] = []
        if base[0] == "n":
            names.append(base[1])
        elif base[0] == "a":
            names.append(base[2])
        vals, _ = self.vals(facts, scope, base, recv)
        for v in vals:
            for m in self._display_members(v):
                if type(m) is Function or type(m) is Class:
                    i = self.item_id(m)
                    if i and i not in names:
                        names.append(i)
        return tuple(names[:32])

    def _display_members(self, v: Val) -> Items:
        """The values a list or dict display holds (its entries and later stores)."""
        members: Items = []
        if type(v) is DictDisplay or type(v) is SeqDisplay:
            dfacts = self.mod(v.module)
            if dfacts is not None:
                elems = v.enc[2] if isinstance(v, DictDisplay) else v.elems
                encs = [(dfacts, v.scope, e) for e in elems]
                encs.extend((efacts, es, e)
                            for _k, efacts, es, e in self.evaluator.mut_entries(v.mutation))
                for efacts, es, e in encs:
                    got, _ = self.vals(efacts, es, e, v.recv)
                    members.extend(got)
        return members

    def _emit_callee(self, facts: PyFileFacts, scope: int, items: Items, inf: bool, site: Any,
                     src: str, sink: Sink, recv: Any, quiet: bool = False) -> None:
        """The edges of a call site whose callee evaluated to ``items``."""
        if len(items) == 1 and self._emit_one(facts, scope, items[0], inf, site, src, sink,
                                              recv, quiet):
            return
        line, fenc, fargs = site[0], site[1], site[6]
        # pending: (dst, kind, bound, target key)
        pending: list[tuple[str, str, bool, Any]] = []
        primaries: list[str] = []
        unknown: str | None = None
        external = copied = False
        work = list(items)
        seen: set[Val] = set()
        i = 0
        while i < len(work) and i < _MAX_CALLEES:
            it = work[i]
            i += 1
            if it in seen:
                continue
            seen.add(it)
            t = type(it)
            if t is Function:
                self._pend(pending, primaries, self.scope_id(it.module, it.scope), K_CALL,
                           bool(it.bound), (it.module, it.scope))
                self._seed_callee(facts, scope, it, fargs, recv, line)
                if fargs:
                    argflow.note(self, facts, scope, fargs, recv, (it.module, it.scope),
                                 bool(it.bound), it.recv, line)
            elif t is Class:
                self._pend_construction(facts, scope, it, pending, primaries, fargs, recv,
                                        line)
            elif t is CopiedMethod:
                self._copied_call(it, site, src, sink)
                copied = True
            elif t is Instance:
                got, _ = self.class_attr((it.module, it.scope), "__call__", True)
                inf = True
                for f in got:
                    ft = type(f)
                    if ft is Function:
                        self._pend(pending, primaries, self.scope_id(f.module, f.scope),
                                   K_CALL, True, (f.module, f.scope))
                    elif ft is Unknown:
                        unknown = unknown or f.reason
                    elif ft in _EXTERNAL:
                        external = True
            elif t is Variable or t is Field:
                dst = self.item_id(it)
                if dst:
                    sink.edges.append((src, dst, K_USE, line, R_INFERRED if inf else R_EXACT,
                                       use_detail("read"), None))
                got, _ = self.deref([it])
                inf = True
                work.extend(got)
            elif t is Property:
                self._call_edge(sink, src, it, line, R_INFERRED if inf else R_EXACT, _DUNDER)
                got, _ = self.returns(it.module, it.scope, it.recv)
                inf = True
                work.extend(got)
            elif t in _EXTERNAL or t is Builtin:
                external = True
            elif t is Unknown and unknown != "recv":
                unknown = it.reason
        res = R_AMBIGUOUS if len(primaries) > 1 else R_INFERRED if inf else R_EXACT
        self._emit_pending(facts, scope, pending, res, site, src, sink, recv)
        if quiet:
            return
        if pending or copied:
            if external:  # some candidates are external (a StringIO or a repo Sink)
                self._external(facts, scope, fenc, line, work, sink)
            return
        if unknown is not None:
            reason = _UNKNOWN_REASONS.get(unknown, U_UNKNOWN_RECEIVER)
            sink.unresolved.append((line, facts.scopes[scope].qual, reason, site_text(fenc),
                                    site_names(fenc)))
        elif external:
            self._external(facts, scope, fenc, line, work, sink)

    @staticmethod
    def _pend(pending: list[tuple[str, str, bool, Any]], primaries: list[str], dst: str,
              kind: str, bound: bool, tk: Any) -> None:
        """A callee of a site with several candidates: emitted once all are known."""
        pending.append((dst, kind, bound, tk))
        if dst not in primaries:
            primaries.append(dst)

    def _pend_construction(self, facts: PyFileFacts, scope: int, it: Class,
                           pending: list[tuple[str, str, bool, Any]], primaries: list[str],
                           fargs: Any, recv: Any, line: int) -> None:
        """``Cls(...)``: the instantiation and the constructors it runs."""
        ck = (it.module, it.scope)
        self._pend(pending, primaries, self.scope_id(*ck), K_INSTANTIATE, True, ck)
        for cid, tk in self.constructors(ck):
            pending.append((cid, K_CALL, True, tk))
            if type(tk) is tuple and type(tk[1]) is int:
                self.contexts.seed(tk, ck, self.contexts.own_line(facts, line))
                if fargs:
                    argflow.note(self, facts, scope, fargs, recv, tk, True, ck, line)

    def _emit_pending(self, facts: PyFileFacts, scope: int,
                      pending: list[tuple[str, str, bool, Any]], res: str, site: Any,
                      src: str, sink: Sink, recv: Any) -> None:
        line, _fenc, nargs, kws, star, dstar, fargs, _special = site
        for dst, kind, bound, tk in pending:
            detail = call_detail(nargs, kws, star, dstar, bound)
            if kind == K_CALL and tk is not None and self._runs_wrappers(src, tk, bound, site,
                                                                           sink):
                detail = deco_detail(detail)
            sink.edges.append((src, dst, kind, line, res, detail, tk))
        if pending and fargs:
            self._passed_functions(facts, scope, [(p[1], p[2], p[3]) for p in pending], fargs,
                                   src, line, sink, recv)

    def _emit_one(self, facts: PyFileFacts, scope: int, it: Val, inf: bool, site: Any,
                  src: str, sink: Sink, recv: Any, quiet: bool) -> bool:
        """The common case of a callee with one candidate; False when it is not one the
        fast path handles (then the general loop does)."""
        line, fenc, nargs, kws, star, dstar, fargs, _special = site
        t = type(it)
        if t is Function:
            tk = (it.module, it.scope)
            bound = bool(it.bound)
            detail = call_detail(nargs, kws, star, dstar, bound)
            if self._runs_wrappers(src, tk, bound, site, sink):
                detail = deco_detail(detail)
            sink.edges.append((src, self.scope_id(it.module, it.scope), K_CALL, line,
                               R_INFERRED if inf else R_EXACT, detail, tk))
            self._seed_callee(facts, scope, it, fargs, recv, line)
            if fargs:
                argflow.note(self, facts, scope, fargs, recv, tk, bound, it.recv, line)
                self._passed_functions(facts, scope, [(K_CALL, bound, tk)], fargs, src,
                                       line, sink, recv)
            return True
        if t is CopiedMethod:
            self._copied_call(it, site, src, sink)
            return True
        if t in _EXTERNAL:
            # a call into a known external name (``asyncio.run``, ``@dataclass``, the
            # ``put`` of a ``queue.Queue``) is recorded with that dotted target after the
            # site's names (see _external)
            if not quiet and (fenc[0] == "a" or t is not ExternalValue):
                self._external(facts, scope, fenc, line, [it], sink)
            return True
        if t is Builtin:
            if fargs and it.name in _CALLBACK_BUILTINS:
                self._builtin_callbacks(facts, scope, fargs, src, line, sink, recv)
            if not quiet:
                self._external(facts, scope, fenc, line, [it], sink)
            return True
        return False

    def _copied_call(self, it: CopiedMethod, site: Any, src: str, sink: Sink) -> None:
        """A call of a method a framework copied as a generated wrapper (frameworks.py):
        the wrapper runs first, and the call of the method itself stays (impact needs it)
        marked as run through that wrapper."""
        line, _f, nargs, kws, star, dstar = site[:6]
        detail = call_detail(nargs, kws, star, dstar, True)
        if it.wrapper is not None:
            sink.edges.append((src, self.scope_id(*it.wrapper), K_CALL, line, R_INFERRED,
                               detail, it.wrapper))
            detail = deco_detail(detail)
        tk = (it.module, it.scope)
        sink.edges.append((src, self.scope_id(*tk), K_CALL, line, R_INFERRED, detail, tk))

    def _external(self, facts: PyFileFacts, scope: int, fenc: Enc, line: int, items: Items,
                  sink: Sink) -> None:
        """An EXTERNAL site: its names are the site's own, then every dotted external
        target (``External`` values) the callee evaluated to — the pycg export's external
        callees. A name call with no dotted target (a value produced by external code)
        is not recorded: it says nothing an attribute site would not."""
        targets = tuple(_external_name(it) for it in items if type(it) in _NAMED)
        if fenc[0] != "a" and not targets:
            return
        sink.unresolved.append((line, facts.scopes[scope].qual, U_EXTERNAL, site_text(fenc),
                                site_names(fenc) + targets))

    # calling it while its decorators are evaluated: no wrappers (a decorator that calls
    # what it decorates)
    @memo("_wrap", _NO_WRAPPERS)
    def wrappers(self, tk: ClassKey) -> tuple[Items, bool]:
        """What a call through a decorated function's name runs first: the wrapper
        functions / callable instances its decorators returned, and whether those are
        all of it (False when a decorator may return the function itself or something
        unknown — then the function is also called directly)."""
        ffacts = self.mod(tk[0])
        sc = ffacts.scopes[tk[1]] if ffacts is not None else None
        out: Items = []
        alone = True
        if ffacts is not None and sc is not None and sc.dval is not None:
            vals, _ = self.vals(ffacts, sc.parent, sc.dval, None)
            for v in vals:
                t = type(v)
                if t is Instance or (t is Function and (v.module, v.scope) != tk):
                    out.append(v)
                else:
                    alone = False
        return out, alone and bool(out)

    def _runs_wrappers(self, src: str, tk: Any, bound: bool, site: Any, sink: Sink) -> bool:
        """For a call of a decorated function ``tk``: the edges to the wrappers it runs
        (the call of ``tk`` itself stays: impact needs it). True when the wrappers are
        all that runs first."""
        ffacts = self.mod(tk[0])
        if ffacts is None or ffacts.scopes[tk[1]].dval is None:
            return False
        wraps, alone = self.wrappers(tk)
        line, _f, nargs, kws, star, dstar = site[:6]
        for w in wraps:
            if type(w) is Function:
                self._call_edge(sink, src, w, line, R_INFERRED,
                                call_detail(nargs, kws, star, dstar, bound))
                continue
            got, _ = self.class_attr((w.module, w.scope), "__call__", True)
            for f in got:
                if type(f) is Function:
                    self._call_edge(sink, src, f, line, R_INFERRED,
                                    call_detail(nargs, kws, star, dstar, True))
        return alone

    def _builtin_callbacks(self, facts: PyFileFacts, scope: int, fargs: tuple[Any, ...],
                           src: str, line: int, sink: Sink, recv: Any) -> None:
        """``map(f, xs)``, ``sorted(xs, key=f)``...: the builtin calls ``f`` for ``src``,
        with each element of ``xs`` (so ``f`` calls the functions ``xs`` holds)."""
        # sorted(xs, key=f) / min / max: xs first; map(f, xs) / filter(f, xs): xs second
        keyed = any(p == "key" for p, _e in fargs)
        elements = tuple((0, ("it", e)) for p, e in fargs if p == (0 if keyed else 1))
        for pos, aenc in fargs:
            vals, _ = self.vals(facts, scope, aenc, recv)
            for v in vals:
                if type(v) is Function:
                    self._call_edge(sink, src, v, line, R_INFERRED,
                                    call_detail(1, (), False, False, bool(v.bound)))
                    if elements and pos == ("key" if keyed else 0):
                        self._passed_functions(facts, scope,
                                               [(K_CALL, bool(v.bound), (v.module, v.scope))],
                                               elements, src, line, sink, recv)

    def constructors(self, ck: ClassKey) -> list[tuple[str, Any]]:
        """(id, target key) of what ``Cls(...)`` runs in the repository: ``__new__`` and
        the ``__init__`` found through the MRO — a written one, or the one a @dataclass
        generates (a synthesized ``Cls.__init__`` node, see assemble.dataclass_inits)."""
        out: list[tuple[str, Any]] = []
        got, _ = self.class_attr(ck, "__new__", False)
        out.extend((self.scope_id(f.module, f.scope), (f.module, f.scope)) for f in got
                   if type(f) is Function)
        order, _gap = self.mro(ck)
        for k in order:
            kfacts = self.mod(k[0])
            if kfacts is None:
                continue
            ksc = kfacts.scopes[k[1]]
            if "__init__" in ksc.byname:
                got, _ = self.class_attr(ck, "__init__", True)
                out.extend((self.scope_id(f.module, f.scope), (f.module, f.scope)) for f in got
                           if type(f) is Function)
                break
            if ksc.dc is not None and ksc.dc[0]:
                out.append((ksc.qual + ".__init__", None))
                break
        return out

    def dataclass_fields(self, ck: ClassKey) -> list[tuple[Any, ...]]:
        """Fields of the generated ``__init__``: base dataclasses first (C3 reversed), a
        redefined field keeping its first position; each (name, ann, default, kw_only,
        factory, facts, class scope)."""
        order, _gap = self.mro(ck)
        fields: dict[str, tuple[Any, ...]] = {}
        for k in reversed(order):
            kfacts = self.mod(k[0])
            dc = kfacts.scopes[k[1]].dc if kfacts is not None else None
            if kfacts is None or dc is None:
                continue
            for fld in dc[2]:
                fields[fld[0]] = (*fld, kfacts, kfacts.scopes[k[1]].parent)
        return list(fields.values())

    def _passed_functions(self, facts: PyFileFacts, scope: int, targets: list[Any],
                          fargs: tuple[Any, ...], src: str, line: int, sink: Sink,
                          recv: Any) -> None:
        """``run(helper)`` where ``run`` calls its parameter: ``run`` calls ``helper``.

        The edge is the true call relation (``run`` → ``helper``, inferred, with the
        argument shape of ``run``'s own invocation) but it is produced here, at the site
        that passes ``helper`` (its file/line), because only this site knows the value.
        The passing site itself references ``helper`` (a ``use`` edge, access ``ref``).
        """
        for kind, bound, tk in targets:
            if kind != K_CALL or tk is None:
                continue
            cfacts = self.mod(tk[0])
            if cfacts is None:
                continue
            cs = cfacts.scopes[tk[1]]
            if cs.kind != FUNCTION:
                continue
            pcalls = argflow.param_use(self, cfacts, tk[1]).pcalls
            if not pcalls:
                continue
            for pos, aenc in fargs:
                pname = _called_param(cs, pos, bound, pcalls)
                if pname is None:
                    continue
                n, kw, st, dst_, caller_scope = pcalls[pname]
                caller = cfacts.scopes[caller_scope].qual
                vals, _ = self.vals(facts, scope, aenc, recv)
                for v in vals:
                    if type(v) is Function:
                        self._call_edge(sink, caller, v, line, R_INFERRED,
                                        call_detail(n, kw, st, dst_, bool(v.bound)))
                    elif type(v) is Class:
                        detail = call_detail(n, kw, st, dst_, True)
                        sink.edges.append((caller, self.scope_id(v.module, v.scope),
                                           K_INSTANTIATE, line, R_INFERRED, detail,
                                           (v.module, v.scope)))
                        for cid, ctk in self.constructors((v.module, v.scope)):
                            sink.edges.append((caller, cid, K_CALL, line, R_INFERRED, detail,
                                               ctk))

    # ------------------------------------------------ receiver-class contexts
    def _seed_callee(self, facts: PyFileFacts, scope: int, it: Function, fargs: Any,
                     recv: Any, line: int) -> None:
        """The receiver context of a called function ``it``: its bound receiver, or for
        a method called through its class, its first argument."""
        tk = (it.module, it.scope)
        if it.bound:
            self.contexts.seed(tk, it.recv, self.contexts.own_line(facts, line))
        elif fargs:
            self.contexts.seed_unbound(facts, scope, fargs, recv, tk, line)

    # ----------------------------------------------------------------- refs
    def ref_items(self, facts: PyFileFacts, scope: int, name: str, reach: Any) -> Items:
        """What a name read denotes, or [] when it is a local/closure variable."""
        scopes = facts.scopes
        sc = scopes[scope]
        if type(reach) is int:
            reach = sc.lreach[reach]
        ev = self.evaluator
        if reach:
            if sc.kind == FUNCTION:
                return []
            return ev.scope_binding_items(facts, scope, reach, name, None)[0]
        s = scope
        first = True
        while s >= 0:
            sc = scopes[s]
            if sc.kind == MODULE:
                return ev.module_name(facts, name)[0]
            if first or sc.kind == FUNCTION:
                if not (sc.kind == FUNCTION and name in sc.glob):
                    bids = sc.byname.get(name)
                    if bids:
                        if sc.kind == FUNCTION:
                            return []
                        return ev.scope_binding_items(facts, s, bids, name, None)[0]
                elif first:
                    return ev.module_name(facts, name)[0]
            first = False
            s = sc.parent
        return []

    def resolve_ref(self, facts: PyFileFacts, scope: int, ref: Any, src: str, sink: Sink,
                    recv: Any) -> None:
        """The ``use`` edges (and property getter/setter calls) of one reference."""
        line, enc, access = ref
        tag = enc[0]
        inf = False
        if tag == "n":
            items = self.ref_items(facts, scope, enc[1], enc[2])
        elif tag == "a":
            base, inf = self.ev(facts, scope, enc[1], recv)
            if not base:
                return
            items, inf2 = self.evaluator.attr(base, enc[2])
            inf = inf or inf2
        elif tag == "def":  # a lambda expression: its scope holds (references) it
            items = [Function("F", facts.module, enc[1], False, None)]
        else:
            return
        if not items:
            return
        nprim = sum(1 for it in items
                    if type(it) in (Variable, Field, Property, Function, Class))
        res = (R_AMBIGUOUS if nprim > 1 else
               R_INFERRED if inf else R_EXACT)
        for it in items:
            t = type(it)
            if t is Variable or t is Field:
                self._use_edges(it, access, src, line, res, sink)
            elif access == "b":
                continue  # a receiver: the attribute access itself carries the edge
            elif t is Property:
                self._property_edges(it, access, src, line, res, sink)
            elif (t is Function or t is Class) and access in _REF_ACCESS:
                dst = self.item_id(it)
                if dst is not None:
                    sink.edges.append((src, dst, K_USE, line, res, _REF_ACCESS[access], None))

    def _use_edges(self, it: Variable | Field, access: str, src: str, line: int, res: str,
                   sink: Sink) -> None:
        dst = self.item_id(it)
        if dst is None:
            return
        if access == "rw":
            sink.edges.append((src, dst, K_USE, line, res, use_detail("read"), None))
            sink.edges.append((src, dst, K_USE, line, res, use_detail("write"), None))
        else:
            sink.edges.append((src, dst, K_USE, line, res,
                               use_detail("write" if access == "w" else "read"), None))

    def _property_edges(self, it: Property, access: str, src: str, line: int, res: str,
                        sink: Sink) -> None:
        """Reading a property calls its getter (for the receiver); writing, its setter."""
        gfacts = self.mod(it.module)
        if gfacts is None:
            return
        gid = gfacts.scopes[it.scope].qual
        if "r" in access:
            sink.edges.append((src, gid, K_CALL, line, res, _DUNDER, (it.module, it.scope)))
            self.contexts.seed((it.module, it.scope), it.recv, line)  # the getter runs for recv
        if "w" in access:
            setter = gfacts.scopes[it.scope].setter
            tk = it.setter or (it.module, setter if setter >= 0 else it.scope)
            if it.setter is not None:
                gid = self.scope_id(*it.setter)
            sink.edges.append((src, gid, K_CALL, line, res,
                               call_detail(1, (), False, False, True), tk))

    # ---------------------------------------------------------------- scopes
    # ``src`` (the id the edges start from) is not in the key: a scope's edges are
    # asked for by its own id, or only for their targets (fixtures, helpers)
    @memo("_scope_edges", guard_for=lambda module, scope, recv, src="": Sink(),
          key=lambda module, scope, recv, src="": (module, scope, recv))
    def scope_sink(self, module: str, scope: int, recv: Any, src: str = "") -> Sink:
        """Resolved edges of one scope (memoized; foreign scopes for fixtures/helpers)."""
        sink = Sink()
        facts = self.mod(module)
        if facts is None:
            return sink
        sc = facts.scopes[scope]
        for site in sc.calls:
            try:
                self.resolve_call(facts, scope, site, src, sink, recv)
            except RecursionError:
                sink.unresolved.append((site[0], sc.qual, U_UNKNOWN_RECEIVER,
                                        "<expression nested too deeply>", ()))
        for ref in sc.refs:
            try:
                self.resolve_ref(facts, scope, ref, src, sink, recv)
            except RecursionError:
                continue
        return sink


# callees outside the repository that the pycg export names
_NAMED = frozenset({External, ExternalMember, BuiltinMember, Builtin})


def _external_name(it: Val) -> str:
    """``asyncio.run``, ``queue.Queue.put``, ``<**PyStr**>.join``, ``<builtin>.len``."""
    t = type(it)
    if t is BuiltinMember:
        return str(it.pseudo)
    if t is Builtin:
        return "<builtin>." + it.name
    return str(it.dotted)


def _called_param(cs: Any, pos: Any, bound: bool, pcalls: dict[str, Any]) -> str | None:
    """The parameter an argument (position or keyword) binds, when the callee calls it."""
    pname = None
    if isinstance(pos, int):
        idx = pos + (1 if bound else 0)
        if idx < len(cs.params) and cs.params[idx][1] in (P_POSONLY, P_POS):
            pname = cs.params[idx][0]
    else:
        for p in cs.params:
            if p[0] == pos:
                pname = pos
    if pname is None or pname not in pcalls:
        return None
    return pname

