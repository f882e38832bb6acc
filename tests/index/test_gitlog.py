"""The streaming ``git log -z`` parser (index/gitlog.py): a property over generated logs in
git's own format, cut into arbitrary chunks, and real git's output for odd names."""

from __future__ import annotations

import subprocess

from hypothesis import given, settings
from hypothesis import strategies as st

from impactlens.index.gitlog import CommitRecord, FileTouch, LogParser, parse_log

HEX = "0123456789abcdef"
# path bytes: anything but NUL — spaces, newlines, tabs, the record separator, bytes that
# are not UTF-8, letters that are
PATH_BYTES = st.binary(min_size=1, max_size=12).filter(lambda b: b"\0" not in b) | st.sampled_from(
    [b"a.py", b"dir with space/x.py", "ünï/ß.py".encode(), b"caf\xe9.py", b"\nlead.py",
     b"M", b"R100", b"1\t2\tx", b"\x1e" + b"a" * 40])
MESSAGE = st.text(max_size=30).map(lambda t: t.replace("\0", "")) | st.sampled_from(
    ["", "subject\n\nbody with\ttab and \x1e separator", "\x1e" + "b" * 40])


@st.composite
def files(draw: st.DrawFn) -> tuple[bytes, bytes | None, int, int]:
    new = draw(PATH_BYTES)
    old = draw(st.none() | PATH_BYTES)
    binary = draw(st.booleans())
    added, deleted = (-1, -1) if binary else (draw(st.integers(0, 9999)),
                                               draw(st.integers(0, 9999)))
    return new, old, added, deleted


@st.composite
def commits(draw: st.DrawFn) -> tuple[str, int, int, str, list[tuple[bytes, bytes | None,
                                                                     int, int]]]:
    sha = "".join(draw(st.lists(st.sampled_from(HEX), min_size=40, max_size=40)))
    return (sha, draw(st.integers(0, 2**33)), draw(st.integers(0, 3)), draw(MESSAGE),
            draw(st.lists(files(), max_size=5)))


def render(log: list, numstat: bool) -> bytes:
    """What ``git log -z --format=%x1e%H%x00%at%x00%P%x00%B%x00`` writes with
    ``--name-status -M`` or ``--numstat -M`` (checked against git below)."""
    out = b""
    for sha, at, parents, message, changed in log:
        out += (b"\x1e" + sha.encode() + b"\0" + str(at).encode() + b"\0"
                + " ".join(["f" * 40] * parents).encode() + b"\0"
                + message.encode("utf-8", "surrogatepass") + b"\0")
        out += b"\0\n" if changed else b"\0"
        for new, old, added, deleted in changed:
            if numstat:
                counts = b"-\t-\t" if added < 0 else f"{added}\t{deleted}\t".encode()
                out += counts + (b"\0" + old + b"\0" + new if old is not None else new) + b"\0"
            else:
                out += (b"R087\0" + old + b"\0" + new if old is not None else b"M\0" + new) + b"\0"
    return out


def expected(log: list, numstat: bool) -> list[CommitRecord]:
    out = []
    for sha, at, parents, message, changed in log:
        touches = sorted(
            (FileTouch(new.decode("utf-8", "replace"),
                       None if old is None or old == new else old.decode("utf-8", "replace"),
                       added if numstat else -1, deleted if numstat else -1)
             for new, old, added, deleted in changed),
            key=lambda f: (f.path, f.old_path or ""))
        text = message.encode("utf-8", "surrogatepass").decode("utf-8", "replace").strip()
        out.append(CommitRecord(sha, at, text, len(touches), tuple(touches), parents))
    return out


@settings(max_examples=300, deadline=None)
@given(st.lists(commits(), max_size=6), st.booleans(), st.lists(st.integers(1, 40), max_size=30))
def test_any_log_cut_anywhere_parses_to_its_commits(log, numstat, cuts):
    raw = render(log, numstat)
    chunks, pos = [], 0
    for n in cuts:  # git's writes arrive in pieces of any size, splitting any field
        chunks.append(raw[pos:pos + n])
        pos += n
    chunks.append(raw[pos:])
    assert list(parse_log(chunks)) == expected(log, numstat)


def test_an_unfinished_commit_is_not_handed_out_before_close():
    raw = render([("a" * 40, 1, 1, "one", [(b"x.py", None, 1, 1)]),
                  ("b" * 40, 2, 1, "two", [(b"y.py", None, 1, 1)])], numstat=False)
    parser = LogParser()
    first = parser.feed(raw[:-3])  # git failed while writing the second commit's file list
    assert [c.sha for c in first] == ["a" * 40]
    assert [c.files[0].path for c in parser.feed(raw[-3:]) + parser.close()] == ["y.py"]


def _git(root, *args):
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True).stdout


def test_real_git_output_with_odd_names_matches_the_model(make_repo, git_commit):
    odd = "odd\nname \x1e\udcff.py"  # newline, separator, a byte that is not UTF-8
    root = make_repo({"a.py": "A = 1\n" * 20, "blob.bin": b"\x00\x01"})
    git_commit(root, {odd: "X = 1\n", "dir with space/ünï.py": "Y = 1\n"}, "odd\x1e names")
    git_commit(root, {}, "nothing changed")
    git_commit(root, {"a.py": None, "b.py": "A = 1\n" * 20 + "B = 2\n",
                      "blob.bin": b"\x00\x02"}, "rename and binary")
    fmt = "--format=%x1e%H%x00%at%x00%P%x00%B%x00"
    for numstat in (False, True):
        raw = _git(root, "log", "-z", "-M", "--numstat" if numstat else "--name-status", fmt)
        got = list(parse_log([raw[i:i + 7] for i in range(0, len(raw), 7)]))
        assert [c.message for c in got] == ["rename and binary", "nothing changed",
                                            "odd\x1e names", "initial"]
        assert [c.parents for c in got] == [1, 1, 1, 0]
        renamed, empty, names, _ = got
        assert empty.files == ()
        assert {f.path: f.old_path for f in renamed.files} == {"b.py": "a.py",
                                                               "blob.bin": None}
        assert [f.path for f in names.files] == ["dir with space/ünï.py",
                                                 "odd\nname \x1e\ufffd.py"]
        counts = {f.path: (f.added, f.deleted) for f in renamed.files}
        assert counts == ({"b.py": (1, 0), "blob.bin": (-1, -1)} if numstat
                          else {"b.py": (-1, -1), "blob.bin": (-1, -1)})
