from geo.places import Place, load_places, nearest, tour


def test_nearest():
    paris = Place("paris", 48.85, 2.35)
    rome = Place("rome", 41.9, 12.5)
    berlin = Place("berlin", 52.5, 13.4)
    assert nearest(paris, [rome, berlin]) is berlin


def test_kind_default():
    assert Place("x", 0, 0).kind == "city"


def test_load_places():
    assert load_places([("a", 1.123456, 2.0)])[0].lat == 1.1235


def test_tour():
    a, b, c = Place("a", 0, 0), Place("b", 0, 2), Place("c", 0, 1)
    assert [p.name for p in tour(a, [b, c])] == ["a", "c", "b"]
