"""Configuration the repository ships that names code by dotted path.

Entry points and plugin tables (``pyproject.toml``, ``setup.cfg``), pytest plugin
options (``-p pkg.plugin`` in ``tox.ini``, ``pytest.ini``, ``setup.cfg``,
``pyproject.toml``) and ``conftest.py`` plugin lists (``pytest_plugins = [...]``) make
code reachable by a string: a console script calls ``cli.main:run()``, pytest imports
``pkg.plugin`` and runs its hooks and fixtures. No call graph sees these. A line that
names the changed entity, a class holding it, or its module is reported as an
un-analyzable site (reason ``config``) that may reach the change; it selects no test and
raises nothing — it says where the change is used from outside the code.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping

from impactlens.model import AtomicChange, ChangeType, UnanalyzableHit, UnresolvedReason

__all__ = ["CONFIG_FILES", "CONFTEST", "config_hits", "plugin_paths"]

# read at the repository root; every conftest.py is read too (its plugin list)
CONFIG_FILES = ("pyproject.toml", "setup.cfg", "tox.ini", "pytest.ini")
CONFTEST = "conftest.py"

# a dotted path, with an optional ":attr" part, standing alone (not inside a longer name)
_PATH = re.compile(r"(?<![\w.:-])[A-Za-z_]\w*(?:[.:][A-Za-z_]\w*)+(?![\w.:-])")
_PLUGIN_OPTION = re.compile(r"(?:^|\s)-p\s*(\S+)")
_TEXT_CAP = 160


def plugin_paths(text: str) -> list[tuple[int, str]]:
    """``(line, name)`` of each plugin a pytest option (``-p name``) or a
    ``pytest_plugins`` assignment (a string, list or tuple of strings) names."""
    out: list[tuple[int, str]] = []
    for i, line in enumerate(text.splitlines(), 1):
        out.extend((i, m.group(1).strip("'\",")) for m in _PLUGIN_OPTION.finditer(line))
    if "pytest_plugins" in text:
        out.extend(_plugin_list(text))
    return out


def _plugin_list(text: str) -> list[tuple[int, str]]:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    out: list[tuple[int, str]] = []
    for node in tree.body:
        if not (isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None):
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        if any(isinstance(t, ast.Name) and t.id == "pytest_plugins" for t in targets):
            out.extend((c.lineno, c.value) for c in ast.walk(node.value)
                       if isinstance(c, ast.Constant) and isinstance(c.value, str))
    return out


def _names(path: str, text: str) -> list[tuple[int, str]]:
    """The dotted paths (and plugin names) a configuration file holds, by line."""
    if path.rsplit("/", 1)[-1] == CONFTEST:
        return _plugin_list(text) if "pytest_plugins" in text else []
    out = [(i, m.group(0)) for i, line in enumerate(text.splitlines(), 1)
           for m in _PATH.finditer(line)]
    return out + plugin_paths(text)


def _names_entity(path: str, entity: str, module: str) -> bool:
    """``path`` (``pkg.mod:Class.attr`` or dotted) is the entity, a class or module
    holding it, or its module."""
    dotted = path.replace(":", ".")
    if dotted == module:
        return True
    return dotted.startswith(module + ".") and (
        entity == dotted or entity.startswith(dotted + "."))


def config_hits(texts: Mapping[str, str], change: AtomicChange, seed: str, module: str,
                *, gated: bool = False) -> list[UnanalyzableHit]:
    """The lines of the configuration ``texts`` (``{path: text}``) that name the changed
    entity ``seed`` of ``change`` (in ``module``), its class or its module. A new
    definition (nothing names it yet) and a local edit the escape gate keeps in its
    function reach no configuration."""
    if change.change_type is ChangeType.ADD or gated or not module:
        return []
    hits: set[UnanalyzableHit] = set()
    for path in sorted(texts):
        text = texts[path]
        lines = text.splitlines()
        for line, name in _names(path, text):
            if _names_entity(name, seed, module):
                shown = lines[line - 1].strip()[:_TEXT_CAP] if line <= len(lines) else name
                hits.add(UnanalyzableHit(path, line, path, UnresolvedReason.CONFIG.value,
                                         shown, seed))
    return sorted(hits, key=lambda h: (h.file, h.line, h.text))
