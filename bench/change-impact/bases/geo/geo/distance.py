"""Great-circle distances."""

import math

from geo.units import EARTH_RADIUS_KM, km_to_miles


def haversine(lat1, lon1, lat2, lon2):
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dphi = p2 - p1
    dlmb = math.radians(lon2 - lon1)
    a = math.sin(dphi / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dlmb / 2) ** 2
    return 2 * EARTH_RADIUS_KM * math.asin(math.sqrt(a))


def haversine_miles(lat1, lon1, lat2, lon2):
    return km_to_miles(haversine(lat1, lon1, lat2, lon2))
