from shop.checkout import checkout


def test_checkout():
    assert checkout("ann", [("pen", 10)]) == "ann: 12.00"
