import pytest

from shop.catalog import OutOfStock, UnknownProduct


def test_get_and_unknown(catalog):
    assert catalog.get("TEA-01").name == "Green tea"
    with pytest.raises(UnknownProduct):
        catalog.get("NOPE")


def test_duplicate_sku_rejected(catalog):
    with pytest.raises(ValueError):
        catalog.add(catalog.get("TEA-01"))


@pytest.mark.parametrize(
    ("query", "skus"),
    [("tea", ["EBOOK-01", "TEA-01"]), ("KITCHEN", ["MUG-01"]), ("zzz", [])],
)
def test_search_by_name_or_tag(catalog, query, skus):
    assert [p.sku for p in catalog.search(query)] == skus


def test_reserve_and_restock(catalog):
    mug = catalog.get("MUG-01")
    mug.reserve(3)
    assert not mug.in_stock
    with pytest.raises(OutOfStock):
        mug.reserve(1)
    assert catalog.restock("MUG-01", 5).stock == 5


def test_digital_products_never_run_out(catalog):
    ebook = catalog.get("EBOOK-01")
    ebook.reserve(1000)
    assert ebook.in_stock
    assert ebook.shipping_weight() == 0.0
    assert ebook.describe().endswith("[download]")
    assert len(catalog) == 3 and "EBOOK-01" in catalog
