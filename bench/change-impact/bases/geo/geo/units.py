"""Unit constants and conversions."""

EARTH_RADIUS_KM = 6371.0
KM_PER_MILE = 1.609344
DECIMALS = 6


def set_decimals(n):
    global DECIMALS
    DECIMALS = n


def km_to_miles(km):
    return round(km / KM_PER_MILE, DECIMALS)


def miles_to_km(miles):
    return round(miles * KM_PER_MILE, DECIMALS)
