from geo.distance import haversine, haversine_miles


def test_zero():
    assert haversine(1, 2, 1, 2) == 0


def test_miles():
    assert haversine_miles(0, 0, 0, 1) > 60
