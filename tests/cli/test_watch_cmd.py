"""`impactlens watch` as a real process: a save is indexed, --analyze prints the report,
Ctrl-C stops it cleanly."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO

from click.testing import CliRunner

import impactlens
from impactlens.api import Project
from impactlens.cli import main

FILES = {
    "shop/__init__.py": "",
    "shop/pricing.py": "def price(amount, rate):\n    return amount * (1 + rate)\n",
    "shop/orders.py": ("from shop.pricing import price\n\n\n"
                       "def total(amount):\n    return price(amount, 0.2)\n"),
    "tests/test_orders.py": ("from shop.orders import total\n\n\n"
                             "def test_total():\n    assert total(10) == 12\n"),
}
_SRC = str(Path(impactlens.__file__).resolve().parents[1])  # this checkout's impactlens


class Watch:
    """``python -m impactlens watch ARGS`` with its stderr read line by line."""

    def __init__(self, *args: str) -> None:
        env = {**os.environ, "PYTHONPATH": _SRC, "PYTHONDONTWRITEBYTECODE": "1"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "impactlens", "watch", *args], env=env, text=True,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            # a shell's background job ignores SIGINT, and the child would inherit that
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        self.lines: queue.Queue[str] = queue.Queue()
        self.out: list[str] = []
        self.err: list[str] = []
        self._readers = [threading.Thread(target=self._read, args=args, daemon=True)
                         for args in ((self.proc.stdout, self.out, False),
                                      (self.proc.stderr, self.err, True))]
        for reader in self._readers:
            reader.start()

    def _read(self, stream: IO[str], into: list[str], tell: bool) -> None:
        for line in stream:
            into.append(line)
            if tell:
                self.lines.put(line)

    def wait_for(self, text: str, timeout: float = 60) -> None:
        while True:
            line = self.lines.get(timeout=timeout)
            if text in line:
                return

    def finish(self, timeout: float = 60) -> tuple[int, str, str]:
        code = self.proc.wait(timeout)
        for reader in self._readers:
            reader.join(timeout)
        return code, "".join(self.out), "".join(self.err)


def test_a_save_is_indexed_and_the_analysis_reprinted(make_repo) -> None:
    root = make_repo(FILES)
    watch = Watch(str(root), "--analyze", "--max-refreshes", "1", "--timeout", "120")
    watch.wait_for("impactlens: watching")
    (root / "shop" / "pricing.py").write_text(
        "def price(amount, rate, currency):\n    return amount * (1 + rate)\n")
    code, out, err = watch.finish()
    assert code == 0, err
    assert err.splitlines()[-1] == "impactlens: stopped watching"
    assert "Traceback" not in err
    assert "(1 parsed, incremental)" in err.split("impactlens: watching")[1]
    # the start-up report (a clean tree), then the report after the save
    first, _, second = out.partition("no Python definitions changed")
    assert "impact of working tree vs HEAD" in first
    assert "method-signature shop.pricing.price" in second
    assert "shop.orders.total" in second.split("MUST-INSPECT")[1].split("MAY-IMPACT")[0]
    assert "tests/test_orders.py — 1 test" in second
    with Project(root) as project:  # the index the watcher refreshed, read as it is
        assert project.resolve_symbol("shop.pricing.price").signature.count(",") == 2


def test_ctrl_c_stops_cleanly(make_repo) -> None:
    root = make_repo(FILES)
    watch = Watch(str(root), "--timeout", "120")
    watch.wait_for("impactlens: watching")
    (root / "shop" / "extra.py").write_text("def extra():\n    return 1\n")
    watch.wait_for("indexed 5 files (1 parsed, incremental)")
    watch.proc.send_signal(signal.SIGINT)
    code, out, err = watch.finish()
    assert code == 0 and out == ""
    assert err.splitlines()[-1] == "impactlens: stopped watching"
    assert "Traceback" not in err and "interrupted" not in err
    with Project(root) as project:
        assert project.resolve_symbol("shop.extra.extra").file == "shop/extra.py"


def test_a_bad_path_is_one_line(tmp_path: Path) -> None:
    res = CliRunner().invoke(main, ["watch", str(tmp_path / "nope")])
    assert res.exit_code == 2
    assert res.output.strip().splitlines() == [
        f"impactlens: error: {tmp_path / 'nope'}: repository directory not found"]
    (tmp_path / "empty").mkdir()
    res = CliRunner().invoke(main, ["watch", str(tmp_path / "empty")])
    assert res.exit_code == 2 and "holds no Python files" in res.output


def test_timeout_ends_the_watch(make_repo) -> None:
    root = make_repo(FILES)
    res = CliRunner().invoke(main, ["watch", str(root), "--timeout", "0.3"])
    assert res.exit_code == 0, res.output
    assert "impactlens: watching" in res.output
    assert res.output.strip().splitlines()[-1] == "impactlens: stopped watching"
