"""Random edit sequences over small repositories, and the property the index keeps over
them: after any sequence, each edit followed by an incremental `index`, the index equals a
clean full one. The fault suite runs the property (``tests/faults/test_edit_sequences.py``);
``tests/index`` uses the repositories and the dump."""

from __future__ import annotations

import sqlite3

import hypothesis
from hypothesis import strategies as st

from impactlens.api import Project
from impactlens.index.store import index_path

MAX_EXAMPLES = 12  # sequences per property: each builds, edits and indexes a repository

SHOP = {
    "src/shop/__init__.py": "from .cart import Cart\n__all__ = ['Cart']\n",
    "src/shop/cart.py": (
        "from shop.pricing import price_of\n\n\n"
        "class Cart:\n"
        "    def __init__(self):\n"
        "        self.items = []\n\n"
        "    def add(self, item):\n"
        "        self.items.append(item)\n\n"
        "    def total(self):\n"
        "        return sum(price_of(i) for i in self.items)\n"
    ),
    "src/shop/pricing.py": "RATE = 2\n\n\ndef price_of(item):\n    return len(item) * RATE\n",
    "tests/test_cart.py": (
        "from shop import Cart\n\n\n"
        "def test_total():\n"
        "    c = Cart()\n"
        "    c.add('ab')\n"
        "    assert c.total() == 4\n"
    ),
}


TS_BASE = {
    **SHOP,
    "tsconfig.json": '{"compilerOptions": {"baseUrl": "web"}}\n',
    "web/lib/price.ts": "export function price(n: number, extra = 0) { return n + extra; }\n"
                        "export class Till { ring(n: number) { return price(n); } }\n",
    "web/lib/index.ts": "export * from './price';\n",
    "web/cart.ts": "import { price, Till } from './lib';\n"
                   "export class Cart { constructor(private till: Till) {}\n"
                   "  total() { return this.till.ring(price(1)); } }\n",
    "web/cart.test.ts": "import { Cart } from './cart';\nimport { Till } from 'lib/price';\n"
                        "it('totals', () => { new Cart(new Till()).total(); });\n",
}


EDITS = [
    ("src/shop/pricing.py", "RATE = 3\n\n\ndef price_of(item, extra=0):\n"
                            "    return len(item) * RATE + extra\n"),
    ("src/shop/pricing.py", None),
    ("src/shop/discount.py", "from shop.pricing import price_of\n\n\ndef sale(i):\n"
                             "    return price_of(i) // 2\n"),
    ("src/shop/cart.py", SHOP["src/shop/cart.py"].replace("price_of(i)", "helper(i)")
     + "\n\ndef helper(i):\n    return 1\n"),
    ("src/shop/__init__.py", None),
    ("src/shop/__init__.py", "from .cart import Cart as Basket\n"),
    ("tests/conftest.py", "import pytest\nfrom shop.cart import Cart\n\n\n@pytest.fixture\n"
                          "def cart():\n    return Cart()\n"),
    ("tests/test_cart.py", "def test_fixture(cart):\n    cart.add('x')\n"),
    ("src/shop/broken.py", "def (:\n"),
    ("src/shop/pricing.py", SHOP["src/shop/pricing.py"]),
]


TS_EDITS = [
    ("web/lib/price.ts", "export function price(n: number) { return n; }\n"),
    ("web/lib/price.ts", None),
    ("web/lib/index.ts", "export { price } from './price';\n"),
    ("web/lib/index.ts", None),
    ("web/lib/index/index.ts", "export * from '../price';\n"),
    ("web/cart.ts", "import { price } from 'lib/price';\nexport class Cart {\n"
                    "  total() { return price(2); } }\n"),
    ("web/cart.test.ts", "describe('cart', () => { it('is empty', () => {}); });\n"),
    ("web/lib/price.ts", "export function price(n: number { \n"),
    ("tsconfig.json", '{"compilerOptions": {"paths": {"lib/*": ["web/lib/*"]}}}\n'),
    ("web/lib/price.ts", TS_BASE["web/lib/price.ts"]),
    EDITS[0],
    # which classes implement an interface: an interface-typed receiver reads every file
    ("web/ring.ts", "export interface Ringer { ring(n: number): number }\n"
                    "export function use(r: Ringer) { return r.ring(1); }\n"),
    ("web/lib/price.ts", "import { Ringer } from '../ring';\n"
                         "export function price(n: number) { return n; }\n"
                         "export class Till implements Ringer { ring(n: number) { return n; } }\n"),
    ("web/lib/price.ts", "import { Ringer } from '../ring';\n"
                         "export function price(n: number) { return n; }\n"
                         "export class Till { ring(n: number) { return n; } }\n"),
]


# which classes extend a name, which package.json declares a package: the index's table
# of names, asked per name
TS_NAMED_EDITS = [
    ("web/fancy.ts", "import { Till } from './lib/price';\n"
                     "export class Fancy extends Till { ring(n: number) { return 2; } }\n"),
    ("web/fancy.ts", None),
    ("web/pay.ts", "import { pay } from '@shop/payments';\n"
                   "export function go() { return pay(); }\n"),
    ("packages/pay/package.json", '{"name": "@shop/payments", "main": "src/main.ts"}\n'),
    ("packages/pay/package.json", '{"name": "@shop/other", "main": "src/main.ts"}\n'),
    ("packages/pay/src/main.ts", "export function pay() { return 1; }\n"),
]


def dump(root) -> dict[str, list]:
    """Everything resolution produced, in a comparable canonical form."""
    con = sqlite3.connect(index_path(root))
    out = {}
    for table, cols in (("nodes", "*"), ("edges", "*"), ("unresolved", "*"),
                        ("file_deps", "*"), ("file_reads", "*"),
                        ("files", "path, sha256, module, status, is_test")):
        out[table] = sorted(map(tuple, con.execute(f"SELECT {cols} FROM {table}")))
    con.close()
    return out


def apply_edit(root, path, text):
    """Write ``text`` to ``root/path`` (``None``: delete the file)."""
    f = root / path
    if text is None:
        if f.exists():
            f.unlink()
    else:
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(text)


def incremental_equals_full(indexed, base, edits, max_size):
    """Property: after any sequence of ``edits`` (each followed by an incremental index) the
    index equals a from-scratch one, and the row tally matches the tables."""

    @hypothesis.settings(max_examples=MAX_EXAMPLES, deadline=None, derandomize=True,
                         suppress_health_check=list(hypothesis.HealthCheck))
    @hypothesis.given(st.lists(st.sampled_from(range(len(edits))), min_size=1,
                               max_size=max_size))
    def check(seq):
        root = indexed(base).root
        for i in seq:
            apply_edit(root, *edits[i])
            Project(root).index()
        incremental = dump(root)
        tally = Project(root).store.counts()  # kept up to date by deltas, not COUNT(*)
        assert {k: tally[k] for k in ("symbols", "edges", "unresolved")} == {
            "symbols": len(incremental["nodes"]), "edges": len(incremental["edges"]),
            "unresolved": len(incremental["unresolved"])}
        Project(root).index(full=True)
        assert dump(root) == incremental

    check()
