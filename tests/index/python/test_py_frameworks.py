"""Declared framework models: Django's model manager, when Django's code is in the
repository (the ``objects`` a metaclass adds, the methods ``from_queryset`` copies)."""

from __future__ import annotations

from pyindex_helpers import Repo

QS = "django.db.models.query.QuerySet"
MANAGER = "django.db.models.manager"
WRAPPER = f"{MANAGER}.BaseManager._get_queryset_methods.create_method.manager_method"

DJANGO = {
    "django/__init__.py": "",
    "django/db/__init__.py": "",
    "django/db/models/__init__.py": """
        from django.db.models.base import Model
        from django.db.models.manager import Manager
    """,
    "django/db/models/query.py": """
        class QuerySet:
            def __init__(self, model=None):
                self.model = model

            def _chain(self):
                return self.__class__(model=self.model)

            def filter(self, **kwargs):
                return self._chain()

            def order_by(self, *names):
                return self._chain()

            def all(self):
                return self._chain()
    """,
    "django/db/models/manager.py": """
        from functools import wraps

        from django.db.models.query import QuerySet


        class BaseManager:
            @classmethod
            def _get_queryset_methods(cls, queryset_class):
                def create_method(name, method):
                    @wraps(method)
                    def manager_method(self, *args, **kwargs):
                        return getattr(self.get_queryset(), name)(*args, **kwargs)

                    return manager_method

                return {name: create_method(name, m) for name, m in vars(queryset_class).items()}

            @classmethod
            def from_queryset(cls, queryset_class):
                return type("M", (cls,), {"_queryset_class": queryset_class,
                                          **cls._get_queryset_methods(queryset_class)})

            def get_queryset(self):
                return self._queryset_class(model=None)

            def all(self):
                return self.get_queryset()


        class Manager(BaseManager.from_queryset(QuerySet)):
            pass
    """,
    "django/db/models/base.py": """
        class ModelBase(type):
            pass


        class Model(metaclass=ModelBase):
            pass
    """,
}


def unknown(r: Repo, scope: str) -> list[str]:
    return [u.text for u in r.unresolved if u.reason == "unknown-receiver" and u.scope == scope]


def app(text: str) -> Repo:
    return Repo({**DJANGO, "app.py": text})


def test_a_queryset_method_through_objects_runs_the_generated_wrapper_then_the_method() -> None:
    r = app("""
        from django.db import models

        class Article(models.Model):
            pass

        def recent():
            return Article.objects.filter(title="x").order_by("title")
    """)
    assert r.calls_from("app.recent") == {WRAPPER, f"{QS}.filter", f"{QS}.order_by"}
    assert r.detail("app.recent", f"{QS}.filter").get("deco") is True
    assert "deco" not in r.detail("app.recent", WRAPPER)
    assert unknown(r, "app.recent") == []


def test_the_managers_own_methods_are_not_copies_and_their_results_are_querysets() -> None:
    r = app("""
        from django.db import models

        class Article(models.Model):
            pass

        def every():
            return Article.objects.all().all()
    """)
    assert r.calls_from("app.every") == {f"{MANAGER}.BaseManager.all", f"{QS}.all"}


def test_no_manager_is_assumed_where_the_model_declares_one_or_the_name_is_private() -> None:
    r = app("""
        from django.db import models

        class Tag(models.Model):
            tags = models.Manager()

        class Article(models.Model):
            pass

        def declared():
            Tag.tags.filter()
            return Tag.objects.filter()

        def private():
            return Article.objects._chain()
    """)
    assert r.calls_from("app.declared") == {WRAPPER, f"{QS}.filter"}
    assert unknown(r, "app.declared") == ["Tag.objects.filter(...)"]
    assert unknown(r, "app.private") == ["Article.objects._chain(...)"]


def test_a_model_class_outside_django_gets_no_manager() -> None:
    r = Repo({
        "orm/__init__.py": "",
        "orm/base.py": """
            class QuerySet:
                def filter(self):
                    return self

            class Model:
                pass
        """,
        "app.py": """
            from orm.base import Model

            class Article(Model):
                pass

            def lookup():
                return Article.objects.filter()
        """,
    })
    assert r.calls_from("app.lookup") == set()
    assert unknown(r, "app.lookup") == ["Article.objects.filter(...)"]
