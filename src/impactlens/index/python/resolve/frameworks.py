"""Declared models of what a framework builds at run time and no class body says.

Some frameworks add attributes at class creation (a metaclass) or build a class's base
with a factory call; static evaluation of that code sees a call of ``type(...)`` or a
``setattr`` and nothing more. For the few such patterns common enough to matter, this
module declares what the framework's own code does, by the qualified names of the
framework's classes. A model applies only when the framework's code is in the indexed
repository (when it is installed outside it, the receiver is already an external
class); nothing here guesses a repository name.

Django (``django/db/models``):

- ``ModelBase`` (the metaclass of ``Model``) gives a concrete model class that declares
  no manager an ``objects`` attribute: a ``Manager`` instance (``ModelBase._prepare``).
- ``Manager``'s base is ``BaseManager.from_queryset(QuerySet)``: a subclass of
  ``BaseManager`` holding one generated wrapper (``create_method``'s
  ``manager_method``) per public ``QuerySet`` method the manager does not define; the
  wrapper runs that method on a fresh queryset (``get_queryset()``, an instance of the
  base's ``_queryset_class``, ``QuerySet``).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from impactlens.index.python.facts import B_ASSIGN, B_CLASS, B_DEF
from impactlens.index.python.resolve.values import (
    Class,
    ClassKey,
    CopiedMethod,
    Function,
    Instance,
    Items,
)


class CopiedMethods(NamedTuple):
    """A class whose base a factory call builds: the factory's class (the real base)
    and the class whose public methods the generated base carries as wrappers."""

    base: str
    source: str
    wrapper: str  # the generated function each copied method is
    source_attr: str  # the generated base's attribute holding the source class


_DJANGO_MANAGER = "django.db.models.manager"
COPIED_METHODS = {
    f"{_DJANGO_MANAGER}.Manager": CopiedMethods(
        f"{_DJANGO_MANAGER}.BaseManager", "django.db.models.query.QuerySet",
        f"{_DJANGO_MANAGER}.BaseManager._get_queryset_methods.create_method.manager_method",
        "_queryset_class"),
}
# class -> (attribute its metaclass adds to each subclass, class of that attribute's
# instance, the base class of what counts as a declared replacement)
CREATED_ATTRS = {
    "django.db.models.base.Model": ("objects", f"{_DJANGO_MANAGER}.Manager",
                                    f"{_DJANGO_MANAGER}.BaseManager"),
}


def qual_key(ev: Any, qual: str) -> ClassKey | None:
    """The (module, scope) of the repository class or function named ``qual``, found
    name by name from its module (so only those scopes are read, not all of them)."""
    got = ev._framework_keys.get(qual, False)
    if got is not False:
        return got  # type: ignore[no-any-return]
    key = None
    parts = qual.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        facts = ev.mod(".".join(parts[:cut]))
        if facts is not None:
            key = _nested_scope(facts, parts[cut:])
            break
    ev._framework_keys[qual] = key
    return key


def _nested_scope(facts: Any, names: list[str]) -> ClassKey | None:
    """The scope ``names`` leads to from the module scope through class and def
    bindings, or None."""
    scope = 0
    for name in names:
        sc = facts.scopes[scope]
        nxt = None
        for b in sc.byname.get(name, ()):
            bind = sc.binds[b]
            if bind[4] in (B_CLASS, B_DEF) and bind[1][0] in ("cls", "def"):
                nxt = bind[1][1]
        if nxt is None:
            return None
        scope = nxt
    return facts.module, scope


def qual_of(ev: Any, ck: ClassKey) -> str:
    facts = ev.mod(ck[0])
    return str(facts.scopes[ck[1]].qual) if facts is not None else ""


def copied_base(ev: Any, ck: ClassKey) -> ClassKey | None:
    """The real base of a class whose base a declared factory call builds."""
    model = COPIED_METHODS.get(qual_of(ev, ck))
    return qual_key(ev, model.base) if model is not None else None


def copied_method(ev: Any, order: list[ClassKey], name: str) -> Items:
    """``name`` on a class in whose MRO a declared factory copied the public methods of
    another class: that class's method, as a generated wrapper (or the source class
    itself, for the attribute that holds it)."""
    for k in order:
        model = COPIED_METHODS.get(qual_of(ev, k))
        source = qual_key(ev, model.source) if model is not None else None
        if model is None or source is None:
            continue
        if name == model.source_attr:
            return [Class("C", *source)]
        if name.startswith("_"):
            return []
        got, _ = ev.class_attr(source, name, True, 0, source)
        wrapper = qual_key(ev, model.wrapper)
        return [CopiedMethod("CM", f.module, f.scope, source, wrapper)
                for f in got if type(f) is Function and f.bound]
    return []


def created_attr(ev: Any, order: list[ClassKey], name: str) -> Items:
    """``name`` read on a class whose metaclass adds it at class creation (a declared
    model), unless a class of the MRO declares its replacement."""
    for i, k in enumerate(order):
        model = CREATED_ATTRS.get(qual_of(ev, k))
        if model is None or model[0] != name or i == 0:
            continue
        inst = qual_key(ev, model[1])
        replacement = qual_key(ev, model[2])
        if inst is None or replacement is None:
            return []
        if any(_declares_instance_of(ev, c, replacement) for c in order[:i]):
            return []
        return [Instance("I", *inst)]
    return []


def _declares_instance_of(ev: Any, ck: ClassKey, base: ClassKey) -> bool:
    """Whether class ``ck``'s body assigns an instance of ``base`` (or a subclass)."""
    facts = ev.mod(ck[0])
    if facts is None:
        return False
    sc = facts.scopes[ck[1]]
    for bind in sc.binds:
        if bind[4] != B_ASSIGN:
            continue
        vals, _ = ev.vals(facts, ck[1], bind[1], None)
        for v in vals:
            if type(v) is Instance and base in ev.mro((v.module, v.scope))[0]:
                return True
    return False
