"""A generated monorepo for the scale figures: `impactlens-bench monorepo SRC DEST --copies N`.

Copies the Python project at ``SRC`` (e.g. Django 5.1.4's source distribution) ``N`` times
into ``DEST/copy1 … copyN`` and gives every copy its own top-level names: each top-level
package or module of the project (``django``, and every package of a ``tests/`` directory
that is not itself a package, as Django's suite is laid out) is renamed ``NAME_cK`` in copy
``K``, directories and files alike, and every ``import``/``from`` statement naming one is
rewritten to match, as is a string naming one of its modules by dotted path. So an import
resolves inside its own copy, never into another, and the monorepo's graph is ``N``
disjoint graphs of the project's shape. Files other than Python are copied as they are
(JavaScript is indexed too). ``DEST`` is then committed once, so
``impactlens-bench perf DEST --scale`` can measure it.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from impactlens.bench import at_least

__all__ = ["generate", "top_level_names"]

_SKIP = {".git", ".impactlens", "__pycache__", "node_modules"}
# where a statement names modules: the line's first keyword, and each name of an
# `import a, b` list (a name directly after `import`, `from` or a comma)
_IMPORT_LINE = re.compile(r"^[ \t]*(?:from|import)[ \t]")


def top_level_names(src: Path) -> set[str]:
    """The names the project's modules are imported by: top-level packages and modules at
    the root (the root's Python files included), and those of each directory below the root
    that is not a package itself (``tests/`` of Django: ``admin_views``, ``runtests``)."""
    names: set[str] = set()
    for base in [src, *(d for d in sorted(src.iterdir()) if _plain_dir(d))]:
        for entry in sorted(base.iterdir()):
            if entry.name in _SKIP or entry.name.startswith("."):
                continue
            if entry.is_dir() and (entry / "__init__.py").exists():
                names.add(entry.name)
            elif entry.suffix == ".py" and entry.stem.isidentifier():
                names.add(entry.stem)
    # a test package named like a standard module (Django's `tests/inspect`...) keeps its
    # name: renaming it would rewrite the imports of the standard module too
    return names - set(sys.stdlib_module_names)


def _plain_dir(path: Path) -> bool:
    return (path.is_dir() and not (path / "__init__.py").exists()
            and path.name not in _SKIP and not path.name.startswith("."))


def _renamer(names: set[str]) -> re.Pattern[str]:
    alternation = "|".join(sorted(map(re.escape, names), key=lambda n: (-len(n), n)))
    # a name at the start of a module path (after `from`, `import` or a comma of an import
    # list), not part of a dotted name
    return re.compile(rf"(?<![\w.])({alternation})(?=[\s.,;)]|$)")


def _dotted_strings(names: set[str]) -> re.Pattern[str]:
    alternation = "|".join(sorted(map(re.escape, names), key=lambda n: (-len(n), n)))
    # a string naming a module by dotted path ("django.contrib.auth", mock.patch targets)
    return re.compile(rf"(?<=[\"'])({alternation})(?=\.)")


def _rewrite(text: str, pattern: re.Pattern[str], dotted: re.Pattern[str], suffix: str) -> str:
    out = []
    for line in text.splitlines(keepends=True):
        line = dotted.sub(rf"\1{suffix}", line)
        if _IMPORT_LINE.match(line):
            head, sep, tail = line.partition(" import ")
            if line.lstrip().startswith("from"):
                # `from X import a, b`: only X names a module; the imported names stay
                line = pattern.sub(rf"\1{suffix}", head, count=1) + sep + tail
            else:
                line = pattern.sub(rf"\1{suffix}", line.split("#", 1)[0]) + (
                    "#" + line.split("#", 1)[1] if "#" in line else "")
        out.append(line)
    return "".join(out)


def _copy_one(src: Path, dest: Path, names: set[str], suffix: str) -> int:
    """Copy ``src`` into ``dest`` with the top-level names renamed; the Python lines written."""
    pattern, dotted = _renamer(names), _dotted_strings(names)
    lines = 0
    for dirpath, dirnames, filenames in os.walk(src):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP)
        rel = Path(dirpath).relative_to(src)
        target = dest / _renamed_path(rel, names, suffix, src)
        target.mkdir(parents=True, exist_ok=True)
        for name in sorted(filenames):
            source = Path(dirpath) / name
            out_name = name
            if name.endswith(".py") and name[:-3] in names and _names_a_module(rel, src):
                out_name = name[:-3] + suffix + ".py"
            if name.endswith(".py"):
                text = source.read_text(encoding="utf-8", errors="surrogateescape")
                text = _rewrite(text, pattern, dotted, suffix)
                (target / out_name).write_text(text, encoding="utf-8", errors="surrogateescape")
                lines += text.count("\n")
            else:
                shutil.copyfile(source, target / out_name)
    return lines


def _names_a_module(rel: Path, src: Path) -> bool:
    """Whether a file directly in ``rel`` is imported by its own name (a top-level module)."""
    return rel == Path(".") or (len(rel.parts) == 1 and _plain_dir(src / rel))


def _renamed_path(rel: Path, names: set[str], suffix: str, src: Path) -> Path:
    parts = list(rel.parts)
    for i, part in enumerate(parts[:2]):
        parent = src.joinpath(*parts[:i])
        if part in names and (i == 0 or _plain_dir(parent)) and (
                src.joinpath(*parts[:i + 1]) / "__init__.py").exists():
            parts[i] = part + suffix
            break
    return Path(*parts) if parts else Path(".")


def generate(src: Path, dest: Path, copies: int) -> dict[str, int]:
    """Write the monorepo of ``copies`` renamed copies of ``src`` at ``dest`` and commit it."""
    if dest.exists():
        raise FileExistsError(f"{dest} exists; pass a new directory")
    names = top_level_names(src)
    lines = sum(_copy_one(src, dest / f"copy{k}", names, f"_c{k}") for k in range(1, copies + 1))
    env = {**os.environ, "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
           "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z", "GIT_AUTHOR_NAME": "bench",
           "GIT_AUTHOR_EMAIL": "bench@example.invalid", "GIT_COMMITTER_NAME": "bench",
           "GIT_COMMITTER_EMAIL": "bench@example.invalid"}
    for args in (["init", "-q", "-b", "main"], ["add", "-A"],
                 ["commit", "-q", "-m", f"{copies} copies of {src.name}"]):
        subprocess.run(["git", *args], cwd=dest, check=True, env=env)
    return {"copies": copies, "python_lines": lines, "renamed_names": len(names)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="impactlens-bench monorepo", description=__doc__)
    ap.add_argument("src", type=Path, help="the project to copy (a directory)")
    ap.add_argument("dest", type=Path, help="where to write the monorepo (must not exist)")
    ap.add_argument("--copies", type=at_least(1), default=4)
    args = ap.parse_args(argv)
    if not args.src.is_dir():
        print(f"impactlens: error: {args.src}: not a directory", file=sys.stderr)
        return 2
    if args.dest.exists():
        print(f"impactlens: error: {args.dest} exists; pass a new directory", file=sys.stderr)
        return 2
    got = generate(args.src.resolve(), args.dest.resolve(), int(args.copies))
    print(f"monorepo {args.dest}: {got['copies']} copies, {got['python_lines']:,} Python lines, "
          f"{got['renamed_names']} top-level names renamed per copy")
    return 0
