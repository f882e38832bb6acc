"""Argument-type flow into unannotated parameters (argflow.py)."""

from __future__ import annotations

from pyindex_helpers import Repo, repo

from impactlens.model import EdgeKind, Resolution


def test_argument_types_the_callee_parameter_across_files() -> None:
    r = repo(**{
        "pool.py": """
            class Conn:
                def query(self):
                    return 1

            class Pool:
                def acquire(self) -> Conn:
                    return Conn()
            """,
        "use.py": """
            def use(pool):
                conn = pool.acquire()
                conn.query()
            """,
        "main.py": """
            from pool import Pool
            from use import use
            use(Pool())
            """,
    })
    assert {"pool.Pool.acquire", "pool.Conn.query"} <= r.calls_from("use.use")
    e = r.edge("use.use", "pool.Pool.acquire")
    assert e.resolution == Resolution.INFERRED and r.detail("use.use", "pool.Pool.acquire")["flow"]
    assert e.file == "main.py" and e.line == 4  # recorded at the call that knows the type
    assert "use.use" not in {x.src for x in r.res["use.py"].edges if x.kind == EdgeKind.CALL}


def test_constructor_argument_types_fields_read_by_other_methods() -> None:
    r = repo(**{"main.py": """
        class Logger:
            def log(self, m):
                return m

        class Mailer:
            def __init__(self, logger):
                self.logger = logger

            def send(self, m):
                self.logger.log(m)

        Mailer(Logger()).send("x")
        """})
    assert "main.Logger.log" in r.calls_from("main.Mailer.send")


def test_list_elements_negative_narrowing_and_annotations_win() -> None:
    r = repo(**{"main.py": """
        class A:
            def go(self):
                pass
            def only_a(self):
                pass

        class B:
            def go(self):
                pass

        def each(items):
            for it in items:
                it.go()

        def describe(x):
            if isinstance(x, A):
                return x.only_a()
            return x.go()

        def typed(x: B):
            return x.go()

        each([A(), B()])
        describe(A())
        describe(B())
        typed(A())
        """})
    assert r.calls_from("main.each") == {"main.A.go", "main.B.go"}
    assert r.calls_from("main.describe") >= {"main.A.only_a", "main.B.go"}
    assert "main.A.go" not in r.calls_from("main.describe")  # A returned before x.go()
    assert r.calls_from("main.typed") == {"main.B.go"}  # the annotation is kept


def test_decorator_class_calls_the_undecorated_function() -> None:
    r = repo(**{"main.py": """
        class Count:
            def __init__(self, fn):
                self.fn = fn
            def __call__(self, *a):
                return self.fn(*a)

        @Count
        def square(x):
            return x * x

        square(3)
        """})
    assert r.calls_from("main.Count.__call__") == {"main.square"}


def test_flow_results_do_not_depend_on_resolution_order() -> None:
    files = {"a.py": "def f(o):\n    return o.m()\n",
             "b.py": "from a import f\nclass K:\n    def m(self):\n        pass\nf(K())\n"}
    one, two = Repo(files), Repo(dict(reversed(list(files.items()))))
    assert set(one.edges) == set(two.edges)
    assert ("a.f", "b.K.m") in one.pairs()
