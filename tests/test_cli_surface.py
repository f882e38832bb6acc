"""The command line as a user meets it: help on every option, benchmarks kept apart."""

from __future__ import annotations

from collections.abc import Iterator

import click
from click.testing import CliRunner

from impactlens.cli import main
from impactlens.cli.bench_cmds import HARNESSES, bench_main


def walk(command: click.Command, path: str) -> Iterator[tuple[str, click.Command]]:
    """Every command under ``command`` (itself included) with its full name."""
    yield path, command
    if isinstance(command, click.Group):
        ctx = click.Context(command)  # (the root group loads a command's module when asked)
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            assert sub is not None
            yield from walk(sub, f"{path} {name}")


def commands() -> list[tuple[str, click.Command]]:
    return [*walk(main, "impactlens"), *walk(bench_main, "impactlens-bench")]


def test_the_walk_reaches_every_command() -> None:
    names = {name for name, _ in commands()}
    assert {"impactlens analyze", "impactlens export callgraph", "impactlens mcp",
            "impactlens-bench history"} <= names


def test_every_option_has_help() -> None:
    missing = [f"{name} {'/'.join(p.opts)}" for name, cmd in commands() for p in cmd.params
               if isinstance(p, click.Option) and not p.hidden and not (p.help or "").strip()]
    assert missing == []


def test_every_command_has_help() -> None:
    missing = [name for name, cmd in commands() if not (cmd.help or cmd.short_help or "").strip()]
    assert missing == []


def test_benchmarks_are_not_in_the_user_help() -> None:
    out = CliRunner().invoke(main, ["--help"]).output
    assert "bench" not in out


def test_impactlens_bench_lists_the_harnesses_and_no_checkout_file() -> None:
    out = CliRunner().invoke(bench_main, ["--help"], prog_name="impactlens-bench").output
    assert all(name in out for name in HARNESSES)
    assert "README" not in out and "https://github.com/impactlens/impactlens" in out


def test_impactlens_bench_is_a_hidden_alias_that_says_so(tmp_path) -> None:
    result = CliRunner().invoke(main, ["bench", "replay", str(tmp_path / "missing")])
    assert "`impactlens bench` is deprecated" in result.output
    assert "impactlens-bench" in result.output
    direct = CliRunner().invoke(bench_main, ["replay", str(tmp_path / "missing")])
    assert "deprecated" not in direct.output
    assert result.exit_code == direct.exit_code != 0


def test_shell_completion_as_documented() -> None:
    """README: ``eval "$(_IMPACTLENS_COMPLETE=bash_source impactlens)"``; the script it
    installs asks the command back with ``bash_complete``."""
    source = CliRunner().invoke(main, [], prog_name="impactlens",
                                env={"_IMPACTLENS_COMPLETE": "bash_source"})
    assert "_impactlens_completion" in source.output
    asked = CliRunner().invoke(main, [], prog_name="impactlens",
                               env={"_IMPACTLENS_COMPLETE": "bash_complete",
                                    "COMP_WORDS": "impactlens analyze --fo", "COMP_CWORD": "2"})
    assert asked.output.split() == ["plain,--format"]
