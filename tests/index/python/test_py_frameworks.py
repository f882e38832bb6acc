"""Declared framework models: Django's model manager, when Django's code is in the
repository (the ``objects`` a metaclass adds, the methods ``from_queryset`` copies)."""

from __future__ import annotations

from pathlib import Path

from pyindex_helpers import Repo

QS = "django.db.models.query.QuerySet"
MANAGER = "django.db.models.manager"
WRAPPER = f"{MANAGER}.BaseManager._get_queryset_methods.create_method.manager_method"

# the miniature of Django's code the call-graph corpus runs (bench/callgraph)
_CASE = Path(__file__).resolve().parents[3] / "bench/callgraph/cases/classes/django_model_manager"
DJANGO = {str(f.relative_to(_CASE)): f.read_text() for f in sorted(_CASE.glob("django/**/*.py"))}


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


def test_declaring_a_manager_in_an_edit_re_resolves_the_callers(indexed, git_commit) -> None:
    """End to end on a real repository: the model file's edit re-resolves the caller."""
    model = "from django.db import models\n\n\nclass Article(models.Model):\n    pass\n"
    caller = ("from shop.models import Article\n\n\n"
              "def recent():\n    return Article.objects.filter(title='x')\n")
    p = indexed({**DJANGO, "shop/__init__.py": "", "shop/models.py": model,
                 "shop/views.py": caller})
    assert f"{QS}.filter" in {e.dst for e in p.store.all_edges() if e.src == "shop.views.recent"}
    git_commit(p.root, {"shop/models.py": model.replace(
        "    pass\n", "    items = models.Manager()\n")}, "a declared manager")
    p.refresh()
    assert not {e.dst for e in p.store.all_edges() if e.src == "shop.views.recent"}
    assert [u.text for u in p.store.unresolved_sites() if u.scope == "shop.views.recent"] == [
        "Article.objects.filter(...)"]
