"""The statement-level graph is built for Python files; another language's is refused by name."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from impactlens.cli import main
from impactlens.index.frontend import language_of
from impactlens.pdg.slicing import local_slice
from impactlens.pdg.source import SourceCache


def test_a_file_of_a_language_without_the_statement_graph_is_refused_by_name(tmp_path):
    (tmp_path / "app.ts").write_text("export function f(a: number) {\n  return a + 1;\n}\n")
    if language_of("app.ts") == "":
        pytest.skip("the TypeScript frontend is not installed")
    got = local_slice(SourceCache(tmp_path), "app.ts", 2)
    assert got.reason == "unsupported-language"
    assert "statement-level impact reads Python files" in got.message


def test_slice_exits_2_with_one_line_for_such_a_file(make_repo):
    root = make_repo({"app.ts": "export function f(a: number) {\n  return a + 1;\n}\n",
                      "m.py": "def g():\n    return 1\n"})
    if language_of("app.ts") == "":
        pytest.skip("the TypeScript frontend is not installed")
    got = CliRunner().invoke(main, ["slice", "app.ts:2", "--repo", str(root), "--no-index"])
    assert got.exit_code == 2
    assert "statement-level impact reads Python files" in got.output
    assert "Traceback" not in got.output
