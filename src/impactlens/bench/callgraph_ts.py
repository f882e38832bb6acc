"""The TypeScript/JavaScript call-graph corpus: `impactlens bench callgraph --corpus ts`.

The cases under ``bench/callgraph-ts/cases/`` have the layout, truth format and scoring
of the Python corpus (:mod:`impactlens.bench.callgraph`); this module holds what differs:

- which files are sources (code, ``.d.ts``, ``tsconfig*.json``, ``package.json``,
  ``pnpm-workspace.yaml``) and how a file is named as a module (``lib/index.ts`` →
  ``lib``; ``bench/callgraph-ts/README.md`` has the naming rules);
- the symbols a case declares, read with tree-sitter, so the corpus check can say that
  every expected edge names a real symbol;
- the tools: impactlens (its export, with module names mapped onto the corpus's when its
  frontend spells them another way) and GitNexus (``gitnexus analyze`` in the case's copy,
  then its ``CALLS`` edges read with ``gitnexus cypher``; ids ``Kind:path:Qual#arity``
  mapped by file and qualified name);
- ``--verify``: the corpus check plus a ``tsc --noEmit`` of every case, so each program
  is valid TypeScript (JavaScript files are parsed, not type-checked).
"""

from __future__ import annotations

import functools
import json
import os
import re
import subprocess
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from impactlens.bench import callgraph as cg
from impactlens.bench import installed_binary
from impactlens.bench.pdg_peer import gitnexus_binary
from impactlens.errors import BadInputError

__all__ = [
    "CATEGORIES",
    "TOOLS",
    "default_cases_dir",
    "map_gitnexus_ids",
    "map_impactlens_ids",
    "module_name",
    "modules_of",
    "run_gitnexus",
    "run_tool",
    "source_files",
    "symbols_of",
    "tsc_binary",
    "unknown_symbols",
    "verify",
]

CATEGORIES = (
    "es-imports",
    "re-exports",
    "commonjs",
    "resolution",
    "classes",
    "receiver-typing",
    "interfaces",
    "functions-as-values",
    "jsx",
    "language",
    "dynamic",
)
TOOLS = ("impactlens", "impactlens-closed", "gitnexus")
CODE_EXTS = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")
_CONFIG_NAME = re.compile(r"^(tsconfig[\w.-]*\.json|package\.json|pnpm-workspace\.yaml)$")
_SKIP_DIRS = {"node_modules", ".gitnexus", ".impactlens", ".git"}
GITNEXUS_ATTEMPTS = 3  # its native bindings fail transiently under load


def default_cases_dir() -> Path:
    """``bench/callgraph-ts/cases`` of the source checkout this module runs from."""
    return Path(__file__).resolve().parents[3] / "bench" / "callgraph-ts" / "cases"


# --------------------------------------------------------------------------- files, names


def _is_declaration(rel: str) -> bool:
    return rel.endswith((".d.ts", ".d.mts", ".d.cts"))


def _is_code(rel: str) -> bool:
    return rel.endswith(CODE_EXTS) and not _is_declaration(rel)


def source_files(root: Path) -> list[str]:
    """The files of a case a tool may see: code, declarations and project configuration."""
    out = []
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if not p.is_file() or _SKIP_DIRS & set(rel.split("/")[:-1]):
            continue
        if rel.endswith(CODE_EXTS) or _CONFIG_NAME.match(p.name):
            out.append(rel)
    return out


def module_name(rel: str) -> str:
    """``lib/util.ts`` → ``lib.util``; ``lib/index.ts`` → ``lib`` (named as its importers
    name it)."""
    stem = rel
    for ext in CODE_EXTS:
        if rel.endswith(ext):
            stem = rel[: -len(ext)]
            break
    parts = stem.split("/")
    if len(parts) > 1 and parts[-1] == "index":
        parts = parts[:-1]
    return ".".join(parts)


def modules_of(files: Iterable[str]) -> frozenset[str]:
    return frozenset(module_name(f) for f in files if _is_code(f))


# --------------------------------------------------------------------------- symbols


@functools.cache
def _parser(tsx: bool) -> Any:
    try:
        import tree_sitter
        import tree_sitter_typescript
    except ImportError:
        raise BadInputError(
            "the TypeScript corpus check needs tree-sitter and tree-sitter-typescript "
            "(pip install tree-sitter tree-sitter-typescript)") from None
    grammar = (tree_sitter_typescript.language_tsx() if tsx
               else tree_sitter_typescript.language_typescript())
    return tree_sitter.Parser(tree_sitter.Language(grammar))


def _text(node: Any) -> str:
    return str(node.text.decode("utf-8"))


_FUNCTION_VALUES = {"arrow_function", "function_expression", "function", "generator_function"}
_FUNCTION_DECLS = {"function_declaration", "generator_function_declaration"}
_CLASS_DECLS = {"class_declaration", "abstract_class_declaration", "class"}


class _Symbols:
    """Walks one file's tree, collecting the dotted ids the corpus README defines."""

    def __init__(self, module: str) -> None:
        self.module = module
        self.ids: set[str] = {module}

    def walk(self, node: Any, scope: str) -> None:
        for child in node.named_children:
            self.visit(child, scope)

    def visit(self, node: Any, scope: str) -> None:
        kind = node.type
        name = node.child_by_field_name("name")
        if kind in _FUNCTION_DECLS and name is not None:
            self.walk(node, self.add(scope, _text(name)))
        elif kind in _CLASS_DECLS and name is not None:
            self.klass(node, self.add(scope, _text(name)))
        elif kind in ("internal_module", "module") and name is not None:
            inner = scope
            for part in _text(name).split("."):
                inner = self.add(inner, part)
            self.walk(node, inner)
        elif kind in ("enum_declaration", "interface_declaration", "type_alias_declaration") \
                and name is not None:
            self.add(scope, _text(name))
        elif kind == "variable_declarator" and name is not None and name.type == "identifier":
            self.bound(node.child_by_field_name("value"), scope, _text(name))
        elif kind == "assignment_expression":
            self.assignment(node, scope)
        else:
            self.walk(node, scope)

    def add(self, scope: str, name: str) -> str:
        ident = f"{scope}.{name}"
        self.ids.add(ident)
        return ident

    def bound(self, value: Any, scope: str, name: str) -> None:
        """``const name = value``: functions, classes and object literals get ids (the last
        value of a chain: ``var app = exports = module.exports = {}``)."""
        while value is not None and value.type == "assignment_expression":
            value = value.child_by_field_name("right")
        if value is None:
            return
        if value.type in _FUNCTION_VALUES:
            self.walk(value, self.add(scope, name))
        elif value.type in _CLASS_DECLS:
            self.klass(value, self.add(scope, name))
        elif value.type == "object":
            self.members(value, self.add(scope, name))
        else:
            self.visit(value, scope)

    def klass(self, node: Any, ident: str) -> None:
        body = node.child_by_field_name("body")
        for member in body.named_children if body is not None else ():
            self.member(member, ident)

    def members(self, obj: Any, ident: str) -> None:
        for member in obj.named_children:
            if member.type == "pair":
                key = member.child_by_field_name("key")
                self.bound(member.child_by_field_name("value"), ident, _text(key))
            else:
                self.member(member, ident)

    def member(self, member: Any, owner: str) -> None:
        name = member.child_by_field_name("name")
        if member.type == "method_definition" and name is not None:
            self.walk(member, self.add(owner, _text(name)))
        elif member.type == "public_field_definition" and name is not None:
            value = member.child_by_field_name("value")
            if value is not None and value.type in _FUNCTION_VALUES:
                self.walk(value, self.add(owner, _text(name)))
            elif value is not None:
                self.visit(value, owner)  # initializers belong to the class
        else:
            self.walk(member, owner)

    def assignment(self, node: Any, scope: str) -> None:
        """``exports.f = …``, ``module.exports.f = …``, ``module.exports = class C``,
        ``fn.prop = function …`` on a function of this scope."""
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        target = _text(left) if left is not None else ""
        if target == "module.exports" and right is not None and right.type in _CLASS_DECLS:
            self.visit(right, self.module)
            return
        if left is not None and left.type == "member_expression":
            obj = _text(left.child_by_field_name("object"))
            prop = _text(left.child_by_field_name("property"))
            if obj in ("exports", "module.exports"):
                self.bound(right, self.module, prop)
                return
            if f"{scope}.{obj}" in self.ids:
                self.bound(right, f"{scope}.{obj}", prop)
                return
        self.walk(node, scope)


def symbols_of(case: cg.Case) -> frozenset[str]:
    """Module ids and declared symbol ids of a case's code files."""
    out: set[str] = set()
    for rel in case.files:
        if not _is_code(rel):
            continue
        tree = _parser(rel.endswith((".tsx", ".jsx"))).parse((case.path / rel).read_bytes())
        walker = _Symbols(module_name(rel))
        walker.walk(tree.root_node, walker.module)
        out |= walker.ids
    return frozenset(out)


def unknown_symbols(case: cg.Case) -> list[str]:
    """Names in ``expected.json`` that the case's sources do not declare."""
    known = symbols_of(case)
    names = {n for edge in case.expected for n in edge}
    return sorted(names - known)


# --------------------------------------------------------------------------- id mapping


def _module_spellings(files: Iterable[str]) -> dict[str, str]:
    """Other ways a tool may spell a module id → the corpus's id.

    The index file kept (``lib.index``), a leading or inner ``src`` segment dropped (the
    import-root convention of the Python index), the path with its extension.
    """
    out: dict[str, str] = {}
    taken: dict[str, set[str]] = {}
    for rel in files:
        if not _is_code(rel):
            continue
        mod = module_name(rel)
        stem = rel.rsplit(".", 1)[0]
        dotted = stem.replace("/", ".")
        for spelling in {mod, dotted, rel, stem, *_without_src(dotted), *_without_src(mod)}:
            taken.setdefault(spelling, set()).add(mod)
    for spelling, mods in taken.items():
        if len(mods) == 1:  # an ambiguous spelling is left unmapped
            out[spelling] = next(iter(mods))
    return out


def _without_src(dotted: str) -> Iterator[str]:
    parts = dotted.split(".")
    for i, p in enumerate(parts):
        if p == "src" and len(parts) > 1:
            yield ".".join(parts[:i] + parts[i + 1:])


def map_impactlens_ids(edges: Iterable[cg.Edge], case: cg.Case) -> frozenset[cg.Edge]:
    """impactlens ids with the corpus's module spelling (longest known module prefix)."""
    spellings = _module_spellings(case.files)

    def one(name: str) -> str:
        parts = name.split(".")
        for i in range(len(parts), 0, -1):
            mod = spellings.get(".".join(parts[:i]))
            if mod is not None:
                return ".".join([mod, *parts[i:]])
        return name

    return frozenset((one(s), one(d)) for s, d in edges)


# an arity tag on methods (``#0``), a position on nested functions (``@5:2``)
_GITNEXUS_TAG = re.compile(r"(#\d+|@\d+:\d+)+$")
_GITNEXUS_ID = re.compile(r"^(?P<kind>[A-Za-z]+):(?P<path>[^:]+)(?::(?P<qual>.+))?$")


def map_gitnexus_ids(edges: Iterable[cg.Edge], case: cg.Case,
                     symbols: frozenset[str] | None = None) -> frozenset[cg.Edge]:
    """``File:main.ts`` → ``main``; ``Method:a/b.ts:C.m#0`` → ``a.b.C.m``;
    ``Function:main.ts:outer.inner@5:2`` → ``main.outer.inner``.

    GitNexus qualifies methods by their class only; a name that is not a corpus symbol
    is matched against the module's symbols by its dotted tail (``outer.inner`` for
    ``inner``) when exactly one matches, else kept as it is (a false positive under its
    own name).
    """
    known = symbols if symbols is not None else symbols_of(case)

    def one(gid: str) -> str:
        m = _GITNEXUS_ID.match(gid)
        if m is None:
            return f"gitnexus:{gid}"
        mod = module_name(m["path"])
        if not m["qual"] or m["kind"] == "File":
            return mod
        qual = _GITNEXUS_TAG.sub("", m["qual"])
        ident = f"{mod}.{qual}"
        if ident in known:
            return ident
        tails = [k for k in known if k.startswith(mod + ".") and k.endswith("." + qual)]
        return tails[0] if len(tails) == 1 else ident

    return frozenset((one(s), one(d)) for s, d in edges)


# --------------------------------------------------------------------------- tools


def run_tool(tool: str, case: cg.Case, root: Path, timeout: float) -> cg.ToolOutput:
    """Run ``tool`` on the case's copy at ``root``."""
    if tool in ("impactlens", "impactlens-closed"):
        cg._git_init(root)
        world = "closed" if tool.endswith("closed") else "open"
        out = cg.run_impactlens(root, timeout, world, instantiate=True)
        if not out.error and out.files == 0:
            return cg.ToolOutput(skipped="this impactlens indexes no TypeScript/JavaScript file")
        out.edges = map_impactlens_ids(out.edges, case)
        return out
    if tool == "gitnexus":
        return run_gitnexus(root, case, timeout)
    raise BadInputError(f"unknown tool {tool!r} for the ts corpus (known: {', '.join(TOOLS)})")


@functools.cache
def gitnexus_version(binary: str) -> str:
    try:
        proc = subprocess.run([binary, "--version"], capture_output=True, text=True,
                              timeout=120, check=False)
    except (OSError, subprocess.SubprocessError):
        return ""
    return proc.stdout.strip()


_CALLS_QUERY = ("MATCH (a)-[r:CodeRelation {type: 'CALLS'}]->(b) "
                "RETURN a.id AS src, b.id AS dst")


def run_gitnexus(root: Path, case: cg.Case, timeout: float) -> cg.ToolOutput:
    """``gitnexus analyze`` on the copy, then its CALLS edges through ``gitnexus cypher``."""
    binary = gitnexus_binary()
    if binary is None:
        return cg.ToolOutput(skipped="GitNexus is not installed (npm install --prefix /tmp/gn "
                                     "gitnexus@1.6.12, or set IMPACTLENS_GITNEXUS)")
    if not gitnexus_version(binary):
        return cg.ToolOutput(skipped=f"{binary} --version does not run")

    def go() -> cg.ToolOutput:
        env = dict(os.environ, GITNEXUS_HOME=str(root.parent / "gitnexus-home"),
                   GITNEXUS_LBUG_EXTENSION_INSTALL="never", NO_COLOR="1")
        err = ""
        for _ in range(GITNEXUS_ATTEMPTS):
            _, err = cg._run_child([binary, "analyze", "--skip-git", "--index-only",
                                    "--skip-fts", "--name", root.name, str(root)],
                                   root, timeout, env)
            if not err:
                break
        if err:
            return cg.ToolOutput(error=f"gitnexus analyze: {err}")
        out, err = cg._run_child([binary, "cypher", "-r", root.name, "-l", "100000",
                                  _CALLS_QUERY], root, timeout, env)
        if err:
            return cg.ToolOutput(error=f"gitnexus cypher: {err}")
        try:
            rows = _cypher_rows(out)
        except ValueError as exc:
            return cg.ToolOutput(error=f"unreadable gitnexus cypher output: {exc}")
        return cg.ToolOutput(edges=map_gitnexus_ids(rows, case))

    return cg._timed(go)


def _cypher_rows(stdout: str) -> list[cg.Edge]:
    """The (src, dst) rows of ``gitnexus cypher``'s JSON answer (a markdown table)."""
    start = stdout.find("{\n")
    if start < 0:
        raise ValueError("no JSON object")
    data = json.loads(stdout[start:])
    if "markdown" not in data:
        return [] if not data.get("row_count") else _raise(str(data)[:200])
    rows = []
    for line in str(data["markdown"]).splitlines()[2:]:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 2 and all(cells):
            rows.append((cells[0], cells[1]))
    return rows


def _raise(msg: str) -> list[cg.Edge]:
    raise ValueError(msg)


# --------------------------------------------------------------------------- verify


def tsc_binary() -> str | None:
    """``$IMPACTLENS_TSC``, else ``/tmp/tsc/node_modules/.bin/tsc``, else ``tsc`` on PATH."""
    return installed_binary("IMPACTLENS_TSC", "/tmp/tsc/node_modules/.bin/tsc", "tsc")


def _type_roots(tsc: str) -> list[str]:
    """The ``@types`` directory beside the compiler's package (``@types/node`` lives there)."""
    here = Path(tsc).resolve()
    for parent in here.parents:
        if parent.name == "node_modules" and (parent / "@types").is_dir():
            return [str(parent / "@types")]
    return []


def _link_workspace_packages(root: Path) -> None:
    """What a workspace install does: ``node_modules/NAME`` → each package directory."""
    for pj in root.rglob("package.json"):
        if pj.parent == root or "node_modules" in pj.parts:
            continue
        try:
            name = json.loads(pj.read_text(encoding="utf-8")).get("name")
        except ValueError:
            continue
        if isinstance(name, str) and name:
            link = root / "node_modules" / name
            link.parent.mkdir(parents=True, exist_ok=True)
            if not link.exists():
                os.symlink(pj.parent, link, target_is_directory=True)


def compile_case(case: cg.Case, tsc: str, timeout: float = 180.0) -> str:
    """``tsc --noEmit`` over the case's copy; '' when it compiles, else the first errors."""
    with tempfile.TemporaryDirectory(prefix="il-cg-tsc-") as tmp:
        root = cg._copy_sources(case, Path(tmp))
        _link_workspace_packages(root)
        config: dict[str, Any] = {
            "compilerOptions": {
                "noEmit": True, "strict": True, "allowJs": True, "checkJs": False,
                "jsx": "preserve", "target": "ES2022", "module": "ESNext",
                "moduleResolution": "Bundler", "skipLibCheck": True, "types": ["node"],
                "typeRoots": _type_roots(tsc), "lib": ["ES2022"],
                "allowImportingTsExtensions": True,
            },
            "include": ["**/*"],
            "exclude": ["node_modules"],
        }
        if (root / "tsconfig.json").is_file():
            config["extends"] = "./tsconfig.json"
        (root / "tsconfig.verify.json").write_text(json.dumps(config), encoding="utf-8")
        out, err = cg._run_child([tsc, "-p", "tsconfig.verify.json"], root, timeout)
        if not err:
            return ""
        lines = [ln for ln in out.splitlines() if "error TS" in ln]
        return "; ".join(lines[:3]) or err


def verify(cases_dir: str | Path | None = None, only: Iterable[str] | None = None,
           compile_with: str | None = None) -> dict[str, Any]:
    """Corpus self-check: consistency, expected edges naming declared symbols, and (when a
    ``tsc`` is found or given) each program compiling."""
    cases = cg.load_cases(cases_dir or default_cases_dir(), only, corpus="ts")
    if compile_with and not Path(compile_with).is_file():
        raise BadInputError(f"--tsc {compile_with}: no such file")
    tsc = compile_with or tsc_binary()
    out: dict[str, Any] = {"cases": len(cases), "problems": {},
                           "compiled": bool(tsc), "tsc": tsc or "not found (skipped)"}
    for case in cases:
        probs = cg.validate_case(case)
        probs += [f"expected edge names an undeclared symbol: {n}"
                  for n in unknown_symbols(case)]
        if tsc:
            err = compile_case(case, tsc)
            if err:
                probs.append(f"tsc: {err}")
        if probs:
            out["problems"][case.name] = probs
    out["ok"] = not out["problems"]
    return out
