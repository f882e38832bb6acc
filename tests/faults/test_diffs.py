"""Diffs that cannot be read in full are refused (exit 2, one line), never analysed as
an empty change; the complete ones still apply."""

from __future__ import annotations

import pytest
from conftest import assert_user_error, impactlens

from impactlens.change.inputs import from_diff
from impactlens.errors import BadInputError

FILES = {
    "pkg/__init__.py": "",
    "pkg/core.py": "def f(x):\n    return x\n",
    "pkg/use.py": "from pkg.core import f\n\n\ndef a():\n    return f(1)\n\n\ndef b():\n"
                  "    return f(2)\n",
}
HEAD = "diff --git a/pkg/core.py b/pkg/core.py\n--- a/pkg/core.py\n+++ b/pkg/core.py\n"
BODY = "-def f(x):\n+def f(x, y):\n     return x\n"

BROKEN = {
    "malformed hunk header": (HEAD + "@@ -a,b +c,d @@\n" + BODY, "malformed hunk header"),
    "headers and no hunk": (HEAD, "headers and no hunk"),
    "git header alone": ("diff --git a/pkg/core.py b/pkg/core.py\nindex 1111111..2222222 "
                         "100644\n", "headers and no hunk"),
    "second entry without hunk": (HEAD + "@@ -1,2 +1,2 @@\n" + BODY
                                  + "--- a/pkg/use.py\n+++ b/pkg/use.py\n",
                                  "pkg/use.py has headers and no hunk"),
    "hunk cut short": (HEAD + "@@ -1,4 +1,4 @@\n" + BODY, "ends early"),
    "hunk longer than its header": (HEAD + "@@ -1,1 +1,1 @@\n" + BODY,
                                    "outside any hunk"),
    "hunk before any header": ("@@ -1,2 +1,2 @@\n" + BODY, "before any file header"),
    "foreign line inside a hunk": (HEAD + "@@ -1,3 +1,3 @@\n-def f(x):\n+def f(x, y):\n"
                                   "?? garbage\n     return x\n", "not a hunk line"),
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_incomplete_diff_is_refused(make_repo, name):
    root = make_repo(FILES)
    text, says = BROKEN[name]
    with pytest.raises(BadInputError, match=says):
        from_diff(root, text, source="edit.diff")


@pytest.mark.parametrize("name", ["malformed hunk header", "headers and no hunk"])
def test_cli_refuses_incomplete_diff_with_exit_2(make_repo, name):
    root = make_repo(FILES)
    text, says = BROKEN[name]
    proc = impactlens("analyze", "--repo", str(root), "--diff", "-", stdin=text.encode())
    assert_user_error(proc, code=2, says=says)


COMPLETE = {
    "plain": HEAD + "@@ -1,2 +1,2 @@\n" + BODY,
    "no counts": "--- a/pkg/core.py\n+++ b/pkg/core.py\n@@ -1 +1 @@\n-def f(x):\n+def f(x, y):\n",
    "format-patch trailer": ("From 0123 Mon Sep 17 00:00:00 2001\nSubject: [PATCH] f\n\n---\n"
                             + HEAD + "@@ -1,2 +1,2 @@\n" + BODY + "-- \n2.43.0\n\n"),
    "empty new file": ("diff --git a/pkg/new.py b/pkg/new.py\nnew file mode 100644\n"
                       "index 0000000..e69de29\n"),
    "no newline marker": (HEAD + "@@ -1,2 +1,2 @@\n def f(x):\n-    return x\n"
                          "\\ No newline at end of file\n+    return 2\n"
                          "\\ No newline at end of file\n"),
}


@pytest.mark.parametrize("name", sorted(COMPLETE))
def test_complete_diff_is_read(make_repo, name):
    files = dict(FILES)
    if name == "no newline marker":
        files["pkg/core.py"] = "def f(x):\n    return x"
    root = make_repo(files)
    pc = from_diff(root, COMPLETE[name], source="edit.diff")
    assert pc.files, name
