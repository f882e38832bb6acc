"""Which TypeScript/JavaScript files of a repository are its library: not tests (Jest,
Vitest, Mocha, Jasmine and tsd layouts), fixtures, docs, examples, scripts, tool
configuration, build outputs, caches or minified bundles — the files a change to the
library can oblige to change."""

from __future__ import annotations

import re

from impactlens.index.typescript.frontend import SKIP_DIRS
from impactlens.index.typescript.modules import CODE_SUFFIXES

TEST_DIRS = frozenset({"tests", "test", "testing", "__tests__", "__test__", "__mocks__",
                       "__fixtures__", "fixtures", "spec", "specs", "e2e", "cypress", "test-d",
                       "type-tests", "types-test", "typings-test"})
_TEST_NAME = re.compile(r"\.(test|spec|test-d|bench|stories|story)\.[cm]?[jt]sx?$")
NON_SOURCE_DIRS = frozenset({
    "docs", "doc", "examples", "example", "benchmarks", "bench", "scripts", "tools", "ci",
    ".github", "website", "site", "playground", "playgrounds", "demo", "demos", "sandbox",
    "sandboxes", "benchmark", "perf", ".storybook", "stories", "codemods"})
# tool configuration at any level: hidden files, task runners, `*.config.*`, `*.conf.*`
_TOOLING = re.compile(r"^\.|^(gruntfile|gulpfile)\.[cm]?[jt]s$|.[.-](config|conf)\.[cm]?[jt]s$",
                      re.IGNORECASE)


def is_test_path(path: str) -> bool:
    """A test, or a file under a test or fixture tree (at any depth: a monorepo's
    ``packages/x/test/``)."""
    parts = path.split("/")
    return bool(_TEST_NAME.search(parts[-1])) or any(p in TEST_DIRS for p in parts[:-1])


def is_library_file(path: str) -> bool:
    """A TypeScript/JavaScript library file (hand-written ``.d.ts`` declarations count:
    their changes go with the code's)."""
    parts = path.split("/")
    name = parts[-1]
    if not name.endswith(CODE_SUFFIXES) or is_test_path(path) or _TOOLING.search(name) \
            or ".min." in name or name.endswith((".bundle.js", "-bundle.js")):
        return False
    return not any(p in SKIP_DIRS or p in NON_SOURCE_DIRS or "example" in p
                   for p in parts[:-1])
