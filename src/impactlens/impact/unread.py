"""Attributes nothing reads: a store to one cannot change what a test observes.

Adding ``self.soft_frame = False`` to ``__init__`` is often the first step of a feature;
until some code reads ``soft_frame``, no test can see it — yet every test that builds the
object runs the new line. :func:`impactlens.impact.statements.touched_statements` blanks
such stores before it compares the function's two versions; this module says which
attributes qualify, for the methods of one class.

An attribute ``a`` of the class's instances is *unread* when:

- the store cannot do anything but set it: no class of the family (the class, its
  ancestors and descendants in the project) is decorated (``@dataclass(frozen=True)``,
  ``@attr.s(slots=True)``), has a metaclass or a base outside the project, defines
  ``__slots__``, ``__setattr__`` or ``__dict__``, or binds ``a`` in its body (a property or
  descriptor would run on the store);
- no family class shows its instance dictionary: none of the methods that compare, hash,
  print, serialise or iterate an instance (``__eq__``, ``__repr__``, ``__getstate__``, …)
  mentions ``__dict__``, ``vars`` or ``dir``;
- nothing in the project mentions it but the edit's own stores: no ``.a`` and no ``'a'``
  or ``"a"`` in any text file of the work tree (Python, templates, docs with doctests;
  the edited files as edited) — so neither ``x.a``, ``getattr(x, "a")`` nor a template's
  ``{{ x.a }}`` reads it.

What this cannot see (documented in the README): a name built at run time
(``getattr(x, "soft_" + kind)``, a loop over ``dir(x)``), code outside the work tree that
reads the instance dictionary (``vars(x)`` in a library), and ``sys.getsizeof``-style
introspection.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable, Iterator, Mapping

from impactlens.fileio import parse_python
from impactlens.model import EdgeKind, GraphView, Node, NodeKind, SourceTree

__all__ = ["UnreadAttributes"]

_INHERIT = frozenset({EdgeKind.INHERIT})
_SHOWS = frozenset({  # methods that can show an instance's attributes to a test
    "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__hash__", "__repr__",
    "__str__", "__format__", "__bytes__", "__getstate__", "__reduce__", "__reduce_ex__",
    "__iter__", "__len__", "__bool__", "__contains__", "__getnewargs__",
    "__getnewargs_ex__", "__sizeof__", "__dir__",
})
_REFLECT = re.compile(r"__dict__|\bvars\b|\bdir\b")
_GUARDS = frozenset({"__slots__", "__setattr__", "__dict__"})


class UnreadAttributes:
    """Which attributes of a class's instances nothing in the work tree ``tree`` reads;
    ``edited``: path → text after the edit (``None``: deleted) of the files the edit
    touches, read instead of the tree's; ``before``: their text before it, where known."""

    def __init__(self, tree: SourceTree, edited: Mapping[str, str | None],
                 before: Mapping[str, str | None] | None = None) -> None:
        self.tree = tree
        self.edited = edited
        self.before = before or {}
        self._mentions: dict[str, int] = {}
        self._trees: dict[str, ast.Module | None] = {}

    def of_method(self, graph: GraphView, method: str
                  ) -> Callable[[Mapping[str, int]], set[str]] | None:
        """For the method ``method`` (a node id): attribute → ``n`` ↦ the attributes
        nothing in the project mentions but the method's ``n`` stores. ``None`` when its
        class's stores may run code or be shown (see the module docstring)."""
        node = graph.node(method)
        owner = graph.node(node.parent) if node and node.parent else None
        if node is None or owner is None or owner.kind is not NodeKind.CLASS:
            return None
        bound: set[str] = set()
        for cls in _family(graph, owner):
            names = self._class_names(graph, cls)
            if names is None:
                return None
            bound |= names

        def unread(stores: Mapping[str, int]) -> set[str]:
            counts = self.mentions(stores)
            return {a for a, n in stores.items() if a not in bound and counts[a] <= n}

        return unread

    def mentions(self, attrs: Iterable[str]) -> dict[str, int]:
        """How many times ``.attr``, ``'attr'`` or ``"attr"`` occurs in the work tree, for
        each of ``attrs`` (one pass over the files for those not counted yet)."""
        new = sorted(set(attrs) - self._mentions.keys())
        if new:
            names = "|".join(map(re.escape, new))
            pattern = re.compile(rf"\.({names})\b|(['\"])({names})\2")
            counts = dict.fromkeys(new, 0)
            for m in self._matches(pattern, new):
                counts[m.group(1) or m.group(3)] += 1
            self._mentions.update(counts)
        return {a: self._mentions[a] for a in attrs}

    def _matches(self, pattern: re.Pattern[str], needles: Iterable[str]
                 ) -> Iterator[re.Match[str]]:
        """``pattern``'s matches in the work tree's texts that hold one of ``needles`` (a
        substring test is far cheaper than the pattern)."""
        needles = tuple(needles)
        for text in self._texts():
            if any(n in text for n in needles):
                yield from pattern.finditer(text)

    def _texts(self) -> Iterator[str]:
        for path in self.tree.text_files():
            text = None if path in self.edited else self.tree.text(path)
            if text is not None:
                yield text
        yield from (t for t in self.edited.values() if t is not None)

    def _class_names(self, graph: GraphView, cls: Node) -> set[str] | None:
        """The names ``cls``'s body binds; ``None`` when a store on its instances may run
        code (decorator, metaclass, outside base, ``__slots__``/``__setattr__``) or a
        method that shows an instance reads its ``__dict__``."""
        tree = self._class_tree(graph, cls)
        if tree is None or tree.decorator_list or tree.keywords:
            return None
        bases = [b for b in tree.bases if not (isinstance(b, ast.Name) and b.id == "object")]
        inside = [e for e in graph.out_edges(cls.id, _INHERIT) if graph.node(e.dst)]
        if len(bases) != len(inside):
            return None  # a base outside the project may define anything
        names: set[str] = set()
        for stmt in tree.body:
            names |= _binds(stmt)
            if (isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef))
                    and stmt.name in _SHOWS and _REFLECT.search(ast.unparse(stmt))):
                return None
        return None if names & _GUARDS else names

    def _class_tree(self, graph: GraphView, cls: Node) -> ast.ClassDef | None:
        """``cls``'s definition, parsed from the edited text of its file or the disk."""
        module = cls
        while module.kind is not NodeKind.MODULE:
            up = graph.node(module.parent) if module.parent else None
            if up is None:
                return None
            module = up
        scope: ast.AST | None = self._tree(cls.file)
        for part in cls.id[len(module.id) + 1:].split("."):
            scope = next((s for s in getattr(scope, "body", ())
                          if isinstance(s, ast.ClassDef) and s.name == part), None)
        return scope if isinstance(scope, ast.ClassDef) else None

    def _tree(self, path: str) -> ast.Module | None:
        """The module at ``path``, parsed from its edited text or the tree's."""
        if path not in self._trees:
            text = (self.edited[path] or "") if path in self.edited else self.tree.text(path)
            self._trees[path] = parse_python(text) if text else None
        return self._trees[path]

    def module_names(self, path: str) -> frozenset[str]:
        """The names attribute lookup on the module at ``path`` always finds, before and
        after the edit, so its ``__getattr__`` (PEP 562) never runs for them: bound by the
        module's own top-level statements before it defines the hook, never deleted or
        declared ``global`` in it, no ``globals()``/``vars()``/``.__dict__`` in it, and no
        ``delattr(…name…)``, ``del x.name``, ``.pop('name')`` or ``__getattr__('name')``
        (the hook called directly) anywhere in the work tree."""
        bound = _always_bound(self._tree(path))
        if path in self.before:
            bound &= _always_bound(parse_python(self.before[path]))
        return frozenset(bound - self._deleted(bound))

    def _deleted(self, names: set[str]) -> set[str]:
        """Those of ``names`` some text of the work tree may delete from a module or ask a
        hook for directly."""
        if not names:
            return set()
        alt = "|".join(map(re.escape, sorted(names)))
        pattern = re.compile(rf"delattr\([^)\n]*\b({alt})\b|\bdel\s+[\w.]+\.({alt})\b"
                             rf"|(?:\.pop|__getattr__)\(\s*['\"]({alt})['\"]")
        return {m.group(1) or m.group(2) or m.group(3) for m in
                self._matches(pattern, ("delattr", "del ", ".pop(", "__getattr__("))}


def _always_bound(tree: ast.Module | None) -> set[str]:
    """The names ``tree``'s own top-level statements always bind before it defines its
    ``__getattr__``, and it never deletes or reaches through its namespace (see
    :meth:`UnreadAttributes.module_names`)."""
    hook = next((s.lineno for s in tree.body if isinstance(s, ast.FunctionDef)
                 and s.name == "__getattr__"), None) if tree else None
    if tree is None or hook is None or any(map(_reaches_namespace, ast.walk(tree))):
        return set()
    bound = set().union(*(_binds_always(s) for s in tree.body if s.lineno < hook))
    for n in ast.walk(tree):
        if isinstance(n, ast.Global):
            bound -= set(n.names)
        elif isinstance(n, ast.Delete):  # `del x`, `del (x, y)`
            bound -= {x.id for t in n.targets for x in ast.walk(t)
                      if isinstance(x, ast.Name) and isinstance(x.ctx, ast.Del)}
    return bound


def _reaches_namespace(node: ast.AST) -> bool:
    """Whether ``node`` can reach a module's namespace as a mapping: ``globals()``,
    ``vars()``, ``x.__dict__``."""
    return ((isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
             and node.func.id in ("globals", "vars"))
            or (isinstance(node, ast.Attribute) and node.attr == "__dict__"))


def _binds_always(stmt: ast.stmt) -> set[str]:
    """The names a module's top-level statement binds whenever it runs to its end (not
    ``if``/``try`` bodies, which may not run; not ``from m import *``, which may bind
    anything)."""
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {stmt.name}
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in stmt.names if a.name != "*"}
    targets = (stmt.targets if isinstance(stmt, ast.Assign)
               else [stmt.target] if isinstance(stmt, ast.AnnAssign) and stmt.value else [])
    names = [e for t in targets for e in (t.elts if isinstance(t, ast.Tuple) else [t])]
    return {e.id for e in names if isinstance(e, ast.Name)}


def _family(graph: GraphView, cls: Node) -> list[Node]:
    """``cls``, its ancestors and its descendants among the project's classes."""
    seen = {cls.id: cls}
    todo = [cls.id]
    while todo:
        here = todo.pop()
        edges = [e.dst for e in graph.out_edges(here, _INHERIT)]
        edges += [e.src for e in graph.in_edges(here, _INHERIT)]
        for other in edges:
            node = graph.node(other)
            if other not in seen and node is not None and node.kind is NodeKind.CLASS:
                seen[other] = node
                todo.append(other)
    return [seen[k] for k in sorted(seen)]


def _binds(stmt: ast.stmt) -> set[str]:
    """The names a statement of a class body binds there."""
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {stmt.name}
    out: set[str] = set()
    for n in ast.walk(stmt):
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            out.add(n.id)
        elif isinstance(n, ast.alias):
            out.add((n.asname or n.name).split(".")[0])
    return out
