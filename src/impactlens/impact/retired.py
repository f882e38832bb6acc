"""Retired references: what the edit stopped mentioning, and which other files mention it.

An edit that removes a file's last mention of an identifier — a function it no longer
calls, a constant it no longer reads, an attribute or a mapping key it no longer touches —
is often one step of a change that goes on elsewhere: the definition is now unused
(delete or deprecate it), and the other places that mention the identifier are migrated
the same way (``HTTP_STATUS_CODES`` deprecated in one module and its last users moved off
it in two others; a scope key ``"root_path"`` handled differently in every file that
reads it). Such files are MAY-IMPACT candidates (:func:`retired_partners`), whatever the
import graph and the history say.

An identifier counts when the edited file's text before the edit mentions it — as a
name, an attribute (``x.name``) or a string in a key place (``scope["root_path"]``, a dict
key, an ``in`` test, ``.get``/``.pop``/``getattr``…; a string that is a value,
``name = "token"``, names nothing) — and its text after the edit does not; an import left
behind is not a mention (the import becomes unused with the edit). A deleted file retires
only what it defined at its top level. Left out: builtins and keywords, the methods of
the builtin types unless the file defines one at its top level (``.upper()``,
``.items()``: every file handling a string or a dict may call them), names shorter than
:data:`MIN_LENGTH`, and names the file imports from outside the project (``from typing
import Any``: other files using ``Any`` are not part of the change). The other files are
the project's library sources (not tests, docs or examples) that mention the identifier
as a whole word — quoted, when the edited file spelled it only as a string (a variable of
the same name elsewhere is no use of the key) — read from the work tree, or for a past
commit (``--rev``) from its base's tree with ``git grep`` (the files it did not edit are
the same there); an identifier more than ``settings.retired_max_files`` of them mention is
too common to say anything and is dropped.
"""

from __future__ import annotations

import ast
import builtins
import keyword
import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence

from impactlens.fileio import parse_python
from impactlens.index.discover import is_source
from impactlens.model import FileChange, SourceTree
from impactlens.settings import DEFAULT, Settings

__all__ = [
    "COMMON_NAMES",
    "MIN_LENGTH",
    "TYPE_METHODS",
    "partners_in_matches",
    "project_modules",
    "retired_names",
    "retired_partners",
    "retired_patterns",
    "retired_reason",
    "retired_terms",
    "top_level_names",
]

MIN_LENGTH = 4  # `key`, `app`, `obj`: too short to tie two files together
_IDENT = re.compile(r"[A-Za-z_]\w*\Z")
# nobody's definition: builtins and keywords …
COMMON_NAMES = (frozenset(dir(builtins)) | frozenset(keyword.kwlist)
                | frozenset(keyword.softkwlist))
# … and, unless the file defines one itself, the builtin types' methods
TYPE_METHODS = frozenset(n for t in (str, bytes, bytearray, int, float, complex, list, tuple,
                                      dict, set, frozenset, object) for n in dir(t))


def retired_names(before: str | None, after: str | None,
                  in_project: Callable[[str], bool] = lambda _m: True) -> frozenset[str]:
    """Identifiers ``before`` mentions and ``after`` does not (see the module docstring);
    ``in_project(module)`` says whether an absolutely imported module is the project's."""
    return frozenset(retired_terms(before, after, in_project))


def retired_terms(before: str | None, after: str | None,
                  in_project: Callable[[str], bool] = lambda _m: True) -> dict[str, bool]:
    """:func:`retired_names`, each with whether ``before`` spelled it only as a string (a
    mapping key, an attribute name given as text): such a term is looked for quoted in
    the other files, where a variable of the same name is no use of it. A deleted file
    (``after`` None) retires only what it defined at its top level: its other mentions
    were the file's own business."""
    old = parse_python(before)
    new = parse_python(after)
    if old is None or (new is None and after is not None):  # an unparsable side: unknown
        return {}
    names, strings = _mentions(old)
    own = top_level_names(old)
    if new is None:
        names, strings = own, set()
    else:
        kept, kept_strings = _mentions(new)
        names, strings = names - kept - kept_strings, strings - kept - kept_strings
    outside = _external(old, in_project)
    return {n: n not in names for n in sorted(names | strings)
            if len(n) >= MIN_LENGTH and n not in COMMON_NAMES and n not in outside
            and (n not in TYPE_METHODS or n in own)}


def retired_partners(tree: SourceTree, changes: Sequence[FileChange], paths: Iterable[str],
                     in_project: Callable[[str], bool] = lambda _m: True,
                     settings: Settings = DEFAULT) -> dict[str, tuple[str, ...]]:
    """``{file: retired identifiers it mentions}`` over ``paths`` (the project's files, read
    from ``tree``; the edited files and anything not library source left out), keeping the
    identifiers at most ``settings.retired_max_files`` files mention."""
    names = _retired(changes, in_project)
    if not names:
        return {}
    # per name, the files naming it as a whole word (quoted, for a string); a name past
    # the cap is dropped as soon as it is (common words would otherwise be matched
    # through the whole tree)
    active = {n: re.compile(rf"([\"']){re.escape(n)}\1" if quoted else rf"\b{re.escape(n)}\b")
              for n, quoted in sorted(names.items())}
    seen: dict[str, list[str]] = {n: [] for n in active}
    for path in _candidates(paths, changes):
        if not active:
            break
        text = tree.text(path)
        if text is None:
            continue
        for n in [n for n, word in active.items() if n in text and word.search(text)]:
            seen[n].append(path)
            if len(seen[n]) > settings.retired_max_files:
                del active[n], seen[n]
    return _by_file(seen, settings)


def retired_patterns(changes: Sequence[FileChange],
                     in_project: Callable[[str], bool] = lambda _m: True) -> list[str]:
    """The fixed strings to search the other files for, as whole words: each retired
    identifier, quoted both ways when the edited file spelled it only as a string."""
    return [p for n, quoted in sorted(_retired(changes, in_project).items())
            for p in ((f'"{n}"', f"'{n}'") if quoted else (n,))]


def partners_in_matches(changes: Sequence[FileChange], paths: Iterable[str],
                        matches: Iterable[tuple[str, str]],
                        in_project: Callable[[str], bool] = lambda _m: True,
                        settings: Settings = DEFAULT) -> dict[str, tuple[str, ...]]:
    """:func:`retired_partners` from a search already made: ``matches`` are (file, matched
    text) of :func:`retired_patterns` in the other files (a past change's base, searched
    with ``git grep``: the files it did not edit are the same there as after it)."""
    names = _retired(changes, in_project)
    wanted = set(_candidates(paths, changes))
    seen: dict[str, set[str]] = {n: set() for n in names}
    for path, match in matches:
        name = match.strip("'\"")
        if name in seen and path in wanted and (match != name) == names[name]:
            seen[name].add(path)
    return _by_file(seen, settings)


def _retired(changes: Sequence[FileChange], in_project: Callable[[str], bool]
             ) -> dict[str, bool]:
    """Every edited file's retired terms (name → looked for quoted only)."""
    terms: dict[str, bool] = {}
    for f in changes:
        if f.path.endswith(".py"):
            for n, quoted in retired_terms(f.before, f.after, in_project).items():
                terms[n] = terms.get(n, True) and quoted  # a name anywhere: as a word
    return terms


def _candidates(paths: Iterable[str], changes: Sequence[FileChange]) -> list[str]:
    """The library source files among ``paths`` the change does not edit, sorted."""
    edited = {f.path for f in changes}
    return sorted(p for p in set(paths) - edited if is_source(p))


def _by_file(seen: Mapping[str, Collection[str]], settings: Settings
             ) -> dict[str, tuple[str, ...]]:
    """``{name: files}`` → ``{file: names}``, keeping the names at most the cap mention."""
    out: dict[str, list[str]] = {}
    for name, files in sorted(seen.items()):
        if len(files) <= settings.retired_max_files:
            for path in files:
                out.setdefault(path, []).append(name)
    return {p: tuple(ns) for p, ns in sorted(out.items())}


_KEY_CALLS = frozenset({"get", "pop", "setdefault", "getattr", "setattr", "hasattr",
                        "delattr"})


def _mentions(tree: ast.Module) -> tuple[set[str], set[str]]:
    """(names and attributes, identifier-shaped strings used as keys) ``tree`` mentions: a
    string counts where it names something — a subscript, a dict key, an ``in`` test, the
    key of ``.get``/``.pop``/``.setdefault`` or the name of ``getattr`` and its kin — not
    where it is a value (``name = "token"`` refers to nothing)."""
    names: set[str] = set()
    strings: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
        strings.update(_key_strings(node))
    return names, strings


def _key_strings(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Subscript):
        keys: list[ast.AST | None] = [node.slice]
    elif isinstance(node, ast.Dict):
        keys = list(node.keys)
    elif isinstance(node, ast.Compare):
        keys = [node.left] if any(isinstance(o, ast.In | ast.NotIn) for o in node.ops) else []
    elif isinstance(node, ast.Call):
        f = node.func
        name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
        keys = list(node.args[:2]) if name in _KEY_CALLS else []
    else:
        return []
    return [k.value for k in keys if isinstance(k, ast.Constant)
            and isinstance(k.value, str) and _IDENT.match(k.value)]


def top_level_names(tree: ast.Module) -> set[str]:
    """The names a module defines at its top level (functions, classes, assignments)."""
    out: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            out.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            out.update(t.id for t in targets if isinstance(t, ast.Name))
    return out


def _external(tree: ast.Module, in_project: Callable[[str], bool]) -> set[str]:
    """Names ``tree`` binds by importing from outside the project."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update((a.asname or a.name).split(".")[0] for a in node.names
                       if not in_project(a.name))
        elif (isinstance(node, ast.ImportFrom) and node.level == 0
              and not in_project(node.module or "")):
            out.update(a.asname or a.name for a in node.names)
    return out


def project_modules(modules: Iterable[str]) -> Callable[[str], bool]:
    """``in_project`` for :func:`retired_names`: a module is the project's when it, or a
    package above it, is one of ``modules`` (the index's module names)."""
    known = frozenset(modules)

    def in_project(module: str) -> bool:
        parts = module.split(".")
        return any(".".join(parts[:i]) in known for i in range(1, len(parts) + 1))

    return in_project


def retired_reason(names: Sequence[str]) -> str:
    shown = ", ".join(f"`{n}`" for n in names[:3]) + (" …" if len(names) > 3 else "")
    return (f"the edit removed the last mention of {shown} from the edited file; this file "
            "mentions it too — where the change may go on (its definition, or another use)")

