"""The before-state overlay re-resolves only the files that read what a change removed,
and answers exactly as re-resolving every file that consulted the changed module."""

from __future__ import annotations

import pytest

from impactlens.api import Project
from impactlens.index import indexer as indexer_mod
from impactlens.index import overlay as overlay_mod
from impactlens.index import python as python_mod

LIB = (  # `gone` last: removing a def renumbers the scopes below it (read conservatively)
    "import os\n\n\n"
    "def keep(x):\n    return x\n\n\n"
    "class Box:\n    def open(self):\n        return keep(1)\n\n    def shut(self):\n"
    "        return 0\n\n\n"
    "def gone(x):\n    return keep(x) + 1\n"
)
FILES = {
    "pkg/__init__.py": "",
    "pkg/lib.py": LIB,
    "pkg/a.py": "from pkg.lib import keep\n\n\ndef a():\n    return keep(1)\n",
    "pkg/b.py": "from pkg.lib import keep, Box\n\n\ndef b():\n    return Box().open()\n",
    "pkg/c.py": "from pkg import lib\n\n\ndef c():\n    return lib.keep(2)\n",
    "pkg/d.py": "from pkg.lib import gone\n\n\ndef d():\n    return gone(3)\n",
    "pkg/e.py": "from pkg.lib import Box\n\n\ndef e():\n    return Box().shut()\n",
    "tests/test_d.py": "from pkg.d import d\n\n\ndef test_d():\n    assert d() == 4\n",
}

EDITS = {
    "function removed": ("\n\n\ndef gone(x):\n    return keep(x) + 1\n", "\n"),
    "method removed": ("\n    def shut(self):\n        return 0\n", "\n"),
    "class renamed": ("class Box:", "class Crate:"),
    "import removed": ("import os\n", ""),
}


def _graph_rows(graph, ids):
    out = []
    for i in sorted(ids):
        out += [(e.src, e.dst, e.kind.value, e.file, e.line, e.resolution.value)
                for e in graph.in_edges(i) + graph.out_edges(i)]
        n = graph.node(i)
        out.append((i, None if n is None else (n.kind.value, n.file, n.start_line)))
    return sorted(out, key=repr)


@pytest.mark.parametrize("name", sorted(EDITS))
def test_overlay_re_resolves_only_readers_and_matches_the_coarse_overlay(
        make_repo, monkeypatch, name):
    root = make_repo(FILES)
    old, new = EDITS[name]
    (root / "pkg/lib.py").write_text(LIB.replace(old, new))
    resolved: list[str] = []
    real_resolve = python_mod.resolve_file

    def counting(facts, lookup):
        resolved.append(facts.path)
        return real_resolve(facts, lookup)

    monkeypatch.setattr(python_mod, "resolve_file", counting)
    with Project(root) as p:
        p.refresh()
        change = p.proposed_change()
        resolved.clear()
        refined = overlay_mod.overlay_for(p.store, change.files, p.module_of)
        refined_files = sorted(resolved)
        # the reference: every file that consulted pkg/lib.py re-resolved
        monkeypatch.setattr(indexer_mod, "readers_of_change",
                            lambda store, path, module, *_: store.dependents_of_modules(
                                {module, "/" + path}))
        coarse = overlay_mod.overlay_for(p.store, change.files, p.module_of)
        ids = {n.id for f in FILES for n in p.store.nodes_in_file(f)} | {
            "pkg.lib.gone", "pkg.lib.Box", "pkg.lib.Box.shut", "pkg.lib.os"}
        assert refined is not None and coarse is not None
        assert _graph_rows(refined, ids) == _graph_rows(coarse, ids)
    assert "pkg/lib.py" in refined_files
    if name == "import removed":  # the first binding: every later one is renumbered
        return
    assert "pkg/a.py" not in refined_files  # reads only `keep`, which did not change
    assert "pkg/c.py" not in refined_files
    if name == "function removed":
        assert "pkg/d.py" in refined_files
        assert "pkg/b.py" not in refined_files and "pkg/e.py" not in refined_files
