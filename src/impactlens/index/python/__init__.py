"""Python indexing: per-file AST extraction, cross-file resolution, test discovery.

Public API (what the indexer calls)::

    extract_file(path, source, module, is_test, is_package) -> PyFileFacts
        One pass over the file's AST (pure; runs in worker processes). Raises
        SyntaxError / UnicodeDecodeError / ValueError on unparseable input.
    resolve_file(facts, lookup) -> FileResolution
        Nodes defined in the file, edges whose reference site is in the file and
        its unresolved sites. Depends only on ``facts`` and what it asks ``lookup``
        (``ModuleLookup``: ``module(name)`` / ``path(relpath)``), so an incremental
        re-resolution of a file equals a full one.

Modules: ``extract`` (the visitor), ``facts`` (the picklable per-file records and
the expression encoding), ``resolve`` (the evaluator and edge emission),
``testdisc`` (pytest/unittest tests, fixtures, TESTS edges), ``pytest_marks``
(static parametrize ids), ``words`` (identifier and string-literal words),
``edit_queries`` (what an edited file asks of the rest: the calls at some lines, the
names its targets lack). The visitor's flow tracking is in ``binding_flow``, its
expression and call-site encoding in ``expr_encoding``.

Semantics worth knowing (choices where Python leaves room):

- A call of a decorated name resolves to the decorated function itself (what a
  signature change must re-bind). Decorators are called at definition time from the
  enclosing module/class, with the definition as argument (a factory ``@f(x)`` is a
  call of ``f`` plus a call of what it returns); a wrapper that calls the function it
  wraps gets a ``wrapper → function`` call edge.
- A function used as a value gets a ``use`` edge (access ``ref``) from the scope that
  references it. When it is passed to a repository function that calls that parameter
  (directly or from a closure), the *invoking* function gets an inferred call edge to
  it, made at the passing site (file/line of the argument); ``map``/``filter``/
  ``sorted``/``min``/``max`` invoke their callable arguments for the caller.
- Implicit calls are calls: property getters/setters, ``with`` (``__enter__``/
  ``__exit__``), ``for`` (``__iter__``/``__next__``), operators, subscripts,
  ``len()``/``str()``/... and ``in`` on instances of repository classes that define the
  dunder, ``raise Cls``, and class creation (bases' ``__init_subclass__``, the
  metaclass's ``__new__``/``__init__``). Instantiation is an ``instantiate`` edge plus a
  call of the ``__init__`` found through the MRO.
- Receivers are typed only from evidence: constructors, annotations (params, returns,
  attributes, ``Optional``/unions/strings/``Self``/``tuple[...]``/``dict[...]``), return
  inference through bodies (``return self._chain()`` chains), fields assigned in the
  receiver's classes, ``isinstance`` narrowing, ``with ... as``, iteration, unpacking
  and literal container indexing (including later ``x[k] = v``/``append`` stores).
  Local names are flow-sensitive: a rebinding does not leak into earlier calls.
- Resolution: ``exact`` = proven from names and constructors; ``inferred`` = relied on
  an annotation, a return-type/field inference or a passed callback; ``ambiguous`` =
  one of several candidates (a union receiver, a name bound differently on two
  paths, iterating a list of different callables), each emitted.
- Never guessed: unknown receivers, dynamic attributes, registries, ``importlib``,
  ``eval``, ``globals()`` are recorded as unresolved sites (with the names/strings
  found there); registrations (module/class-level displays holding functions or
  classes) are recorded too. Externals are recorded only for attribute chains;
  builtins are skipped.
- Lambdas are not nodes: their bodies belong to the enclosing scope. Several
  definitions of one qualname (conditional defs, a property's setter) share the id.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from impactlens.fileio import decode_source
    from impactlens.index.python.extract import extract_file
    from impactlens.index.python.facts import PyFileFacts, Scope
    from impactlens.index.python.resolve import ModuleLookup, resolve_file

__all__ = ["ModuleLookup", "PyFileFacts", "Scope", "decode_source", "extract_file",
           "resolve_file"]

# loaded on first use: a command that only reads the index (``impact``, ``find``) or a
# module that only needs the facts' records never imports the extractor or the resolver
_LAZY = {"decode_source": "impactlens.fileio", "extract_file": "impactlens.index.python.extract",
         "PyFileFacts": "impactlens.index.python.facts", "Scope": "impactlens.index.python.facts",
         "ModuleLookup": "impactlens.index.python.resolve",
         "resolve_file": "impactlens.index.python.resolve"}


def __getattr__(name: str) -> Any:
    where = _LAZY.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(where), name)
    globals()[name] = value  # once: later reads (and monkeypatching) see a plain attribute
    return value
