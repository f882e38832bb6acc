"""Python indexing: per-file AST extraction, cross-file resolution, test discovery.

Public API (what the indexer calls)::

    extract_file(path, source, module, is_test, is_package) -> PyFileFacts
    resolve_file(facts, lookup) -> FileResolution

``lookup`` implements :class:`ModuleLookup` (``module(name)``, ``path(relpath)``).
"""

from impactlens.index.python.extract import decode_source, extract_file
from impactlens.index.python.facts import PyFileFacts, Scope
from impactlens.index.python.resolve import ModuleLookup, resolve_file

__all__ = ["ModuleLookup", "PyFileFacts", "Scope", "decode_source", "extract_file",
           "resolve_file"]
