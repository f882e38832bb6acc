"""Definitions the task text names: "deprecate `OptionParser`", "remove
request.url_charset", "refactor parse_cookie and dump_cookie".

A task that names an identifier of the code — in backticks, or spelled as code
(``snake_case`` with an inner underscore, ``camelCase``/``CamelCase`` with a hump) — points
at the file that defines it, whether or not the edit's graph neighbourhood or its history
reaches that file: the definition is where the work goes on. Each library file (not a
test, doc or example, not an edited file) holding a class, function, method or
module-level binding of such a name is a MAY-IMPACT candidate at
``settings.task_named_conf`` (``distance`` 1: one step from the task, as a retired
mention is one from the edit). Left out: keywords, builtins and the builtin types'
methods (``else``, ``False``, ``upper``),
names shorter than :data:`retired.MIN_LENGTH`, and a name more than
``settings.task_named_max_files`` other library files define (a ``handle`` or ``render``
every module has points nowhere). Definitions are looked up in the index, i.e. as the
work tree has them; for a past commit (``--rev``) only those its base has too are kept.

A task names modules too: "remove _compat.get_strerror", "add `validate.And`", "move
functions from _utils.py": a word in backticks or written before a dot (``word.name``)
that is the name of exactly one library module (not an edited one) lists that module's
file (:func:`named_modules`). Such names are rare in commit messages, but where they
occur the named file is usually one the commit changed, often one no other channel
lists; the channel is "named" in `impactlens bench history`'s ablation (bench/README.md,
"Real-history evaluation").
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable, Mapping, Sequence

from impactlens.fileio import parse_python
from impactlens.impact.retired import COMMON_NAMES, MIN_LENGTH, TYPE_METHODS, top_level_names
from impactlens.index.discover import library_in
from impactlens.model import Bucket, Node, NodeKind, TriageEntry
from impactlens.settings import DEFAULT, Settings

__all__ = ["defined_names", "named_identifiers", "named_modules", "task_named",
           "task_named_entries"]

_QUOTED = re.compile(r"`([^`\n]+)`")
# an identifier (any script: ``naïve_datetime``), not followed by ``=``: in
# ``FileResponse(method=...)`` the keyword argument is no definition
_WORD = re.compile(r"(?<!\w)[^\W\d]\w*(?!\w|\s*=(?!=))")
# an inner underscore (``_cv_req``, ``url_for``) or a hump (``WebSocket``, ``getValue``)
_CODE_LIKE = re.compile(r"[A-Za-z0-9]_[A-Za-z0-9]|[a-z0-9][A-Z]")
_KINDS = frozenset({NodeKind.CLASS, NodeKind.FUNCTION, NodeKind.METHOD, NodeKind.CONSTANT})
# ``_compat.get_strerror``, ``validate.And()``, ``_utils.py``: a word right before a dot
# and a name (not ``e.g.`` or a sentence's end)
_DOTTED = re.compile(r"(?<![\w.])([^\W\d]\w*)\.(?=[^\W\d])")
_WORD_PART = re.compile(r"[^\W\d]\w*")  # every identifier, ``--http`` and ``a.b`` split


def named_identifiers(task: str) -> list[str]:
    """The identifiers ``task`` spells as code: every word in backticks (a keyword
    argument's name aside), then, in order, the words elsewhere with an inner underscore
    or a case hump."""
    quoted = [w for span in _QUOTED.findall(task) for w in _WORD.findall(span)]
    bare = [w for w in _WORD.findall(_QUOTED.sub(" ", task)) if _CODE_LIKE.search(w)]
    return [w for w in dict.fromkeys(quoted + bare)
            if len(w) >= MIN_LENGTH and w not in COMMON_NAMES and w not in TYPE_METHODS]


def named_modules(task: str) -> list[str]:
    """The words ``task`` may name a module by: each word in backticks (its dotted parts
    too), and each word written right before a dot and a name."""
    quoted = [w for span in _QUOTED.findall(task) for w in _WORD_PART.findall(span)]
    dotted = _DOTTED.findall(_QUOTED.sub(" ", task))
    return list(dict.fromkeys(quoted + dotted))


def task_named(nodes_named: Callable[[str], Sequence[Node]], task: str,
               edited_files: Iterable[str], settings: Settings = DEFAULT,
               ) -> dict[str, tuple[tuple[str, str], ...]]:
    """``{library file: ((definition or module id, name), …)}`` for the names ``task``
    spells as code (:func:`named_identifiers`) and the modules it names
    (:func:`named_modules`); ``nodes_named(name)`` = the index's nodes of that name. Edited
    files are left out, a name more files define than ``settings.task_named_max_files``,
    and a module name more than one library module has."""
    edited = set(edited_files)
    library = library_in(edited)
    out: dict[str, list[tuple[str, str]]] = {}
    for name in named_identifiers(task):
        defs = [n for n in nodes_named(name) if n.kind in _KINDS and library(n.file)
                and n.file not in edited]
        if len({n.file for n in defs}) > settings.task_named_max_files:
            continue
        for n in defs:
            out.setdefault(n.file, []).append((n.id, name))
    if settings.task_named_max_files:  # 0 switches the whole channel off
        for name in named_modules(task):
            mods = [n for n in nodes_named(name) if n.kind is NodeKind.MODULE
                    and library(n.file)]
            if len(mods) == 1 and mods[0].file not in edited:  # one module by that name
                out.setdefault(mods[0].file, []).append((mods[0].id, name))
    return {f: tuple(dict.fromkeys(v)) for f, v in sorted(out.items())}


def task_named_entries(named: Mapping[str, Sequence[tuple[str, str]]],
                       settings: Settings = DEFAULT) -> list[TriageEntry]:
    """MAY-IMPACT at ``settings.task_named_conf`` for each definition the task names."""
    return [TriageEntry(entity=node_id, file=path, conf=settings.task_named_conf,
                        bucket=Bucket.MAY, distance=1, hard=False,
                        reason=f"the task text names `{name}`, defined here",
                        task_named=(name,))
            for path, defs in sorted(named.items()) for node_id, name in defs]


def defined_names(text: str | None) -> frozenset[str]:
    """The names a module's text defines: every class and function (methods included) and
    its module-level bindings — what :func:`task_named` looks up, read from a past tree."""
    tree = parse_python(text)
    if tree is None:
        return frozenset()
    nested = {n.name for n in ast.walk(tree)
              if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)}
    return frozenset(nested | top_level_names(tree))
