"""One pass over a TypeScript/JavaScript syntax tree (tree-sitter) → :class:`TsFacts`.

Pure and picklable (runs in worker processes). The grammars come from the
``tree-sitter-typescript`` and ``tree-sitter-javascript`` wheels: nothing is downloaded.
Function bodies of arrow functions and function expressions passed as arguments belong
to the enclosing scope (as Python's lambdas do); one bound to a name is a definition.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from impactlens.index.typescript.facts import (
    CLASS,
    ENUM,
    FIELD,
    FUNCTION,
    INTERFACE,
    METHOD,
    NAMESPACE,
    TYPE,
    VARIABLE,
    Def,
    Import,
    ReExport,
    Ref,
    Site,
    Test,
    TsFacts,
)
from impactlens.index.typescript.nodes import (
    base_type,
    literal_ref,
    object_args,
    params_of,
    ref_of,
    short,
    signature_of,
    string_value,
    text,
    type_name,
)

TS_SUFFIXES = (".ts", ".mts", ".cts")
JS_SUFFIXES = (".js", ".jsx", ".mjs", ".cjs")
_TEST_FUNCS = frozenset({"it", "test", "specify"})
_SUITE_FUNCS = frozenset({"describe", "suite", "context"})
_HOOKS = frozenset({"beforeEach", "beforeAll", "before", "setup"})
_FUNC_VALUES = frozenset({"arrow_function", "function_expression", "function",
                          "generator_function"})
_CLASS_DECLS = frozenset({"class_declaration", "abstract_class_declaration", "class"})
# subtrees that hold no call, construction or JSX element (types, literals, comments)
_NO_SITES = frozenset({"type_annotation", "type_arguments", "type_parameters", "string",
                       "number", "comment", "identifier", "property_identifier",
                       "predefined_type", "type_identifier", "regex", "true", "false", "null",
                       "undefined", "this", "shorthand_property_identifier", "statement_identifier",
                       "jsx_text", "escape_sequence", "string_fragment", "hash_bang_line"})
_MAX_DEPTH = 400  # deeper trees (generated code) stop being walked, not crash the worker
# array methods that store the functions handed to them, and those that call a callback
# with each element
_ADDS = frozenset({"push", "unshift"})
_ITERATES = frozenset({"forEach", "map", "filter", "some", "every", "find", "findIndex",
                       "flatMap", "reduce"})


@cache
def parser_for(path: str) -> Any:
    import tree_sitter as ts

    if path.endswith(".tsx"):
        import tree_sitter_typescript as tst

        lang = ts.Language(tst.language_tsx())
    elif path.endswith(TS_SUFFIXES):
        import tree_sitter_typescript as tst

        lang = ts.Language(tst.language_typescript())
    else:
        import tree_sitter_javascript as tsj

        lang = ts.Language(tsj.language())
    return ts.Parser(lang)


def parse_tree(path: str, data: bytes) -> Any:
    return parser_for(path).parse(data)


def _errors(root: Any) -> tuple[int, ...]:
    out: set[int] = set()
    todo = [root]
    while todo:
        n = todo.pop()
        if n.type == "ERROR" or n.is_missing:
            if not _recovered(n):
                out.add(n.start_point[0] + 1)
            continue
        if n.has_error:
            todo.extend(n.children)
    return tuple(sorted(out))


def _recovered(n: Any) -> bool:
    """A newer syntax the grammar does not know but the walker reads all the same:
    ``export type * from`` (TypeScript 5)."""
    parent = n.parent
    return n.text == b"type" and parent is not None and parent.type == "export_statement"


def extract(path: str, data: bytes, module: str, is_test: bool) -> TsFacts:
    tree = parse_tree(path, data)
    w = _Walker(path)
    w.block(tree.root_node, "", ())
    errors = _errors(tree.root_node) if tree.root_node.has_error else ()
    return TsFacts(path=path, module=module, is_test=is_test, defs=tuple(w.defs),
                   imports=tuple(w.imports), exports=tuple(sorted(set(w.exports))),
                   reexports=tuple(w.reexports), sites=tuple(w.sites),
                   locals=tuple(sorted(set(w.locals))), tests=tuple(w.finish_tests()),
                   aliases=tuple(w.aliases), added=tuple(w.added),
                   lines=data.count(b"\n") + 1, errors=errors)


class _Frame:
    """An open describe block: its title path and the hooks declared in it."""

    def __init__(self, titles: tuple[str, ...]) -> None:
        self.titles = titles
        self.hooks: list[str] = []
        self.tests: list[tuple[tuple[str, ...], int, int, list[_Frame]]] = []


class _Walker:
    def __init__(self, path: str) -> None:
        self.path = path
        self.defs: list[Def] = []
        self.imports: list[Import] = []
        self.exports: list[tuple[str, str]] = []
        self.reexports: list[ReExport] = []
        self.sites: list[Site] = []
        self.locals: list[tuple[str, str, str]] = []
        self.aliases: list[tuple[str, str, Ref]] = []
        self.added: list[tuple[str, Ref]] = []
        self._reads: set[tuple[str, Ref]] = set()
        self._tests: list[tuple[tuple[str, ...], int, int, tuple[_Frame, ...]]] = []
        self._frames: list[_Frame] = []
        self._root_hooks: list[str] = []
        self._hook_n = 0

    # ------------------------------------------------------------ traversal
    def block(self, node: Any, scope: str, prefix: tuple[str, ...], depth: int = 0) -> None:
        for c in node.named_children:
            self.stmt(c, scope, prefix, depth + 1)

    def stmt(self, node: Any, scope: str, prefix: tuple[str, ...], depth: int = 0,
             exported: bool = False) -> None:
        if depth > _MAX_DEPTH:
            return
        t = node.type
        handler = _STMT.get(t)
        if handler is not None:
            handler(self, node, scope, prefix, depth, exported)
        else:
            self.expr(node, scope, depth)

    def expr(self, node: Any, scope: str, depth: int = 0) -> None:
        """Sites inside an expression (or any other node) of ``scope``."""
        todo = [(node, depth)]
        while todo:
            n, d = todo.pop()
            if d > _MAX_DEPTH:
                continue
            t = n.type
            if t == "call_expression":
                if self.call(n, scope, d):
                    continue
            elif t == "new_expression":
                self.new(n, scope)
            elif t in ("jsx_opening_element", "jsx_self_closing_element"):
                self.jsx(n, scope)
            elif t == "member_expression":
                self.read(n, scope)
            elif t == "for_in_statement":
                self.loop(n, scope)
            elif t in _CLASS_DECLS and n is not node:
                name = n.child_by_field_name("name")
                self.klass(n, scope, (), d, False, text(name) if name else "")
                continue
            elif t in ("function_declaration", "generator_function_declaration") and n is not node:
                self.function(n, scope, (), d, False)
                continue
            if n.named_child_count:
                todo.extend([(c, d + 1) for c in n.named_children
                             if c.type not in _NO_SITES][::-1])

    # ----------------------------------------------------------- definitions
    def _qual(self, prefix: tuple[str, ...], name: str) -> str:
        return ".".join((*prefix, name))

    def _add(self, d: Def, exported: bool) -> None:
        self.defs.append(d)
        if exported and "." not in d.qual:
            self.exports.append((d.qual.rpartition(".")[2], d.qual))

    def function(self, node: Any, scope: str, prefix: tuple[str, ...], depth: int,
                 exported: bool, name: str = "") -> None:
        name = name or text(node.child_by_field_name("name")) or "default"
        if scope and not prefix:
            # a function declared inside another: a definition of its own, named under it
            prefix = tuple(scope.split("."))
        qual = self._qual(prefix, name)
        self._add(Def(qual, FUNCTION, node.start_point[0] + 1, node.end_point[0] + 1,
                      signature_of(node), params_of(node), ".".join(prefix), exported,
                      accessor="overload" if node.type == "function_signature" else "",
                      returns=type_name(node.child_by_field_name("return_type"))),
                  exported and not scope)
        self._params_locals(node, qual)
        self._body(node, qual, depth)

    def _params_locals(self, node: Any, qual: str) -> None:
        for p in params_of(node):
            if p.type and not p.rest:
                self.locals.append((qual, p.name, p.type))

    def klass(self, node: Any, scope: str, prefix: tuple[str, ...], depth: int,
              exported: bool, name: str = "") -> None:
        name = name or text(node.child_by_field_name("name")) or "default"
        if scope and not prefix:
            prefix = tuple(scope.split("."))
        qual = self._qual(prefix, name)
        extends: list[Ref] = []
        implements: list[Ref] = []
        for c in node.children:
            if c.type == "class_heritage":
                for h in c.named_children:
                    if h.type == "extends_clause":
                        v = h.child_by_field_name("value")
                        if v is not None:
                            extends.append(ref_of(v))
                            self.expr(v, scope, depth)
                    elif h.type == "implements_clause":
                        implements.extend(ref_of(base_type(x)) for x in h.named_children)
                    elif h.type not in ("comment",):  # JS grammar: `extends X` directly
                        extends.append(ref_of(h))
        abstract = "abstract" if node.type == "abstract_class_declaration" else ""
        self._add(Def(qual, CLASS, node.start_point[0] + 1, node.end_point[0] + 1,
                      signature_of(node), None, ".".join(prefix), exported,
                      tuple(extends), tuple(implements), abstract), exported and not scope)
        body = node.child_by_field_name("body")
        for m in body.named_children if body is not None else ():
            self.member(m, qual, depth + 1)

    def member(self, m: Any, cls: str, depth: int) -> None:
        t = m.type
        line, end = m.start_point[0] + 1, m.end_point[0] + 1
        if t in ("method_definition", "method_signature", "abstract_method_signature"):
            name = text(m.child_by_field_name("name"))
            accessor = next((c.type for c in m.children if c.type in ("get", "set")), "")
            static = any(c.type == "static" or text(c) == "static" for c in m.children)
            qual = f"{cls}.{name}"
            params = params_of(m)
            abstract = m.child_by_field_name("body") is None and t != "method_signature"
            # a bodiless signature in a class (not an interface): an overload
            overload = t == "method_signature" and m.parent is not None \
                and m.parent.type == "class_body"
            self.defs.append(Def(qual, METHOD, line, end, signature_of(m), params, cls,
                                 accessor=accessor or ("overload" if overload else "")
                                 or ("static" if static else "")
                                 or ("abstract" if abstract else ""),
                                 returns=type_name(m.child_by_field_name("return_type"))))
            if name == "constructor":
                for p in params:
                    if p.prop:
                        self.defs.append(Def(f"{cls}.{p.name}", FIELD, line, line,
                                             p.name, None, cls, accessor="param",
                                             type=p.type))
            self._params_locals(m, qual)
            body = m.child_by_field_name("body")
            if body is not None:
                self.block(body, qual, (), depth)
        elif t in ("public_field_definition", "field_definition", "property_signature"):
            name_node = m.child_by_field_name("name") or m.child_by_field_name("property")
            name = text(name_node)
            value = m.child_by_field_name("value")
            ann = m.child_by_field_name("type")
            qual = f"{cls}.{name}"
            if value is not None and value.type in _FUNC_VALUES:
                self.defs.append(Def(qual, METHOD, line, end, signature_of(value),
                                     params_of(value), cls))
                self._params_locals(value, qual)
                self._body(value, qual, depth)
                return
            typ = type_name(ann)
            if not typ and value is not None and value.type == "new_expression":
                typ = text(value.child_by_field_name("constructor"))
            self.defs.append(Def(qual, FIELD, line, end, short(text(m), 160), None, cls,
                                 type=typ, value=literal_ref(value)))
            if value is not None:
                self.expr(value, cls, depth)
        elif t == "class_static_block":
            self.expr(m, cls, depth)

    def variable(self, node: Any, scope: str, prefix: tuple[str, ...], depth: int,
                 exported: bool) -> None:
        for d in node.named_children:
            if d.type != "variable_declarator":
                continue
            name_node, value = d.child_by_field_name("name"), d.child_by_field_name("value")
            ann = d.child_by_field_name("type")
            if name_node is None:
                continue
            if name_node.type != "identifier":  # destructuring: `const {a} = require(...)`
                if value is not None and not self._require(value, name_node, scope):
                    self.expr(value, scope, depth)
                continue
            name = text(name_node)
            if value is not None and not scope and value.type == "assignment_expression":
                value = self._exported_as(name, value)
            if value is not None and value.type in _FUNC_VALUES:
                self.function(value, scope, prefix, depth, exported, name)
                continue
            if value is not None and value.type in _CLASS_DECLS:
                self.klass(value, scope, prefix, depth, exported, name)
                continue
            if value is not None and self._require(value, name_node, scope):
                continue
            spec = _dynamic_import_spec(value)
            if spec is not None:  # `const m = await import("./x")`: a namespace binding
                self.imports.append(Import(name, spec, "*", d.start_point[0] + 1, "dynamic"))
                continue
            typ = type_name(ann)
            if not typ and value is not None and value.type == "new_expression":
                typ = text(value.child_by_field_name("constructor"))
            if scope:  # a local of a function: only its type matters
                if typ:
                    self.locals.append((scope, name, typ))
            else:
                qual = self._qual(prefix, name)
                self._add(Def(qual, VARIABLE, d.start_point[0] + 1, d.end_point[0] + 1,
                              short(text(d), 160), None, ".".join(prefix), exported,
                              type=typ, value=(literal_ref(value) or ref_of(value))
                              if value is not None else None),
                          exported)
            if value is not None:
                self.expr(value, scope, depth)

    def _exported_as(self, name: str, value: Any) -> Any:
        """``var app = exports = module.exports = {}``: ``app`` is the module's export;
        the value is the chain's last one."""
        while value.type == "assignment_expression":
            left = value.child_by_field_name("left")
            if left is not None and text(left) == "module.exports":
                self.exports.append(("default", name))
            value = value.child_by_field_name("right")
            if value is None:
                break
        return value

    def _require(self, value: Any, name_node: Any, scope: str) -> bool:
        """``require("x")`` bound to names: imports (``const x = require(...)``, and
        ``const f = require("x").f``, Express's way of importing one export)."""
        spec = _require_spec(value)
        line = value.start_point[0] + 1
        if spec is None:
            member = _required_member(value)
            if member is None or name_node.type != "identifier":
                return False
            self.imports.append(Import(text(name_node), member[0], member[1], line, "cjs"))
            return True
        if name_node.type == "identifier":
            self.imports.append(Import(text(name_node), spec, "*", line, "cjs"))
        elif name_node.type == "object_pattern":
            for c in name_node.named_children:
                if c.type == "shorthand_property_identifier_pattern":
                    self.imports.append(Import(text(c), spec, text(c), line, "cjs"))
                elif c.type == "pair_pattern":
                    k, v = c.child_by_field_name("key"), c.child_by_field_name("value")
                    if k is not None and v is not None:
                        self.imports.append(Import(text(v), spec, text(k), line, "cjs"))
        return True

    # ------------------------------------------------------------- modules
    def import_stmt(self, node: Any, scope: str, prefix: tuple[str, ...], depth: int,
                    exported: bool) -> None:
        spec = string_value(node.child_by_field_name("source"))
        if spec is None:
            return
        line = node.start_point[0] + 1
        kind = "type" if any(c.type == "type" for c in node.children) else "es"
        clause = next((c for c in node.named_children if c.type == "import_clause"), None)
        if clause is None:
            self.imports.append(Import("", spec, "", line, "side"))
            return
        for c in clause.named_children:
            if c.type == "identifier":
                self.imports.append(Import(text(c), spec, "default", line, kind))
            elif c.type == "namespace_import":
                ident = next((x for x in c.named_children if x.type == "identifier"), None)
                if ident is not None:
                    self.imports.append(Import(text(ident), spec, "*", line, kind))
            elif c.type == "named_imports":
                for s in c.named_children:
                    if s.type != "import_specifier":
                        continue
                    name = text(s.child_by_field_name("name"))
                    alias = s.child_by_field_name("alias")
                    self.imports.append(Import(text(alias) if alias else name, spec, name,
                                               line, kind))

    def export_stmt(self, node: Any, scope: str, prefix: tuple[str, ...], depth: int,
                    exported: bool) -> None:
        decl = node.child_by_field_name("declaration")
        line = node.start_point[0] + 1
        is_default = any(c.type == "default" for c in node.children)
        if decl is not None:
            before = len(self.defs)
            self.stmt(decl, scope, prefix, depth, exported=True)
            if is_default and len(self.defs) > before:
                self.exports.append(("default", self.defs[before].qual))
            return
        spec = string_value(node.child_by_field_name("source"))
        value = node.child_by_field_name("value")
        if is_default and value is not None:
            if value.type in _FUNC_VALUES or value.type in _CLASS_DECLS:
                name = text(value.child_by_field_name("name")) or "default"
                (self.function if value.type in _FUNC_VALUES else self.klass)(
                    value, scope, prefix, depth, False, name)
                self.exports.append(("default", name))
            elif value.type == "identifier":
                self.exports.append(("default", text(value)))
                self.sites.append(Site(scope, line, "ref", ("n", text(value)), text="export"))
            else:
                held = literal_ref(value) if not scope else None
                if held is not None:  # `export default { start, stop }`
                    self._add(Def("default", VARIABLE, line, value.end_point[0] + 1,
                                  short(text(value), 160), None, "", True, value=held), True)
                self.expr(value, scope, depth)
            return
        clause = next((c for c in node.named_children if c.type == "export_clause"), None)
        ns = next((c for c in node.named_children if c.type == "namespace_export"), None)
        if clause is not None:
            for s in clause.named_children:
                if s.type != "export_specifier":
                    continue
                name = text(s.child_by_field_name("name"))
                alias = s.child_by_field_name("alias")
                out = text(alias) if alias is not None else name
                if spec is not None:
                    self.reexports.append(ReExport(out, spec, name, line))
                else:
                    self.exports.append((out, name))
        elif spec is not None:
            ident = (next((x for x in ns.named_children), None) if ns is not None else None)
            self.reexports.append(ReExport(text(ident) if ident is not None else "*", spec,
                                           "*", line))

    def assignment(self, node: Any, scope: str, depth: int) -> bool:
        """``module.exports = …`` / ``exports.x = …`` (CommonJS exports); False if neither."""
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is None or right is None or left.type != "member_expression" or scope:
            return False
        target = text(left)
        if target == "module.exports":
            if right.type == "object":
                for p in right.named_children:
                    if p.type == "shorthand_property_identifier":
                        self.exports.append((text(p), text(p)))
                    elif p.type == "pair":
                        k, v = p.child_by_field_name("key"), p.child_by_field_name("value")
                        if v is not None and v.type == "identifier":
                            self.exports.append((text(k), text(v)))
                        elif v is not None:
                            self._cjs_value(text(k), v, depth)
            elif right.type == "identifier":
                self.exports.append(("default", text(right)))
            else:
                self._cjs_value("default", right, depth)
            return True
        prop = left.child_by_field_name("property")
        obj = left.child_by_field_name("object")
        if prop is None or obj is None:
            return False
        if text(obj) in ("exports", "module.exports"):
            name = text(prop)
            if right.type == "identifier":
                self.exports.append((name, text(right)))
            else:
                self._cjs_value(name, right, depth)
            return True
        if obj.type == "identifier" and right.type in _FUNC_VALUES:
            # `app.handle = function handle() {}` (Express's application, request and
            # response objects; a function's own property): a definition under the name
            self.function(right, "", (text(obj),), depth, False, text(prop))
            return True
        return False

    def _cjs_value(self, name: str, value: Any, depth: int) -> None:
        if value.type in _FUNC_VALUES:
            self.function(value, "", (), depth, False, name)
            self.exports.append((name, name))
        elif value.type in _CLASS_DECLS:
            self.klass(value, "", (), depth, False, name)
            self.exports.append((name, name))
        else:
            self.expr(value, "", depth)

    # --------------------------------------------------------------- sites
    def call(self, node: Any, scope: str, depth: int) -> bool:
        """Record a call; True when its arguments were walked here already."""
        fn = node.child_by_field_name("function")
        args = node.child_by_field_name("arguments")
        if fn is None:
            return False
        line = node.start_point[0] + 1
        if fn.type == "import":  # dynamic import()
            spec = string_value(args.named_children[0]) if args and args.named_children else None
            if spec is not None:
                self.imports.append(Import("", spec, "*", line, "dynamic"))
            else:
                self.sites.append(Site(scope, line, "call", ("?", "import"),
                                       text=short(text(node), 80)))
            return False
        if text(fn) == "require" and _require_spec(node) is not None:
            self.imports.append(Import("", _require_spec(node) or "", "*", line, "cjs"))
            return True
        if self._test_call(node, fn, args, scope, depth):
            return True
        if fn.type == "super":  # the base class's constructor runs
            argv = args.named_children if args is not None else []
            self.sites.append(Site(scope, line, "new", ("super",),
                                   sum(1 for a in argv if a.type not in ("spread_element",
                                                                          "comment")),
                                   any(a.type == "spread_element" for a in argv),
                                   short(text(node), 80)))
            return False
        target = ref_of(fn)
        self._collection_call(target, args, scope)
        if target == ("n", "eval"):
            target = ("?", "eval")
        argv = args.named_children if args is not None else []
        spread = any(a.type == "spread_element" for a in argv)
        nargs = sum(1 for a in argv if a.type not in ("spread_element", "comment"))
        if args is not None and args.type == "template_string":
            nargs = 1
        self.sites.append(Site(scope, line, "call", target, nargs, spread,
                               short(text(node), 80), keys=object_args(argv)))
        for i, a in enumerate(argv):
            if a.type in ("identifier", "member_expression"):
                self.sites.append(Site(scope, a.start_point[0] + 1, "ref", ref_of(a), i,
                                       callee=target))
        return False

    def new(self, node: Any, scope: str) -> None:
        ctor = node.child_by_field_name("constructor")
        args = node.child_by_field_name("arguments")
        if ctor is None:
            return
        argv = args.named_children if args is not None else []
        self.sites.append(Site(scope, node.start_point[0] + 1, "new", ref_of(ctor),
                               sum(1 for a in argv if a.type not in ("spread_element",
                                                                      "comment")),
                               any(a.type == "spread_element" for a in argv),
                               short(text(node), 80), keys=object_args(argv)))

    def read(self, node: Any, scope: str) -> None:
        """A property read or assignment (``o.p``, ``o.p = v``): it runs ``p``'s getter or
        setter when ``p`` is an accessor. Not the callee of a call or of ``new``."""
        parent = node.parent
        if parent is not None and parent.type in ("call_expression", "new_expression") and (
                parent.child_by_field_name("function") == node
                or parent.child_by_field_name("constructor") == node):
            return
        key = (scope, ref_of(node))
        if key[1][0] == "m" and key not in self._reads:
            self._reads.add(key)
            self.sites.append(Site(scope, node.start_point[0] + 1, "get", key[1]))

    def loop(self, node: Any, scope: str) -> None:
        """``for (const x of xs)``: ``x`` is an element of ``xs``."""
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is not None and right is not None and left.type == "identifier" and any(
                c.type == "of" for c in node.children):
            self.aliases.append((scope, text(left), ("elem", ref_of(right))))

    def _collection_call(self, target: Ref, args: Any, scope: str) -> None:
        """``xs.push(f)`` adds ``f`` to ``xs``; ``xs.forEach((x) => …)``: ``x`` is an element
        of ``xs`` in the (anonymous, so the enclosing scope's) callback."""
        if target[0] != "m" or args is None:
            return
        base, method = target[1], target[2]
        argv = [a for a in args.named_children if a.type != "comment"]
        if method in _ADDS and base[0] == "n":
            for a in argv:
                if a.type in ("identifier", "member_expression"):
                    self.added.append((base[1], ref_of(a)))
        elif method in _ITERATES and argv and argv[0].type in _FUNC_VALUES:
            ps = params_of(argv[0])
            if ps and not ps[0].keys and not ps[0].rest:
                self.aliases.append((scope, ps[0].name, ("elem", base)))

    def jsx(self, node: Any, scope: str) -> None:
        name = node.child_by_field_name("name")
        if name is None:
            return
        s = text(name)
        if not s[:1].isupper() and "." not in s:
            return  # an intrinsic element (`<div>`)
        self.sites.append(Site(scope, node.start_point[0] + 1, "jsx", ref_of(name), 1, False,
                               short(text(node), 80)))

    # --------------------------------------------------------------- tests
    def _test_call(self, node: Any, fn: Any, args: Any, scope: str, depth: int) -> bool:
        head, _each = _test_head(fn)
        if head is None or args is None or self._bound(fn):
            return False
        argv = [a for a in args.named_children if a.type != "comment"]
        title = string_value(argv[0]) if argv else None
        body = next((a for a in reversed(argv) if a.type in _FUNC_VALUES), None)
        if head in _HOOKS:
            if body is None:
                return False
            self._hook_n += 1
            hook = " > ".join((self.path, *self._titles(), f"{head}#{self._hook_n}"))
            if self._frames:
                self._frames[-1].hooks.append(hook)
            else:
                self._root_hooks.append(hook)
            self._body(body, hook, depth)
            return True
        if title is None:
            if argv and argv[0].type in ("template_string", "identifier", "member_expression",
                                         "binary_expression"):
                title = short(text(argv[0]).strip("`"), 120)
            else:
                return False
        titles = (*self._titles(), title)
        if head in _SUITE_FUNCS:
            frame = _Frame(titles)
            self._frames.append(frame)
            if body is not None:
                self._body(body, scope, depth)
            self._frames.pop()
            return True
        if head in _TEST_FUNCS:
            tid = " > ".join((self.path, *titles))
            self._tests.append((titles, node.start_point[0] + 1, node.end_point[0] + 1,
                                tuple(self._frames)))
            if body is not None:
                self._body(body, tid, depth)
            return True
        return False

    def _bound(self, fn: Any) -> bool:
        """Whether the called name is the file's own (an import or a definition named
        `describe`), not the test runner's."""
        root = fn
        while root.type in ("member_expression", "call_expression"):
            root = root.child_by_field_name("object") or root.child_by_field_name("function")
            if root is None:
                return False
        name = text(root)
        return any(i.local == name for i in self.imports) or any(
            d.qual == name for d in self.defs)

    def _titles(self) -> tuple[str, ...]:
        return self._frames[-1].titles if self._frames else ()

    def _body(self, fn: Any, scope: str, depth: int) -> None:
        body = fn.child_by_field_name("body")
        if body is None:
            return
        if body.type == "statement_block":
            self.block(body, scope, (), depth)
        else:
            self.expr(body, scope, depth)

    def finish_tests(self) -> list[Test]:
        out = []
        seen: dict[tuple[str, ...], int] = {}
        for titles, line, end, frames in self._tests:
            n = seen.get(titles, 0)
            seen[titles] = n + 1
            if n:  # a repeated title: the runner runs both under one name
                continue
            hooks = [*self._root_hooks, *(h for f in frames for h in f.hooks)]
            out.append(Test(titles, line, end, tuple(hooks)))
        return out


def _dynamic_import_spec(node: Any) -> str | None:
    if node is None:
        return None
    if node.type == "await_expression" and node.named_children:
        node = node.named_children[0]
    if node.type != "call_expression":
        return None
    fn, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
    if fn is None or fn.type != "import" or args is None or not args.named_children:
        return None
    return string_value(args.named_children[0])


def _required_member(node: Any) -> tuple[str, str] | None:
    """(specifier, export name) of ``require("x").name``."""
    if node.type != "member_expression":
        return None
    obj, prop = node.child_by_field_name("object"), node.child_by_field_name("property")
    if obj is None or prop is None or prop.type != "property_identifier":
        return None
    spec = _require_spec(obj)
    return None if spec is None else (spec, text(prop))


def _require_spec(node: Any) -> str | None:
    if node.type != "call_expression":
        return None
    fn, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
    if fn is None or text(fn) != "require" or args is None or len(args.named_children) != 1:
        return None
    return string_value(args.named_children[0])


def _test_head(fn: Any) -> tuple[str | None, bool]:
    """(describe/it/test/hook name, is a ``.each`` table) of a call's function."""
    each = False
    node = fn
    while True:
        if node.type == "call_expression":  # it.each(table)(...) / describe.each`...`(...)
            node = node.child_by_field_name("function")
            each = True
            if node is None:
                return None, False
            continue
        if node.type == "member_expression":
            prop = text(node.child_by_field_name("property"))
            if prop == "each":
                each = True
            elif prop not in ("only", "skip", "concurrent", "todo", "failing", "sequential"):
                return None, False
            node = node.child_by_field_name("object")
            if node is None:
                return None, False
            continue
        break
    if node.type != "identifier":
        return None, False
    name = text(node)
    if name in _TEST_FUNCS or name in _SUITE_FUNCS or name in _HOOKS:
        return name, each
    if name in ("xit", "fit", "xtest"):
        return "it", each
    if name in ("xdescribe", "fdescribe"):
        return "describe", each
    return None, False


def _s_function(w: _Walker, n: Any, scope: str, prefix: tuple[str, ...], depth: int,
                exported: bool) -> None:
    w.function(n, scope, prefix, depth, exported)


def _s_class(w: _Walker, n: Any, scope: str, prefix: tuple[str, ...], depth: int,
             exported: bool) -> None:
    w.klass(n, scope, prefix, depth, exported)


def _s_variable(w: _Walker, n: Any, scope: str, prefix: tuple[str, ...], depth: int,
                exported: bool) -> None:
    w.variable(n, scope, prefix, depth, exported)


def _s_simple(kind: str) -> Any:
    def handle(w: _Walker, n: Any, scope: str, prefix: tuple[str, ...], depth: int,
               exported: bool) -> None:
        name = text(n.child_by_field_name("name"))
        qual = w._qual(prefix, name)
        w._add(Def(qual, kind, n.start_point[0] + 1, n.end_point[0] + 1, signature_of(n),
                   None, ".".join(prefix), exported,
                   extends=_interface_bases(n) if kind == INTERFACE else ()),
               exported and not scope)
        body = n.child_by_field_name("body")
        if kind == INTERFACE and body is not None:
            for m in body.named_children:
                w.member(m, qual, depth + 1)
        elif kind == NAMESPACE and body is not None:
            w.block(body, scope, (*prefix, name), depth)
    return handle


def _interface_bases(n: Any) -> tuple[Ref, ...]:
    out: list[Ref] = []
    for c in n.children:
        if c.type == "extends_type_clause":
            out.extend(ref_of(base_type(x)) for x in c.named_children)
    return tuple(out)


def _s_export(w: _Walker, n: Any, scope: str, prefix: tuple[str, ...], depth: int,
              exported: bool) -> None:
    w.export_stmt(n, scope, prefix, depth, exported)


def _s_import(w: _Walker, n: Any, scope: str, prefix: tuple[str, ...], depth: int,
              exported: bool) -> None:
    w.import_stmt(n, scope, prefix, depth, exported)


def _s_expression(w: _Walker, n: Any, scope: str, prefix: tuple[str, ...], depth: int,
                  exported: bool) -> None:
    inner = n.named_children[0] if n.named_children else None
    if inner is None:
        return
    if inner.type in ("internal_module", "module"):
        _s_simple(NAMESPACE)(w, inner, scope, prefix, depth, exported)
        return
    if inner.type == "assignment_expression" and w.assignment(inner, scope, depth):
        return
    w.expr(inner, scope, depth)


def _s_ambient(w: _Walker, n: Any, scope: str, prefix: tuple[str, ...], depth: int,
               exported: bool) -> None:
    for c in n.named_children:
        w.stmt(c, scope, prefix, depth + 1, exported)


_STMT = {
    "function_declaration": _s_function,
    "generator_function_declaration": _s_function,
    "function_signature": _s_function,
    "class_declaration": _s_class,
    "abstract_class_declaration": _s_class,
    "lexical_declaration": _s_variable,
    "variable_declaration": _s_variable,
    "interface_declaration": _s_simple(INTERFACE),
    "type_alias_declaration": _s_simple(TYPE),
    "enum_declaration": _s_simple(ENUM),
    "internal_module": _s_simple(NAMESPACE),
    "module": _s_simple(NAMESPACE),
    "export_statement": _s_export,
    "import_statement": _s_import,
    "expression_statement": _s_expression,
    "ambient_declaration": _s_ambient,
}
