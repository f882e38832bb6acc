import functools


class Report:
    def __init__(self, rows):
        self.rows = rows

    @functools.cached_property
    def total(self):
        return sum(self.rows)

    @property
    def average(self):
        return self.total / len(self.rows)


r = Report([1, 2, 3])
r.total
r.average
