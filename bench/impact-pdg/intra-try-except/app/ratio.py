"""try / except / finally."""


def parse_ratio(text: str, scale: int) -> int:
    factor = scale * 2
    try:
        value = int(text)
        result = value * factor
    except ValueError:
        result = -1
    finally:
        scale = scale + 1
    return result + scale
