"""The real-history harness on TypeScript/JavaScript repositories: which files count, the
semantic filter, committed build copies, the seed splice and the GitNexus baseline's
ranking, on small real git histories."""

from __future__ import annotations

import json
import os

import pytest
from git_dates import day

from impactlens.bench.history import mine_cases
from impactlens.bench.history.cases import mirrored_prefixes
from impactlens.bench.history.peer import ranked_files
from impactlens.bench.history.semantic import definitions, semantic
from impactlens.bench.history.sources import Universe, is_test_path, is_ts_source
from impactlens.index.typescript.parse import parse_tree

A0 = (
    "import { helper } from './util';\n"
    "\n"
    "export function f(x: number): number {\n"
    "  return helper(x);\n"
    "}\n"
)
U0 = (
    "export function helper(x: number): number {\n"
    "  return x + 1;\n"
    "}\n"
)
B0 = (
    "import { f } from './a';\n"
    "\n"
    "export class Runner {\n"
    "  run(y: number): number {\n"
    "    return f(y);\n"
    "  }\n"
    "}\n"
)
T0 = "import { f } from '../src/a';\n\ntest('f', () => {\n  expect(f(1)).toBe(2);\n});\n"


def _ts_repo(make_repo, git_commit):
    root = make_repo({"src/a.ts": A0, "src/util.ts": U0, "src/b.ts": B0, "test/a.test.ts": T0,
                      "package.json": '{"name": "demo"}\n', "dist/a.js": "exports.f = 1;\n"},
                     date=day(0))
    # 1: prettier-style reformat of two files (quotes, semicolons, trailing commas,
    # indentation) and a comment: no case
    git_commit(root, {
        "src/a.ts": A0.replace("'./util';", '"./util"').replace("helper(x);", "helper(x)")
        .replace("  return", "    return"),
        "src/b.ts": "// runs f\n" + B0.replace("'./a';", '"./a"'),
    }, "touch up", date=day(1))
    # 2: a real coupled change: f gains a factor, its caller passes it; the test, a build
    # output and a tool configuration move with it
    a2 = A0.replace("f(x: number)", "f(x: number, k: number)").replace(
        "return helper(x);", "return helper(x) * k;")
    git_commit(root, {
        "src/a.ts": a2, "src/b.ts": B0.replace("return f(y);", "return f(y, 2);"),
        "test/a.test.ts": T0.replace("f(1)", "f(1, 1)"), "dist/a.js": "exports.f = 2;\n",
        "vite.config.ts": "export default {};\n",
    }, "f takes a factor k", date=day(2))
    # 3: mechanical by its subject line (TypeScript projects' tooling words)
    git_commit(root, {"src/a.ts": a2.replace("* k", "* k * 1"),
                      "src/util.ts": U0.replace("x + 1", "x + 2")},
               "chore: run eslint --fix", date=day(3))
    return root


def test_typescript_cases_filters_and_seed(make_repo, git_commit):
    root = _ts_repo(make_repo, git_commit)
    cases, info = mine_cases(root, limit=10)
    assert info["languages"] == ["typescript"]
    # the initial commit (no parent), the reformat and the real change; not "eslint"
    assert info["candidates"] == 3
    assert info["skipped_message"] == 1 and info["skipped_semantic"] == 2
    (case,) = cases
    assert case.message == "f takes a factor k"
    # no test, build output or tool configuration among the files that count
    assert case.source_files == ("src/a.ts", "src/b.ts")
    assert case.changed_defs == {"src/a.ts": ("f",), "src/b.ts": ("Runner.run",)}
    (seed,) = case.seeds
    assert (seed.file, seed.qualname) == ("src/a.ts", "f")
    # the seed is the parent (already reformatted) with only f's new version spliced in
    assert "k: number" in seed.seeded and '"./util"' in seed.seeded
    assert not parse_tree("x.ts", seed.seeded.encode()).root_node.has_error


def test_a_python_repository_keeps_to_its_python_files(make_repo, git_commit):
    """A JavaScript file in a Python library (a debugger's script) is not its library:
    the commit below has one Python file and one script, so it is no case."""
    root = make_repo({"pkg/__init__.py": "", "pkg/a.py": "def f(x):\n    return x\n",
                      "pkg/b.py": "from pkg.a import f\n\n\ndef g():\n    return f(1)\n",
                      "pkg/shared/debugger.js": "function show() { return 1; }\n"},
                     date=day(0))
    git_commit(root, {"pkg/a.py": "def f(x):\n    return x * 2\n",
                      "pkg/shared/debugger.js": "function show() { return 2; }\n"},
               "Fix the debugger", date=day(1))
    cases, info = mine_cases(root, limit=10)
    assert info["languages"] == ["python"] and not cases
    assert info["candidates"] == 1  # the initial commit only


def test_committed_copies_of_src_are_neither_seeds_nor_gold(make_repo, git_commit):
    """zod's ``deno/lib/`` (a generated copy of ``src/``) and a compiled ``lib/``: the
    same files changing under ``src/`` and outside it, commit after commit."""
    files = {f"src/{n}.ts": f"export function {n}(x: number) {{\n  return x;\n}}\n"
             for n in ("p", "q", "r")}
    copies = {f"deno/lib/{n}.ts": t for n, t in files.items() for n in [n[4:-3]]}
    root = make_repo({**files, **copies, "package.json": "{}\n"}, date=day(0))
    for i, n in enumerate(("p", "q", "r"), 1):
        new = {f"src/{m}.ts": f"export function {m}(x: number) {{\n  return x + {i};\n}}\n"
               for m in ("p", "q", "r") if m != n}
        git_commit(root, {**new, **{"deno/lib/" + p[4:]: t for p, t in new.items()}},
                   f"Fix {n}", date=day(i))
    cases, info = mine_cases(root, limit=10)
    assert info["built"] == ["deno/lib/"]
    assert len(cases) == 3
    for case in cases:
        assert all(f.startswith("src/") for f in case.source_files), case.source_files
        assert case.universe.counts("src/p.ts") and not case.universe.counts("deno/lib/p.ts")


def test_mirrored_prefixes_tell_copies_from_siblings():
    lists = [["src/a.ts", "lib/a.js", "src/b.ts", "lib/b.js"],
             ["src/c.ts", "lib/c.js"], ["src/a.ts", "lib/a.js"]]
    assert mirrored_prefixes(lists) == {"lib/"}
    # two versions side by side inside src/, or two packages of a monorepo: not copies
    siblings = [["src/v3/types.ts", "src/v4/types.ts"]] * 5 + \
        [["packages/a/src/index.ts", "packages/b/src/index.ts"]] * 5
    assert mirrored_prefixes(siblings) == frozenset()
    assert mirrored_prefixes(lists[:1]) == frozenset()  # one commit: a rename, a migration


@pytest.mark.parametrize(("path", "library", "test"), [
    ("src/index.ts", True, False),
    ("lib/axios.js", True, False),  # a JavaScript project's own lib/
    ("index.js", True, False),
    ("index.d.ts", True, False),  # hand-written declarations change with the code
    ("packages/core/src/config.ts", True, False),
    ("src/a.test.ts", False, True),
    ("src/a.spec.tsx", False, True),
    ("src/__tests__/a.ts", False, True),
    ("test/helpers.js", False, True),
    ("spec/router.js", False, True),  # Jasmine
    ("src/types.test-d.ts", False, True),  # tsd
    ("dist/index.js", False, False),
    ("src/vendor.min.js", False, False),
    ("node_modules/x/index.js", False, False),
    ("vite.config.ts", False, False),
    ("karma.conf.js", False, False),
    (".eslintrc.js", False, False),
    ("Gruntfile.js", False, False),
    ("examples/app.js", False, False),
    ("docs/site.ts", False, False),
    ("packages/bench/run.ts", False, False),
])
def test_typescript_library_and_test_files(path, library, test):
    assert is_ts_source(path) is library
    assert is_test_path(path) is test


def test_universe_counts_by_language():
    ts, py = Universe(frozenset({"typescript"})), Universe()
    assert ts.counts("src/a.ts") and not ts.counts("pkg/a.py")
    assert py.counts("pkg/a.py") and not py.counts("src/a.ts")
    assert not ts.counts("src/vendor/lib.js")


def test_semantic_ignores_format_and_comments_not_behaviour_or_types():
    base = "export const f = (a: number) => {\n  return g(a, 'x');\n};\n"
    same = ('// why\nexport const f = (a: number) => {\n    return g(\n      a,\n'
            '      "x",\n    )\n}\n')
    assert semantic(base, "a.ts") == semantic(same, "a.ts")
    assert semantic(base, "a.ts") != semantic(base.replace("'x'", "'y'"), "a.ts")
    assert semantic(base, "a.ts") != semantic(base.replace("number", "string"), "a.ts")
    assert semantic(base, "a.ts") != semantic(base.replace("const", "let"), "a.ts")
    with pytest.raises(SyntaxError):
        semantic("export function (", "a.ts")


def test_definitions_of_a_class_and_overloads():
    text = ("export function h(x: string): string;\n"
            "export function h(x: any) {\n  return x;\n}\n"
            "class C {\n  size = 1;\n  m(): number {\n    return this.size;\n  }\n}\n")
    defs = definitions(text, "a.ts")
    assert set(defs) == {"h", "C", "C.m"}
    assert (defs["h"].start, defs["h"].end, defs["h"].kind) == (1, 4, "function")
    changed = definitions(text.replace("this.size;", "this.size + 1;"), "a.ts")
    assert changed["C.m"].dump != defs["C.m"].dump
    assert changed["C"].dump == defs["C"].dump  # a method's change is the method's


def test_gitnexus_files_ranked_by_depth_then_order():
    out = {"byDepth": {
        "2": [{"filePath": "src/d.ts"}, {"filePath": "src/b.ts"}],
        "1": [{"filePath": "src/b.ts"}, {"filePath": "src/seed.ts"},
              {"filePath": "src/b.test.ts"}, {"filePath": "src/c.ts"}],
    }}
    ts = Universe(frozenset({"typescript"}))
    assert ranked_files(out, "src/seed.ts", ts.counts) == ["src/b.ts", "src/c.ts", "src/d.ts"]


def _gitnexus_installed() -> bool:
    from impactlens.bench.pdg_peer import gitnexus_binary

    return gitnexus_binary() is not None and os.environ.get("IMPACTLENS_TEST_GITNEXUS") == "1"


@pytest.mark.slow
@pytest.mark.skipif(not _gitnexus_installed(),
                    reason="GitNexus not installed or IMPACTLENS_TEST_GITNEXUS unset")
def test_gitnexus_impact_on_a_real_index(make_repo, tmp_path):
    """The peer indexes a work tree and answers for a seed (minutes under load: opt-in)."""
    from impactlens.bench.history.peer import GitNexus, gitnexus_binary

    root = make_repo({"src/a.ts": A0, "src/util.ts": U0, "src/b.ts": B0})
    gn = GitNexus(str(gitnexus_binary()), root, 600)
    try:
        assert gn.analyze(), gn.error
        run = gn.impact("src/util.ts", "helper", "src/util.ts",
                        Universe(frozenset({"typescript"})).counts)
        assert run is not None and run.files[:1] == ["src/a.ts"], json.dumps(run.files)
    finally:
        gn.close()
    assert not (root / ".gitnexus").exists() and not gn.work.exists()
