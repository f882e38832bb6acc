"""A directory symlinked to outside the repository is never followed: `index` says it
skipped it (with why), and the CLI, the MCP server and the API give the same answer, for
a tracked link, an untracked one, and a tree outside git."""

from __future__ import annotations

import json
import shutil
import sys

import anyio
import pytest
from conftest import SRC, assert_user_error, impactlens
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from impactlens.api import Project
from impactlens.errors import BadInputError
from impactlens.index.discover import LINKED_OUT

FILES = {
    "pkg/__init__.py": "",
    "pkg/core.py": "def f(x):\n    return x\n",
}
SECRET = "def secret(key):\n    return key\n"
SKIPPED = [["linked", LINKED_OUT]]


def _mcp(root, body):
    """Run ``body(session)`` against ``python -m impactlens mcp ROOT`` over stdio."""
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "impactlens", "mcp", str(root)], cwd=str(root),
                                   env={"PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": SRC})
    out = {}

    async def main():
        with anyio.fail_after(60):
            async with stdio_client(params) as (read, write), \
                    ClientSession(read, write) as session:
                await session.initialize()
                out.update(await body(session))

    anyio.run(main)
    return out


async def _reindex_and_slice(session):
    reindex = await session.call_tool("reindex", {"full": True})
    sliced = await session.call_tool("slice", {"file": "linked/secret.py", "line": 2})
    text = " ".join(c.text for c in sliced.content if getattr(c, "type", "") == "text")
    return {"reindex": reindex.structured_content, "reindex_error": reindex.is_error,
            "slice_error": sliced.is_error, "slice_text": text}


@pytest.mark.parametrize("how", ["tracked", "untracked", "outside git"])
def test_directory_symlinked_outside_is_skipped_alike(make_repo, git, tmp_path, how):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text(SECRET)
    root = make_repo(FILES)
    (root / "linked").symlink_to(outside, target_is_directory=True)
    if how == "tracked":
        git(root, "add", "linked")
        git(root, "commit", "-q", "-m", "link")
    elif how == "outside git":
        shutil.rmtree(root / ".git")

    cli = impactlens("index", "--json", str(root))
    assert cli.returncode == 0 and "Traceback" not in cli.stderr, cli.stderr
    summary = json.loads(cli.stdout)
    assert summary["skipped"] == SKIPPED
    assert any(n.endswith("symlinked to outside the repository (not followed): linked")
               for n in summary["notes"]), summary["notes"]
    assert_user_error(impactlens("slice", "linked/secret.py:2", "--repo", str(root)),
                      says="resolves outside the repository")

    with Project(root) as project:
        assert [list(s) for s in project.index(full=True).skipped] == SKIPPED
        assert not [r.path for r in project.store.files() if r.path.startswith("linked")]
        assert not [n.id for n in project.find("secret") if "secret" in n.id]
        with pytest.raises(BadInputError, match="resolves outside the repository"):
            project.slice("linked/secret.py", 2)

    got = _mcp(root, _reindex_and_slice)
    assert not got["reindex_error"] and got["reindex"]["skipped"] == SKIPPED
    assert got["slice_error"] and "resolves outside the repository" in got["slice_text"]
    assert "Traceback" not in got["slice_text"]
    assert (outside / "secret.py").read_text() == SECRET
    assert sorted(p.name for p in outside.iterdir()) == ["secret.py"]
