"""Import changes: the name an import statement binds, its users and its re-importers."""

from __future__ import annotations

from impact.graphs import Graph, module_of
from impactlens.impact.pipeline import run_pipeline
from impactlens.model import Bucket, EdgeKind, FileChange

PKG = {
    "shop/__init__.py": '"""A shop."""\n\nfrom shop.checkout import checkout\n',
    "shop/checkout.py": "def checkout(user, items):\n    return (user, len(items))\n",
    "shop/pricing.py": "def discount(amount):\n    return amount * 0.9\n",
    "shop/fast.py": "def discount(amount):\n    return amount * 9 // 10\n",
    "shop/cart.py": (
        "from shop.pricing import discount\n\n\n"
        "class Cart:\n    def total(self, amount):\n        return discount(amount)\n\n\n"
        "def label():\n    return 'cart'\n"
    ),
    "app.py": (
        "from shop import checkout\n\n\n"
        "def main():\n    return checkout('ann', [1])\n\n\n"
        "def other():\n    return 1\n"
    ),
    "tests/test_checkout.py": (
        "from shop.checkout import checkout\n\n\n"
        "def test_checkout():\n    assert checkout('a', []) == ('a', 0)\n"
    ),
    "tests/test_pricing.py": (
        "from shop.pricing import discount\n\n\n"
        "def test_discount():\n    assert discount(10) == 9\n"
    ),
    "tests/test_app.py": "from app import main\n\n\ndef test_main():\n    assert main()\n",
}


def analyze(indexed, path: str, old: str, new: str):
    with indexed(PKG) as p:
        before = (p.root / path).read_text()
        return p.analyze_before_after(path, before, before.replace(old, new), refresh=False)


def buckets(result) -> dict[str, str]:
    return {e.entity: e.bucket.value for e in result.triage.entries()}


def test_an_import_change_reaches_the_users_of_the_rebound_name(indexed):
    res = analyze(indexed, "shop/cart.py", "from shop.pricing import discount",
                  "from shop.fast import discount")
    got = buckets(res)
    assert [c.change_type.value for c in res.changes] == ["import"]
    assert got["shop.cart.Cart.total"] == "may_impact"  # calls the re-bound discount
    assert "shop.cart.label" not in got  # does not use it
    assert "uses the imported name, which now binds to something else" in next(
        e.reason for e in res.triage.entries() if e.entity == "shop.cart.Cart.total")
    # a test importing discount straight from shop.pricing is not thereby affected
    assert "tests/test_pricing.py::test_discount" not in res.validate


def test_a_removed_re_export_breaks_the_modules_importing_it_through_the_package(indexed):
    res = analyze(indexed, "shop/__init__.py", "from shop.checkout import checkout\n", "")
    got = buckets(res)
    assert got["app"] == "must_inspect"  # `from shop import checkout`
    assert got["app.main"] == "may_impact"  # uses the name app imported
    assert "app.other" not in got
    # the submodule shop.checkout (same id as the removed binding) is not what changed:
    # a test importing the function from the submodule itself is not affected
    assert "tests/test_checkout.py::test_checkout" not in res.validate
    assert "tests/test_app.py::test_main" in res.validate
    seed = res.dag.nodes[0]
    assert (seed.entity, seed.file) == ("shop.checkout", "shop/__init__.py")


def test_without_file_dependencies_every_re_importer_is_kept():
    # an in-memory graph cannot tell `from shop import f` from `from shop.sub import f`
    g = Graph()
    g.module("shop")
    g.module("app")
    g.fn("shop.sub.f")
    g.edge("shop", "shop.sub.f", EdgeKind.IMPORT, detail='{"name": "f", "alias": null}')
    g.edge("app", "shop.sub.f", EdgeKind.IMPORT, detail='{"name": "f", "alias": null}')
    res = run_pipeline(g, [FileChange("shop.py", "from shop.sub import f\n", "")],
                       module_of=module_of)
    assert {e.entity: e.bucket for e in res.triage.entries()}["app"] is Bucket.MUST
