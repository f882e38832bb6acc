"""The binding check on TypeScript by property name (object-destructured parameters) and
over overload signatures: real git repositories, the real index and pipeline."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("tree_sitter_typescript")

from impactlens.api import Project

LIB = """export function connect({ host, port }: { host: string; port: number }): string {
  return host + port;
}

export function open({ path, mode }: { path: string; mode?: string }): string {
  return path + (mode ?? "r");
}

export function parse(text: string): number;
export function parse(text: string, radix: number): number;
export function parse(text: string, radix?: number): number {
  return Number.parseInt(text, radix ?? 10);
}
"""

USE = """import { connect, open, parse } from './lib';

export function dial() {
  return connect({ host: "h", port: 1 });
}

export function read() {
  return open({ path: "/tmp/x" });
}

export function one() {
  return parse("1");
}

export function two() {
  return parse("1", 10);
}
"""

FILES = {"package.json": '{"name": "demo"}\n', "src/lib.ts": LIB, "src/use.ts": USE}


def _edit(root: Path, old: str, new: str) -> None:
    p = root / "src/lib.ts"
    text = p.read_text()
    assert old in text
    p.write_text(text.replace(old, new, 1))


def _buckets(root: Path) -> tuple[set[str], set[str]]:
    with Project(root) as p:
        result = p.analyze()
    return ({e.entity for e in result.triage.must_inspect},
            {e.entity for e in result.triage.may_impact})


@pytest.fixture
def repo(indexed) -> Path:
    return indexed(FILES).root


def test_a_required_property_added_breaks_the_literal_that_lacks_it(repo):
    _edit(repo, "{ host, port }: { host: string; port: number }",
          "{ host, port, tls }: { host: string; port: number; tls: boolean }")
    must, _may = _buckets(repo)
    assert "src/use.dial" in must


def test_a_property_renamed_breaks_the_literal_that_still_names_it(repo):
    _edit(repo, "{ path, mode }: { path: string; mode?: string }",
          "{ file, mode }: { file: string; mode?: string }")
    must, _may = _buckets(repo)
    assert "src/use.read" in must  # `path` is no longer a known property: excess, and
    # the required `file` is missing


def test_an_optional_property_added_still_binds(repo):
    _edit(repo, "{ host, port }: { host: string; port: number }",
          "{ host, port, tls }: { host: string; port: number; tls?: boolean }")
    must, may = _buckets(repo)
    assert "src/use.dial" not in must
    assert "src/use.dial" in may


def test_an_overload_removed_breaks_only_the_calls_no_overload_accepts(repo):
    _edit(repo, "export function parse(text: string, radix: number): number;\n", "")
    must, may = _buckets(repo)
    # the implementation still takes an optional radix, but callers bind against the
    # overloads: only `parse(text)` is left, so the two-argument call breaks
    assert "src/use.two" in must
    assert "src/use.one" not in must
    assert "src/use.one" in may


def test_an_overload_added_keeps_every_call_binding(repo):
    _edit(repo, "export function parse(text: string): number;\n",
          "export function parse(text: string): number;\n"
          "export function parse(text: string, radix: number, strict: boolean): number;\n")
    must, may = _buckets(repo)
    assert not {"src/use.one", "src/use.two"} & must
    assert {"src/use.one", "src/use.two"} <= may
