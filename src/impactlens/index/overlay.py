"""The before-state graph of a working-tree (or revision) change, as an in-memory overlay.

When the change is the working tree, the index holds the *after* state. For most
edits that is fine: the walk starts from entities that still exist and their
callers' edges are unchanged. But when the change removes or renames
definitions (a deleted function, a moved class, a deleted file), the references
to them no longer resolve in the after state — exactly the sites the impact
report must list. Then the changed files are re-extracted from their *before*
text and every file whose resolution consulted them is re-resolved against
that, in memory; the overlay answers graph queries for those files and defers to
the store for everything else. Nothing is written to the index.

Which files: the changed files, and the files that read a part of a changed file's
facts that differs between the indexed state and the before text (the read keys the
indexer records, :func:`impactlens.index.indexer.readers_of_change`) — removing one
function from a module 775 files consult re-resolves its few users, not all 775. An
added or deleted file, or a before text that does not parse, falls back to every file
that consulted it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from impactlens.index.frontend import ParseFailure, frontend_for, resolve_file
from impactlens.index.indexer import (
    EVERY_FILE,
    FactsLookup,
    every_file_changed,
    name_keys,
    readers_of_change,
    stored_collect,
)
from impactlens.index.store import facts_names
from impactlens.model import Edge, EdgeKind, FileChange, Node, UnresolvedSite

if TYPE_CHECKING:
    from impactlens.index.store import Store

__all__ = ["OverlayGraph", "defined_names", "overlay_for", "text_facts"]


def text_facts(path: str, text: str, module: str, collect: Any = None) -> Any:
    """The index's facts of ``text`` as the file ``path`` (module ``module``), or ``None``
    when it does not parse or no language frontend owns it; ``collect``: the index's pytest
    collection rules (``None``: pytest's defaults) say whether it is a test module. A file
    that parses with errors gives the facts of what its parser recovered."""
    fe = frontend_for(path)
    if fe is None:
        return None
    try:
        return fe.parse(path, text.encode("utf-8", "surrogateescape"), module,
                        fe.is_test_file(path, collect))
    except ParseFailure as exc:
        return exc.facts


def defined_names(path: str, text: str | None) -> frozenset[str] | None:
    """Names the text of ``path`` defines (``None``: absent, unparsable or unowned)."""
    fe = frontend_for(path)
    return None if fe is None else fe.defined_names(text)


def needs_overlay(files: Sequence[FileChange]) -> bool:
    """Whether the after-state graph lacks definitions the before state had."""
    for f in files:
        if f.before is None:
            continue  # an added file removes nothing
        if f.after is None:
            return True
        before, after = defined_names(f.path, f.before), defined_names(f.path, f.after)
        if before is None:
            continue
        if after is None or not before <= after:
            return True
    return False


class OverlayGraph:
    """An :class:`~impactlens.model.IndexGraph` = the store with some files' rows replaced."""

    def __init__(self, store: Store, replaced: dict[str, Any]) -> None:
        self._store = store
        self._files = frozenset(replaced)
        self._nodes: dict[str, list[Node]] = {}
        self._by_file: dict[str, list[Node]] = {}
        self._in: dict[str, list[Edge]] = {}
        self._out: dict[str, list[Edge]] = {}
        self._unresolved: list[UnresolvedSite] = []
        for path, res in sorted(replaced.items()):
            if res is None:
                continue
            for n in res.nodes:
                self._nodes.setdefault(n.id, []).append(n)
                self._by_file.setdefault(path, []).append(n)
            for e in res.edges:
                self._in.setdefault(e.dst, []).append(e)
                self._out.setdefault(e.src, []).append(e)
            self._unresolved.extend(res.unresolved)
        for lst in self._by_file.values():
            lst.sort(key=lambda n: (n.start_line, n.id))

    def __getattr__(self, name: str) -> Any:  # anything else: the store's answer
        return getattr(self._store, name)

    def node(self, node_id: str) -> Node | None:
        mine = self._nodes.get(node_id)
        theirs = self._store.node(node_id)
        if theirs is not None and theirs.file not in self._files:
            if not mine:
                return theirs
            return min([theirs, *mine], key=lambda n: (n.file, n.start_line))
        if mine:
            return min(mine, key=lambda n: (n.file, n.start_line))
        return None

    def nodes_in_file(self, path: str) -> list[Node]:
        if path in self._files:
            return list(self._by_file.get(path, []))
        return self._store.nodes_in_file(path)

    @staticmethod
    def _kinds(edges: list[Edge], kinds: frozenset[EdgeKind] | None) -> list[Edge]:
        return [e for e in edges if not kinds or e.kind in kinds]

    def in_edges(self, node_id: str, kinds: frozenset[EdgeKind] | None = None) -> list[Edge]:
        kept = [e for e in self._store.in_edges(node_id, kinds) if e.file not in self._files]
        out = kept + self._kinds(self._in.get(node_id, []), kinds)
        return sorted(out, key=lambda e: (e.src, e.kind.value, e.file, e.line))

    def out_edges(self, node_id: str, kinds: frozenset[EdgeKind] | None = None) -> list[Edge]:
        kept = [e for e in self._store.out_edges(node_id, kinds) if e.file not in self._files]
        out = kept + self._kinds(self._out.get(node_id, []), kinds)
        return sorted(out, key=lambda e: (e.dst, e.kind.value, e.file, e.line))

    def unresolved_sites_where(
        self, *, reasons: Iterable[str] = (), words: Iterable[str] = (),
        files: Iterable[str] = (), external: bool = True,
    ) -> list[UnresolvedSite]:
        theirs = self._store.unresolved_sites_where(reasons=reasons, words=words, files=files,
                                                    external=external)
        kept = [u for u in theirs if u.file not in self._files]
        return sorted(kept + self._unresolved, key=lambda u: (u.file, u.line, u.scope, u.text))

    def unresolved_in_file(self, path: str) -> list[UnresolvedSite]:
        if path in self._files:
            return [u for u in self._unresolved if u.file == path]
        return self._store.unresolved_in_file(path)

    def dependents_of_modules(self, modules: Iterable[str]) -> set[str]:
        return self._store.dependents_of_modules(modules)  # what the index's files read

    def unresolved_sites(self) -> list[UnresolvedSite]:
        kept = [u for u in self._store.unresolved_sites() if u.file not in self._files]
        return sorted(kept + self._unresolved, key=lambda u: (u.file, u.line, u.scope, u.text))


def overlay_for(store: Store, files: Sequence[FileChange], module_of: Callable[[str], str]
                ) -> OverlayGraph | None:
    """The before-state overlay of the edit ``files`` over ``store`` (which holds their after
    state), or ``None`` when the store already serves (see the module docstring)."""
    if not needs_overlay(files):
        return None
    collect = stored_collect(store)
    module_paths = dict(store.module_paths())
    by_path: dict[str, Any] = {}
    added: set[str] = set()
    coarse: set[str] = set()  # modules/paths whose every consulting file is re-resolved
    to_resolve: set[str] = set()
    for f in files:
        module = module_of(f.path)
        if f.before is None:
            added.add(f.path)
            by_path[f.path] = None
            coarse |= {"/" + f.path, module, EVERY_FILE}
            if module_paths.get(module) == f.path:
                del module_paths[module]
            continue
        facts = text_facts(f.path, f.before, module, collect)
        by_path[f.path] = facts
        module_paths.setdefault(module, f.path)
        to_resolve.add(f.path)
        indexed = store.facts(f.path)  # what the other files were resolved against
        if facts is None or indexed is None or getattr(indexed, "module", None) != module:
            coarse |= {"/" + f.path, module, EVERY_FILE}
        else:
            to_resolve |= readers_of_change(store, f.path, module, indexed, facts)
            if every_file_changed(indexed, facts):
                coarse.add(EVERY_FILE)
    # the classes extending a name, the package declaring one: asked of every file's facts
    coarse |= name_keys(store.names_of(f.path for f in files),
                        {(p, *row) for p, fa in by_path.items() for row in facts_names(fa)})
    to_resolve |= store.dependents_of_modules(coarse)
    to_resolve -= added
    replaced: dict[str, Any] = {p: None for p in added}
    for path in sorted(to_resolve):
        known: Any = by_path[path] if path in by_path else store.facts(path)
        if known is None:
            replaced[path] = None
            continue
        lookup = FactsLookup(by_path, store, module_paths, collect)
        replaced[path] = resolve_file(known, lookup)
    return OverlayGraph(store, replaced)
