"""Two classes with a same-named method."""


class Alpha:
    def process(self, x: int) -> int:
        bumped = x + 1
        return bumped


class Beta:
    def process(self, x: int) -> int:
        widened = x * 10
        return widened
