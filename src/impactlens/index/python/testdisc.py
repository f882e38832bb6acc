"""pytest / unittest test discovery and TESTS edges (part of one file's resolution).

Collected as the repository's pytest configuration says (``python_classes`` and
``python_functions``, :mod:`pytest_config`; pytest's defaults without one): module-level
``test*`` functions, ``Test*`` classes without ``__init__`` and ``unittest.TestCase``
subclasses (any name), their ``test*`` methods including inherited ones (a TestCase's
always by unittest's ``test`` prefix), nested test classes. A test's
units are what it calls/instantiates directly, what the fixtures it requests
call (transitively through fixture requests, ``usefixtures`` marks and
``autouse`` fixtures from the class, module and ``conftest.py`` files up the
tree), what the class's setUp/tearDown-style methods call, and what a helper
defined in a test module or conftest that it calls invokes (one level).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from impactlens.index.python import pytest_config
from impactlens.index.python import pytest_marks as pm
from impactlens.index.python.facts import B_CLASS, B_DEF, CLASS, FUNCTION, PyFileFacts
from impactlens.model import Node, NodeKind

if TYPE_CHECKING:
    from impactlens.index.python.resolve import RawEdge, Sites

K_CALL, K_INSTANTIATE, K_TESTS = "call", "instantiate", "tests"
R_EXACT, R_INFERRED, R_AMBIGUOUS = "exact", "inferred", "ambiguous"

_SETUP_NAMES = ("setUp", "setUpClass", "setUpTestData", "asyncSetUp", "setup_method",
                "setup_class", "setup", "tearDown", "tearDownClass", "asyncTearDown",
                "teardown_method", "teardown_class", "teardown")
_UNIT_KINDS = (K_CALL, K_INSTANTIATE)
_RANK = {"exact": 0, "inferred": 1, "ambiguous": 2}


class TestDiscovery:
    __test__ = False  # not a pytest class

    def __init__(self, r: Sites) -> None:
        self.r = r
        self.f = r.facts
        self.own: dict[int, str] = {}  # function scope → test id
        self.owner: dict[int, int] = {}  # function scope → test class scope (0: module)
        self.classes: dict[int, str] = {}  # class scope → pytest id prefix
        # (test id, qualname, base module, base function scope, class scope)
        self.inherited: list[tuple[str, str, str, int, int]] = []
        self._units: dict[Any, dict[str, tuple[str, int]]] = {}
        self._fxunits: dict[Any, dict[str, tuple[str, int]]] = {}
        self._setup: dict[Any, dict[str, tuple[str, int]]] = {}
        self._closure: dict[Any, list[tuple[str, int]]] = {}
        self._autouse_memo: dict[Any, list[tuple[str, int]]] = {}
        # the lookup knows the rules the index is built with; a bare one, pytest's defaults
        self.collect: pytest_config.Collect = getattr(r.lookup, "collect", pytest_config.DEFAULT)

    # ------------------------------------------------------------ discovery
    def discover(self) -> None:
        f = self.f
        if not f.is_test:
            return
        sc0 = f.scopes[0]
        for name, bids in sc0.final.items():
            for b in bids:
                bind = sc0.binds[b]
                if bind[4] == B_DEF and self.collect.collects_function(name):
                    fs = bind[1][1]
                    if f.scopes[fs].fixture is None:
                        self.own[fs] = f"{f.path}::{name}"
                        self.owner[fs] = 0
                elif bind[4] == B_CLASS:
                    self._visit_class(bind[1][1], f.path)

    def is_testcase(self, ck: tuple[str, int]) -> bool:
        r = self.r
        order, _gap = r.mro(ck)
        for k in order:
            mf = r.mod(k[0])
            if mf is None:
                continue
            sc = mf.scopes[k[1]]
            for benc in sc.bases:
                vals, _ = r.vals(mf, sc.parent, benc, None)
                for v in vals:
                    if v[0] == "X" and v[1].rpartition(".")[2].endswith("TestCase"):
                        return True
        return False

    def _visit_class(self, csidx: int, prefix: str) -> None:
        r = self.r
        f = self.f
        csc = f.scopes[csidx]
        ck = (f.module, csidx)
        testcase = self.is_testcase(ck)
        if not testcase:
            if not self.collect.collects_class(csc.name):
                return
            init, _ = r.class_attr(ck, "__init__", True)
            if any(i[0] == "F" for i in init):
                return
        cid = prefix + "::" + csc.name
        self.classes[csidx] = cid
        order, _gap = r.mro(ck)
        seen: set[str] = set()
        for k in order:
            kmf = r.mod(k[0])
            if kmf is None:
                continue
            ksc = kmf.scopes[k[1]]
            for name, bids in ksc.final.items():
                if name in seen:
                    continue
                seen.add(name)
                if not (name.startswith("test") if testcase
                        else self.collect.collects_function(name)):
                    continue
                defs = [ksc.binds[b][1][1] for b in bids if ksc.binds[b][4] == B_DEF]
                if not defs:
                    continue
                tid = cid + "::" + name
                if k == ck:
                    for fs in defs:
                        if kmf.scopes[fs].fixture is None:
                            self.own[fs] = tid
                            self.owner[fs] = csidx
                else:
                    fs = defs[-1]
                    if kmf.scopes[fs].fixture is None:
                        self.inherited.append((tid, csc.qual + "." + name, k[0], fs, csidx))
        for _name, bids in csc.final.items():
            for b in bids:
                bind = csc.binds[b]
                if bind[4] == B_CLASS:
                    self._visit_class(bind[1][1], cid)

    # ----------------------------------------------------------------- nodes
    def _params(self, fn_scope: Any, csidx: int) -> tuple[str, ...]:
        lists: list[Any] = []
        if fn_scope.parametrized:
            lists.append(fn_scope.param_ids)
        s = csidx
        scopes = self.f.scopes
        while s > 0 and scopes[s].kind == CLASS:
            if scopes[s].parametrized:
                lists.append(scopes[s].param_ids)
            s = scopes[s].parent
        if self.f.parametrized:
            lists.append(self.f.param_ids)
        if not lists:
            return ()
        return pm.combine(lists) or ()

    def test_node(self, row: tuple[Any, ...], sidx: int) -> Node:
        sc = self.f.scopes[sidx]
        return Node(id=self.own[sidx], kind=NodeKind.TEST, qualname=row[2], file=self.f.path,
                    start_line=row[3], end_line=row[4], signature=row[5], decorators=row[6],
                    parent=row[7], ids=row[8], strs=row[9], imports=row[10],
                    params=self._params(sc, self.owner.get(sidx, 0)))

    def inherited_nodes(self) -> list[Node]:
        out: list[Node] = []
        f = self.f
        for tid, qual, bmod, fs, csidx in self.inherited:
            bmf = self.r.mod(bmod)
            if bmf is None:
                continue
            row = next((n for n in bmf.nodes if n[11] == fs), None)
            csc = f.scopes[csidx]
            if bmf.path == f.path and row is not None:
                start, end = row[3], row[4]
            else:
                start, end = csc.line, csc.end
            out.append(Node(
                id=tid, kind=NodeKind.TEST, qualname=qual, file=f.path, start_line=start,
                end_line=end, signature=row[5] if row else "", decorators=row[6] if row else (),
                parent=csc.qual, ids=row[8] if row else (), strs=row[9] if row else (),
                imports=f.mod_imports, params=self._params(bmf.scopes[fs], csidx)))
        return out

    # ---------------------------------------------------------------- edges
    def tests_edges(self, src_ids: list[str]) -> list[RawEdge]:
        out: list[RawEdge] = []
        f = self.f
        for fs, tid in sorted(self.own.items()):
            csidx = self.owner.get(fs, 0)
            ck = (f.module, csidx) if csidx else None
            line = f.scopes[fs].def_line
            for dst, (res, at) in self.units(f.module, fs, None, ck).items():
                if dst != tid:
                    out.append((tid, dst, K_TESTS, at if at > 0 else line, res, "", None))
        for tid, _qual, bmod, fs, csidx in self.inherited:
            ck = (f.module, csidx)
            line = f.scopes[csidx].def_line
            for dst, (res, _at) in self.units(bmod, fs, ck, ck).items():
                if dst != tid:
                    out.append((tid, dst, K_TESTS, line, res, "", None))
        return out

    def units(self, mod: str, fs: int, recv: Any,
              ck: tuple[str, int] | None) -> dict[str, tuple[str, int]]:
        """dst → (resolution, line); line -1: reached indirectly (fixture, setUp, helper)."""
        units = dict(self.scope_units(mod, fs, recv, True))
        mf = self.r.mod(mod)
        if mf is None:
            return units
        fsc = mf.scopes[fs]
        names: list[str] = self._requested(fsc)
        names.extend(fsc.usefixtures)
        s = ck[1] if ck else 0
        while s > 0:
            names.extend(self.f.scopes[s].usefixtures)
            s = self.f.scopes[s].parent
        names.extend(self.f.usefixtures)
        for fx in self.fixture_closure(tuple(names), ck):
            _merge(units, self.fixture_units(fx, ck))
        for penc in fsc.param_refs:  # classes/functions handed in by parametrize
            vals, _ = self.r.vals(mf, fsc.parent, penc, None)
            for v in vals:
                if v[0] in ("F", "C"):
                    _put(units, self.r.scope_id(v[1], v[2]), R_EXACT, -1)
        if ck is not None:
            _merge(units, self.setup_units(ck))
        return units

    def scope_units(self, m: str, s: int, rc: Any, helpers: bool) -> dict[str, tuple[str, int]]:
        key = (m, s, rc, helpers)
        got = self._units.get(key)
        if got is not None:
            return got
        out: dict[str, tuple[str, int]] = {}
        self._units[key] = out
        r = self.r
        for e in r.scope_sink(m, s, rc).edges:
            kind = e[2]
            if kind != K_CALL and kind != K_INSTANTIATE:
                continue
            _put(out, e[1], e[4], e[3])
            tk = e[6]
            if helpers and tk is not None and self._is_helper(tk):
                hmf = r.mod(tk[0])
                hrc = rc if (hmf is not None and hmf.scopes[tk[1]].cls >= 0) else None
                _merge(out, self.scope_units(tk[0], tk[1], hrc, False))
        return out

    def fixture_units(self, fx: tuple[str, int],
                      ck: tuple[str, int] | None) -> dict[str, tuple[str, int]]:
        key = (fx, ck)
        got = self._fxunits.get(key)
        if got is None:
            got = {}
            fmf = self.r.mod(fx[0])
            if fmf is not None:
                got[fmf.scopes[fx[1]].qual] = (R_EXACT, -1)
                rc = ck if fmf.scopes[fx[1]].cls >= 0 else None
                _merge(got, self.scope_units(fx[0], fx[1], rc, True))
            self._fxunits[key] = got
        return got

    def setup_units(self, ck: tuple[str, int]) -> dict[str, tuple[str, int]]:
        got = self._setup.get(ck)
        if got is None:
            got = {}
            r = self.r
            for name in _SETUP_NAMES:
                items, _ = r.class_attr(ck, name, True)
                for it in items:
                    if it[0] == "F":
                        smf = r.mod(it[1])
                        if smf is None:
                            continue
                        _put(got, smf.scopes[it[2]].qual, R_EXACT, -1)
                        # only set-up code written in test modules is expanded: a framework's
                        # own setUp (e.g. a TestCase base class in the repo) is one unit
                        if smf.is_test or smf.is_conftest:
                            _merge(got, self.scope_units(it[1], it[2], ck, True))
            self._setup[ck] = got
        return got

    def fixture_closure(self, names: tuple[str, ...],
                        ck: tuple[str, int] | None) -> list[tuple[str, int]]:
        key = (names, ck)
        got = self._closure.get(key)
        if got is not None:
            return got
        r = self.r
        fixtures: list[tuple[str, int]] = []
        seen_fx: set[tuple[str, int]] = set()
        queue = list(names)

        def take(fx: tuple[str, int]) -> None:
            if fx in seen_fx:
                return
            fmf = r.mod(fx[0])
            if fmf is None:
                return
            seen_fx.add(fx)
            fixtures.append(fx)
            queue.extend(self._requested(fmf.scopes[fx[1]]))

        for fx in self._autouse(ck):
            take(fx)
        seen_names: set[str] = set()
        while queue:
            name = queue.pop(0)
            if name in seen_names:
                continue
            seen_names.add(name)
            found = self.find_fixture(name, ck)
            if found is not None:
                take(found)
        self._closure[key] = fixtures
        return fixtures

    def _is_helper(self, tk: tuple[str, int]) -> bool:
        mf = self.r.mod(tk[0])
        if mf is None or not (mf.is_test or mf.is_conftest):
            return False
        sc = mf.scopes[tk[1]]
        return sc.kind == FUNCTION and sc.fixture is None

    @staticmethod
    def _requested(sc: Any) -> list[str]:
        params = [p[0] for p in sc.params]
        if sc.cls >= 0 and params:
            params = params[1:]
        return [p for p in params if p != "request"]

    # -------------------------------------------------------------- fixtures
    # the look-ups themselves are the evaluator's (resolve/fixtures.py), which types a
    # test's fixture parameters by the same search
    def conftests(self) -> list[PyFileFacts]:
        return self.r.evaluator.conftests(self.f)

    def find_fixture(self, name: str, ck: tuple[str, int] | None) -> tuple[str, int] | None:
        return self.r.evaluator.find_fixture(self.f, name, ck)

    def plugin_modules(self) -> list[PyFileFacts]:
        return self.r.evaluator.plugin_modules(self.f)

    def _autouse(self, ck: tuple[str, int] | None) -> list[tuple[str, int]]:
        got = self._autouse_memo.get(ck)
        if got is None:
            got = self._autouse_memo[ck] = self._autouse_uncached(ck)
        return got

    def _autouse_uncached(self, ck: tuple[str, int] | None) -> list[tuple[str, int]]:
        out = [(module, sidx) for module, sidx, fx in self.r.evaluator.class_fixtures(ck) if fx[1]]
        for mf in (self.f, *self.conftests(), *self.plugin_modules()):
            for _name, sidx in sorted(self.r.evaluator.module_fixtures(mf).items()):
                fx = mf.scopes[sidx].fixture
                if fx is not None and fx[1]:
                    out.append((mf.module, sidx))
        return out


def _put(out: dict[str, tuple[str, int]], dst: str, res: str, line: int) -> None:
    old = out.get(dst)
    if old is None or (_RANK[res], old[1] < 0, line) < (_RANK[old[0]], line < 0, old[1]):
        out[dst] = (res, line)


def _merge(out: dict[str, tuple[str, int]], more: dict[str, tuple[str, int]]) -> None:
    """Merge units reached indirectly (their lines become -1)."""
    for dst, (res, _line) in more.items():
        old = out.get(dst)
        if old is None or _RANK[res] < _RANK[old[0]]:
            out[dst] = (res, -1 if old is None else old[1])
