"""Named places."""

from dataclasses import dataclass

from geo.distance import haversine


@dataclass
class Place:
    name: str
    lat: float
    lon: float
    kind: str = "city"

    def distance_to(self, other):
        return haversine(self.lat, self.lon, other.lat, other.lon)


def normalize(place):
    place.lat = round(place.lat, 4)
    place.lon = round(place.lon, 4)
    return place


def load_places(rows):
    return [normalize(Place(*row)) for row in rows]


def nearest(origin, places):
    return min(places, key=origin.distance_to)


def tour(start, places):
    remaining = list(places)
    route = [start]
    while remaining:
        nxt = nearest(route[-1], remaining)
        remaining.remove(nxt)
        route.append(nxt)
    return route
