"""Call-site encoding: the site tuple each call form records, and the value it encodes to.

The resolver reads these tuples (``facts.CallSite``: line, callee, nargs, keyword names,
``*args``, ``**kw``, value arguments, special), so their layout is pinned here per form.
"""

from __future__ import annotations

import textwrap

from impactlens.index.python import Scope, extract_file

SRC = textwrap.dedent('''
    import importlib

    def get(self):
        return 1

    def run(obj, name, cb, xs, *rest, **kw):
        a = getattr(obj, "size")
        b = getattr(obj, name)
        setattr(obj, "size", 2)
        c = type(obj)
        d = cast("int", obj)
        eval("run()")
        m = importlib.import_module("pkg.mod")
        n = len(*rest)
        o = sorted(xs, key=cb)
        cb(1, x=2)
        xs.append(get)
        run(get, *rest, key=get, **kw)

    class C:
        size = property(get, fset=get)
        vs = vars(C)
        g = globals()

    def outer(hook):
        def inner():
            return hook(3)
        return inner
''')


def scopes() -> dict[str, Scope]:
    facts = extract_file("m.py", SRC.encode(), "m", False, False)
    return {sc.qual: sc for sc in facts.scopes}


def by_line(sc: Scope) -> dict[int, tuple]:
    return {site[0]: site[1:] for site in sc.calls}


def bound(sc: Scope, name: str) -> tuple:
    return next(b[1] for b in sc.binds if b[0] == name)


OBJ, XS, CB, GET = ("n", "obj", (0,)), ("n", "xs", (3,)), ("n", "cb", (2,)), ("n", "get", ())


def test_builtins_that_record_a_site_of_their_own() -> None:
    run = scopes()["m.run"]
    sites = by_line(run)
    assert sites[8] == (("n", "getattr", ()), 2, (), False, False, (), None)
    assert bound(run, "a") == ("a", OBJ, "size")
    assert (8, ("a", OBJ, "size"), "r") in run.refs
    assert sites[9][-1] == ("getattr", None, ("name",))  # a computed name: dynamic
    assert bound(run, "b") == ("dyn",)
    assert (10, ("a", OBJ, "size"), "w") in run.refs  # setattr writes
    assert sites[11] == (("n", "type", ()), 1, (), False, False, (), None)
    assert bound(run, "c") == ("ctype", OBJ)
    assert bound(run, "d") == ("an", (("t", ("n", "int", ())),), 2, None)


def test_builtins_that_give_a_plain_site_its_meaning() -> None:
    s = scopes()
    run, cls = s["m.run"], s["m.C"]
    sites = by_line(run)
    assert sites[13][-1] == ("eval", None, ("run()",))
    assert sites[14] == (("a", ("n", "importlib", ()), "import_module"), 1, (), False, False,
                         (), ("importlib", "pkg.mod", ("pkg.mod",)))
    assert bound(run, "m") == ("imp", "pkg.mod")
    assert bound(cls, "size") == ("prop", GET, GET)  # property(fget, fset=...)
    assert bound(cls, "vs") == ("c", ("n", "vars", ()))  # vars(x) is no namespace
    assert bound(cls, "g") == ("glob",)


def test_arguments_keywords_and_starred() -> None:
    run = scopes()["m.run"]
    sites = by_line(run)
    # len(*rest): no positional argument counted, so no implicit __len__ site
    assert sites[15] == (("n", "len", ()), 0, (), True, False, (), None)
    assert bound(run, "o") == ("c", ("n", "sorted", ()), XS)
    assert sites[16] == (("n", "sorted", ()), 1, ("key",), False, False,
                         ((0, XS), ("key", CB)), None)
    assert sites[19] == (("n", "run", ()), 1, ("key",), True, True,
                         ((0, GET), ("key", GET)), None)


def test_parameter_calls_and_container_stores() -> None:
    s = scopes()
    run, outer = s["m.run"], s["m.outer"]
    assert run.pcalls == {"cb": (1, ("x",), False, False, 2)}
    assert outer.pcalls == {"hook": (1, (), False, False, 5)}  # the closure calls it
    assert run.muts == {"xs": ((None, GET, 2),)}
