"""Function values through several parameter levels, and bound methods a subclass
stores on ``self`` for its base class to call."""

from __future__ import annotations

from pyindex_helpers import Repo


def test_a_function_passed_through_three_levels_reaches_the_call() -> None:
    r = Repo({"m.py": """
        def leaf():
            return 1

        def level3(cb):
            return cb()

        def level2(callback):
            return level3(cb=callback)

        def level1(f):
            return level2(f)

        level1(leaf)
    """})
    assert ("m.level3", "m.leaf") in r.pairs()


def test_a_bound_method_set_on_self_by_a_subclass_is_what_the_base_calls() -> None:
    r = Repo({"m.py": """
        class Base:
            def fire(self):
                return self.handler()

        class Child(Base):
            def __init__(self):
                self.handler = self.on_event

            def on_event(self):
                return 1

        class Other(Base):
            def __init__(self):
                self.handler = self.on_other

            def on_other(self):
                return 2

        Child().fire()
    """})
    calls = r.pairs()
    assert ("m.Base.fire", "m.Child.on_event") in calls
    assert ("m.Base.fire", "m.Other.on_other") not in calls  # no Other is built
