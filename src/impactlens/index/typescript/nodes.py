"""Syntax-tree nodes of TypeScript/JavaScript (tree-sitter) read as values: text, string
literals, the expressions a resolver evaluates (:data:`facts.Ref`), type annotations,
parameter lists, object and array literals, headers."""

from __future__ import annotations

from typing import Any

from impactlens.index.typescript.facts import Param, Ref


def text(node: Any) -> str:
    return node.text.decode("utf-8", "replace") if node is not None else ""


def short(s: str, limit: int = 200) -> str:
    s = " ".join(s.split())
    return s if len(s) <= limit else s[: limit - 1] + "…"


def string_value(node: Any) -> str | None:
    """The value of a string literal (or a template string without substitutions)."""
    if node is None:
        return None
    if node.type == "string":
        return "".join(text(c) for c in node.children if c.type == "string_fragment")
    if node.type == "template_string" and not any(
            c.type == "template_substitution" for c in node.children):
        return text(node)[1:-1]
    return None


def ref_of(node: Any) -> Ref:
    """The expression as a resolver evaluates it (see :mod:`facts`)."""
    t = node.type
    if t == "identifier" or t == "property_identifier" or t == "type_identifier":
        return ("n", text(node))
    if t == "this":
        return ("this",)
    if t == "super":
        return ("super",)
    if t == "member_expression":
        obj, prop = node.child_by_field_name("object"), node.child_by_field_name("property")
        if obj is None or prop is None:
            return ("?", "computed")
        return ("m", ref_of(obj), text(prop))
    if t == "subscript_expression":
        index = node.child_by_field_name("index")
        key = text(index) if index is not None and index.type == "number" \
            else string_value(index)
        obj = node.child_by_field_name("object")
        if key is None or obj is None:
            return ("?", "computed")
        return ("m", ref_of(obj), key)
    if t == "call_expression":
        fn = node.child_by_field_name("function")
        return ("call", ref_of(fn)) if fn is not None else ("?", t)
    if t == "new_expression":
        ctor = node.child_by_field_name("constructor")
        return ("new", ref_of(ctor)) if ctor is not None else ("?", t)
    if t in ("parenthesized_expression", "non_null_expression", "await_expression",
             "as_expression", "satisfies_expression", "type_assertion"):
        inner = next((c for c in node.named_children
                      if c.type not in ("type_arguments", "type_annotation")), None)
        return ref_of(inner) if inner is not None else ("?", t)
    if t in ("nested_identifier", "nested_type_identifier", "member_expression"):
        parts = text(node).split(".")
        out: Ref = ("n", parts[0])
        for p in parts[1:]:
            out = ("m", out, p)
        return out
    return ("?", t)


def type_name(node: Any) -> str:
    """The class-like name a type annotation names (``Gateway``, ``ns.Gateway``), or ""
    for anything else (unions, literals, function types)."""
    if node is None:
        return ""
    if node.type == "type_annotation":
        inner = node.named_children
        return type_name(inner[0]) if inner else ""
    if node.type in ("type_identifier", "identifier", "this_type"):
        return text(node)
    if node.type == "nested_type_identifier":
        return text(node)
    if node.type == "generic_type":
        name = type_name(node.child_by_field_name("name") or node.named_children[0])
        args = node.child_by_field_name("type_arguments") or next(
            (c for c in node.named_children if c.type == "type_arguments"), None)
        if name in ("Array", "ReadonlyArray") and args is not None and args.named_children:
            inner = type_name(args.named_children[0])
            return inner + "[]" if inner else ""
        return name
    if node.type == "union_type":  # `Response | undefined`: the one class it may be
        named = [c for c in node.named_children if not (
            c.type == "literal_type" and text(c) in ("undefined", "null"))]
        return type_name(named[0]) if len(named) == 1 else ""
    if node.type in ("array_type", "readonly_type"):  # `Shape[]`: what its elements are
        inner = type_name(node.named_children[0]) if node.named_children else ""
        return inner + "[]" if inner and node.type == "array_type" else inner
    return ""


def literal_ref(node: Any) -> Ref | None:
    """An object or array literal as the functions it holds: ``("obj", ((key, ref), ...))``
    (shorthand and ``key: name`` properties), ``("arr", (ref, ...))`` (elements by index);
    None for any other value."""
    if node is None:
        return None
    if node.type == "object":
        props: list[tuple[str, Ref]] = []
        for p in node.named_children:
            if p.type == "shorthand_property_identifier":
                props.append((text(p), ("n", text(p))))
            elif p.type == "pair":
                k, v = p.child_by_field_name("key"), p.child_by_field_name("value")
                key = (string_value(k) if k is not None and k.type == "string" else None) \
                    or text(k)
                if v is not None and v.type in ("identifier", "member_expression"):
                    props.append((key, ref_of(v)))
        return ("obj", tuple(props))
    if node.type == "array":
        return ("arr", tuple(ref_of(e) if e.type in ("identifier", "member_expression")
                             else ("?", e.type) for e in node.named_children
                             if e.type != "comment"))
    return None


def params_of(node: Any) -> tuple[Param, ...]:
    """The parameters of a function-like node (``formal_parameters`` or one identifier)."""
    ps = node.child_by_field_name("parameters") or node.child_by_field_name("parameter")
    if ps is None:
        return ()
    if ps.type == "identifier":  # `x => ...`
        return (Param(text(ps)),)
    out = []
    for c in ps.named_children:
        out.append(_param(c))
    return tuple(p for p in out if p is not None)


def _param(c: Any) -> Param | None:
    t = c.type
    if t in ("required_parameter", "optional_parameter"):
        pat = c.child_by_field_name("pattern")
        value = c.child_by_field_name("value")
        ann = c.child_by_field_name("type")
        rest = pat is not None and pat.type == "rest_pattern"
        name = _pattern_name(pat)
        prop = any(x.type in ("accessibility_modifier", "override_modifier")
                   or text(x) == "readonly" for x in c.children)
        return Param(name, t == "optional_parameter" or value is not None, rest,
                     type_name(ann), prop, _keys(pat), _object_props(ann))
    if t == "identifier":
        return Param(text(c))
    if t == "assignment_pattern":
        left = c.child_by_field_name("left")
        return Param(_pattern_name(left), True, False, "", False, _keys(left))
    if t == "rest_pattern":
        return Param(_pattern_name(c), False, True)
    if t in ("object_pattern", "array_pattern"):
        return Param(short(text(c), 60), False, False, "", False, _keys(c))
    return None  # comments, `this` parameters are not passed


def _pattern_name(pat: Any) -> str:
    if pat is None:
        return ""
    if pat.type == "rest_pattern":
        inner = pat.named_children
        return _pattern_name(inner[0]) if inner else "rest"
    return short(text(pat), 60)


def _object_props(ann: Any) -> tuple[tuple[str, bool], ...]:
    """An inline object type annotation's properties: (name, optional)."""
    obj = ann.named_children[0] if ann is not None and ann.named_children else None
    if obj is None or obj.type != "object_type":
        return ()
    out = []
    for c in obj.named_children:
        if c.type in ("property_signature", "method_signature"):
            name = c.child_by_field_name("name")
            if name is not None:
                out.append((text(name), any(x.type == "?" for x in c.children)))
        elif c.type == "index_signature":
            out.append(("*", True))
    return tuple(out)


def literal_keys(node: Any) -> tuple[str, ...] | None:
    """The keys of an object literal, or None when a spread (or a computed key) may add
    others."""
    out = []
    for p in node.named_children:
        if p.type == "shorthand_property_identifier":
            out.append(text(p))
        elif p.type in ("pair", "method_definition"):
            k = p.child_by_field_name("key") or p.child_by_field_name("name")
            if k is None or k.type == "computed_property_name":
                return None
            out.append((string_value(k) if k.type == "string" else None) or text(k))
        elif p.type != "comment":
            return None
    return tuple(out)


def _keys(pat: Any) -> tuple[str, ...]:
    if pat is None or pat.type != "object_pattern":
        return ()
    out = []
    for c in pat.named_children:
        if c.type == "shorthand_property_identifier_pattern":
            out.append(text(c))
        elif c.type in ("pair_pattern", "object_assignment_pattern"):
            k = c.child_by_field_name("key") or c.child_by_field_name("left")
            if k is not None:
                out.append(text(k))
    return tuple(out)


def signature_of(node: Any) -> str:
    """The definition's header as written, up to its body, on one line."""
    body = node.child_by_field_name("body")
    src = node.text
    if body is not None:
        src = src[: body.start_byte - node.start_byte]
    return short(src.decode("utf-8", "replace").rstrip().rstrip("{").rstrip(), 240)


def object_args(argv: list[Any]) -> tuple[tuple[int, tuple[str, ...]], ...]:
    """(index, keys) of the object literals among call arguments (before any spread)."""
    out = []
    for i, a in enumerate(x for x in argv if x.type != "comment"):
        if a.type == "spread_element":
            break
        keys = literal_keys(a) if a.type == "object" else None
        if keys is not None:
            out.append((i, keys))
    return tuple(out)


def base_type(node: Any) -> Any:
    if node.type == "generic_type":
        return node.child_by_field_name("name") or node.named_children[0]
    return node
