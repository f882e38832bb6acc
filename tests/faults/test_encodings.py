"""Every reader of source text reads what the indexer reads: a UTF-8 BOM, a PEP 263
coding cookie and undecodable bytes (kept as surrogate escapes) alike."""

from __future__ import annotations

import json

import pytest
from conftest import impactlens

from impactlens.fileio import decode_source, read_source
from impactlens.index.python import extract_file

BODY = "def total(xs):\n    s = 'é'\n    for x in xs:\n        s += x\n    return s\n"
SOURCES = {
    "bom": b"\xef\xbb\xbf" + BODY.encode("utf-8"),
    "latin-1 cookie": b"# -*- coding: latin-1 -*-\n" + BODY.encode("latin-1"),
    "cp1252 cookie": b"# vim: set fileencoding=cp1252 :\n" + BODY.encode("cp1252"),
    "plain utf-8": BODY.encode("utf-8"),
}


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_decoder_reads_what_the_interpreter_reads(name):
    data = SOURCES[name]
    text = decode_source(data)
    assert "s = 'é'" in text and not text.startswith("\ufeff")
    compile(data, "m.py", "exec")  # the interpreter agrees the bytes are this source
    facts = extract_file("m.py", data, "m", False, False)
    assert facts is not None


def test_undecodable_bytes_are_escaped_not_lost(tmp_path):
    data = b"x = '\xff\xfe'\n"
    assert decode_source(data).encode("utf-8", "surrogateescape") == data
    with pytest.raises((UnicodeDecodeError, SyntaxError)):
        decode_source(data, strict=True)
    (tmp_path / "m.py").write_bytes(data)
    assert read_source(tmp_path / "m.py") == decode_source(data)
    assert read_source(tmp_path / "missing.py") is None


@pytest.mark.parametrize("name", ["bom", "latin-1 cookie"])
def test_slice_reads_files_index_parses(make_repo, name):
    root = make_repo({"app/__init__.py": ""})
    line = 5 if name == "bom" else 6  # the cookie adds a line
    (root / "app/calc.py").write_bytes(SOURCES[name])
    proc = impactlens("index", str(root))
    assert proc.returncode == 0, proc.stderr
    proc = impactlens("slice", f"app/calc.py:{line - 1}", "--repo", str(root), "--json")
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    got = json.loads(proc.stdout)
    assert any("return s" in s["text"] for s in got["affected_statements"]), got
