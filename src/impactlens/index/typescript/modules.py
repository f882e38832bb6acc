"""Module names of TypeScript/JavaScript files, and module specifier → file resolution.

A file's module name is its path without the extension (``src/util/math``); a
``package.json`` is ``package:<its directory's name>``; a ``tsconfig.json`` is its path.
Resolution asks the lookup for module names, paths and the package a name is declared by
(the index's table of names), so every candidate tried is recorded as consulted and a file
appearing there later re-resolves the importer.

Specifiers: relative (``./x``, ``../x``; with extension — ``./x.js`` written for
``x.ts`` too — or without, then ``x.d``, ``x/index``), ``tsconfig.json`` ``paths`` and
``baseUrl`` (the nearest ``tsconfig.json``/``jsconfig.json`` up the tree, through relative
``extends``), workspace packages by ``package.json`` ``name`` (entry from ``exports``
``"."``, ``module``, ``main``, ``types``; a build output's entry maps to ``src/``). Anything
else is an external package.
"""

from __future__ import annotations

import json
import posixpath
from typing import Any

from impactlens.index.read_fingerprints import unrecorded
from impactlens.index.typescript.facts import ConfigFacts, TsFacts
from impactlens.index.typescript.names import CODE_SUFFIXES, module_name

CONFIG_NAMES = ("tsconfig.json", "jsconfig.json")
_BUILD_DIRS = ("dist/", "build/", "lib/", "out/", "esm/", "cjs/")


def config_facts(path: str, data: bytes, module: str) -> ConfigFacts:
    """What resolution reads of a configuration file; raises ValueError if it is not JSON
    (``tsconfig.json`` allows comments and trailing commas: they are removed first)."""
    obj = json.loads(_strip_jsonc(data.decode("utf-8", "replace")))
    if not isinstance(obj, dict):
        raise ValueError("not a JSON object")
    if path.rpartition("/")[2] == "package.json":
        return ConfigFacts(path, module, name=str(obj.get("name") or ""),
                           entries=_entries(obj), workspaces=_workspaces(obj))
    opts = obj.get("compilerOptions") or {}
    ext = obj.get("extends")
    extends = tuple(str(e) for e in (ext if isinstance(ext, list) else [ext] if ext else []))
    paths = opts.get("paths") if isinstance(opts, dict) else None
    pairs = tuple(sorted((str(k), tuple(str(t) for t in v)) for k, v in (paths or {}).items()
                         if isinstance(v, list)))
    base = opts.get("baseUrl") if isinstance(opts, dict) else None
    return ConfigFacts(path, module, base_url=None if base is None else str(base),
                       paths=pairs, extends=extends)


def _strip_jsonc(s: str) -> str:
    """JSON with comments and trailing commas → JSON (strings kept as they are)."""
    out: list[str] = []
    i, n = 0, len(s)
    while i < n:
        c = s[i]
        if c == '"':
            j = i + 1
            while j < n and s[j] != '"':
                j += 2 if s[j] == "\\" else 1
            out.append(s[i: j + 1])
            i = j + 1
        elif s.startswith("//", i):
            i = s.find("\n", i) if s.find("\n", i) >= 0 else n
        elif s.startswith("/*", i):
            end = s.find("*/", i + 2)
            i = n if end < 0 else end + 2
        else:
            out.append(c)
            i += 1
    text = "".join(out)
    import re

    return re.sub(r",(\s*[}\]])", r"\1", text)


def _entries(obj: dict[str, Any]) -> tuple[str, ...]:
    out: list[str] = []
    exp = obj.get("exports")
    if isinstance(exp, dict) and "." in exp:
        exp = exp["."]
    out.extend(_export_targets(exp))
    for key in ("source", "module", "main", "types", "typings"):
        v = obj.get(key)
        if isinstance(v, str):
            out.append(v)
    return tuple(dict.fromkeys(out))


def _export_targets(exp: Any) -> list[str]:
    if isinstance(exp, str):
        return [exp]
    if isinstance(exp, dict):
        out: list[str] = []
        for key in ("source", "types", "import", "module", "require", "node", "default"):
            if key in exp:
                out.extend(_export_targets(exp[key]))
        return out
    if isinstance(exp, list):
        return [t for e in exp for t in _export_targets(e)]
    return []


def _workspaces(obj: dict[str, Any]) -> tuple[str, ...]:
    ws = obj.get("workspaces")
    if isinstance(ws, dict):
        ws = ws.get("packages")
    return tuple(str(w) for w in ws) if isinstance(ws, list) else ()


# ------------------------------------------------------------------ resolution
def resolve_spec(lookup: Any, importer: str, spec: str) -> TsFacts | None:
    """The facts of the repository file ``spec`` names from ``importer``, or ``None`` (an
    external package, or no such file)."""
    if spec.startswith((".", "/")):
        base = posixpath.normpath(posixpath.join(posixpath.dirname(importer), spec))
        return code_file(lookup, base.lstrip("/"))
    via = _tsconfig_file(lookup, importer, spec)
    if via is not None:
        return via
    return _workspace_file(lookup, spec)


def code_file(lookup: Any, base: str) -> TsFacts | None:
    """The code file at ``base`` (a path with or without its extension, or a directory
    with an ``index``)."""
    if base in ("", "."):
        candidates = ["index"]
    else:
        stem = module_name(base) if base.endswith(CODE_SUFFIXES) else None
        candidates = [stem] if stem is not None else [base, base + ".d", base + "/index",
                                                        base + "/index.d"]
    for m in candidates:
        got = lookup.module(m)
        if isinstance(unrecorded(got), TsFacts):
            return got  # type: ignore[no-any-return]
    return None


def _configs(lookup: Any, importer: str) -> list[Any]:
    """The nearest tsconfig/jsconfig up from ``importer``, then what it extends."""
    d = posixpath.dirname(importer)
    while True:
        for name in CONFIG_NAMES:
            cfg = lookup.path(posixpath.join(d, name) if d else name)
            if isinstance(unrecorded(cfg), ConfigFacts):
                return _chain(lookup, cfg)
        if not d:
            return []
        d = posixpath.dirname(d)


def _chain(lookup: Any, cfg: Any) -> list[Any]:
    out = [cfg]
    seen = {cfg.path}
    todo = list(cfg.extends)
    while todo and len(out) < 8:
        ext = todo.pop(0)
        if not ext.startswith("."):
            continue  # a package's shared config: not in the repository
        p = posixpath.normpath(posixpath.join(posixpath.dirname(out[-1].path), ext))
        if not p.endswith(".json"):
            p += ".json"
        if p in seen:
            break
        seen.add(p)
        got = lookup.path(p)
        if isinstance(unrecorded(got), ConfigFacts):
            out.append(got)
            todo = list(got.extends)
    return out


def _tsconfig_file(lookup: Any, importer: str, spec: str) -> TsFacts | None:
    chain = _configs(lookup, importer)
    base_cfg = next((c for c in chain if c.base_url is not None), None)
    paths_cfg = next((c for c in chain if c.paths), None)
    base_dir = (posixpath.normpath(posixpath.join(posixpath.dirname(base_cfg.path),
                                                  base_cfg.base_url))
                if base_cfg is not None else None)
    if paths_cfg is not None:
        root = base_dir if base_dir is not None else posixpath.dirname(paths_cfg.path)
        for pattern, targets in paths_cfg.paths:
            star = _match(pattern, spec)
            if star is None:
                continue
            for t in targets:
                got = code_file(lookup, _norm(posixpath.join(root, t.replace("*", star))))
                if got is not None:
                    return got
    if base_dir is not None:
        return code_file(lookup, _norm(posixpath.join(base_dir, spec)))
    return None


def _norm(p: str) -> str:
    n = posixpath.normpath(p)
    return "" if n == "." else n


def _match(pattern: str, spec: str) -> str | None:
    if "*" not in pattern:
        return "" if pattern == spec else None
    pre, _, post = pattern.partition("*")
    if spec.startswith(pre) and spec.endswith(post) and len(spec) >= len(pre) + len(post):
        return spec[len(pre): len(spec) - len(post)]
    return None


def package_name(spec: str) -> tuple[str, str]:
    """(package name, subpath) of a bare specifier: ``@s/p/x`` → (``@s/p``, ``x``)."""
    parts = spec.split("/")
    n = 2 if spec.startswith("@") else 1
    return "/".join(parts[:n]), "/".join(parts[n:])


def _package(lookup: Any, name: str) -> Any:
    """The package.json declaring the package ``name``: found by that name in the index's
    table of names (npm, yarn and pnpm workspaces alike, whatever the directory is called);
    by its directory's name where a lookup has no such table."""
    if hasattr(lookup, "named"):
        for path, _ in lookup.named("package", name):
            got = lookup.path(path)
            if isinstance(unrecorded(got), ConfigFacts) and got.name == name:
                return got
        return None
    pkg = lookup.module("package:" + name.rpartition("/")[2])
    return pkg if isinstance(unrecorded(pkg), ConfigFacts) and pkg.name == name else None


def _workspace_file(lookup: Any, spec: str) -> TsFacts | None:
    name, sub = package_name(spec)
    pkg = _package(lookup, name)
    if pkg is None:
        return None
    d = posixpath.dirname(pkg.path)
    if sub:
        return (code_file(lookup, _norm(posixpath.join(d, sub)))
                or code_file(lookup, _norm(posixpath.join(d, "src", sub))))
    for e in pkg.entries:
        rel = posixpath.normpath(e)
        got = code_file(lookup, _norm(posixpath.join(d, rel)))
        if got is None:
            for b in _BUILD_DIRS:
                if rel.startswith(b):
                    got = code_file(lookup, _norm(posixpath.join(d, "src", rel[len(b):])))
                    break
        if got is not None:
            return got
    return (code_file(lookup, _norm(posixpath.join(d, "src/index")))
            or code_file(lookup, _norm(posixpath.join(d, "index"))))
