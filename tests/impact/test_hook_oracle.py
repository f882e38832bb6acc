"""Soundness of the module-hook rule against execution: for random modules with a
``__getattr__`` (PEP 562) and random edits adding or removing a branch of it, a lookup whose
outcome the edit changes must have run one of the lines :func:`touched_statements` names —
with the names :meth:`UnreadAttributes.module_names` says the module always has."""

from __future__ import annotations

import sys
import types
from pathlib import Path
from types import FrameType
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from impactlens.impact.statements import touched_statements
from impactlens.impact.unread import UnreadAttributes
from impactlens.index.worktree import WorkTree

NAMES = ["alpha", "beta", "gamma", "delta"]
tests = st.sets(st.sampled_from(NAMES), min_size=1, max_size=2)


def module(bound: set[str], late: set[str], branches: list[set[str]]) -> str:
    head = "".join(f"{n} = 'bound'\n" for n in sorted(bound))
    body = "".join(f"    if name in {tuple(sorted(names))!r}:\n        return 'hook {i}'\n"
                   for i, names in enumerate(branches))
    tail = "".join(f"{n} = 'late'\n" for n in sorted(late))
    return f"{head}\n\ndef __getattr__(name):\n{body}    raise AttributeError(name)\n\n\n{tail}"


def lookups(src: str) -> tuple[dict[str, object], dict[str, set[int]]]:
    """Each name's outcome and the module lines its lookup ran."""
    mod = types.ModuleType("m")
    exec(compile(src, "m.py", "exec"), mod.__dict__)
    outcomes: dict[str, object] = {}
    ran: dict[str, set[int]] = {}
    for name in [*NAMES, "other"]:
        lines: set[int] = set()

        def trace(frame: FrameType, event: str, arg: object, lines: set[int] = lines) -> Any:
            if frame.f_code.co_filename != "m.py":
                return None
            if event == "line":
                lines.add(frame.f_lineno)
            return trace

        sys.settrace(trace)
        try:
            outcomes[name] = getattr(mod, name)
        except AttributeError:
            outcomes[name] = AttributeError
        finally:
            sys.settrace(None)
        ran[name] = lines
    return outcomes, ran


def hook(src: str) -> tuple[str, int]:
    """The hook's source and the module line before its first."""
    lines = src.splitlines(keepends=True)
    start = next(i for i, t in enumerate(lines) if t.startswith("def __getattr__"))
    end = next((i for i in range(start + 1, len(lines))
                if lines[i].strip() and not lines[i].startswith(" ")), len(lines))
    return "".join(lines[start:end]), start


@settings(max_examples=300, deadline=None)
@given(st.sets(st.sampled_from(NAMES)), st.sets(st.sampled_from(NAMES)),
       st.lists(tests, max_size=3), tests, st.data())
def test_a_lookup_the_edit_changes_ran_a_touched_line(
        bound: set[str], late: set[str], branches: list[set[str]], new: set[str],
        data: st.DataObject) -> None:
    late -= bound
    edited = list(branches)
    if branches and data.draw(st.booleans()):
        del edited[data.draw(st.integers(0, len(branches) - 1))]
    else:
        edited.insert(data.draw(st.integers(0, len(branches))), new)
    before, after = module(bound, late, branches), module(bound, late, edited)
    present = UnreadAttributes(WorkTree(Path("/nonexistent")), {"m.py": after},
                               {"m.py": before}).module_names("m.py")
    assert present == bound  # bound after the hook is defined: not always there
    (b_hook, offset), (a_hook, _) = hook(before), hook(after)
    touched = touched_statements(b_hook, a_hook, present=present)
    lines = {x + offset for x in touched.lines}
    b_out, b_ran = lookups(before)
    a_out, _ = lookups(after)
    for name, outcome in b_out.items():
        if a_out[name] != outcome:
            assert touched.scope == "function" or b_ran[name] & lines, (name, touched)
