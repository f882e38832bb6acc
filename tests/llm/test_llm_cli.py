"""@llm_options / apply_llm on a click command, through the real root-group error handling."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner
from llm_helpers import SEED, VALIDATE, VIEW, ChatServer

from impactlens.cli.common import main
from impactlens.llm.cli_options import LLMOptions, apply_llm, llm_options
from impactlens.settings import DEFAULT


@click.group(cls=type(main))
def root() -> None:
    """A root group with impactlens' error handling."""


@root.command()
@click.argument("impact_path", type=click.Path(exists=True, path_type=Path))
@llm_options
def analyze(impact_path: Path, llm_opts: LLMOptions) -> None:
    impact = json.loads(impact_path.read_text())
    result = apply_llm(impact, llm_opts, DEFAULT, body_guard=None)
    if llm_opts.print_prompt:
        return
    if result is not None:
        impact["next_edit"] = result
    click.echo(json.dumps(impact.get("next_edit")))


@pytest.fixture
def impact_file(tmp_path: Path, impact: dict[str, Any]) -> Path:
    path = tmp_path / "impact.json"
    path.write_text(json.dumps(impact))
    return path


def _run(*args: str, env: dict[str, str] | None = None) -> Any:
    return CliRunner().invoke(root, list(args), env=env, catch_exceptions=False)


def test_options_are_listed() -> None:
    out = _run("analyze", "--help").output
    for flag in (
        "--llm",
        "--llm-base-url",
        "--llm-model",
        "--llm-api-key",
        "--llm-timeout",
        "--print-prompt",
        "--samples",
    ):
        assert flag in out


def test_without_llm_nothing_is_sent(chat_server: ChatServer, impact_file: Path) -> None:
    result = _run("analyze", str(impact_file), "--llm-base-url", chat_server.url)
    assert result.exit_code == 0
    assert result.output.strip() == "null"
    assert chat_server.count == 0


def test_llm_stores_the_decision(chat_server: ChatServer, impact_file: Path) -> None:
    chat_server.script(chat_server.reply({"next_edits": [{"entity": VIEW, "reason": "r"}]}))
    result = _run(
        "analyze",
        str(impact_file),
        "--llm",
        "--llm-base-url",
        chat_server.url,
        "--llm-model",
        "m",
        "--llm-timeout",
        "2",
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["next_edits"] == [{"entity": VIEW, "reason": "r"}]
    assert chat_server.count == 1


def test_llm_from_environment(chat_server: ChatServer, impact_file: Path) -> None:
    chat_server.script(chat_server.status(500))
    env = {"IMPACTLENS_LLM_BASE_URL": chat_server.url, "IMPACTLENS_LLM_MODEL": "m"}
    result = _run("analyze", str(impact_file), "--llm", env=env)
    assert result.exit_code == 0
    out = json.loads(result.output)
    assert out["next_edit"] == "failed" and out["fallback"] == "batch_order"
    assert out["order"][:3] == [SEED, VALIDATE, VIEW]
    assert chat_server.count == 1


def test_llm_without_configuration_is_a_one_line_error(impact_file: Path) -> None:
    result = CliRunner().invoke(root, ["analyze", str(impact_file), "--llm"])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert lines == [
        "impactlens: error: LLM not configured: set IMPACTLENS_LLM_BASE_URL and "
        "IMPACTLENS_LLM_MODEL (or pass --llm-base-url / --llm-model)"
    ]


def test_print_prompt_sends_nothing(chat_server: ChatServer, impact_file: Path) -> None:
    result = _run("analyze", str(impact_file), "--print-prompt", "--llm-model", "tiny")
    assert result.exit_code == 0
    body = json.loads(result.output)
    assert body["model"] == "tiny"
    assert body["temperature"] == 0 and body["max_completion_tokens"] == 1024
    assert body["messages"][1]["content"].startswith("CHANGE PLAN: method-signature change")
    assert chat_server.count == 0


def test_samples_option(chat_server: ChatServer, impact_file: Path) -> None:
    chat_server.script(chat_server.reply({"next_edits": [{"entity": VALIDATE, "reason": "r"}]}))
    result = _run(
        "analyze",
        str(impact_file),
        "--llm",
        "--samples",
        "3",
        "--llm-base-url",
        chat_server.url,
        "--llm-model",
        "m",
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["samples"] == {"requested": 3, "ok": 3, "failed": []}
    assert chat_server.count == 3
    assert {b["temperature"] for b in chat_server.bodies} == {0.7}


def test_bad_samples_value(impact_file: Path) -> None:
    result = CliRunner().invoke(root, ["analyze", str(impact_file), "--samples", "0"])
    assert result.exit_code == 2
