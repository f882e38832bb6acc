"""Pipeline driver."""

from app.stages import enrich, parse, render


def run(text: str, width: int) -> str:
    return render(enrich(parse(text), width * 2))
