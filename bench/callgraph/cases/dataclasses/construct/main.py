from dataclasses import dataclass


@dataclass
class Point:
    x: int
    y: int

    def norm1(self):
        return abs(self.x) + abs(self.y)


def origin_distance(x, y):
    p = Point(x, y)
    return p.norm1()


origin_distance(3, -4)
