"""TypeScript calls that no call expression spells out: accessors run by property reads and
writes, ``super(...)``, template methods reaching overrides, functions kept in collections."""

from __future__ import annotations

import pytest

pytest.importorskip("tree_sitter_typescript")

from impactlens.model import EdgeKind, Resolution


def _calls(p, src):
    return {e.dst: e for e in p.store.out_edges(src, frozenset({EdgeKind.CALL}))}


def _made(p, src):
    return {e.dst for e in p.store.out_edges(src, frozenset({EdgeKind.INSTANTIATE}))}


ACCESSORS = {
    "src/temp.ts": (
        "export class Engine { run(): number { return 1; } }\n"
        "export class Temp {\n"
        "  private c = 0;\n"
        "  static get unit(): string { return 'C'; }\n"
        "  get celsius(): number { return this.c; }\n"
        "  set celsius(v: number) { this.c = v; }\n"
        "  get engine(): Engine { return new Engine(); }\n"
        "  get(key: string): number { return 0; }\n"
        "}\n"
        "export class Oven extends Temp {\n"
        "  heat(): void { this.celsius += 10; }\n"
        "}\n"),
    "src/main.ts": (
        "import { Temp, Oven } from './temp';\n"
        "export function read(t: Temp): number { return t.celsius; }\n"
        "export function write(t: Temp): void { t.celsius = 3; }\n"
        "export function unit(): string { return Temp.unit; }\n"
        "export function chained(t: Temp): number { return t.engine.run(); }\n"
        "export function plain(t: Temp): unknown { return t.get; }\n"
        "new Oven().heat();\n"),
}


def test_property_reads_and_writes_call_accessors(indexed):
    p = indexed(ACCESSORS)
    assert "src/temp.Temp.celsius" in _calls(p, "src/main.read")  # getter
    assert "src/temp.Temp.celsius" in _calls(p, "src/main.write")  # setter (same id)
    assert "src/temp.Temp.unit" in _calls(p, "src/main.unit")  # static getter
    assert "src/temp.Temp.celsius" in _calls(p, "src/temp.Oven.heat")  # inherited, via this
    chained = _calls(p, "src/main.chained")  # the getter's return annotation types the rest
    assert {"src/temp.Temp.engine", "src/temp.Engine.run"} <= set(chained)
    # a method named `get` is no accessor: reading it (not calling it) calls nothing
    assert _calls(p, "src/main.plain") == {}
    assert "get" not in p.store.node("src/temp.Temp.get").decorators
    assert "get" in p.store.node("src/temp.Temp.celsius").decorators


SUPER = {
    "src/base.ts": (
        "export class Base {\n"
        "  constructor(public name: string) { setup(name); }\n"
        "  greet(): string { return this.name; }\n"
        "}\n"
        "function setup(n: string): void {}\n"),
    "src/leaf.ts": (
        "import { Base } from './base';\n"
        "class Middle extends Base {}\n"
        "export class Leaf extends Middle {\n"
        "  constructor() { super('leaf'); }\n"
        "  greet(): string { return super.greet() + '!'; }\n"
        "}\n"
        "export class Plain extends Error { constructor() { super('x'); } }\n"),
}


def test_super_call_builds_the_base_and_runs_the_nearest_constructor(indexed):
    p = indexed(SUPER)
    ctor = _calls(p, "src/leaf.Leaf.constructor")
    assert _made(p, "src/leaf.Leaf.constructor") == {"src/leaf.Middle"}
    assert "src/base.Base.constructor" in ctor  # Middle declares none: Base's runs
    assert ctor["src/base.Base.constructor"].resolution == Resolution.EXACT
    assert "src/base.Base.greet" in _calls(p, "src/leaf.Leaf.greet")
    # a builtin base: nothing of the repository runs, and nothing is left unresolved
    assert _made(p, "src/leaf.Plain.constructor") == set()
    assert not [u for u in p.store.unresolved_in_file("src/leaf.ts") if "super" in u.text]


TEMPLATE = {
    "src/pipeline.ts": (
        "export class Pipeline {\n"
        "  execute(): string { return this.prepare() + this.finish(); }\n"
        "  prepare(): string { return 'p'; }\n"
        "  finish(): string { return 'f'; }\n"
        "}\n"),
    "src/fast.ts": (
        "import { Pipeline } from './pipeline';\n"
        "export class Fast extends Pipeline { prepare(): string { return 'fast'; } }\n"),
    "src/handlers.ts": (
        "abstract class Handler {\n"
        "  handle(x: number): number { return this.transform(this.validate(x)); }\n"
        "  validate(x: number): number { return x; }\n"
        "  abstract transform(x: number): number;\n"
        "}\n"
        "class Double extends Handler {\n"
        "  transform(x: number): number { return x * 2; }\n"
        "  validate(x: number): number { return Math.abs(x); }\n"
        "}\n"
        "class Animal {\n"
        "  describe(): string { return this.kind(); }\n"
        "  kind(): string { return 'a'; }\n"
        "}\n"
        "class Dog extends Animal { kind(): string { return 'dog'; } }\n"
        "new Double().handle(1);\n"
        "new Dog().describe();\n"),
}


def test_template_method_reaches_the_overrides_of_classes_that_may_be_built(indexed):
    p = indexed(TEMPLATE)
    execute = _calls(p, "src/pipeline.Pipeline.execute")
    # Pipeline is exported (may be built), Fast overrides prepare in another file
    assert {"src/pipeline.Pipeline.prepare", "src/fast.Fast.prepare",
            "src/pipeline.Pipeline.finish"} <= set(execute)
    assert execute["src/fast.Fast.prepare"].resolution == Resolution.AMBIGUOUS
    assert execute["src/pipeline.Pipeline.finish"].resolution == Resolution.EXACT
    handle = _calls(p, "src/handlers.Handler.handle")
    # Handler is abstract, so only Double's members run (its validate overrides Handler's)
    assert set(handle) == {"src/handlers.Double.transform", "src/handlers.Double.validate"}
    # Animal is never built (kept to its file, only Dog is constructed)
    assert set(_calls(p, "src/handlers.Animal.describe")) == {"src/handlers.Dog.kind"}


COLLECTIONS = {
    "src/ops.ts": (
        "export function add(a: number, b: number): number { return a + b; }\n"
        "function sub(a: number, b: number): number { return a - b; }\n"
        "export const ops = { add, minus: sub };\n"
        "function start(): void {}\n"
        "export default { start };\n"),
    "src/main.ts": (
        "import { ops } from './ops';\n"
        "import svc from './ops';\n"
        "function one(): number { return 1; }\n"
        "function two(): number { return 2; }\n"
        "function three(): number { return 3; }\n"
        "const steps = [one, two];\n"
        "steps.push(three);\n"
        "class Router {\n"
        "  private routes = { home: one };\n"
        "  go(): number { return this.routes.home(); }\n"
        "}\n"
        "export function byKey(): number { return ops.add(1, 2) + ops['minus'](2, 1); }\n"
        "export function byIndex(): number { return steps[1](); }\n"
        "export function loop(): void { for (const s of steps) s(); }\n"
        "export function each(): void { steps.forEach((f) => f()); }\n"
        "export function boot(): void { svc.start(); }\n"),
}


def test_functions_kept_in_objects_and_arrays(indexed):
    p = indexed(COLLECTIONS)
    assert set(_calls(p, "src/main.byKey")) == {"src/ops.add", "src/ops.sub"}
    assert set(_calls(p, "src/main.byIndex")) == {"src/main.two"}
    every = {"src/main.one", "src/main.two", "src/main.three"}  # three is pushed
    assert set(_calls(p, "src/main.loop")) == every
    assert set(_calls(p, "src/main.each")) == every
    assert {e.resolution for e in _calls(p, "src/main.loop").values()} == {
        Resolution.AMBIGUOUS}
    assert set(_calls(p, "src/main.Router.go")) == {"src/main.one"}
    assert set(_calls(p, "src/main.boot")) == {"src/ops.start"}  # default-exported object
    assert "src/main.three" not in _calls(p, "src/main")  # push stores it: not a call


def test_loop_over_an_array_typed_by_an_interface(indexed):
    p = indexed({
        "src/shapes.ts": (
            "export interface Shape { area(): number }\n"
            "export class Circle implements Shape { area(): number { return 3; } }\n"
            "export class Square implements Shape { area(): number { return 4; } }\n"),
        "src/main.ts": (
            "import { Shape } from './shapes';\n"
            "export function total(shapes: Shape[]): number {\n"
            "  let t = 0;\n"
            "  for (const s of shapes) t += s.area();\n"
            "  return t;\n"
            "}\n"
            "export function first(shapes: Array<Shape>): number {\n"
            "  let t = 0;\n"
            "  shapes.forEach((s) => { t += s.area(); });\n"
            "  return t;\n"
            "}\n")})
    implementers = {"src/shapes.Circle.area", "src/shapes.Square.area"}
    assert set(_calls(p, "src/main.total")) == implementers  # never the bodiless member
    assert set(_calls(p, "src/main.first")) == implementers


def test_a_class_or_undefined_annotation_types_the_receiver(indexed):
    p = indexed({"src/main.ts": (
        "class Res { send(s: string): void {} }\n"
        "export function reply(r: Res | undefined, q?: Res | null): void {\n"
        "  if (r) r.send('a');\n"
        "  q?.send('b');\n"
        "}\n")})
    assert set(_calls(p, "src/main.reply")) == {"src/main.Res.send"}
