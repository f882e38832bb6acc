"""The resolver's value types and its memo: what the evaluation relies on."""

from __future__ import annotations

import pickle
import textwrap
from typing import Any, get_args, get_type_hints

import pytest
from pyindex_helpers import MemoryLookup, extract_all

from impactlens.index.python.resolve import resolver, values
from impactlens.index.python.resolve.memo import memo

_VALUE_TYPES = {cls for cls in vars(values).values()
                if isinstance(cls, type) and issubclass(cls, tuple) and hasattr(cls, "_fields")}


def _tag(cls: type) -> str:
    return get_args(get_type_hints(cls)["tag"])[0]


def test_each_value_type_is_its_plain_tuple() -> None:
    seen_tags = set()
    for cls in _VALUE_TYPES:
        tag = _tag(cls)
        fields = [f"f{i}" for i in range(len(cls._fields) - 1)]
        v = cls(tag, *fields)
        assert v == (tag, *fields) and hash(v) == hash((tag, *fields))
        assert v[0] == v.tag == tag
        back = pickle.loads(pickle.dumps(v))
        assert type(back) is cls and back == v
        seen_tags.add(tag)
    assert len(seen_tags) == len(_VALUE_TYPES)  # one type per tag
    # same fields, different kinds: never equal (a class is not its instance)
    assert values.Class("C", "m", 1) != values.Instance("I", "m", 1)


class _Counter:
    def __init__(self) -> None:
        self._table: dict[Any, Any] = {}
        self.calls = 0
        self.fail = True

    @memo("_table", "guard")
    def cyclic(self, n: int) -> Any:
        self.calls += 1
        return ("got", self.cyclic(n))  # asks itself: the cycle gets the guard

    @memo("_table", guard_for=lambda n: ("guard of", n), key=lambda n: ("k", n % 2))
    def parity(self, n: int) -> Any:
        return (n, self.parity(n + 2))

    @memo("_table", "guard", retry_after_error=True)
    def flaky(self, n: int) -> Any:
        if self.fail:
            self.fail = False
            raise RecursionError
        return n


def test_memo_answers_a_cycle_with_the_guard_and_remembers() -> None:
    c = _Counter()
    assert c.cyclic(1) == ("got", "guard")
    assert c.cyclic(1) == ("got", "guard") and c.calls == 1
    # the key function folds arguments; the guard may depend on them
    assert c.parity(3) == (3, ("guard of", 3))
    assert c.parity(5) == (3, ("guard of", 3))
    with pytest.raises(RecursionError):
        c.flaky(7)
    assert c.flaky(7) == 7  # asked afresh after the error


def test_every_value_the_evaluator_holds_is_a_named_value() -> None:
    files = {"pkg/__init__.py": "", "pkg/b.py": "def helper(): pass\n",
             "pkg/a.py": textwrap.dedent("""
        from dataclasses import dataclass
        import os
        from pkg import b

        REG = {"x": 1}
        ITEMS = [len, os.path]

        class Base:
            def run(self) -> "Base":
                return self

            @property
            def name(self) -> str:
                return "b"

        @dataclass
        class Child(Base):
            size: int = 0

            def go(self, other: Base | None = None):
                for x in ITEMS:
                    x()
                with open("f") as fh:
                    fh.read()
                super().run().name
                b.helper()
                return [self.size, REG["x"], type(self)(), other]

        def gen():
            yield Child()
        """)}
    facts = extract_all(files)
    lookup = MemoryLookup(facts)
    f = facts["pkg/a.py"]
    with resolver(f, lookup) as r:
        for scope in range(len(f.scopes)):
            r.scope_sink(f.module, scope, None, f.scopes[scope].qual)
        found = _values_in(vars(r.evaluator))
    assert found, "the evaluator holds no values"
    assert {type(v) for v in found} <= _VALUE_TYPES
    assert {values.Function, values.Instance, values.Class, values.Module} <= {
        type(v) for v in found}


def _values_in(obj: Any, depth: int = 0) -> list[Any]:
    """Every tuple inside memo answers whose first item is a value tag."""
    tags = {_tag(cls) for cls in _VALUE_TYPES}
    out: list[Any] = []
    if depth > 6:
        return out
    if isinstance(obj, dict):
        for v in obj.values():
            out += _values_in(v, depth + 1)
    elif isinstance(obj, (list, set, frozenset)) or (
            isinstance(obj, tuple) and not (obj and isinstance(obj[0], str) and obj[0] in tags)):
        for v in obj:
            out += _values_in(v, depth + 1)
    elif isinstance(obj, tuple):
        out.append(obj)
    return out
