"""Instances of classes outside the repository: their methods are external callees named
by the class (``queue.Queue.put``), never unknown receivers and never repository edges."""

from __future__ import annotations

from pyindex_helpers import Repo

APP = {
    "app.py": """
        import argparse
        import pathlib
        import queue
        import threading
        from collections import OrderedDict
        from typing import Optional


        class Worker(threading.Thread):
            def __init__(self):
                super().__init__(daemon=True)

            def run(self):
                return 1


        class Cache:
            def __init__(self):
                self.items = OrderedDict()

            def touch(self, key):
                self.items.move_to_end(key)


        def make_parser():
            return argparse.ArgumentParser()


        def produce():
            q = queue.Queue()
            q.put(1)
            parser = make_parser()
            parser.add_argument("--n")
            w = Worker()
            w.start()
            w.run()
            return q.get()


        def read(p: pathlib.Path, q: Optional[queue.Queue], n: "os.getcwd"):
            q.put(p.read_text().strip())
    """,
}


def external_targets(r: Repo, scope: str) -> set[str]:
    return {n for u in r.unresolved if u.scope == scope and u.reason == "external"
            for n in u.names if "." in n}


def unknown(r: Repo) -> list[str]:
    return [u.text for u in r.unresolved if u.reason == "unknown-receiver"]


def test_methods_of_built_and_returned_external_instances_are_named_by_their_class() -> None:
    r = Repo(APP)
    assert external_targets(r, "app.produce") == {
        "queue.Queue", "queue.Queue.put", "queue.Queue.get",
        "argparse.ArgumentParser.add_argument", "threading.Thread.start"}
    assert external_targets(r, "app.make_parser") == {"argparse.ArgumentParser"}
    assert external_targets(r, "app.Cache.__init__") == {"collections.OrderedDict"}
    assert external_targets(r, "app.Cache.touch") == {"collections.OrderedDict.move_to_end"}
    assert unknown(r) == []


def test_a_subclass_gets_the_external_base_methods_it_does_not_define() -> None:
    r = Repo(APP)
    assert ("app.produce", "app.Worker.run") in r.pairs()  # the override stays an edge
    assert "threading.Thread.run" not in external_targets(r, "app.produce")
    assert external_targets(r, "app.Worker.__init__") == {"<builtin>.super",
                                                           "threading.Thread.__init__"}


def test_stdlib_annotations_type_parameters_and_results_stay_unnamed() -> None:
    r = Repo(APP)
    # p.read_text() returns an external value of unknown class: .strip() has no target
    assert external_targets(r, "app.read") == {"queue.Queue.put", "pathlib.Path.read_text"}
    assert unknown(r) == []
    # nothing of it enters the repository's call graph
    assert {d for s, d in r.pairs() if s == "app.read"} == set()
