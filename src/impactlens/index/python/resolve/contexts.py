"""Receiver-class contexts: inherited code evaluated again for a known receiver class.

A ``self.m()`` site in an ancestor's method reaches what the receiver's MRO gives
(``Base.hello → Left.greet`` when ``hello`` is called on a ``Child(Left, Right)``;
``super()`` follows the receiver's MRO). The method's own file records the targets for
its own class; the file making the call adds those that differ for the receiver
(inferred, the receiver in the detail), and follows the methods those sites reach under
the same receiver. Like a passed callback's edge, such an edge is recorded at the call
in this file that made the receiver known (its line), since only that site knows it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from impactlens.index.python.facts import F_CLASSMETHOD, F_STATICMETHOD, PyFileFacts
from impactlens.index.python.resolve.edges import (
    K_CALL,
    K_USE,
    R_INFERRED,
    RawEdge,
    Sink,
    recv_detail,
)
from impactlens.index.python.resolve.memo import memo
from impactlens.index.python.resolve.values import ClassKey, Function, Instance, Property

if TYPE_CHECKING:
    from impactlens.index.python.resolve.evaluate import Evaluator
    from impactlens.index.python.resolve.sites import Sites

MAX_CONTEXTS = 20000  # (method, receiver class) re-evaluations per file, a safety cap
# memos that depend on the classes only: shared with the resolvers of argument flows
_SHARED = ("_self_sites", "_ctx_names")


class ReceiverContexts:
    """The queue of (method, receiver class) contexts one file's calls seed."""

    def __init__(self, evaluator: Evaluator) -> None:
        self.evaluator = evaluator
        self.path = evaluator.facts.path
        self._seen: set[tuple[str, int, Any]] = set()
        self._todo: list[tuple[str, int, Any, int]] = []
        # while another file's code is evaluated for a receiver: the line of this file's
        # call that made the receiver known (what that code's seeds are recorded at)
        self._at: int | None = None
        self._ctx_names: dict[Any, set[str]] = {}
        self._self_sites: dict[Any, tuple[list[Any], list[Any], set[str]]] = {}

    def share_memos(self, other: ReceiverContexts) -> None:
        for name in _SHARED:
            setattr(self, name, getattr(other, name))

    def own_line(self, facts: PyFileFacts, line: int) -> int | None:
        """The line of this file a receiver context found at ``line`` of ``facts`` is
        recorded at: ``line`` itself in this file; inside another file's code, the line of
        this file's call that led there, or None when there is none (another module's
        lines never enter this file's output: see index/read_fingerprints.py)."""
        return line if facts.path == self.path else self._at

    def seed(self, tk: ClassKey, recv: Any, line: int | None) -> None:
        """A call (at ``line`` of this file) of method ``tk`` on an instance (or subclass)
        ``recv`` whose MRO may dispatch ``tk``'s ``self.x``/``super().x``/``cls()`` sites
        differently than the method's own class does: evaluated again under ``recv``
        (:meth:`run`)."""
        if recv is None or line is None:
            return
        key = (tk[0], tk[1], recv)
        if key in self._seen:
            return
        self._seen.add(key)
        ev = self.evaluator
        facts = ev.mod(tk[0])
        if facts is None:
            return
        sc = facts.scopes[tk[1]]
        # on its own class a method runs as its own file resolves it (and that seeds the
        # methods its self sites reach with its class)
        if (tk[0], sc.cls) == recv or sc.selfs == ((), ()) or len(ev.mro(recv)[0]) < 2:
            return
        if self.self_sites(tk[0], tk[1])[2] & self.ctx_names(recv, (tk[0], sc.cls)):
            self._todo.append((*key, line))

    def seed_unbound(self, facts: PyFileFacts, scope: int, fargs: Any, recv: Any,
                     tk: ClassKey, line: int) -> None:
        """``Base.m(self, ...)``: an instance method called through its class runs on its
        first argument, whose class may dispatch ``m``'s ``self`` sites differently."""
        ev = self.evaluator
        ffacts = ev.mod(tk[0])
        if ffacts is None:
            return
        fsc = ffacts.scopes[tk[1]]
        if fsc.cls < 0 or fsc.flags & (F_CLASSMETHOD | F_STATICMETHOD):
            return
        for pos, enc in fargs:
            if pos == 0:
                for v in ev.vals(facts, scope, enc, recv)[0]:
                    if type(v) is Instance:
                        self.seed(tk, (v.module, v.scope), self.own_line(facts, line))

    def run(self, sites: Sites, raw: list[RawEdge]) -> None:
        """Evaluate the seeded contexts with ``sites``; append the edges that differ for
        the receiver to ``raw``."""
        try:
            self._run(sites, raw)
        finally:
            self._at = None

    def _run(self, sites: Sites, raw: list[RawEdge]) -> None:
        ev = self.evaluator
        done = 0
        while self._todo and done < MAX_CONTEXTS:
            mod, m, rk, at = self._todo.pop()
            self._at = at
            done += 1
            afacts = ev.mod(mod)
            if afacts is None or afacts.scopes[m].cls < 0:
                continue
            base, sub = self._evaluate(sites, afacts, m, rk, at)
            have = {(e[1], e[2], e[3]) for e in base.edges}
            rid = sites.scope_id(*rk)
            for e in sub.edges:
                if e[2] == K_USE:
                    continue
                if e[6] is not None and e[2] == K_CALL:
                    self.seed(e[6], rk, at)
                if (e[1], e[2], e[3]) in have:
                    continue
                raw.append((e[0], e[1], e[2], at, R_INFERRED, recv_detail(e[5], rid), e[6]))

    def _evaluate(self, sites: Sites, afacts: PyFileFacts, m: int, rk: ClassKey,
                  at: int) -> tuple[Sink, Sink]:
        """The edges of method ``m``'s receiver-dependent sites without a receiver and
        under receiver ``rk``."""
        ev = self.evaluator
        mod = afacts.module
        calls, refs, _attrs = self.self_sites(mod, m)
        names = self.ctx_names(rk, (mod, afacts.scopes[m].cls))
        src = afacts.scopes[m].qual
        base, sub = Sink(), Sink()
        for attr, site in calls:
            fenc = site[1]
            if attr in names:
                sites.resolve_call(afacts, m, site, src, sub, rk)
                sites.resolve_call(afacts, m, site, src, base, None)
            elif fenc[0] == "a" and fenc[1][0] != "sup":
                # same target as for the method's own class: only follow it
                for g in ev.class_attr(rk, attr, True)[0]:
                    if type(g) is Function and g.bound:
                        self.seed((g.module, g.scope), rk, at)
            elif fenc[0] == "a":  # super(): R's MRO may put another class next
                sites.resolve_call(afacts, m, site, src, sub, rk)
                sites.resolve_call(afacts, m, site, src, base, None)
        for attr, ref in refs:  # reads matter when they run a property's getter
            if attr in names and any(type(g) is Property
                                     for g in ev.class_attr(rk, attr, True)[0]):
                sites.resolve_ref(afacts, m, ref, src, sub, rk)
                sites.resolve_ref(afacts, m, ref, src, base, None)
        return base, sub

    @memo("_ctx_names", None)
    def ctx_names(self, rk: ClassKey, ak: ClassKey) -> set[str]:
        """Names defined or set on ``self`` by the classes of ``rk``'s MRO outside ``ak``'s
        own MRO: the only attributes whose lookup can differ between the two."""
        ev = self.evaluator
        amro = set(ev.mro(ak)[0])
        got: set[str] = set()
        for k in ev.mro(rk)[0]:
            if k not in amro:
                facts = ev.mod(k[0])
                if facts is not None:  # class-level names: methods, properties...
                    got |= set(facts.scopes[k[1]].byname)
                    # ... and the fields its methods set (``self.handler = self.on_event``)
                    got |= set(facts.scopes[k[1]].inst)
        return got

    @memo("_self_sites", None)
    def self_sites(self, module: str, m: int) -> tuple[list[Any], list[Any], set[str]]:
        """(attr, site) of a method's calls and references whose target depends on the
        runtime class of ``self``/``cls`` (found by the extractor), and their attributes."""
        facts = self.evaluator.mod(module)
        calls: list[Any] = []
        refs: list[Any] = []
        if facts is not None:
            sc = facts.scopes[m]
            scalls, srefs = sc.selfs
            calls = [(a, sc.calls[i]) for a, i in scalls]
            refs = [(a, sc.refs[i]) for a, i in srefs]
        return calls, refs, {a for a, _ in calls} | {a for a, _ in refs}
