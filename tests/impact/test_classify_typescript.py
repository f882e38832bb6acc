"""The change classifier and the binding check on TypeScript sources."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("tree_sitter_typescript")

from impactlens.errors import BadInputError
from impactlens.impact.classify import classify
from impactlens.impact.triage import bind

BASE = """import { a } from './a';
import * as ns from './ns';

export interface Shape { area(): number }

export class Box extends Base implements Shape {
  size = 1;
  constructor(private w: number) { super(); }
  area(): number { return this.w * this.w; }
}

export function f(x: number, y?: number): number {
  return x + (y ?? 0);
}

export const g = (s: string) => s.length;
"""


def changes(after: str, before: str = BASE) -> list[tuple[str, str]]:
    return [(c.change_type.value, c.entity) for c in classify(before, after, "m.ts", "m")]


@pytest.mark.parametrize(("old", "new", "want"), [
    ("f(x: number, y?: number)", "f(x: number, y?: number, z = 2)",
     [("method-signature", "m.f")]),
    ("return x + (y ?? 0);", "return x - (y ?? 0);", [("method-body", "m.f")]),
    ("extends Base implements Shape", "extends Base", [("class-decl", "m.Box")]),
    ("constructor(private w: number)", "constructor(private w: number, h = 1)",
     [("constructor", "m.Box.constructor")]),
    ("size = 1;", "size = 2;", [("field", "m.Box.size")]),
    ("import { a } from './a';", "import { a } from './b';", [("import", "m.a")]),
    ("export const g", "const g", [("delete", "m.g")]),
    ("area(): number;", "area(): number; perimeter(): number", []),
    ("(s: string) => s.length", "(s: string, t = '') => s.length + t.length",
     [("method-signature", "m.g")]),
])
def test_atomic_changes(old, new, want):
    if old not in BASE:  # an interface member added
        after = BASE.replace("area(): number }", "area(): number; perimeter(): number }")
        assert changes(after) == [("add", "m.Shape.perimeter")]
        return
    assert changes(BASE.replace(old, new)) == want


def test_added_and_deleted_definitions_and_files():
    assert changes(BASE + "export function h() {}\n") == [("add", "m.h")]
    assert ("delete", "m.f") in changes(BASE.replace(
        "export function f(x: number, y?: number): number {\n  return x + (y ?? 0);\n}\n", ""))
    assert [c.change_type.value for c in classify(None, BASE, "m.ts", "m")] == ["add"]
    gone = classify(BASE, None, "m.ts", "m")
    assert gone[0].kind == "module" and {c.entity for c in gone} >= {"m.f", "m.Box.area"}


def test_a_syntax_error_in_a_version_is_a_one_line_error():
    with pytest.raises(BadInputError, match=r"m\.ts:.*syntax error in the after version"):
        classify(BASE, BASE.replace("return x", "return (x"), "m.ts", "m")


def _site(n: int, spread: bool = False) -> str:
    return json.dumps({"args": n, **({"star": True} if spread else {})})


@pytest.mark.parametrize(("sig", "nargs", "ok"), [
    ("f(a: number, b: number)", 2, True),
    ("f(a: number, b: number, c: number)", 2, False),
    ("f(a: number, b: number, c?: number)", 2, True),
    ("f(a: number, b: number, c = 1)", 2, True),
    ("f(a: number, ...rest: number[])", 5, True),
    ("f(a: number)", 2, False),
])
def test_binding_check_counts_required_optional_default_and_rest(sig, nargs, ok):
    before = "export function f(a: number, b: number) {}\n"
    after = f"export function {sig} {{}}\n"
    got = classify(before, after, "m.ts", "m")
    params = got[0].after_params if got else classify(
        before, before.replace("{}", "{ return 1; }"), "m.ts", "m")[0].after_params
    assert params is not None
    assert bind(params, _site(nargs))[0] is ok


def test_a_spread_argument_cannot_be_checked():
    got = classify("export function f(a) {}\n", "export function f(a, b) {}\n", "m.ts", "m")
    assert bind(got[0].after_params, _site(1, spread=True))[0] is None


OVERLOADED = """export class P {
  parse(s: string): number;
  parse(s: string, radix: number): number;
  parse(s: string, radix?: number): number { return Number.parseInt(s, radix); }
}
"""


def test_overloads_are_one_change_bound_against_the_signatures_not_the_implementation():
    body = classify(OVERLOADED, OVERLOADED.replace("radix); }", "radix) + 0; }"), "m.ts", "m")
    assert [(c.change_type.value, c.entity) for c in body] == [("method-body", "m.P.parse")]
    sig = classify(OVERLOADED, OVERLOADED.replace("  parse(s: string, radix: number): number;\n",
                                                  ""), "m.ts", "m")
    assert [(c.change_type.value, c.entity) for c in sig] == [("method-signature", "m.P.parse")]
    before, after = sig[0].before_params, sig[0].after_params
    assert bind(before, _site(2))[0] is True
    assert bind(after, _site(1))[0] is True
    # the implementation still accepts two arguments, but no overload left does
    assert bind(after, _site(2))[0] is False


def test_object_literal_bound_to_a_destructured_parameter_by_property_name():
    before = "export function f({ a, b }: { a: number; b?: number; }) {}\n"
    after = "export function f({ a, c }: { a: number; c: number }) {}\n"
    got = classify(before, after, "m.ts", "m")[0].after_params
    site = json.dumps({"args": 1, "keys": {"0": ["a", "c"]}})
    assert bind(got, site)[0] is True
    ok, why = bind(got, json.dumps({"args": 1, "keys": {"0": ["a"]}}))
    assert ok is False and "missing property 'c'" in why
    ok, why = bind(got, json.dumps({"args": 1, "keys": {"0": ["a", "b", "c"]}}))
    assert ok is False and "unknown property 'b'" in why
    assert bind(got, json.dumps({"args": 1}))[0] is True  # not a literal: by count only
    open_ = classify(before, "export function f({ a }: { a: number; [k: string]: number }) {}\n",
                     "m.ts", "m")[0].after_params
    assert bind(open_, json.dumps({"args": 1, "keys": {"0": ["a", "z"]}}))[0] is True
