"""A store that overwrites an earlier one on straight-line code, with nothing between
that could read the first, leaves only the second value."""

from __future__ import annotations

from pyindex_helpers import Repo

FUNCS = """
    def first():
        return 1

    def second():
        return 2
"""


def callees(src: str, caller: str) -> set[str]:
    r = Repo({"m.py": FUNCS + src})
    return {d for s, d in r.pairs() if s == caller}


def test_dict_keys_list_slots_and_update_are_overwritten() -> None:
    assert callees("""
    def run():
        t = {}
        t["k"] = first
        t["k"] = second
        return t["k"]()
    """, "m.run") == {"m.second"}
    assert callees("""
    def run():
        t = {"k": first}
        t.update(k=second)
        return t["k"]()
    """, "m.run") == {"m.second"}
    assert callees("""
    def run():
        fns = [first, first]
        fns[0] = second
        return fns[0]()
    """, "m.run") == {"m.second"}


def test_a_read_a_call_or_a_branch_between_the_stores_keeps_both() -> None:
    read_between = """
    def run():
        t = {"k": first}
        t["k"]()
        t["k"] = second
        return t["k"]()
    """
    assert callees(read_between, "m.run") == {"m.first", "m.second"}
    call_between = """
    def use(t):
        return t

    def run():
        t = {}
        t["k"] = first
        use(t)
        t["k"] = second
        return t["k"]()
    """
    assert callees(call_between, "m.run") >= {"m.first", "m.second"}
    branch = """
    def run(flag):
        t = {"k": first}
        if flag:
            t["k"] = second
        return t["k"]()
    """
    assert callees(branch, "m.run") == {"m.first", "m.second"}
    setdefault = """
    def run():
        t = {"k": first}
        t.setdefault("k", second)
        return t["k"]()
    """
    assert "m.first" in callees(setdefault, "m.run")  # setdefault keeps an existing value


def test_fields_and_attributes_of_locals_are_overwritten() -> None:
    assert callees("""
    class S:
        def __init__(self):
            self.cb = first
            self.cb = second

        def run(self):
            return self.cb()
    """, "m.S.run") == {"m.second"}
    assert callees("""
    class S:
        def __init__(self):
            self.cb = first
            self.setup()
            self.cb = second

        def setup(self):
            return self.cb()
    """, "m.S.setup") == {"m.first", "m.second"}
    assert callees("""
    class Box:
        pass

    def use():
        box = Box()
        box.fn = first
        box.fn = second
        return box.fn()
    """, "m.use") == {"m.second"}
