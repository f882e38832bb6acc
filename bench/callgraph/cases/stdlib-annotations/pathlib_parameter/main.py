import pathlib


def exists(p: pathlib.Path) -> bool:
    return p.exists()


def name_of(p: pathlib.Path) -> str:
    return p.with_suffix(".txt").name


exists(pathlib.Path("."))
name_of(pathlib.Path("a.py"))
