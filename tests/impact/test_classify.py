"""§3.1 / phase 1: the AST change-type classifier."""

from __future__ import annotations

from textwrap import dedent

import pytest

from impactlens.errors import BadInputError
from impactlens.impact.classify import cap_changes
from impactlens.impact.classify import classify as _classify
from impactlens.model import AtomicChange, ChangeType, Params
from impactlens.settings import DEFAULT


def changes(before: str | None, after: str | None, path: str = "app/auth.py",
            module: str = "app.auth", **settings: object) -> list[AtomicChange]:
    s = DEFAULT.replace(**settings) if settings else DEFAULT
    return _classify(dedent(before) if before is not None else None,
                     dedent(after) if after is not None else None, path, module, s)


def classify(before: str | None, after: str | None, **kw: object) -> list[tuple[str, str]]:
    """``[(change_type, entity), ...]`` — the terse form most tests assert on."""
    return [(c.change_type.value, c.entity) for c in changes(before, after, **kw)]


LOGIN = """\
    class LoginService:
        def login(self, user):
            token = user.token
            return token
"""


def test_param_list_change_is_method_signature_not_body():
    after = """\
        class LoginService:
            def login(self, user, mfa_code):
                token = user.token + mfa_code
                return token
    """
    assert classify(LOGIN, after) == [("method-signature", "app.auth.LoginService.login")]


def test_body_only_change_is_method_body():
    after = LOGIN.replace("user.token", "user.token.strip()")
    assert classify(LOGIN, after) == [("method-body", "app.auth.LoginService.login")]


def test_init_param_change_is_constructor_which_dominates_signature():
    before = """\
        class Session:
            def __init__(self, user):
                self.user = user
    """
    after = """\
        class Session:
            @staticmethod
            def __init__(self, user, ttl=60):
                self.user = user
    """
    assert classify(before, after) == [("constructor", "app.auth.Session.__init__")]


def test_init_decorator_only_change_is_method_signature():
    before = "class S:\n    def __init__(self):\n        pass\n"
    after = "class S:\n    @trace\n    def __init__(self):\n        pass\n"
    assert classify(before, after) == [("method-signature", "app.auth.S.__init__")]


def test_class_bases_change_is_class_decl():
    before = "class Admin(User):\n    level = 1\n"
    after = "class Admin(User, Auditable):\n    level = 1\n"
    assert classify(before, after) == [("class-decl", "app.auth.Admin")]


def test_class_keywords_change_is_class_decl():
    before = "class Admin(User):\n    pass\n"
    after = "class Admin(User, metaclass=Meta):\n    pass\n"
    assert classify(before, after) == [("class-decl", "app.auth.Admin")]


def test_import_change_is_import():
    before = "from app.crypto import hash_pw\n"
    after = "from app.crypto2 import hash_pw\n"
    assert classify(before, after) == [("import", "app.auth.hash_pw")]


def test_node_only_in_after_is_add_and_only_in_before_is_delete():
    before = "def a():\n    return 1\n"
    after = "def b():\n    return 1\n"
    assert sorted(classify(before, after)) == [("add", "app.auth.b"), ("delete", "app.auth.a")]


def test_multi_node_edit_decomposes_into_atomic_changes():
    before = """\
        RETRIES = 3

        def fetch(url):
            return get(url)

        def parse(text):
            return text.split()
    """
    after = """\
        RETRIES = 5

        def fetch(url, timeout):
            return get(url)

        def parse(text):
            return text.split(",")
    """
    assert classify(before, after) == [
        ("field", "app.auth.RETRIES"),
        ("method-signature", "app.auth.fetch"),
        ("method-body", "app.auth.parse"),
    ]


def test_field_at_class_scope_and_annotation_change():
    before = "class Config:\n    timeout: int = 5\n"
    after = "class Config:\n    timeout: float = 5\n"
    (c,) = changes(before, after)
    assert (c.change_type, c.entity) == (ChangeType.FIELD, "app.auth.Config.timeout")
    assert c.what == "annotation of timeout changed"
    assert (c.before_sig, c.after_sig) == ("timeout: int = 5", "timeout: float = 5")


@pytest.mark.parametrize("after", [
    "def f(a, b=2):\n    return a\n",  # default changed
    "def f(a, b: int = 1):\n    return a\n",  # annotation
    "@cache\ndef f(a, b=1):\n    return a\n",  # decorator
    "def f(a, b=1) -> int:\n    return a\n",  # return annotation
    "async def f(a, b=1):\n    return a\n",  # async
    "def f(a, *, b=1):\n    return a\n",  # keyword-only
])
def test_every_signature_part_counts(after):
    assert classify("def f(a, b=1):\n    return a\n", after) == [
        ("method-signature", "app.auth.f")]


def test_signature_description_and_sigs():
    (c,) = changes(LOGIN, LOGIN.replace("self, user", "self, user, mfa_code"))
    assert c.before_sig == "def login(self, user):"
    assert c.after_sig == "def login(self, user, mfa_code):"
    assert c.what == "added param mfa_code"
    assert c.after_params == Params(args=("self", "user", "mfa_code"), binding="method")
    assert c.line_range == (2, 2)


def test_comments_whitespace_and_docstrings_are_not_changes():
    before = '"""Module."""\nimport os\n\n\ndef f(x):\n    return x\n'
    after = '"""Module, reworded."""\nimport os  # needed\n\ndef f(x):\n\n    return x\n'
    assert classify(before, after) == []


def test_module_level_statement_is_the_conservative_default():
    before = "import registry\nregistry.add('a')\n"
    after = "import registry\nregistry.add('b')\n"
    (c,) = changes(before, after)
    assert (c.change_type, c.entity, c.kind, c.line_range) == (
        ChangeType.METHOD_BODY, "app.auth", "module", (2, 2))
    assert c.body is None


def test_line_range_comes_from_the_diff_in_after_coordinates():
    before = dedent("""\
        def f(x):
            a = 1
            b = 2
            c = 3
            return a + b + c + x
    """)
    after = before.replace("b = 2", "b = 20").replace("c = 3", "c = 30")
    (c,) = changes(before, after)
    assert c.line_range == (3, 4)
    assert c.body is not None
    assert c.body.after_lines == frozenset({3, 4}) == c.body.before_lines
    assert c.body.after_src.startswith("def f(x):")


def test_body_delta_of_a_method_is_dedented_and_relative():
    (c,) = changes(LOGIN, LOGIN.replace("token = user.token", "token = user.token2"))
    assert c.body is not None
    assert c.body.after_src.splitlines()[0] == "def login(self, user):"
    assert c.body.after_lines == frozenset({2})


def test_deleted_class_deletes_its_methods_added_class_is_one_add():
    before = "class A:\n    def m(self):\n        pass\n    x = 1\n"
    assert classify(before, "") == [
        ("delete", "app.auth.A"), ("delete", "app.auth.A.m"), ("delete", "app.auth.A.x")]
    assert classify("", before) == [("add", "app.auth.A")]


def test_whole_file_added_and_deleted():
    src = "def f():\n    pass\n"
    assert classify(None, src) == [("add", "app.auth")]
    assert classify(src, None) == [("delete", "app.auth"), ("delete", "app.auth.f")]


def test_overloaded_names_match_by_position():
    before = dedent("""\
        class C:
            @property
            def x(self):
                return self._x

            @x.setter
            def x(self, v):
                self._x = v
    """)
    after = before.replace("self._x = v", "self._x = int(v)")
    assert classify(before, after) == [("method-body", "app.auth.C.x")]
    (c,) = changes(before, after)
    assert c.line_range == (8, 8)


def test_definitions_under_if_and_try_are_matched():
    before = "try:\n    import ujson as json\nexcept ImportError:\n    import json\n"
    after = "try:\n    import orjson as json\nexcept ImportError:\n    import json\n"
    assert classify(before, after) == [("import", "app.auth.json")]


def test_syntax_error_names_file_and_line():
    with pytest.raises(BadInputError, match=r"app/auth\.py:2: syntax error in the after"):
        changes("x = 1\n", "x = 1\ndef (:\n")
    with pytest.raises(BadInputError, match=r"app/auth\.py:1: .*before"):
        changes("def f(\n", "x = 1\n")


def test_entity_is_capped_at_200_chars():
    module = "m" * 250
    (c,) = changes("def f():\n    pass\n", "def f(x):\n    pass\n", module=module)
    assert len(c.entity) == 200


def test_more_than_64_changes_fold_into_the_nearest_same_type_change():
    before = "".join(f"def f{i}():\n    return {i}\n" for i in range(70))
    after = "".join(f"def f{i}():\n    return {i + 1}\n" for i in range(70))
    out = changes(before, after)
    assert len(out) == 64
    assert sum(c.folded for c in out) == 6
    last = out[-1]
    assert last.entity == "app.auth.f63" and last.folded == 6
    assert last.line_range == (128, 140)  # widened over f64..f69


def test_cap_keeps_structural_changes_first():
    body = [AtomicChange(ChangeType.METHOD_BODY, f"m.f{i}", "m.py", (i, i)) for i in range(5)]
    sig = AtomicChange(ChangeType.METHOD_SIGNATURE, "m.g", "m.py", (10, 10))
    out = cap_changes([*body, sig], 3)
    assert [c.entity for c in out] == ["m.f0", "m.f1", "m.g"]
    assert out[1].line_range == (1, 4) and out[1].folded == 3


def test_classification_never_consults_a_model(monkeypatch):
    openai = pytest.importorskip("openai")

    def boom(*a, **k):
        raise AssertionError("the classifier must not build an LLM client")

    monkeypatch.setattr(openai.OpenAI, "__init__", boom)
    monkeypatch.setattr(openai.AsyncOpenAI, "__init__", boom)
    after = LOGIN.replace("self, user", "self, user, mfa_code")
    assert classify(LOGIN, after) == [("method-signature", "app.auth.LoginService.login")]
