"""match / case with a guard."""


def route(command: str, size: int) -> int:
    limit = size * 2
    match command:
        case "grow":
            size = size + limit
        case "shrink" if limit > 4:
            size = size - 1
        case _:
            size = 0
    return size
