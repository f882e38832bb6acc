"""TypeScript/JavaScript indexing on real repositories: files and skips, nodes, imports
(ES, barrels, CommonJS, tsconfig paths, workspaces), calls through receivers, tests."""

from __future__ import annotations

import pytest

pytest.importorskip("tree_sitter_typescript")

from impactlens.model import EdgeKind, NodeKind, Resolution

SHOP = {
    "package.json": '{"name": "shop", "private": true}\n',
    "tsconfig.json": '{\n  // comments are allowed\n  "extends": "./tsconfig.base.json",\n}\n',
    "tsconfig.base.json": '{"compilerOptions": {"baseUrl": ".", '
                          '"paths": {"@lib/*": ["src/lib/*"]}}}\n',
    "src/lib/gateway.ts": (
        "export interface Payer { pay(amount: number): boolean }\n"
        "export class Gateway implements Payer {\n"
        "  pay(amount: number): boolean { return amount > 0; }\n"
        "  refund(amount: number, reason?: string) { return this.pay(-amount); }\n"
        "}\n"
        "export class FakeGateway implements Payer {\n"
        "  pay(amount: number): boolean { return true; }\n"
        "}\n"
        "export class LoudGateway extends Gateway {\n"
        "  pay(amount: number): boolean { console.log(amount); return super.pay(amount); }\n"
        "}\n"),
    "src/lib/math.ts": (
        "export function total(a: number, b: number = 0): number { return a + b; }\n"
        "export const double = (x: number) => total(x, x);\n"),
    "src/lib/index.ts": "export * from './gateway';\nexport { total as sum } from './math';\n",
    "src/service.ts": (
        "import { Gateway, Payer, sum } from './lib';\n"
        "import * as m from '@lib/math';\n"
        "import _ from 'lodash';\n"
        "export class Service {\n"
        "  private other = new Gateway();\n"
        "  backup: Gateway;\n"
        "  constructor(private gateway: Gateway, private payer: Payer) {}\n"
        "  charge(n: number) {\n"
        "    this.gateway.pay(sum(n, 1));\n"
        "    this.payer.pay(n);\n"
        "    this.other.refund(m.double(n));\n"
        "    _.map([], (x: number) => x);\n"
        "  }\n"
        "}\n"
        "export function run(p: Payer, name: string) {\n"
        "  const s = new Service(new Gateway(), p);\n"
        "  s.charge(2);\n"
        "  const handlers: any = {};\n"
        "  handlers[name]();\n"
        "  return p.pay(1);\n"
        "}\n"),
    "src/legacy.js": (
        "const math = require('./lib/math');\n"
        "const { total } = require('./lib/math');\n"
        "function legacy(x) { return math.total(x) + total(x, 1); }\n"
        "module.exports = { legacy };\n"),
    "src/uses_legacy.js": (
        "const { legacy } = require('./legacy');\n"
        "async function lazy() { const mod = await import('./lib/math'); return legacy(1); }\n"
        "module.exports = lazy;\n"),
    "src/ui/Button.tsx": (
        "export function Button({ label }: { label: string }) { return <b>{label}</b>; }\n"
        "export function Toolbar() { return <div><Button label='ok' /></div>; }\n"),
    "src/__tests__/service.test.ts": (
        "import { run } from '../service';\n"
        "import { Gateway } from '../lib/gateway';\n"
        "import { total } from '../lib/math';\n"
        "describe('service', () => {\n"
        "  let g: Gateway;\n"
        "  beforeEach(() => { g = new Gateway(); });\n"
        "  it('runs', () => { expect(run(g, 'x')).toBe(true); });\n"
        "  describe('math', () => {\n"
        "    it.each([[1, 2]])('adds %i', (a, b) => { expect(total(a, b)).toBe(3); });\n"
        "  });\n"
        "});\n"),
    "app.py": "def f():\n    return 1\n",
}


def _edges(p, kind=None):
    kinds = frozenset({kind}) if kind else None
    out = set()
    for f in p.store.files():
        for n in p.store.nodes_in_file(f.path):
            for e in p.store.out_edges(n.id, kinds):
                out.add((e.src, e.dst, e.kind.value))
    return out


def _calls(p, src):
    return {e.dst: e for e in p.store.out_edges(src, frozenset({EdgeKind.CALL}))}


def test_mixed_repository_is_one_index_with_typescript_nodes(indexed):
    p = indexed(SHOP)
    langs = {f.path: f.language for f in p.store.files()}
    assert langs["app.py"] == "python" and langs["src/service.ts"] == "typescript"
    assert p.store.node("app.f").kind is NodeKind.FUNCTION
    kinds = {i: p.store.node(i).kind for i in (
        "src/lib/gateway.Payer", "src/lib/gateway.Gateway", "src/lib/gateway.Gateway.refund",
        "src/lib/math.double", "src/service.Service.constructor", "src/service.Service.gateway",
        "src/service.Service.backup", "src/lib/gateway.Payer.pay")}
    assert kinds["src/lib/gateway.Gateway"] is NodeKind.CLASS
    assert kinds["src/lib/math.double"] is NodeKind.FUNCTION  # an arrow function bound to a name
    assert kinds["src/service.Service.gateway"] is NodeKind.FIELD  # a parameter property
    assert kinds["src/service.Service.constructor"] is NodeKind.METHOD


def test_imports_through_barrels_tsconfig_paths_and_commonjs(indexed):
    p = indexed(SHOP)
    imports = _edges(p, EdgeKind.IMPORT)
    assert ("src/service", "src/lib/math.total", "import") in imports  # `sum` via the barrel
    assert ("src/service", "src/lib/math", "import") in imports  # '@lib/math' via paths
    legacy = _calls(p, "src/legacy.legacy")
    assert set(legacy) == {"src/lib/math.total"}
    assert ("src/uses_legacy", "src/lib/math", "import") in imports  # dynamic import()
    assert "src/legacy.legacy" in _calls(p, "src/uses_legacy.lazy")  # through module.exports


def test_calls_through_this_super_fields_params_and_interfaces(indexed):
    p = indexed(SHOP)
    charge = p.store.out_edges("src/service.Service.charge", frozenset({EdgeKind.CALL}))
    by_dst = {}
    for e in charge:
        by_dst.setdefault(e.dst, set()).add(e.resolution)
    # a ctor parameter property typed `Gateway`: Gateway's own pay, or the override of its
    # subclass LoudGateway (either may be passed), so both ambiguous
    assert by_dst["src/lib/gateway.Gateway.pay"] == {Resolution.AMBIGUOUS}
    assert "src/lib/gateway.Gateway.refund" in by_dst  # field initializer `= new Gateway()`
    assert "src/lib/math.total" in by_dst and "src/lib/math.double" in by_dst
    # an interface-typed receiver reaches every implementation, ambiguous
    assert by_dst["src/lib/gateway.FakeGateway.pay"] == {Resolution.AMBIGUOUS}
    assert Resolution.AMBIGUOUS in by_dst["src/lib/gateway.LoudGateway.pay"]
    assert "src/lib/gateway.Gateway.pay" in _calls(p, "src/lib/gateway.Gateway.refund")  # this
    assert "src/lib/gateway.Gateway.pay" in _calls(p, "src/lib/gateway.LoudGateway.pay")  # super
    run = _calls(p, "src/service.run")
    assert {"src/service.Service.constructor", "src/service.Service.charge"} <= set(run)
    assert {e.dst for e in p.store.out_edges("src/service.run",
                                             frozenset({EdgeKind.INSTANTIATE}))} == {
        "src/service.Service", "src/lib/gateway.Gateway"}
    assert ("src/lib/gateway.LoudGateway", "src/lib/gateway.Gateway", "inherit") in _edges(p)
    assert ("src/lib/gateway.FakeGateway.pay", "src/lib/gateway.Payer.pay",
            "override") in _edges(p)


def test_jsx_components_and_unresolved_sites(indexed):
    p = indexed(SHOP)
    assert "src/ui/Button.Button" in _calls(p, "src/ui/Button.Toolbar")
    sites = {(u.file, u.reason.value, u.text) for u in p.store.unresolved_sites()}
    assert ("src/service.ts", "dynamic-getattr", "handlers[name]()") in sites
    assert any(r == "external" and "_.map" in t for f, r, t in sites if f == "src/service.ts")
    assert not any("console.log" in t or "expect(" in t for _, _, t in sites)


def test_jest_tests_are_nodes_in_the_runners_form_with_tests_edges(indexed):
    p = indexed(SHOP)
    tests = {n.id for n in p.store.nodes_in_file("src/__tests__/service.test.ts")
             if n.kind is NodeKind.TEST}
    runs = "src/__tests__/service.test.ts > service > runs"
    adds = "src/__tests__/service.test.ts > service > math > adds %i"
    assert tests == {runs, adds}
    tested = {e.dst for e in p.store.out_edges(runs, frozenset({EdgeKind.TESTS}))}
    assert {"src/service.run", "src/lib/gateway.Gateway"} <= tested  # beforeEach included
    assert {e.dst for e in p.store.out_edges(adds, frozenset({EdgeKind.TESTS}))} >= {
        "src/lib/math.total"}


def test_build_outputs_dependencies_and_minified_files_are_skipped(indexed):
    files = {
        "src/a.ts": "export const a = 1;\n",
        "node_modules/dep/index.js": "module.exports = 1;\n",
        "dist/a.js": "exports.a = 1;\n",
        "coverage/x.js": "var x;\n",
        "src/vendor.min.js": "var a=1;\n",
        "src/bundle.js": "var a=1;" * 600 + "\n",
        "src/gen.ts": "// @generated by a tool\nexport const g = 1;\n",
        "out/main.py": "X = 1\n",  # `out/` is a JavaScript build directory only
    }
    p = indexed(files)
    recs = {f.path: f for f in p.store.files()}
    assert "node_modules/dep/index.js" not in recs and "dist/a.js" not in recs
    assert "coverage/x.js" not in recs
    assert "out/main.py" in recs
    assert recs["src/vendor.min.js"].status == "skipped"
    assert "minified" in recs["src/bundle.js"].error and recs["src/bundle.js"].status == "skipped"
    assert "generated" in recs["src/gen.ts"].error
    assert recs["src/a.ts"].status == "ok"


def test_syntax_error_keeps_the_rest_of_the_file_partial(indexed):
    p = indexed({"src/a.ts": "export function good() { return 1; }\n"
                             "export function bad( { \n"
                             "export function later() { return good(); }\n"})
    rec = p.store.file_record("src/a.ts")
    assert rec.status == "syntax-error" and rec.partial
    assert "syntax error at line" in rec.error and "the rest" in rec.error
    assert p.store.node("src/a.good") is not None


def test_workspace_packages_resolve_by_package_name(indexed):
    p = indexed({
        "package.json": '{"name": "root", "workspaces": ["packages/*"]}\n',
        "packages/core/package.json": '{"name": "@acme/core", "main": "dist/index.js"}\n',
        "packages/core/src/index.ts": "export function boot(): void {}\n",
        "packages/app/package.json": '{"name": "@acme/app"}\n',
        "packages/app/src/main.ts": "import { boot } from '@acme/core';\n"
                                    "export function start() { boot(); }\n",
    })
    assert "packages/core/src/index.boot" in _calls(p, "packages/app/src/main.start")


def test_incremental_reindex_follows_a_moved_export(indexed):
    from impactlens.api import Project

    p = indexed(SHOP)
    root = p.root
    (root / "src/lib/math.ts").write_text(
        "export function total(a: number): number { return a; }\n"
        "export function grand(a: number): number { return a; }\n"
        "export const double = (x: number) => grand(x);\n")
    (root / "src/lib/index.ts").write_text(
        "export * from './gateway';\nexport { grand as sum } from './math';\n")
    with Project(root) as q:
        s = q.index()
        assert not s.full
        assert "src/lib/math.grand" in _calls(q, "src/service.Service.charge")


def test_template_methods_and_return_types_and_callbacks(indexed):
    p = indexed({
        "src/report.ts": (
            "export abstract class Report {\n"
            "  abstract body(): string;\n"
            "  render() { return this.body(); }\n"
            "}\n"
            "export class Csv extends Report { body() { return 'a,b'; } }\n"
            "export class Html extends Report { body() { return '<p/>'; } }\n"
            "export class Query { where(): this { return this; } run() { return 1; } }\n"
            "export function query(): Query { return new Query(); }\n"
            "function twice(fn: () => number) { return fn() + fn(); }\n"
            "function one() { return 1; }\n"
            "function tick() {}\n"
            "export function main() { query().where().run(); twice(one); setTimeout(tick); }\n"),
    })
    render = {e.dst: e.resolution
              for e in p.store.out_edges("src/report.Report.render", frozenset({EdgeKind.CALL}))}
    assert render == {"src/report.Csv.body": Resolution.AMBIGUOUS,
                      "src/report.Html.body": Resolution.AMBIGUOUS}
    main = _calls(p, "src/report.main")
    assert {"src/report.query", "src/report.Query.where", "src/report.Query.run",
            "src/report.twice", "src/report.tick"} <= set(main)
    assert "src/report.one" in _calls(p, "src/report.twice")  # it calls its parameter


def test_commonjs_objects_of_functions_and_one_export_off_require(indexed):
    p = indexed({
        "lib/utils.js": (
            "exports.compile = function compile(v) { return exports.trim(v); };\n"
            "exports.trim = function (s) { return s.trim(); };\n"),
        "lib/application.js": (
            "var compile = require('./utils').compile;\n"
            "var app = exports = module.exports = {};\n"
            "app.init = function init() { return app.set(1); };\n"
            "app.set = function set(v) { return compile(v); };\n"),
        "lib/main.js": (
            "var app = require('./application');\n"
            "function start() { return app.init(); }\n"
            "start();\n"),
    })
    assert p.store.node("lib/application.app.set").kind is NodeKind.FUNCTION
    assert set(_calls(p, "lib/application.app.set")) == {"lib/utils.compile"}
    assert set(_calls(p, "lib/application.app.init")) == {"lib/application.app.set"}
    assert set(_calls(p, "lib/main.start")) == {"lib/application.app.init"}
    assert set(_calls(p, "lib/utils.compile")) == {"lib/utils.trim"}  # its own exports


def test_a_default_exports_property_is_not_read_off_an_es_namespace_export(indexed):
    # `m.helper` finds the named export first; the default's property only when none is
    p = indexed({
        "src/m.ts": (
            "export function helper() { return 1; }\n"
            "function main() { return 0; }\n"
            "main.helper = function helper2() { return 2; };\n"
            "export default main;\n"),
        "src/use.ts": (
            "import * as m from './m';\n"
            "export function go() { return m.helper(); }\n"),
    })
    assert set(_calls(p, "src/use.go")) == {"src/m.helper"}
