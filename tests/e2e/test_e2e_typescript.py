"""End to end on TypeScript: real git repositories, the real index, pipeline and CLI."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

pytest.importorskip("tree_sitter_typescript")

from project_edits import analyze, edit, entities

from impactlens.cli import main

CORE = """export function compute(a: number, b: number): number {
  const total = a + b;
  return total;
}

export function helper(x: number): number {
  return x * 2;
}

export class Counter {
  count = 0;
  constructor(private step: number) {}
  bump(n: number) { this.count += n * this.step; }
}
"""

USE = """import { compute, helper, Counter } from './core';

export function run(x: number) {
  return compute(x, 1);
}

export function double(x: number) {
  return helper(x);
}

export function tally(values: number[]) {
  const counter = new Counter(1);
  for (const v of values) counter.bump(v);
  return counter.count;
}
"""

FILES = {
    "package.json": '{"name": "demo", "devDependencies": {"jest": "29"}}\n',
    "src/core.ts": CORE,
    "src/use.ts": USE,
    "src/core.test.ts": (
        "import { compute, Counter } from './core';\n"
        "describe('core', () => {\n"
        "  it('computes', () => { expect(compute(1, 2)).toBe(3); });\n"
        "  test('bumps', () => { const c = new Counter(1); c.bump(2); });\n"
        "});\n"),
    "src/use.test.ts": (
        "import { double, run } from './use';\n"
        "it('runs', () => { expect(run(1)).toBe(2); });\n"
        "it('doubles', () => { expect(double(2)).toBe(4); });\n"),
}


@pytest.fixture
def repo(indexed) -> Path:
    return indexed(FILES).root


def test_signature_change_whose_callers_no_longer_bind_is_must_inspect(repo):
    edit(repo, "src/core.ts", "compute(a: number, b: number)",
         "compute(a: number, b: number, c: number)")
    result = analyze(repo)
    assert [c.change_type.value for c in result.changes] == ["method-signature"]
    assert "src/use.run" in entities(result.triage.must_inspect)
    assert "src/core.test.ts > core > computes" in result.validate


@pytest.mark.parametrize("param", ["c: number = 0", "c?: number", "...rest: number[]"])
def test_an_optional_default_or_rest_parameter_is_may_impact(repo, param):
    edit(repo, "src/core.ts", "compute(a: number, b: number)",
         f"compute(a: number, b: number, {param})")
    result = analyze(repo)
    assert "src/use.run" in entities(result.triage.may_impact)
    assert "src/use.run" not in entities(result.triage.must_inspect)


def test_a_constructor_taking_one_more_argument_breaks_new(repo):
    edit(repo, "src/core.ts", "constructor(private step: number)",
         "constructor(private step: number, private limit: number)")
    result = analyze(repo)
    assert [c.change_type.value for c in result.changes] == ["constructor"]
    assert "src/use.tally" in entities(result.triage.must_inspect)


def test_deleted_export_lands_its_importers_in_must_inspect(repo):
    edit(repo, "src/core.ts", "export function helper(x: number): number {\n"
                              "  return x * 2;\n}\n", "")
    result = analyze(repo)
    assert [c.change_type.value for c in result.changes] == ["delete"]
    must = entities(result.triage.must_inspect)
    assert "src/use" in must or "src/use.double" in must


def test_an_export_withdrawn_is_a_delete_for_its_importers(repo):
    edit(repo, "src/core.ts", "export function helper", "function helper")
    result = analyze(repo)
    assert [(c.change_type.value, c.entity) for c in result.changes] == [
        ("delete", "src/core.helper")]
    must = entities(result.triage.must_inspect)
    assert "src/use" in must or "src/use.double" in must


def test_body_change_selects_the_tests_that_reach_it(repo):
    edit(repo, "src/core.ts", "return x * 2;", "return x * 3;")
    result = analyze(repo)
    assert [c.change_type.value for c in result.changes] == ["method-body"]
    assert "src/use.test.ts > doubles" in result.validate
    assert "src/core.test.ts > core > computes" not in result.validate


def test_tests_command_prints_jest_ids_by_file_and_name(repo):
    edit(repo, "src/core.ts", "return x * 2;", "return x * 3;")
    r = CliRunner().invoke(main, ["tests", "--repo", str(repo)], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    assert "src/use.test.ts > doubles" in r.output
    assert "src/core.test.ts" not in r.output


@pytest.mark.parametrize(("runner", "head"), [("jest", "npx jest"), ("vitest", "npx vitest run")])
def test_tests_format_gives_the_runners_files_and_name_pattern(repo, runner, head):
    edit(repo, "src/core.ts", "const total = a + b;", "const total = b + a;")
    r = CliRunner().invoke(main, ["tests", "--repo", str(repo), "--format", runner],
                           catch_exceptions=False)
    assert r.exit_code == 0, r.output
    line = r.output.strip().splitlines()[-1]
    assert line.startswith(f"{head} src/core.test.ts src/use.test.ts -t ")
    pattern = line.split(" -t ", 1)[1].strip("'")
    import re

    assert re.fullmatch(pattern, "core computes") and re.fullmatch(pattern, "runs")
    assert not re.fullmatch(pattern, "doubles")


def test_runner_commands_match_each_tables_and_keep_python_ids_apart():
    from impactlens.cli.analyze_cmds import runner_commands

    got = runner_commands(["a.test.ts > math > adds %i and $b", "tests/test_x.py::test_y"],
                          "jest")
    assert got[1] == "python -m pytest tests/test_x.py::test_y"
    pattern = got[0].split(" -t ", 1)[1].strip("'")
    import re

    assert re.fullmatch(pattern, "math adds 3 and 4")
