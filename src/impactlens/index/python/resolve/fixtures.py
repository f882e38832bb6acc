"""pytest fixtures as the resolver sees them: which fixture a name requests, and its value.

A test or fixture parameter named after a fixture receives what the fixture returns (or,
for a generator fixture, what it yields), so ``def test_x(catalog): catalog.get(...)``
resolves through the fixture's return like any call. The search follows pytest's own
order: the requesting class and its bases, the requesting module, the ``conftest.py``
files up the tree, then the modules ``pytest_plugins`` names. Test discovery
(``testdisc.py``) asks the same questions for the fixtures a test reaches.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from impactlens.index.python import pytest_config
from impactlens.index.python.facts import B_DEF, B_IMPORT, F_GENERATOR, FUNCTION, PyFileFacts
from impactlens.index.python.resolve.values import ExternalValue

if TYPE_CHECKING:
    from impactlens.index.python.resolve.values import Items

__all__ = ["NOT_FIXTURES", "Fixtures"]

# parameters pytest fills itself, never from a fixture of that name
NOT_FIXTURES = frozenset({"self", "cls", "request"})

FixtureKey = tuple[str, int]  # (module, function scope)

# pytest's builtin fixtures (when the repository defines none of that name): the class
# of what they give, named as pytest exports it
PYTEST_FIXTURES = {
    "monkeypatch": "pytest.MonkeyPatch", "tmp_path": "pathlib.Path",
    "tmp_path_factory": "pytest.TempPathFactory", "tmpdir": "py.path.local",
    "capsys": "pytest.CaptureFixture", "capfd": "pytest.CaptureFixture",
    "capsysbinary": "pytest.CaptureFixture", "capfdbinary": "pytest.CaptureFixture",
    "caplog": "pytest.LogCaptureFixture", "request": "pytest.FixtureRequest",
    "recwarn": "pytest.WarningsRecorder", "pytester": "pytest.Pytester",
    "testdir": "pytest.Testdir", "cache": "pytest.Cache",
}


class Fixtures:
    """Fixture look-ups, mixed into :class:`~.evaluate.Evaluator`."""

    lookup: Any
    mod: Any
    vals: Any
    mro: Any
    returns: Any
    yields: Any
    _conftests_of: dict[str, list[PyFileFacts]]
    _module_fixtures: dict[str, dict[str, int]]

    def conftests(self, facts: PyFileFacts) -> list[PyFileFacts]:
        """The ``conftest.py`` files whose fixtures a module sees, nearest first."""
        got = self._conftests_of.get(facts.path)
        if got is None:
            got = []
            d = facts.path.rpartition("/")[0]
            while True:
                p = (d + "/conftest.py") if d else "conftest.py"
                if p != facts.path:
                    cf = self.lookup.path(p)
                    if cf is not None:
                        got.append(cf)
                if not d:
                    break
                d = d.rpartition("/")[0]
            self._conftests_of[facts.path] = got
        return got

    def module_fixtures(self, facts: PyFileFacts) -> dict[str, int]:
        """Fixture name → function scope of the fixtures a module defines at its top."""
        got = self._module_fixtures.get(facts.path)
        if got is None:
            got = {}
            for sidx, sc in enumerate(facts.scopes):
                if sc.parent == 0 and sc.kind == FUNCTION and sc.fixture is not None:
                    got.setdefault(sc.fixture[0], sidx)
            self._module_fixtures[facts.path] = got
        return got

    def plugin_modules(self, facts: PyFileFacts) -> list[PyFileFacts]:
        """Modules named by ``pytest_plugins`` in a module or its conftests, and the
        plugins the pytest configuration loads for every test (``-p name``)."""
        collect = getattr(self.lookup, "collect", pytest_config.DEFAULT)
        named = [name for mf in (facts, *self.conftests(facts)) for name in mf.plugins]
        out: list[PyFileFacts] = []
        for name in (*named, *collect.plugins):
            pf = self.mod(name)
            if pf is not None and pf not in out:
                out.append(pf)
        return out

    def class_fixtures(self, ck: FixtureKey | None
                       ) -> Iterator[tuple[str, int, tuple[Any, ...]]]:
        """(module, scope, fixture facts) of each fixture defined in test class ``ck`` or
        its bases, in MRO order."""
        if ck is None:
            return
        order, _ = self.mro(ck)
        for k in order:
            kmf = self.mod(k[0])
            if kmf is None:
                continue
            ksc = kmf.scopes[k[1]]
            for bids in ksc.byname.values():
                for b in bids:
                    bind = ksc.binds[b]
                    if bind[4] == B_DEF:
                        fx = kmf.scopes[bind[1][1]].fixture
                        if fx is not None:
                            yield k[0], bind[1][1], fx

    def find_fixture(self, facts: PyFileFacts, name: str,
                     ck: FixtureKey | None) -> FixtureKey | None:
        """The fixture ``name`` that module ``facts`` (in test class ``ck``) requests."""
        for module, sidx, fx in self.class_fixtures(ck):
            if fx[0] == name:
                return (module, sidx)
        for mf in (facts, *self.conftests(facts), *self.plugin_modules(facts)):
            got = self._fixture_in_module(mf, name)
            if got is not None:
                return got
        return None

    def _fixture_in_module(self, mf: PyFileFacts, name: str) -> FixtureKey | None:
        got = self.module_fixtures(mf).get(name)
        if got is not None:
            return (mf.module, got)
        sc0 = mf.scopes[0]
        for b in sc0.byname.get(name, ()):
            if sc0.binds[b][4] == B_IMPORT:
                vals, _ = self.vals(mf, 0, sc0.binds[b][1], None)
                for v in vals:
                    if v[0] == "F":
                        vmf = self.mod(v[1])
                        if vmf is not None and vmf.scopes[v[2]].fixture is not None:
                            return (v[1], v[2])
        return None

    def fixture_value(self, facts: PyFileFacts, scope: int, name: str) -> Items | None:
        """What parameter ``name`` of function ``scope`` receives when the function is a
        test or a fixture of a test module or conftest and ``name`` is a fixture it sees;
        ``None`` otherwise."""
        if not (facts.is_test or facts.is_conftest) or name in NOT_FIXTURES:
            return None
        sc = facts.scopes[scope]
        collect = getattr(self.lookup, "collect", pytest_config.DEFAULT)
        if sc.kind != FUNCTION or (sc.fixture is None and not collect.collects_function(sc.name)):
            return None
        found = self.find_fixture(facts, name, (facts.module, sc.cls) if sc.cls >= 0 else None)
        if found is None and name in PYTEST_FIXTURES:  # pytest's own: outside the repository
            return [ExternalValue("XI", PYTEST_FIXTURES[name])]
        if found is None or found == (facts.module, scope):
            return None
        fmf = self.mod(found[0])
        if fmf is None:
            return None
        if fmf.scopes[found[1]].flags & F_GENERATOR:
            return self.yields(found[0], found[1], None) or None
        got, _ = self.returns(found[0], found[1], None)
        return got or None
