"""Pipeline stages."""


def parse(text: str) -> list[int]:
    return [int(t) for t in text.split(",") if t.strip()]


def enrich(values: list[int], factor: int) -> list[int]:
    return [v * factor for v in values]


def render(values: list[int]) -> str:
    return ";".join(fmt_cell(v) for v in values)


def fmt_cell(v: int) -> str:
    return f"<{v}>"
