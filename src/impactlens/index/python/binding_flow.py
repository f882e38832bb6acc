"""Flow tracking: which bindings of each local name reach each read.

The extractor's mixin for bindings and control flow. ``cur`` maps each name to the
ids of the scope's bindings that reach the current point; ``if``/loops/``try``/
``match`` fork it and merge the surviving paths (a name rebound later does not
pollute an earlier read). Reads inside a loop also see the bindings made later in
the loop body (``lreach``, fixed up when the loop closes). ``isinstance`` tests bind
narrowed temporaries, and stores into containers (``x[k] = v``, ``x.append(v)``)
are noted for the resolver. The state itself lives on the extractor (``extract.py``).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from impactlens.index.python.expr_encoding import AITER, ITER, K_DICT, K_INT, U
from impactlens.index.python.facts import B_ASSIGN, B_OTHER, FUNCTION, MODULE, Enc, Scope
from impactlens.index.python.strong_updates import NONE, StoreKills, nested_name, without_entry


def _mut_killer(rows: list[Any], i: int) -> Callable[[], None]:
    """Drops container store ``i`` (``(key, enc, scope)``) of ``rows``."""
    def kill() -> None:
        rows[i] = (rows[i][0], NONE, rows[i][2])
    return kill


def _field_killer(rows: list[Any], i: int) -> Callable[[], None]:
    """Drops field store ``i`` (``(enc, line, end, scope)``) of ``rows``."""
    def kill() -> None:
        rows[i] = (NONE, *rows[i][1:])
    return kill


class LoopFrame:
    """A loop being walked: the reads inside it, and the states at its breaks and continues."""

    __slots__ = ("breaks", "conts", "start", "uses")

    def __init__(self, start: int) -> None:
        self.start = start
        self.uses: list[tuple[str, int]] = []  # (name, index into lreach)
        self.breaks: list[dict[str, tuple[int, ...]]] = []
        self.conts: list[dict[str, tuple[int, ...]]] = []


State = dict[str, tuple[int, ...]]


def _merge(states: list[State], names: set[str]) -> State:
    """The state where paths join: a name in ``names`` (assigned on some path) is reached
    by the bindings of all the paths; the other names keep the first path's."""
    out = dict(states[0])
    if len(states) == 1:
        return out
    for n in sorted(names):  # sorted: facts are byte-identical run to run
        acc: set[int] = set()
        for s in states:
            r = s.get(n)
            if r:
                acc.update(r)
        if acc:
            out[n] = tuple(sorted(acc))
    return out


class BindingFlow:
    """Bindings, name reads and the control-flow statements that fork and merge them."""

    # the extractor's state this mixin reads and writes (see extract._Extractor)
    sc: Scope
    sidx: int
    scopes: list[Scope]
    cur: State
    dead: bool
    asg: set[str]
    loops: list[LoopFrame]
    temp: set[int]
    lreach: list[list[int]]
    encs: dict[Any, Enc]
    noref: int
    selfname: str | None
    _stmt_sigs: dict[tuple[int, int], str]
    kills: StoreKills

    if TYPE_CHECKING:  # provided by the extractor and the expression encoding
        def ev(self, node: ast.expr) -> Enc: ...
        def block(self, stmts: list[ast.stmt]) -> None: ...
        def stmt_text(self, node: ast.stmt) -> str: ...
        def _op_site(self, line: int, recv: Enc, dunder: str, nargs: int,
                     right: Enc | None = None, rdunder: str | None = None) -> None: ...

    # ------------------------------------------------------------- bindings
    def bind(self, name: str, enc: Enc, line: int, end: int, kind: int) -> int:
        sc = self.sc
        if sc.glob and name in sc.glob:
            sc.refs.append((line, ("n", name, ()), "w"))
            return -1
        bid = len(sc.binds)
        sc.binds.append((name, enc, line, end, kind))
        self.cur[name] = (bid,)
        self.asg.add(name)
        return bid

    def bind_temp(self, name: str, enc: Enc, line: int) -> int:
        bid = len(self.sc.binds)
        self.sc.binds.append((name, enc, line, line, B_OTHER))
        self.cur[name] = (bid,)
        self.temp.add(bid)
        return bid

    def bind_target(self, t: ast.expr, enc: Enc, stmt: ast.stmt, kind: int = B_ASSIGN) -> None:
        if type(t) is ast.Name:
            bid = self.bind(t.id, enc, stmt.lineno, stmt.end_lineno or stmt.lineno, kind)
            if bid >= 0 and (enc[0] == "dl" or enc[0] == "sl"):
                self.kills.display(self.cur, t.id, enc, self._dropper(bid))
            if kind == B_ASSIGN and self.sc.kind != FUNCTION:
                self._stmt_sigs[(self.sidx, stmt.lineno)] = self.stmt_text(stmt)
        elif type(t) is ast.Attribute:
            base = self.ev(t.value)
            aenc = ("a", base, t.attr)
            self.sc.refs.append((t.lineno, aenc, "w"))
            if (self.selfname is not None and type(t.value) is ast.Name
                    and t.value.id == self.selfname and self.sc.cls >= 0):
                cls_scope = self.scopes[self.sc.cls]
                rows = cls_scope.inst.setdefault(t.attr, [])
                rows.append((enc, t.lineno, stmt.end_lineno or t.lineno, self.sidx))
                self.kills.store(self.cur, "self.", t.attr, _field_killer(rows, len(rows) - 1),
                                 own_reads=0)
                if (-1, t.lineno) not in self._stmt_sigs:
                    self._stmt_sigs[(-1, t.lineno)] = self.stmt_text(stmt)
            elif (type(t.value) is ast.Name and self.sc.kind == FUNCTION
                  and self.cur.get(t.value.id)):
                # ``obj.fn = f`` on a local: read back by ``obj.fn`` in this function
                self._note_store(t.value.id, "." + t.attr, enc)
        elif type(t) is ast.Tuple or type(t) is ast.List:
            elts = t.elts
            parts: list[Enc] | None = None
            stars = [i for i, e in enumerate(elts) if type(e) is ast.Starred]
            if enc[0] == "sl":
                vals = enc[2]
                if not stars and len(vals) == len(elts):
                    parts = list(vals)
                elif len(stars) == 1 and len(vals) >= len(elts) - 1:
                    si = stars[0]
                    after = len(elts) - si - 1
                    parts = [*vals[:si], ("sl", "list", tuple(vals[si:len(vals) - after])),
                             *vals[len(vals) - after:]]
            if parts is None and not stars and enc[0] in ("c", "n", "a", "sub", "an", "it"):
                parts = [("ix", enc, i) for i in range(len(elts))]
            for i, e in enumerate(elts):
                if type(e) is ast.Starred:
                    self.bind_target(e.value, parts[i] if parts is not None else U, stmt,
                                     B_OTHER)
                else:
                    self.bind_target(e, parts[i] if parts is not None else U, stmt, B_OTHER)
        elif type(t) is ast.Starred:
            self.bind_target(t.value, U, stmt, B_OTHER)
        elif type(t) is ast.Subscript:
            cont = self.ev(t.value)
            sl = t.slice
            self.ev(sl)
            self._op_site(t.lineno, cont, "__setitem__", 2)
            key = sl.value if (type(sl) is ast.Constant
                               and type(sl.value) in (str, int)) else None
            if type(t.value) is ast.Name:
                self._note_store(t.value.id, key, enc)
            elif type(t.value) is ast.Subscript and type(t.value.value) is ast.Name:
                inner = t.value.slice
                if type(inner) is ast.Constant and type(inner.value) in (str, int):
                    # ``d["a"]["b"] = v``: a store into the display at d["a"]
                    self._note_store(t.value.value.id, key, enc, path=inner.value)
        else:
            self.ev(t)

    # ------------------------------------------------------ container stores
    def _note_store(self, name: str, key: Any, enc: Enc, call: bool = False,
                    overwrites: bool = True, path: Any = None) -> None:
        """``name[key] = enc`` / ``name.append(enc)``: the container gains an entry
        (``call``: through a method call; ``overwrites``: replacing the key's value;
        ``path``: into the display at ``name[path]`` instead)."""
        if self.cur.get(name) or self.sc.kind == MODULE:
            owner = self.sc
        else:
            owner = self.scopes[0]
        if path is not None:
            owner.muts.setdefault(name, [])  # marks the outer display (evaluate.entry_vals)
            name = nested_name(name, path)
        rows = owner.muts.setdefault(name, [])
        rows.append((key, enc, self.sidx))
        if key is not None and overwrites:
            self.kills.store(self.cur, name, key, _mut_killer(rows, len(rows) - 1),
                             own_calls=1 if call else 0)

    def _dropper(self, bid: int) -> Callable[[int], None]:
        """Drops entry ``i`` of the display bound by binding ``bid`` (a strong update)."""
        binds = self.sc.binds

        def drop(i: int) -> None:
            b = binds[bid]
            binds[bid] = (b[0], without_entry(b[1], i), *b[2:])

        return drop

    def _note_mutator(self, name: str, method: str, args: list[ast.expr],
                      encs: list[Enc]) -> None:
        if method in ("append", "add") and len(encs) == 1:
            self._note_store(name, None, encs[0])
        elif method == "insert" and len(encs) == 2:
            self._note_store(name, None, encs[1])
        elif method == "setdefault" and len(encs) == 2:
            a0 = args[0]
            key = a0.value if type(a0) is ast.Constant and type(a0.value) in (str, int) else None
            self._note_store(name, key, encs[1], overwrites=False)
        elif method in ("extend", "update") and len(encs) == 1:
            e = encs[0]
            if e[0] == "sl":
                for x in e[2]:
                    self._note_store(name, None, x)
            elif e[0] == "dl":
                for k, v in zip(e[1], e[2], strict=False):
                    self._note_store(name, k, v, call=True)
            else:
                self._note_store(name, None, ("it", e))

    # ------------------------------------------------------------ name reads
    def e_Name(self, node: ast.Name) -> Enc:
        name = node.id
        self.kills.read(name)
        reach = self.cur.get(name, ())
        if self.loops:
            ridx = len(self.lreach)
            self.lreach.append(list(reach))
            self.loops[-1].uses.append((name, ridx))
            enc: Enc = ("n", name, ridx)
        else:
            key = (name, reach)
            enc = self.encs.get(key)  # type: ignore[assignment]
            if enc is None:
                enc = self.encs[key] = ("n", name, reach)
        if not self.noref and (not reach or self.sc.kind != FUNCTION):
            self.sc.refs.append((node.lineno, enc, "r"))
        return enc

    def _name_noref(self, name: str) -> Enc:
        self.kills.read(name)
        reach = self.cur.get(name, ())
        if self.loops:
            ridx = len(self.lreach)
            self.lreach.append(list(reach))
            self.loops[-1].uses.append((name, ridx))
            return ("n", name, ridx)
        key = (name, reach)
        enc = self.encs.get(key)
        if enc is None:
            enc = self.encs[key] = ("n", name, reach)
        return enc

    def _scope_names(self, sidx: int) -> set[str]:
        """Names bound so far in an enclosing (still open) scope."""
        return {b[0] for b in self.scopes[sidx].binds}

    def reach_of(self, enc: Enc) -> Any:
        """The binding ids of a name encoding (loop reads keep them in a side table)."""
        r = enc[2]
        return self.lreach[r] if type(r) is int else r

    # ---------------------------------------------------------- control flow
    def s_Break(self, node: ast.Break) -> None:
        if self.loops:
            self.loops[-1].breaks.append(dict(self.cur))
        self.dead = True

    def s_Continue(self, node: ast.Continue) -> None:
        if self.loops:
            self.loops[-1].conts.append(dict(self.cur))
        self.dead = True

    def s_Assert(self, node: ast.Assert) -> None:
        narrow = self._isinstance_narrow(node.test)
        self.ev(node.test)
        if node.msg is not None:
            self.ev(node.msg)
        if narrow is not None:
            self.bind_temp(narrow[0], narrow[1], node.lineno)

    def _isinstance_narrow(self, test: ast.expr) -> tuple[str, Enc] | None:
        if (type(test) is ast.Call and type(test.func) is ast.Name
                and test.func.id == "isinstance" and len(test.args) == 2
                and type(test.args[0]) is ast.Name):
            target = test.args[0].id
            cls = test.args[1]
            self.noref += 1
            try:
                if type(cls) is ast.Tuple:
                    encs = tuple(self.ev(e) for e in cls.elts)
                else:
                    encs = (self.ev(cls),)
            finally:
                self.noref -= 1
            return target, ("isi", encs)
        return None

    def s_If(self, node: ast.If) -> None:
        narrow = self._isinstance_narrow(node.test)
        neg = None
        if narrow is None and type(node.test) is ast.UnaryOp and type(node.test.op) is ast.Not:
            neg = self._isinstance_narrow(node.test.operand)  # `if not isinstance(x, A):`
        self.ev(node.test)
        s0 = self.cur
        outer = self.asg
        self.cur = dict(s0)
        self.asg = set()
        self.dead = False
        if narrow is not None:
            nb = self.bind_temp(narrow[0], narrow[1], node.lineno)
        self.block(node.body)
        s1 = None if self.dead else self.cur
        a1 = self.asg
        if narrow is not None and s1 is not None and s1.get(narrow[0]) == (nb,):
            prev = s0.get(narrow[0])
            if prev:
                s1[narrow[0]] = prev
            else:
                del s1[narrow[0]]
        if node.orelse or (neg is not None and s1 is None):
            self.cur = dict(s0)
            self.asg = set()
            self.dead = False
            if neg is not None:
                # the else path (and, after an early exit, the rest) has x: A
                self.bind_temp(neg[0], neg[1], node.lineno)
                self.asg.add(neg[0])
            self.block(node.orelse)
            s2 = None if self.dead else self.cur
            a2 = self.asg
            if neg is not None and s1 is not None and s2 is not None:
                prev = s0.get(neg[0])
                if prev:
                    s2[neg[0]] = prev
                else:
                    s2.pop(neg[0], None)
        elif (narrow is not None and s1 is None and self.sc.kind == FUNCTION
              and s0.get(narrow[0])):
            # `if isinstance(x, A): return ...`: the rest sees x without A's instances
            self.cur = dict(s0)
            self.bind_temp(narrow[0], ("nisi", ("n", narrow[0], s0[narrow[0]]), narrow[1][1]),
                           node.lineno)
            s2 = self.cur
            a2 = {narrow[0]}
        else:
            s2 = s0
            a2 = set()
        names = a1 | a2
        alive = [s for s in (s1, s2) if s is not None]
        if alive:
            self.cur = _merge(alive, names) if len(alive) > 1 else alive[0]
            self.dead = False
        else:
            self.cur = dict(s0)
            self.dead = True
        outer |= names
        self.asg = outer

    def _loop_body(self, node: ast.For | ast.AsyncFor | ast.While,
                   target: ast.expr | None, it: Enc | None) -> None:
        sc = self.sc
        frame = LoopFrame(len(sc.binds))
        s0 = self.cur
        outer = self.asg
        self.loops.append(frame)
        self.cur = dict(s0)
        self.asg = set()
        self.dead = False
        if target is not None and it is not None:
            self._bind_iter_target(target, it, node)
        self.block(node.body)
        self.loops.pop()
        ends = [s0]
        if not self.dead:
            ends.append(self.cur)
        ends.extend(frame.conts)
        names = self.asg
        # reads inside the loop also see bindings made later in the loop body
        if frame.uses and len(sc.binds) > frame.start:
            later: dict[str, list[int]] = {}
            for bid in range(frame.start, len(sc.binds)):
                later.setdefault(sc.binds[bid][0], []).append(bid)
            table = self.lreach
            for name, ridx in frame.uses:
                more = later.get(name)
                if more:
                    reach = table[ridx]
                    for b in more:
                        if b not in reach and b not in self.temp:
                            reach.append(b)
        if self.loops:
            self.loops[-1].uses.extend(frame.uses)
        head = _merge(ends, names)
        if node.orelse:
            self.cur = head
            self.dead = False
            self.block(node.orelse)
            exits = [] if self.dead else [self.cur]
        else:
            exits = [head]
        exits.extend(frame.breaks)
        names |= self.asg
        self._join(exits, names, head)
        outer |= names
        self.asg = outer

    def _join(self, ends: list[State], names: set[str], if_none: State) -> None:
        """Go on from the merge of the paths that reach this point; when none does, the
        code after is dead (and keeps ``if_none``)."""
        if ends:
            self.cur = _merge(ends, names)
            self.dead = False
        else:
            self.cur = if_none
            self.dead = True

    def _bind_iter_target(self, target: ast.expr, it: Enc, stmt: ast.stmt) -> None:
        if type(target) is ast.Name:
            self.bind(target.id, ("it", it), stmt.lineno, stmt.lineno, B_OTHER)
        elif (type(target) is ast.Tuple and len(target.elts) == 2 and it[0] == "c"
              and len(it) > 2 and it[1][0] == "n" and it[1][1] == "enumerate"):
            self.bind_target(target.elts[0], K_INT, stmt, B_OTHER)
            self.bind_target(target.elts[1], ("it", it[2]), stmt, B_OTHER)
        elif type(target) is ast.Tuple and it[0] == "c":
            # ``for k, fn in table.items()``: element i of each item
            self.bind_target(target, ("it", it), stmt, B_OTHER)
        else:
            self.bind_target(target, U, stmt, B_OTHER)

    def s_For(self, node: ast.For | ast.AsyncFor) -> None:
        it = self.ev(node.iter)
        self.sc.calls.append((node.iter.lineno, it, 0, (), False, False, (),
                              AITER if type(node) is ast.AsyncFor else ITER))
        self._loop_body(node, node.target, it)

    def s_While(self, node: ast.While) -> None:
        self.ev(node.test)
        self._loop_body(node, None, None)

    def s_Try(self, node: ast.Try) -> None:
        s0 = self.cur
        outer = self.asg
        self.cur = dict(s0)
        self.asg = set()
        self.dead = False
        self.block(node.body)
        body_dead = self.dead
        sb = self.cur
        names = self.asg
        ends: list[dict[str, tuple[int, ...]]] = []
        hstart = _merge([s0, sb], names)
        for h in node.handlers:
            self.cur = dict(hstart)
            self.asg = set()
            self.dead = False
            types: tuple[Enc, ...] = ()
            if h.type is not None:
                self.noref += 1
                try:
                    if type(h.type) is ast.Tuple:
                        types = tuple(self.ev(e) for e in h.type.elts)
                    else:
                        types = (self.ev(h.type),)
                finally:
                    self.noref -= 1
            if h.name:
                self.bind(h.name, ("isi", types) if types else U, h.lineno, h.lineno, B_OTHER)
            self.block(h.body)
            if not self.dead:
                ends.append(self.cur)
            names |= self.asg
        if node.orelse:
            self.cur = sb
            self.asg = set()
            self.dead = body_dead
            self.block(node.orelse)
            if not self.dead:
                ends.append(self.cur)
            names |= self.asg
        elif not body_dead:
            ends.append(sb)
        self._join(ends, names, hstart)
        if node.finalbody:
            was_dead = self.dead
            self.asg = set()
            self.dead = False
            self.block(node.finalbody)
            names |= self.asg
            self.dead = self.dead or was_dead
        outer |= names
        self.asg = outer

    def s_Match(self, node: ast.Match) -> None:
        self.ev(node.subject)
        s0 = self.cur
        outer = self.asg
        ends = [s0]
        names: set[str] = set()
        for case in node.cases:
            self.cur = dict(s0)
            self.asg = set()
            self.dead = False
            self._pattern(case.pattern, node)
            if case.guard is not None:
                self.ev(case.guard)
            self.block(case.body)
            if not self.dead:
                ends.append(self.cur)
            names |= self.asg
        self.cur = _merge(ends, names)
        self.dead = False
        outer |= names
        self.asg = outer

    def _pattern(self, p: ast.pattern, stmt: ast.stmt) -> None:
        for sub in ast.walk(p):
            if isinstance(sub, ast.MatchAs | ast.MatchStar) and sub.name:
                self.bind(sub.name, U, stmt.lineno, stmt.lineno, B_OTHER)
            elif isinstance(sub, ast.MatchMapping) and sub.rest:
                self.bind(sub.rest, K_DICT, stmt.lineno, stmt.lineno, B_OTHER)
            elif isinstance(sub, ast.MatchValue):
                self.ev(sub.value)
            elif isinstance(sub, ast.MatchClass):
                self.ev(sub.cls)

    # -------------------------------------------------------- comprehensions
    def _comprehension(self, gens: list[ast.comprehension], elts: list[ast.expr]) -> list[Enc]:
        saved: dict[str, tuple[int, ...] | None] = {}
        for g in gens:
            it = self.ev(g.iter)
            for n in ast.walk(g.target):
                if type(n) is ast.Name and n.id not in saved:
                    saved[n.id] = self.cur.get(n.id)
            if type(g.target) is ast.Name:
                self.bind_temp(g.target.id, ("it", it), g.target.lineno)
            else:
                for n in ast.walk(g.target):
                    if type(n) is ast.Name:
                        self.bind_temp(n.id, U, n.lineno)
            for cond in g.ifs:
                self.ev(cond)
        out = [self.ev(e) for e in elts]
        for name, prev in saved.items():
            if prev is None:
                self.cur.pop(name, None)
            else:
                self.cur[name] = prev
        return out

