"""What the edit's written lines call is listed as possibly changing with the call, end to
end on a real repository."""

from __future__ import annotations

from impactlens.api import Project
from impactlens.settings import DEFAULT

FILES = {
    "pkg/__init__.py": "",
    "pkg/errors.py": "class ParseError(ValueError):\n    pass\n",
    "pkg/util.py": ("def clean(text):\n    return text.strip()\n\n\n"
                    "def common(x):\n    return x\n"),
    "pkg/parse.py": ("from pkg.util import clean, common\n\n\n"
                     "def parse(text):\n    return common(text)\n\n\n"
                     "def other(text):\n    return clean(text)\n"),
    "pkg/a.py": "from pkg.util import common\n\n\ndef a(x):\n    return common(x)\n",
    "pkg/b.py": "from pkg.util import common\n\n\ndef b(x):\n    return common(x)\n",
    "tests/test_parse.py": "from pkg.parse import parse\n\n\ndef test_parse():\n"
                           "    assert parse('a') == 'a'\n",
}
EDITED = ("from pkg.errors import ParseError\nfrom pkg.util import clean, common\n\n\n"
          "def parse(text):\n    if not text:\n        raise ParseError(text)\n"
          "    return common(clean(text))\n\n\n"
          "def other(text):\n    return clean(text)\n")


def _listed(root, after, settings=DEFAULT):
    with Project(root, settings) as p:
        p.index()
        res = p.analyze_before_after("pkg/parse.py", (root / "pkg/parse.py").read_text(),
                                     after, refresh=False)
    return {e.entity: e for e in (*res.triage.must_inspect, *res.triage.may_impact)}


def test_the_callees_of_the_written_lines_are_listed(make_repo):
    root = make_repo(FILES)
    got = _listed(root, EDITED)
    clean = got["pkg.util.clean"]
    assert clean.file == "pkg/util.py" and not clean.hard
    assert clean.conf == DEFAULT.callee_conf
    assert clean.reason.startswith("the edit calls it at pkg/parse.py:8")
    assert got["pkg.errors.ParseError"].reason.startswith("the edit calls it at pkg/parse.py:7")
    # switched off, neither callee is listed: nothing else links them to the edit
    off = _listed(root, EDITED, DEFAULT.replace(channels=DEFAULT.channels - {"callees"}))
    assert "pkg.util.clean" not in off and "pkg.errors.ParseError" not in off


def test_a_call_on_an_unchanged_line_lists_nothing(make_repo):
    root = make_repo(FILES)
    # `other` still calls `clean`, but the edit wrote no line of it
    got = _listed(root, (root / "pkg/parse.py").read_text().replace(
        "return common(text)", "return common(text) or None"))
    assert "pkg.util.clean" not in got


def test_a_callee_many_files_call_is_left_out_when_capped(make_repo):
    root = make_repo(FILES)
    capped = DEFAULT.replace(callee_max_callers=1)  # `common`: a.py and b.py call it
    got = _listed(root, EDITED, capped)
    assert "pkg.util.common" not in got
    assert "pkg.util.clean" in got  # no other file calls it
