from geo.units import km_to_miles, miles_to_km


def test_round_trip():
    assert abs(miles_to_km(km_to_miles(10)) - 10) < 1e-4
