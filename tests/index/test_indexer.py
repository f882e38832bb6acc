"""The indexer end to end on real repositories: incremental updates, bad input, locking."""

from __future__ import annotations

import fcntl
import json
import os
import sqlite3

import pytest
from click.testing import CliRunner
from edit_sequences import SHOP as BASE
from edit_sequences import TS_BASE, TS_EDITS, TS_NAMED_EDITS, dump
from edit_sequences import apply_edit as _apply
from edit_sequences import incremental_equals_full as _incremental_equals_full

from impactlens.api import Project
from impactlens.cli import main
from impactlens.errors import IndexBusyError
from impactlens.index import indexer as indexer_mod
from impactlens.index.store import index_path
from impactlens.model import EdgeKind
from impactlens.settings import DEFAULT


def test_index_builds_graph(make_repo):
    root = make_repo(BASE)
    summary = Project(root).index()
    assert summary.full and summary.files == 4 and summary.parse_failures == 0
    p = Project(root)
    callers = {e.src for e in p.store.in_edges("shop.pricing.price_of",
                                                 frozenset({EdgeKind.CALL}))}
    assert "shop.cart.Cart.total" in callers
    tests = {e.src for e in p.store.in_edges("shop.cart.Cart.total",
                                               frozenset({EdgeKind.TESTS}))}
    assert tests == {"tests/test_cart.py::test_total"}


def test_second_index_reparses_only_changed_files(indexed):
    root = indexed(BASE).root
    assert Project(root).index().parsed == 0
    (root / "src/shop/pricing.py").write_text(BASE["src/shop/pricing.py"] + "\n\ndef tax():\n"
                                               "    return RATE\n")
    s = Project(root).index()
    assert s.parsed == 1 and not s.full
    assert Project(root).store.node("shop.pricing.tax") is not None


def test_touch_without_content_change_reparses_nothing(indexed):
    root = indexed(BASE).root
    os.utime(root / "src/shop/cart.py", ns=(1, 1))
    assert Project(root).index().parsed == 0


def test_history_is_mined_only_when_head_moves(indexed, monkeypatch):
    import subprocess

    from impactlens.index import history

    root = indexed(BASE).root
    calls = []
    real = history.update_history
    monkeypatch.setattr(history, "update_history",
                        lambda *a, **k: calls.append(1) or real(*a, **k))
    (root / "src/shop/pricing.py").write_text(BASE["src/shop/pricing.py"] + "X = 1\n")
    s = Project(root).index()
    assert calls == [] and any("history:" in n for n in s.notes)  # the stored note is kept
    subprocess.run(["git", "-C", str(root), "commit", "-qam", "x"], check=True)
    Project(root).index()
    assert calls == [1]


def test_syntax_error_and_non_utf8_are_recorded_rest_indexed(make_repo):
    root = make_repo({**BASE, "src/shop/bad.py": "def broken(:\n    pass\n"})
    (root / "src/shop/latin.py").write_bytes(b"NAME = '\xe9t\xe9'\n")
    result = CliRunner().invoke(main, ["index", str(root)])
    assert result.exit_code == 0, result.output
    assert "src/shop/bad.py" in result.output and "syntax error at line 1" in result.output
    assert "src/shop/latin.py" in result.output
    recs = {r.path: r.status for r in Project(root).store.files()}
    assert recs["src/shop/bad.py"] == "syntax-error"
    assert recs["src/shop/latin.py"] == "decode-error"
    assert Project(root).store.node("shop.pricing.price_of") is not None


def test_file_over_size_cap_is_recorded_not_parsed(make_repo):
    root = make_repo({**BASE, "src/shop/huge.py": "X = 1\n" * 2000})
    s = Project(root, DEFAULT.replace(max_file_bytes=5000)).index()
    assert ("src/shop/huge.py", "file is 12000 bytes (cap 5000)") in s.failures
    assert Project(root).store.file_record("src/shop/huge.py").status == "too-large"


def test_symlink_loop_is_recorded(tmp_path):
    (tmp_path / "ok.py").write_text("def f():\n    return 1\n")
    os.symlink(tmp_path / "loop_a.py", tmp_path / "loop_b.py")
    os.symlink(tmp_path / "loop_b.py", tmp_path / "loop_a.py")
    os.symlink(tmp_path, tmp_path / "self_dir")  # a directory loop must not hang the walk
    s = Project(tmp_path).index()  # not a git repository: plain directory walk
    assert dict(s.failures)["loop_a.py"] == "symlink loop"
    assert Project(tmp_path).store.node("ok.f") is not None


def test_walk_skips_virtualenvs_and_vcs_dirs(tmp_path):
    (tmp_path / "app.py").write_text("def main():\n    pass\n")
    for d in (".venv/lib", "node_modules/x", "build/lib", "myenv/lib"):
        (tmp_path / d).mkdir(parents=True)
        (tmp_path / d / "junk.py").write_text("def junk():\n    pass\n")
    (tmp_path / "myenv" / "pyvenv.cfg").write_text("home = /usr\n")
    s = Project(tmp_path).index()
    assert s.files == 1


def test_not_a_directory_is_one_line_error(tmp_path):
    result = CliRunner().invoke(main, ["index", str(tmp_path / "missing")])
    assert result.exit_code == 2
    assert "Traceback" not in result.output


def test_unknown_symbol_suggests_close_matches(indexed):
    root = indexed(BASE).root
    result = CliRunner().invoke(main, ["impact", "price_off", "--repo", str(root)])
    assert result.exit_code == 2
    assert "unknown symbol 'price_off'" in result.output
    assert "shop.pricing.price_of" in result.output
    assert "Traceback" not in result.output


def test_old_schema_gives_clear_message_and_index_rebuilds(indexed):
    root = indexed(BASE).root
    con = sqlite3.connect(index_path(root))
    con.execute("UPDATE meta SET value='1' WHERE key='schema_version'")
    con.commit()
    con.close()
    from impactlens.index.store import Store, StoreError

    with pytest.raises(StoreError, match=r"schema v1 .* run `impactlens index` to rebuild"):
        Store.open(index_path(root))
    assert Project(root).index().full
    assert Project(root).store.node("shop.cart.Cart") is not None


def test_interrupted_index_leaves_previous_index_intact(indexed, monkeypatch):
    root = indexed(BASE).root
    before = dump(root)
    (root / "src/shop/pricing.py").write_text("def price_of(item):\n    return 0\n")
    (root / "src/shop/new.py").write_text("def new():\n    pass\n")

    real = indexer_mod.Indexer._resolve

    def crash(self, store, *args, **kwargs):
        real(self, store, *args, **kwargs)
        raise KeyboardInterrupt  # the user hits Ctrl-C after resolution, before commit

    monkeypatch.setattr(indexer_mod.Indexer, "_resolve", crash)
    with pytest.raises(KeyboardInterrupt):
        Project(root).index()
    monkeypatch.undo()
    assert dump(root) == before
    assert Project(root).impact("price_of")["target"]["id"] == "shop.pricing.price_of"
    assert Project(root).index().parsed == 2  # the interrupted work is redone


def _journal_mode(root) -> str:
    con = sqlite3.connect(index_path(root))
    try:
        return str(con.execute("PRAGMA journal_mode").fetchone()[0])
    finally:
        con.close()


def test_first_index_loads_without_wal_and_leaves_wal_on(make_repo, monkeypatch):
    root = make_repo(BASE)
    seen = []
    real = indexer_mod.Indexer._resolve

    def spy(self, store, *args, **kwargs):
        seen.append(store._conn.execute("PRAGMA journal_mode").fetchone()[0])
        return real(self, store, *args, **kwargs)

    monkeypatch.setattr(indexer_mod.Indexer, "_resolve", spy)
    Project(root).index()
    (root / "src/shop/pricing.py").write_text("def price_of(item):\n    return 0\n")
    Project(root).index()
    # the bulk load of a first index goes through a rollback journal; readers get WAL
    assert seen == ["delete", "wal"]
    assert _journal_mode(root) == "wal"


def test_interrupted_first_index_leaves_nothing_half_written(make_repo, monkeypatch):
    root = make_repo(BASE)

    def crash(self, store, *args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(indexer_mod.Indexer, "_resolve", crash)
    with pytest.raises(KeyboardInterrupt):
        Project(root).index()
    monkeypatch.undo()
    assert all(rows == [] for rows in dump(root).values())  # rolled back, not partial
    assert Project(root).index().full
    assert Project(root).store.node("shop.cart.Cart") is not None


def test_first_index_keeps_wal_when_another_connection_holds_the_file(make_repo):
    root = make_repo(BASE)
    (root / ".impactlens").mkdir()
    from impactlens.index.store import Store

    Store.open(index_path(root), create=True).close()  # an empty index someone reads
    reader = sqlite3.connect(index_path(root))
    reader.execute("SELECT COUNT(*) FROM files").fetchone()
    try:
        assert Project(root).index().full  # no wait on the reader, no error
    finally:
        reader.close()
    assert _journal_mode(root) == "wal"
    assert Project(root).store.node("shop.cart.Cart") is not None


def test_concurrent_index_fails_cleanly(indexed):
    root = indexed(BASE).root
    fd = os.open(root / ".impactlens" / "index.lock", os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        with pytest.raises(IndexBusyError, match="another `impactlens index` is running"):
            Project(root, DEFAULT.replace(lock_timeout_s=0.2)).index()
    finally:
        os.close(fd)
    assert Project(root).index().parsed == 0


def test_impact_json_contract(make_repo):
    root = make_repo(BASE)
    result = CliRunner().invoke(main, ["impact", "price_of", "--repo", str(root), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["target"] == {"id": "shop.pricing.price_of", "kind": "function",
                              "file": "src/shop/pricing.py", "line": 4}
    first = data["by_depth"]["1"]
    assert {"id", "kind", "file", "line", "relation"} <= set(first[0])
    assert "shop.cart.Cart.total" in {h["id"] for h in first}
    assert "tests/test_cart.py::test_total" in {t["id"] for t in data["tests"]}
    assert data["unanalyzable"] == []


def test_symbol_by_path_and_line(make_repo):
    root = make_repo(BASE)
    p = Project(root)
    assert p.resolve_symbol("src/shop/cart.py:12").id == "shop.cart.Cart.total"
    assert p.resolve_symbol("Cart.total").id == "shop.cart.Cart.total"


def test_export_pycg_format(make_repo):
    root = make_repo(BASE)
    result = CliRunner().invoke(main, ["export", "callgraph", str(root), "--format", "pycg"])
    assert result.exit_code == 0, result.output
    graph = json.loads(result.output)
    assert "shop.pricing.price_of" in graph["shop.cart.Cart.total"]
    dot = CliRunner().invoke(main, ["export", "callgraph", str(root), "--format", "dot"])
    assert dot.output.startswith("digraph callgraph {")


def test_a_file_the_resolver_cannot_handle_is_recorded_rest_indexed(make_repo, monkeypatch):
    from impactlens.index import python as pyindex

    real = pyindex.resolve_file

    def fragile(facts, lookup):
        result = real(facts, lookup)  # consults its imports first, as the real one does
        if facts.path == "src/shop/cart.py":
            raise RecursionError("maximum recursion depth exceeded")
        return result

    monkeypatch.setattr(pyindex, "resolve_file", fragile)
    root = make_repo(BASE)
    s = Project(root, DEFAULT.replace(index_workers=1)).index()
    assert dict(s.failures)["src/shop/cart.py"].startswith("too deeply nested to resolve")
    assert Project(root).store.file_record("src/shop/cart.py").status == "resolve-error"
    assert Project(root).store.node("shop.pricing.price_of") is not None
    monkeypatch.setattr(pyindex, "resolve_file", real)
    (root / "src/shop/pricing.py").write_text(BASE["src/shop/pricing.py"] + "\n")
    Project(root).index()  # cart.py depends on pricing.py: re-resolved, now fine
    assert Project(root).store.file_record("src/shop/cart.py").status == "ok"


# Symbol-level dependencies: a dependent is re-resolved only when it read a part of the
# edited module's facts that changed. Each edit below changes an interface some dependent
# relies on (so a wrong skip shows as incremental != full), or none (so nothing but the
# edited file is re-resolved).
LIB = {
    "src/lib/__init__.py": "from .core import *\n",
    "src/lib/core.py": (
        "__all__ = ['Base', 'make', 'helper']\n\n\n"
        "class Base:\n    def run(self):\n        return 1\n\n\n"
        "class Other:\n    def run(self):\n        return 2\n\n\n"
        "def make():\n    return Base()\n\n\n"
        "def helper(x):\n    return x\n"
    ),
    "src/app/__init__.py": "",
    "src/app/use.py": (
        "from lib.core import make, helper\nfrom lib import Base\n\n\n"
        "class Child(Base):\n    def go(self):\n        return make().run()\n\n\n"
        "def f():\n    return helper(1).bit_length()\n"
    ),
    "src/app/other.py": "from lib.core import helper\n\n\ndef g():\n    return helper(2)\n",
    "tests/base.py": ("from lib.core import make\n\n\nclass BaseTests:\n"
                      "    def test_one(self):\n        assert make().run()\n"),
    "tests/test_x.py": ("from tests.base import BaseTests\n\n\nclass TestX(BaseTests):\n"
                        "    def test_two(self):\n        assert 2\n"),
}
CORE = LIB["src/lib/core.py"]
TESTS_BASE = LIB["tests/base.py"]
# name: (file, new text or None to delete it, whether only that file is re-resolved)
LIB_EDITS = {
    "body-only": ("src/lib/core.py",
                  CORE.replace("        return 2\n", "        y = 2\n        return y\n"), True),
    "method-body-only": ("src/lib/core.py",
                         CORE.replace("        return 1\n", "        y = 1\n        return y\n"),
                         True),
    "appended-private": ("src/lib/core.py", CORE + "\n\ndef _private():\n    return 0\n", True),
    "lines-shifted": ("tests/base.py", "# a new first line\n" + TESTS_BASE, True),
    "changed-return": ("src/lib/core.py", CORE.replace("    return Base()", "    return Other()"),
                       False),
    "renamed-function": ("src/lib/core.py", CORE.replace("def make(", "def build("), False),
    "changed-base-class": ("src/lib/core.py", CORE.replace("class Base:", "class Base(Other):")
                           .replace("    def run(self):\n        return 1\n", "    pass\n"),
                           False),
    "added-all-entry": ("src/lib/core.py", CORE.replace("'helper']", "'helper', 'extra']")
                        + "\n\ndef extra():\n    return 3\n", False),
    "rebound-name": ("src/lib/core.py", CORE + "\nhelper = None\n", False),
    "inherited-test-added": ("tests/base.py", TESTS_BASE + "\n    def test_three(self):\n"
                             "        assert 3\n", False),
    "deleted-module": ("src/lib/core.py", None, False),
}
# defs inserted or removed ABOVE the ones dependents read: scopes and bindings are
# renumbered, which must not count as a change of what the dependents read. The star
# importer lib/__init__.py reads the module's name set, which does change.
ABOVE_EDITS = {
    "def-inserted-above": CORE.replace("class Base:", "def fresh():\n    return 0\n\n\n"
                                                      "class Base:"),
    "class-removed-above": CORE.replace("class Other:\n    def run(self):\n        return 2"
                                        "\n\n\n", ""),
    "binding-inserted-above": "import os\n" + CORE,
    # (a method added to Base itself would change Base's members: its readers re-resolve)
    "method-inserted-above": CORE.replace("    def run(self):\n        return 2\n",
                                          "    def stop(self):\n        return 0\n\n"
                                          "    def run(self):\n        return 2\n"),
}


def _reindexed_after(indexed, monkeypatch, path, text):
    """Index LIB, apply the edit, re-index incrementally: (root, files re-resolved)."""
    from impactlens.index import python as pyindex

    root = indexed(LIB).root
    _apply(root, path, text)
    resolved = []
    real = pyindex.resolve_file
    monkeypatch.setattr(pyindex, "resolve_file",
                        lambda facts, lookup: resolved.append(facts.path) or real(facts, lookup))
    Project(root).index()
    monkeypatch.undo()
    return root, resolved


@pytest.mark.parametrize("edit", sorted(ABOVE_EDITS))
def test_renumbering_above_re_resolves_only_the_name_set_readers(indexed, monkeypatch, edit):
    root, resolved = _reindexed_after(indexed, monkeypatch, "src/lib/core.py",
                                      ABOVE_EDITS[edit])
    assert set(resolved) <= {"src/lib/core.py", "src/lib/__init__.py"}
    incremental = dump(root)
    Project(root).index(full=True)
    assert dump(root) == incremental


@pytest.mark.parametrize("edit", sorted(LIB_EDITS))
def test_symbol_level_dependencies_match_a_full_index(indexed, monkeypatch, edit):
    path, text, only_edited = LIB_EDITS[edit]
    root, resolved = _reindexed_after(indexed, monkeypatch, path, text)
    if only_edited:
        assert resolved == [path]
    else:
        assert len(resolved) > 1  # some dependent read what changed
    incremental = dump(root)
    Project(root).index(full=True)
    assert dump(root) == incremental


def test_reader_during_a_first_index_gets_a_clear_message(make_repo, monkeypatch):
    from impactlens.index import store as store_mod

    root = make_repo(BASE)
    (root / ".impactlens").mkdir()
    store_mod.Store.open(index_path(root), create=True).close()
    writer = sqlite3.connect(index_path(root), isolation_level=None)
    writer.execute("PRAGMA journal_mode=DELETE")
    writer.execute("BEGIN EXCLUSIVE")  # what a first index's bulk load holds
    monkeypatch.setattr(store_mod, "_BUSY_TIMEOUT_MS", 50)
    try:
        with pytest.raises(store_mod.StoreError, match="locked by an `impactlens index`"):
            store_mod.Store.open(index_path(root))
    finally:
        writer.execute("ROLLBACK")
        writer.close()


RECV = {
    "src/base.py": ("class Param:\n    def __init__(self, decls):\n"
                    "        self.names = self._parse(decls)\n\n"
                    "    def _parse(self, decls):\n        return decls\n"),
    "src/mid.py": ("from base import Param\n\n\nclass Mid(Param):\n"
                   "    def _parse(self, decls):\n        return self._norm(decls)\n\n"
                   "    def _norm(self, decls):\n        return decls\n"),
    "src/opt.py": ("from mid import Mid\n\n\nclass Option(Mid):\n"
                   "    def _norm(self, decls):\n        return list(decls)\n"),
    "src/use.py": "from opt import Option\n\n\ndef make():\n    return Option(['-x'])\n",
}


def test_inherited_code_evaluated_for_a_receiver_records_this_file_s_lines(indexed):
    """use.py knows the receiver (Option) of the inherited methods, so it records what they
    reach for an Option (Param.__init__ -> Mid._parse -> Option._norm) — at its own line,
    also for the context found inside base.py's code: base.py's lines can move without
    use.py being re-resolved (found by `bench replay` on click)."""
    root = indexed(RECV).root
    con = sqlite3.connect(index_path(root))
    rows = con.execute("SELECT src, dst, line FROM edges WHERE file='src/use.py' AND "
                       "detail LIKE '%recv%'").fetchall()
    con.close()
    assert sorted(rows) == [("base.Param.__init__", "mid.Mid._parse", 5),
                            ("mid.Mid._parse", "opt.Option._norm", 5)]
    _apply(root, "src/base.py", "# moved down\n\n" + RECV["src/base.py"])
    Project(root).index()
    incremental = dump(root)
    Project(root).index(full=True)
    assert dump(root) == incremental


FLOW_BASE = {
    "src/app/kinds.py": ("class A:\n    def go(self):\n        pass\n\n\n"
                         "class B:\n    def go(self):\n        pass\n"),
    "src/app/run.py": "def run(x):\n    return x.go()\n",
    "src/app/main.py": "from app.kinds import A\nfrom app.run import run\n\nrun(A())\n",
}
# edits of a flow's caller (other argument), callee (body, annotation) and argument class
FLOW_EDITS = [
    ("src/app/main.py", "from app.kinds import B\nfrom app.run import run\n\nrun(B())\n"),
    ("src/app/main.py", FLOW_BASE["src/app/main.py"]),
    ("src/app/run.py", "def run(x):\n    y = x\n    return y.go()\n"),
    ("src/app/run.py", "from app.kinds import B\n\n\ndef run(x: B):\n    return x.go()\n"),
    ("src/app/run.py", FLOW_BASE["src/app/run.py"]),
    ("src/app/kinds.py", "class A:\n    def go(self):\n        pass\n"),
    ("src/app/kinds.py", FLOW_BASE["src/app/kinds.py"]),
]


def test_argument_flow_incremental_equals_full(indexed):
    """A flow's edges live in the caller's file but depend on the callee's and the
    argument class's facts: every edit order gives what a full index gives."""
    root = indexed(FLOW_BASE).root
    calls = {(e[0], e[1]) for e in dump(root)["edges"] if e[2] == EdgeKind.CALL.value}
    assert ("app.run.run", "app.kinds.A.go") in calls
    _incremental_equals_full(indexed, FLOW_BASE, FLOW_EDITS, 4)


def test_the_index_never_shows_up_in_git_status(indexed):
    import subprocess

    root = indexed(BASE).root
    status = subprocess.run(["git", "-C", str(root), "status", "--porcelain",
                             "--untracked-files=all"], capture_output=True, text=True, check=True)
    assert status.stdout == ""  # `.impactlens/` ignores itself: `git add -A` adds no database
    assert (root / ".impactlens" / ".gitignore").read_text().endswith("*\n")


def test_an_implements_clause_edited_re_resolves_the_interfaces_callers(indexed):
    pytest.importorskip("tree_sitter_typescript")
    base = {**TS_BASE, "web/ring.ts": TS_EDITS[-3][1], "web/lib/price.ts": TS_EDITS[-2][1]}
    root = indexed(base).root
    assert any(e.dst == "web/lib/price.Till.ring"
               for e in Project(root).store.out_edges("web/ring.use"))
    _apply(root, *TS_EDITS[-1])  # Till no longer implements Ringer: ring.ts is not edited
    Project(root).index()
    incremental = dump(root)
    Project(root).index(full=True)
    assert dump(root) == incremental


def test_a_subclass_or_a_package_added_elsewhere_re_resolves_who_asked(indexed):
    pytest.importorskip("tree_sitter_typescript")
    root = indexed({**TS_BASE, "web/pay.ts": TS_NAMED_EDITS[2][1],
                    "packages/pay/src/main.ts": TS_NAMED_EDITS[5][1]}).root

    def calls(src):
        return {e.dst for e in Project(root).store.out_edges(src)}

    assert "web/lib/price.Till.ring" in calls("web/cart.Cart.total")
    assert "packages/pay/src/main.pay" not in calls("web/pay.go")  # no such package yet
    _apply(root, *TS_NAMED_EDITS[0])  # a subclass overriding ring, in a new file
    _apply(root, *TS_NAMED_EDITS[3])  # the package, in a directory not named after it
    Project(root).index()
    assert "web/fancy.Fancy.ring" in calls("web/cart.Cart.total")
    assert "packages/pay/src/main.pay" in calls("web/pay.go")
    _apply(root, *TS_NAMED_EDITS[1])
    _apply(root, *TS_NAMED_EDITS[4])  # renamed: the import names no package of the repository
    Project(root).index()
    assert "web/fancy.Fancy.ring" not in calls("web/cart.Cart.total")
    assert "packages/pay/src/main.pay" not in calls("web/pay.go")
    incremental = dump(root)
    Project(root).index(full=True)
    assert dump(root) == incremental


def test_which_classes_extend_a_name_is_one_named_dependency_not_every_file(indexed):
    pytest.importorskip("tree_sitter_typescript")
    from impactlens.index.indexer import EVERY_FILE

    root = indexed({**TS_BASE, "web/ring.ts": TS_EDITS[-3][1],
                    "web/lib/price.ts": TS_EDITS[-2][1]}).root
    store = Project(root).store
    # the interface-typed receiver in ring.ts asked which classes implement `Ringer`
    assert "web/ring.ts" in store.dependents_of_modules({"named:extends:Ringer"})
    assert store.named("extends", "Ringer") == [("web/lib/price.ts", "Till")]
    # so no TypeScript file is re-resolved whenever any file changes
    assert not {f for f in store.dependents_of_modules({EVERY_FILE}) if f.endswith(".ts")}
