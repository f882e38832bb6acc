"""Builtins and builtin-type methods are external callees (named as PyCG names them);
containers read with keys not known statically give any of their entries."""

from __future__ import annotations

from pyindex_helpers import Repo


def targets(r: Repo, scope: str) -> set[str]:
    return {n for u in r.unresolved if u.scope == scope and u.reason == "external"
            for n in u.names if "." in n}


def test_builtin_calls_and_builtin_type_methods_are_named() -> None:
    r = Repo({"m.py": """
        def label(names):
            seen = set()
            out = []
            counts = {}
            for w in names:
                seen.add(w)
                out.append(w)
                counts[w] = counts.get(w, 0) + 1
            return ", ".join(sorted(names)).upper() + str(len(out))
    """})
    assert targets(r, "m.label") == {
        "<builtin>.set", "<builtin>.sorted", "<builtin>.str", "<builtin>.len",
        "<**PySet**>.add", "<**PyList**>.append", "<**PyDict**>.get", "<**PyStr**>.join",
        "<**PyStr**>.upper"}
    assert [u for u in r.unresolved if u.reason != "external"] == []
    assert r.pairs() == set()  # nothing of it is an edge in the repository


def test_a_repository_method_named_like_a_list_method_stays_an_edge() -> None:
    r = Repo({"m.py": """
        class Bag:
            def append(self, x):
                return x

        def fill(bag: Bag):
            bag.append(1)
            [0].append(2)
    """})
    assert r.pairs() == {("m.fill", "m.Bag.append")}
    assert targets(r, "m.fill") == {"<**PyList**>.append"}


FUNCS = """
    def a():
        return 1

    def b():
        return 2

    def c():
        return 3
"""


def test_computed_keys_slices_and_dict_methods_give_the_entries() -> None:
    r = Repo({"m.py": FUNCS + """
    TABLE = {"a": a, "b": b}
    FNS = [a, b, c]

    def by_key(k):
        return TABLE[k]()

    def by_index(i):
        return FNS[i]()

    def sliced():
        return FNS[1:2][0]()

    def fallback(k):
        return TABLE.get(k, c)()

    def loop():
        for name, fn in TABLE.items():
            fn()
    """})
    calls = r.pairs()
    assert {d for s, d in calls if s == "m.by_key"} == {"m.a", "m.b"}
    assert {d for s, d in calls if s == "m.by_index"} == {"m.a", "m.b", "m.c"}
    assert {d for s, d in calls if s == "m.sliced"} == {"m.b"}
    assert {d for s, d in calls if s == "m.fallback"} == {"m.a", "m.b", "m.c"}
    assert {d for s, d in calls if s == "m.loop"} == {"m.a", "m.b"}
    assert not [u for u in r.unresolved if u.reason == "registry-dispatch"]


def test_a_registry_filled_from_outside_stays_a_registry_dispatch() -> None:
    r = Repo({"m.py": FUNCS + """
    HANDLERS = {"a": a}

    def register(name, fn):
        HANDLERS[name] = fn

    def run(k):
        return HANDLERS[k]()
    """})
    assert {d for s, d in r.pairs() if s == "m.run"} == set()
    assert [u.reason for u in r.unresolved if u.scope == "m.run"] == ["registry-dispatch"]


def test_callbacks_of_sorted_and_map_receive_the_elements() -> None:
    r = Repo({"m.py": FUNCS + """
    def rank(fn):
        return fn()

    def run():
        sorted([a, b], key=rank)
        list(map(rank, [c]))
    """})
    calls = r.pairs()
    assert {("m.run", "m.rank"), ("m.rank", "m.a"), ("m.rank", "m.b"),
            ("m.rank", "m.c")} <= calls


def test_a_constant_imported_as_a_key_selects_its_entry() -> None:
    r = Repo({"keys.py": 'SAVE = "save"\nLOAD = "load"\n', "m.py": FUNCS + """
    from keys import LOAD, SAVE
    ACTIONS = {SAVE: a, LOAD: b}

    def run():
        return ACTIONS[SAVE]()
    """})
    assert {d for s, d in r.pairs() if s == "m.run"} == {"m.a"}


def test_a_parameter_without_argument_holds_its_default() -> None:
    r = Repo({"m.py": FUNCS + """
    ACTIONS = {"a": a, "b": b}

    def act(name="a", table=ACTIONS):
        return table[name]()

    def call(fn=c):
        return fn()

    act()
    call(a)
    """})
    calls = r.pairs()
    assert {d for s, d in calls if s == "m.act"} == {"m.a", "m.b"}
    # the default, and what a caller passes (an argument flow)
    assert {d for s, d in calls if s == "m.call"} == {"m.a", "m.c"}


def test_a_store_into_a_nested_display_is_read_through_both_keys() -> None:
    r = Repo({"m.py": FUNCS + """
    ROUTES = {"io": {}, "ui": {"load": b}}
    ROUTES["io"]["save"] = a

    def run():
        ROUTES["io"]["save"]()
        ROUTES["ui"]["load"]()
    """})
    assert {d for s, d in r.pairs() if s == "m.run"} == {"m.a", "m.b"}
