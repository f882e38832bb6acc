"""Definitions and uses of one TypeScript/JavaScript CFG statement (tree-sitter nodes).

Locations are the access paths of :mod:`impactlens.pdg.defuse`: ``("x",)``,
``("this", "total")``, ``("obj", "a", "b")``; a computed index is
:data:`~impactlens.pdg.defuse.ANY` (a weak definition that may be any property), a
string-literal index is the property itself (``o["k"]`` = ``o.k``).

* Destructuring binds every name of the pattern; ``const {a, b: c} = obj`` reads
  ``obj.a`` and ``obj.b`` (not the whole of ``obj``) when the pattern has no rest
  element; a default value (``{a = f()}``) is a use.
* A short-circuited operand (the right of ``&&``/``||``/``??``, the arms of ``?:``,
  everything after ``?.``) may not run, so the definitions inside it are weak.
* Calls are opaque, as for Python: ``recv.m()`` may mutate ``recv`` unless ``m`` is a
  known non-mutating method, and a path passed to a callee may be mutated (weak
  definition) unless the callee is a known pure global.
* A nested function or class is a single use of its free names where it is created;
  a call of a *local* closure (``const f = () => …; f()``) also reads the names the
  closure reads and may write the names it assigns (captured variables).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from impactlens.pdg.defuse import ANY, MODEL_ARG_MUTATION, DefUse, Path

FUNCTION_TYPES = frozenset({
    "function_declaration", "generator_function_declaration", "function_expression",
    "function", "generator_function", "arrow_function", "method_definition",
})
CLASS_TYPES = frozenset({"class_declaration", "abstract_class_declaration", "class"})
#: subtrees that are types only: they never run
TYPE_NODES = frozenset({
    "type_annotation", "type_arguments", "type_parameters", "type_identifier",
    "predefined_type", "type_predicate_annotation", "asserts_annotation", "opting_type_annotation",
    "omitting_type_annotation", "adding_type_annotation", "interface_declaration",
    "type_alias_declaration", "ambient_declaration", "abstract_method_signature",
    "method_signature", "function_signature", "index_signature", "decorator",
    "accessibility_modifier", "override_modifier", "readonly", "comment",
})
_LITERALS = frozenset({"string", "number", "regex", "true", "false", "null", "undefined",
                       "template_literal_type", "property_identifier", "optional_chain",
                       "statement_identifier", "private_property_identifier", "super",
                       "import", "meta_property", "html_comment", "hash_bang_line"})
_SHORT_CIRCUIT = frozenset({"&&", "||", "??"})
_SIDE_EFFECTS = frozenset({"call_expression", "new_expression", "assignment_expression",
                           "augmented_assignment_expression", "update_expression",
                           "await_expression", "yield_expression"})

#: methods that do not change their receiver (and do not keep a mutable alias of it)
PURE_METHODS = frozenset({
    "at", "charAt", "charCodeAt", "codePointAt", "concat", "endsWith", "entries", "every",
    "filter", "find", "findIndex", "findLast", "findLastIndex", "flat", "flatMap", "forEach",
    "get", "has", "includes", "indexOf", "join", "keys", "lastIndexOf", "localeCompare",
    "map", "match", "matchAll", "normalize", "padEnd", "padStart", "reduce", "reduceRight",
    "repeat", "replace", "replaceAll", "search", "slice", "some", "split", "startsWith",
    "substring", "substr", "toFixed", "toISOString", "toJSON", "toLowerCase", "toPrecision",
    "toLocaleString", "toString", "toUpperCase", "trim", "trimEnd", "trimStart", "valueOf",
    "getTime", "toSorted", "toReversed", "with", "test", "exec", "then",
})
#: global namespaces whose functions mutate neither receiver nor arguments
PURE_GLOBALS = frozenset({"Math", "JSON", "console", "Number", "String", "Boolean", "Array",
                          "Date", "parseInt", "parseFloat", "isNaN", "isFinite", "BigInt",
                          "Symbol", "encodeURIComponent", "decodeURIComponent", "RegExp"})
_MUTATING_GLOBAL_CALLS = frozenset({("Object", "assign"), ("Object", "defineProperty"),
                                    ("Reflect", "set"), ("Reflect", "defineProperty")})


def text(node: Any) -> str:
    return node.text.decode("utf-8", "replace") if node is not None else ""


def named(node: Any) -> Iterator[Any]:
    for c in node.named_children:
        if c.type not in TYPE_NODES:
            yield c


def field(node: Any, name: str) -> Any:
    return node.child_by_field_name(name)


def operator(node: Any) -> str:
    op = field(node, "operator")
    return text(op) if op is not None else ""


def unwrap(node: Any) -> Any:
    """The expression inside parentheses / type assertions (``(x as T)!``)."""
    while node is not None and node.type in (
            "parenthesized_expression", "as_expression", "satisfies_expression",
            "non_null_expression", "type_assertion"):
        inner = [c for c in named(node)]
        if not inner:
            return node
        node = inner[0]
    return node


def path_of(expr: Any) -> Path | None:
    """Access path of an identifier / ``this`` / member / subscript chain, else None."""
    parts: list[str] = []
    node = unwrap(expr)
    while node is not None:
        t = node.type
        if t in ("identifier", "shorthand_property_identifier"):
            parts.append(text(node))
            return tuple(reversed(parts))
        if t == "this":
            parts.append("this")
            return tuple(reversed(parts))
        if t == "member_expression":
            prop = field(node, "property")
            parts.append(text(prop))
            node = unwrap(field(node, "object"))
        elif t == "subscript_expression":
            idx = unwrap(field(node, "index"))
            key = _string_key(idx)
            parts.append(key if key is not None else ANY)
            node = unwrap(field(node, "object"))
        else:
            return None
    return None


def _string_key(node: Any) -> str | None:
    if node is not None and node.type == "string":
        return "".join(text(c) for c in node.named_children if c.type == "string_fragment")
    return None


def has_side_effect(node: Any) -> bool:
    """Does evaluating ``node`` call, assign or suspend (outside nested functions)?"""
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type in _SIDE_EFFECTS:
            return True
        if n.type in FUNCTION_TYPES or n.type in CLASS_TYPES:
            continue
        stack.extend(named(n))
    return False


# ------------------------------------------------------------------ closures
def declared_names(fn: Any) -> set[str]:
    """Names a function binds itself: parameters and declarations in its body (not
    those of functions nested in it)."""
    out: set[str] = set()
    params = field(fn, "parameters") or field(fn, "parameter")
    if params is not None:
        out |= pattern_names(params)
    body = field(fn, "body")
    stack = [body] if body is not None else []
    while stack:
        n = stack.pop()
        t = n.type
        if t == "variable_declarator":
            out |= pattern_names(field(n, "name"))
        elif t in ("function_declaration", "generator_function_declaration", "class_declaration"):
            nm = field(n, "name")
            if nm is not None:
                out.add(text(nm))
            continue
        elif t == "catch_clause":
            p = field(n, "parameter")
            if p is not None:
                out |= pattern_names(p)
        elif t in ("for_in_statement",):
            left = field(n, "left")
            if left is not None and any(c.type in ("const", "let", "var") for c in n.children):
                out |= pattern_names(left)
        if t in FUNCTION_TYPES or t in CLASS_TYPES:
            continue
        stack.extend(named(n))
    return out


def pattern_names(pat: Any) -> set[str]:
    """Every identifier a binding pattern (or parameter list) binds."""
    out: set[str] = set()
    if pat is None:
        return out
    stack = [pat]
    while stack:
        n = stack.pop()
        t = n.type
        if t in ("identifier", "shorthand_property_identifier_pattern"):
            out.add(text(n))
        elif t == "pair_pattern":
            v = field(n, "value")
            if v is not None:
                stack.append(v)
        elif t in ("assignment_pattern", "object_assignment_pattern"):
            left = field(n, "left")
            if left is not None:
                stack.append(left)
        elif t in ("required_parameter", "optional_parameter"):
            p = field(n, "pattern")
            if p is not None:
                stack.append(p)
        elif t not in TYPE_NODES and t not in ("member_expression", "subscript_expression"):
            stack.extend(named(n))
    return out


def free_names(fn: Any) -> tuple[set[str], set[str]]:
    """(read, written) names of a nested function or class that it does not bind."""
    bound = declared_names(fn) if fn.type in FUNCTION_TYPES else set()
    reads: set[str] = set()
    writes: set[str] = set()
    stack = [c for c in named(fn) if c.type not in ("formal_parameters",)]
    while stack:
        n = stack.pop()
        t = n.type
        if t in ("identifier", "shorthand_property_identifier"):
            name = text(n)
            if name not in bound:
                reads.add(name)
            continue
        if t == "this":
            reads.add("this")
            continue
        if t in ("assignment_expression", "augmented_assignment_expression",
                 "update_expression"):
            tgt = field(n, "left") or field(n, "argument")
            p = path_of(tgt) if tgt is not None else None
            if p is not None and p[0] not in bound:
                writes.add(p[0])
        if t in FUNCTION_TYPES and n is not fn:
            inner_r, inner_w = free_names(n)
            reads |= inner_r - bound
            writes |= inner_w - bound
            continue
        if t in ("property_identifier", "statement_identifier"):
            continue
        stack.extend(named(n))
    return reads, writes


# ----------------------------------------------------------------- collector
class Collector:
    """Walks expressions and binding targets of one statement into a :class:`DefUse`."""

    def __init__(self, du: DefUse, closures: dict[str, tuple[set[str], set[str]]]) -> None:
        self.du = du
        self.closures = closures  # local closure name → its free (reads, writes)
        self.cond = 0  # >0 inside a short-circuited operand: definitions are weak

    def define(self, path: Path | None, strong: bool = True, via_call: bool = False) -> None:
        self.du.add_def(path, strong and self.cond == 0, via_call)

    def conditional(self, node: Any) -> None:
        self.cond += 1
        self.use(node)
        self.cond -= 1

    # --- binding targets ------------------------------------------------
    def store(self, target: Any, strong: bool = True) -> None:
        t = target.type
        if t in ("identifier", "shorthand_property_identifier_pattern"):
            self.define((text(target),), strong)
        elif t in ("member_expression", "subscript_expression"):
            p = path_of(target)
            self.define(p, strong and t == "member_expression")
            self._base_uses(target)
        elif t in ("object_pattern", "array_pattern"):
            for c in named(target):
                self.store(c, strong)
        elif t == "pair_pattern":
            key = field(target, "key")
            if key is not None and key.type == "computed_property_name":
                self.use(key)
            v = field(target, "value")
            if v is not None:
                self.store(v, strong)
        elif t in ("assignment_pattern", "object_assignment_pattern"):
            self.conditional(field(target, "right"))
            left = field(target, "left")
            if left is not None:
                self.store(left, strong)
        elif t == "rest_pattern":
            for c in named(target):
                self.store(c, strong)
        elif t in ("required_parameter", "optional_parameter"):
            p = field(target, "pattern")
            if p is not None:
                self.store(p, strong)
            if field(target, "value") is not None:
                self.conditional(field(target, "value"))
        elif t == "parenthesized_expression":
            for c in named(target):
                self.store(c, strong)
        else:
            self.use(target)

    def _base_uses(self, target: Any) -> None:
        """Evaluating the object a store goes into (``a[i].x = …`` reads ``a``, ``i``)."""
        obj = unwrap(field(target, "object"))
        if target.type == "subscript_expression":
            idx = field(target, "index")
            if idx is not None and _string_key(unwrap(idx)) is None:
                self.use(idx)
        if obj is None:
            return
        p = path_of(obj)
        if p is not None:
            self.du.ref_uses.add(p)
            self._index_uses(obj)
        else:
            self.use(obj)

    def _index_uses(self, chain: Any) -> None:
        """The computed indexes evaluated along a member/subscript chain."""
        cur = chain
        while cur is not None and cur.type in ("member_expression", "subscript_expression"):
            if cur.type == "subscript_expression":
                idx = field(cur, "index")
                if idx is not None and _string_key(unwrap(idx)) is None:
                    self.use(idx)
            cur = unwrap(field(cur, "object"))

    def destructure(self, pattern: Any, value: Any) -> None:
        """``pattern = value``: per-property reads when the value is a plain path."""
        src = path_of(value) if value is not None else None
        keys = _pattern_keys(pattern) if src is not None else None
        if src is not None and keys is not None:
            for k in keys:
                self.du.uses.add((*src, k))
        elif value is not None:
            self.use(value)
        self.store(pattern)

    # --- expressions ----------------------------------------------------
    def use(self, node: Any) -> None:
        if node is None:
            return
        t = node.type
        if t in ("identifier", "shorthand_property_identifier"):
            self.du.uses.add((text(node),))
        elif t == "this":
            self.du.uses.add(("this",))
        elif t in ("member_expression", "subscript_expression"):
            self._access(node)
        elif t in ("call_expression", "new_expression"):
            self._call(node)
        elif t == "assignment_expression":
            left, right = field(node, "left"), field(node, "right")
            if left is not None and left.type in ("object_pattern", "array_pattern"):
                self.destructure(left, right)
            else:
                self.use(right)
                if left is not None:
                    self.store(left)
        elif t == "augmented_assignment_expression":
            left, right = field(node, "left"), field(node, "right")
            if operator(node) in ("&&=", "||=", "??="):
                self.use(left)
                self.cond += 1
                self.use(right)
                self.store(left)
                self.cond -= 1
            else:
                self.use(right)
                self.use(left)
                self.store(left)
        elif t == "update_expression":
            arg = field(node, "argument")
            self.use(arg)
            self.store(arg)
        elif t == "binary_expression" and operator(node) in _SHORT_CIRCUIT:
            self.use(field(node, "left"))
            self.conditional(field(node, "right"))
        elif t == "binary_expression":
            # a left-nested chain (a + b + c …) walked as a loop: generated code nests
            # thousands deep
            while node is not None and node.type == "binary_expression" \
                    and operator(node) not in _SHORT_CIRCUIT:
                self.use(field(node, "right"))
                node = field(node, "left")
            self.use(node)
        elif t == "ternary_expression":
            self.use(field(node, "condition"))
            self.conditional(field(node, "consequence"))
            self.conditional(field(node, "alternative"))
        elif t == "unary_expression" and operator(node) == "delete":
            arg = unwrap(field(node, "argument"))
            self.define(path_of(arg), False)
            if arg is not None:
                self._base_uses(arg) if arg.type in ("member_expression",
                                                     "subscript_expression") else self.use(arg)
        elif t == "await_expression":
            self.du.has_await = True
            self._children(node)
        elif t == "yield_expression":
            self.du.has_yield = True
            self._children(node)
        elif t in FUNCTION_TYPES or t in CLASS_TYPES:
            self.opaque(node)
        elif t == "pair":
            key = field(node, "key")
            if key is not None and key.type == "computed_property_name":
                self.use(key)
            self.use(field(node, "value"))
        elif t in _LITERALS or t in TYPE_NODES:
            return
        else:
            self._children(node)

    def _children(self, node: Any) -> None:
        for c in named(node):
            self.use(c)

    def _access(self, node: Any) -> None:
        optional = _has_optional(node)
        p = path_of(node)
        if p is not None:
            self.du.uses.add(p)
            self._index_uses(node)
            return
        self.use(field(node, "object"))
        if node.type == "subscript_expression":
            if optional:
                self.conditional(field(node, "index"))
            else:
                self.use(field(node, "index"))

    def _call(self, node: Any) -> None:
        fn = unwrap(field(node, "function") or field(node, "constructor"))
        args = field(node, "arguments")
        optional = _has_optional(node) or (fn is not None and _has_optional(fn))
        pure = False
        if fn is not None and fn.type in ("identifier",):
            name = text(fn)
            self.du.uses.add((name,))
            pure = name in PURE_GLOBALS
            reads, writes = self.closures.get(name, (set(), set()))
            self.du.uses |= {(r,) for r in reads}
            for w in sorted(writes):
                self.define((w,), False, via_call=True)
        elif fn is not None and fn.type == "member_expression":
            recv = unwrap(field(fn, "object"))
            method = text(field(fn, "property"))
            rp = path_of(recv)
            if rp is not None:
                self.du.uses.add(rp)
                if recv.type in ("member_expression", "subscript_expression"):
                    self._access(recv)
                root_pure = rp[0] in PURE_GLOBALS or rp[0] in ("Object", "Reflect")
                if (rp[0], method) in _MUTATING_GLOBAL_CALLS:
                    pure = False
                elif root_pure or method in PURE_METHODS:
                    pure = True
                else:
                    self.define(rp, False, via_call=True)
            else:
                self.use(recv)
                pure = method in PURE_METHODS
        elif fn is not None:
            self.use(fn)
        if optional:
            self.cond += 1
        for a in (named(args) if args is not None and args.type == "arguments" else
                  ([args] if args is not None else [])):
            self.use(a)
            if MODEL_ARG_MUTATION and not pure:
                inner = unwrap(a.named_children[0]) if a.type == "spread_element" \
                    and a.named_children else a
                p = path_of(inner)
                if p is not None:
                    self.define(p, False, via_call=True)
        if optional:
            self.cond -= 1

    def opaque(self, node: Any, runs_here: bool = True) -> None:
        """A nested function/class: a use of its free names where it is created. An
        inline one (a callback argument, ``xs.forEach(x => { s += x; })``) may run
        during the statement, so the names it assigns are weak definitions here; one
        bound to a name runs where it is called (see :class:`Collector`)."""
        reads, writes = free_names(node)
        self.du.uses |= {(r,) for r in reads}
        if runs_here and node.type in FUNCTION_TYPES:
            for w in sorted(writes):
                self.define((w,), False, via_call=True)
        if node.type in CLASS_TYPES:
            heritage = [c for c in node.named_children if c.type == "class_heritage"]
            for h in heritage:
                self.use(h)


def _has_optional(node: Any) -> bool:
    return any(c.type == "optional_chain" for c in node.children)


def _pattern_keys(pattern: Any) -> list[str] | None:
    """The property names an object pattern reads, or None when it reads them all."""
    if pattern.type != "object_pattern":
        return None
    keys: list[str] = []
    for c in named(pattern):
        if c.type == "shorthand_property_identifier_pattern":
            keys.append(text(c))
        elif c.type == "object_assignment_pattern":
            left = field(c, "left")
            keys.append(text(left))
        elif c.type == "pair_pattern":
            key = field(c, "key")
            if key is None or key.type == "computed_property_name":
                return None
            keys.append(_string_key(key) or text(key))
        else:  # rest element or anything unexpected: the whole object
            return None
    return keys
