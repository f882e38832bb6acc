"""`analyze`, `tests` and `demo`: the impact of a proposed change."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

import click
from rich.console import Console

from impactlens.answer import Answer, budgeted_json, build_answer, json_text
from impactlens.answer.text import print_terminal, render_markdown
from impactlens.api import Project
from impactlens.cli.common import echo_json, is_tty, main, open_project, repo_option
from impactlens.errors import BadInputError, ImpactlensError
from impactlens.fileio import atomic_write
from impactlens.llm.cli_options import LLMOptions, llm_options, next_edit_lines, run_llm_step
from impactlens.settings import Settings

F = TypeVar("F", bound=Callable[..., Any])

DEFAULT_OUT = Path(".impactlens") / "out"


def change_options(f: F) -> F:
    """The proposed-change options shared by `analyze` and `tests` (precedence top-down)."""
    opts = [
        click.option("--before", "before", type=click.Path(dir_okay=False, path_type=Path),
                     help="The file before the edit (with --after)."),
        click.option("--after", "after", type=click.Path(dir_okay=False, path_type=Path),
                     help="The file after the edit (with --before)."),
        click.option("--path", "path", metavar="REPO_PATH",
                     help="Repository path of the --before/--after file "
                          "(default: --after's path inside the repository)."),
        click.option("--diff", "diff", metavar="FILE|-",
                     help="A unified diff applied to the indexed tree ('-' reads stdin)."),
        click.option("--rev", "rev", metavar="A..B|SHA",
                     help="A commit range, or one commit against its parent."),
        click.option("--task", "task", metavar="TEXT",
                     help="Task text for co-change ranking (default: the commit message "
                          "for --rev, else empty)."),
        click.option("--as-of", "as_of", metavar="DATE",
                     help="Date of the change: only git history before it is used "
                          "(default: now; the commit's author date for --rev)."),
        repo_option,
    ]
    for opt in reversed(opts):
        f = opt(f)
    return f


def _read_diff(diff: str) -> tuple[bytes, str]:
    if diff == "-":
        return sys.stdin.buffer.read(), "<stdin>"
    p = Path(diff)
    if not p.is_file():
        raise BadInputError(f"{diff}: diff file not found")
    try:
        return p.read_bytes(), diff
    except OSError as exc:
        raise BadInputError(f"{diff}: cannot read ({exc.strerror})") from None


def _change_kwargs(
    before: Path | None, after: Path | None, path: str | None, diff: str | None,
    rev: str | None, task: str | None, as_of: str | None,
) -> dict[str, Any]:
    kw: dict[str, Any] = {"task": task, "as_of": as_of}
    if before is not None or after is not None:
        kw.update(before=before, after=after, path=path)
    elif path is not None:
        raise BadInputError("--path names the file of a --before/--after pair; give those too")
    elif diff is not None:
        text, source = _read_diff(diff)
        kw.update(diff=text, diff_source=source)
    elif rev is not None:
        kw.update(rev=rev)
    return kw


def _project(repo: Path) -> Project:
    if not repo.is_dir():
        raise BadInputError(f"{repo}: repository directory not found")
    return open_project(repo)


def _analyze(project: Project, kw: dict[str, Any], quiet: bool) -> tuple[Any, Any]:
    """(ProposedChange, ImpactResult), refreshing the index with progress on a terminal."""
    from impactlens.cli.index_cmds import progress_bar

    change = project.proposed_change(**kw)
    if change.note:  # how the input was read, when that is not what was asked
        click.echo(f"impactlens: {change.note}", err=True)
    with progress_bar(is_tty() and not quiet) as progress:
        project.refresh(progress=progress)
    if project.note:
        click.echo(f"impactlens: note: {project.note}", err=True)
    return change, project.analyze(change, refresh=False)


@main.command("analyze")
@change_options
@click.option("--out", "out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Output directory for changes.json, impact.json, test_map.txt "
                   "[default: REPO/.impactlens/out].")
@click.option("--json", "as_json", is_flag=True, help="Print impact.json to stdout.")
@click.option("--format", "fmt", type=click.Choice(["terminal", "markdown", "json"]),
              default="terminal", show_default=True, help="Report format on stdout.")
@click.option("--all", "show_all", is_flag=True,
              help="Show every entry: the report (and the --html page) is not cut to its "
                   "length budget.")
@click.option("--detail", "detail", is_flag=True,
              help="Write and print impact.json whole (every entry, the per-test map and "
                   "the per-change impact sets), past its token budget.")
@click.option("--html", "html_path", type=click.Path(dir_okay=False, path_type=Path),
              default=None, metavar="FILE",
              help="Also write a self-contained HTML report (with the impact DAG drawn) to FILE.")
@llm_options
def analyze_cmd(
    before: Path | None, after: Path | None, path: str | None, diff: str | None,
    rev: str | None, task: str | None, as_of: str | None, repo: Path, out: Path | None,
    as_json: bool, fmt: str, llm_opts: LLMOptions, html_path: Path | None = None,
    show_all: bool = False, detail: bool = False,
) -> None:
    """What else a proposed edit reaches, which tests to run, and in what order to work.

    The edit is, in order of precedence: --before/--after, --diff, --rev, or by
    default the working tree (staged, unstaged and new files) against HEAD.

    Every report fits its reader: the terminal report about 60 lines, --format markdown
    10,000 characters, impact.json 12,000 tokens, the --html page 200 entries; what is
    left out is counted and --all (reports) or --detail (JSON) shows it. `impactlens
    tests` always lists every test to run.
    """
    from impactlens.run import write_outputs

    if as_json:
        fmt = "json"
    project = _project(repo)
    kw = _change_kwargs(before, after, path, diff, rev, task, as_of)
    with project:
        change, result = _analyze(project, kw, quiet=fmt != "terminal")
        settings = project.settings
        out_dir = out if out is not None else project.root / DEFAULT_OUT
        write_outputs(result, out_dir, settings, detail=detail)
        llm_impact = run_llm_step(project.root, result.impact_json(), llm_opts,
                                  settings, change_files=change.files)
    if llm_opts.print_prompt:
        return  # the request body was the output
    answer = build_answer(result)
    data = budgeted_json(answer, settings, detail=detail)
    if llm_impact is not None:
        data["next_edit"] = llm_impact["next_edit"]
        _write(out_dir / "impact.json", json_text(data))
    if html_path is not None:
        from impactlens.serve.html_report import write_html

        write_html(html_path, answer, settings=settings, show_all=show_all,
                   label=change.label, other_files=change.other_files,
                   next_edit=data["next_edit"] if llm_impact else None)
    _print(answer, data, fmt, settings, show_all=show_all, label=change.label,
           other_files=change.other_files, out_dir=out_dir)
    if llm_impact is not None and fmt != "json":
        click.echo("\n".join(["", *next_edit_lines(llm_impact["next_edit"])]))


def _write(path: Path, text: str) -> None:
    try:
        atomic_write(path, text)
    except OSError as exc:
        raise BadInputError(f"{path}: cannot write ({exc.strerror})") from None


def _print(answer: Answer, data: dict[str, Any], fmt: str, settings: Settings, *,
           show_all: bool, label: str, other_files: Sequence[str] = (),
           out_dir: Path | None = None) -> None:
    """The answer on stdout in ``fmt``; JSON is indented on a terminal, compact piped."""
    if fmt == "json":
        click.echo(json_text(data, pretty=is_tty()), nl=not is_tty())
    elif fmt == "markdown":
        click.echo(render_markdown(answer, settings=settings, show_all=show_all, label=label,
                                   other_files=other_files), nl=False)
    else:
        print_terminal(answer, Console(highlight=False), settings=settings, show_all=show_all,
                       label=label, other_files=other_files, out_dir=out_dir)


@main.command("tests")
@change_options
@click.option("--run", "run", is_flag=True,
              help="Run pytest on exactly these tests (in the repository) and exit with its code.")
@click.option("--json", "as_json", is_flag=True, help="Print the ids as a JSON list.")
@click.option("--node-ids", "node_ids", is_flag=True,
              help="Print the ids as pytest names them: relative to its rootdir (e.g. tests/ "
                   "when pytest.ini sits there), as in its reports and --deselect. Default: "
                   "repository paths, which pytest accepts as arguments from the root.")
@click.option("--format", "runner", type=click.Choice(["ids", "jest", "vitest"]),
              default="ids", show_default=True,
              help="ids: one per line; jest/vitest: the command running the selected "
                   "JavaScript/TypeScript tests (their files plus a -t name pattern), and "
                   "the pytest command for the Python ones.")
def tests_cmd(
    before: Path | None, after: Path | None, path: str | None, diff: str | None,
    rev: str | None, task: str | None, as_of: str | None, repo: Path, run: bool,
    as_json: bool, node_ids: bool, runner: str = "ids",
) -> None:
    """The targeted validation set of a proposed edit: pytest node ids, one per line."""
    from impactlens.index.python import pytest_config

    project = _project(repo)
    kw = _change_kwargs(before, after, path, diff, rev, task, as_of)
    with project:
        _change, result = _analyze(project, kw, quiet=True)
        root = project.root
    ids = list(result.validate)
    if result.tests_note:  # how a recorded run shaped them, what ran at start-up
        click.echo(f"impactlens: {result.tests_note}", err=True)
    base = pytest_config.rootdir(root, ids) if ids else ""
    if base and not run:
        click.echo(f"impactlens: pytest's rootdir for these tests is {base}/: its node ids "
                   f"drop the {base}/ prefix{' (printed so)' if node_ids else ''}", err=True)
    shown = [pytest_config.node_id(t, base) for t in ids] if node_ids else ids
    if as_json:
        echo_json(shown)
    elif runner != "ids" and not run:
        for line in runner_commands(shown, runner):
            click.echo(line)
    elif not run:
        for tid in shown:
            click.echo(tid)
    if not run:
        return
    if not ids:
        click.echo("impactlens: no tests selected; nothing to run", err=True)
        return
    click.echo(f"impactlens: running {len(ids)} test(s) with pytest", err=True)
    try:  # repository paths: pytest resolves its arguments from where it starts
        proc = subprocess.run([sys.executable, "-m", "pytest", *ids], cwd=root, check=False)
    except OSError as exc:
        raise ImpactlensError(f"{sys.executable}: cannot run pytest ({exc.strerror})") from None
    if proc.returncode in (4, 5):  # usage error (not found), no tests collected
        click.echo(f"impactlens: WARNING: pytest collected none of the {len(ids)} selected "
                   f"tests (exit code {proc.returncode}; rootdir {base or '.'}/)", err=True)
    click.get_current_context().exit(proc.returncode)


_JS_ID = " > "  # a Jest/Vitest test id: `file > describe > test`
_PLACEHOLDER = re.compile(r"%[sdifjoOp#%]|\$[A-Za-z_][\w.]*")


def runner_commands(ids: list[str], runner: str) -> list[str]:
    """Shell commands running ``ids``: ``npx jest|vitest run FILES -t PATTERN`` for the
    JavaScript/TypeScript ones (the pattern matches each test's full name, its describe
    titles and its own joined by spaces, as the runner's ``-t`` does; an ``.each`` name's
    placeholders match anything) and ``python -m pytest IDS`` for the rest."""
    js = [t for t in ids if _JS_ID in t]
    py = [t for t in ids if _JS_ID not in t]
    out = []
    if js:
        files = sorted({t.split(_JS_ID, 1)[0] for t in js})
        names = sorted({" ".join(t.split(_JS_ID)[1:]) for t in js})
        pattern = "|".join(_name_pattern(n) for n in names)
        cmd = ["npx", "jest"] if runner == "jest" else ["npx", "vitest", "run"]
        out.append(shlex.join([*cmd, *files, "-t", f"^({pattern})$"]))
    if py:
        out.append(shlex.join(["python", "-m", "pytest", *py]))
    return out


def _name_pattern(name: str) -> str:
    parts = _PLACEHOLDER.split(name)
    return ".*".join(re.escape(p) for p in parts)


def _example_dir() -> Path:
    ref = resources.files("impactlens") / "examples" / "shop"
    p = Path(str(ref))
    if not p.is_dir():
        raise ImpactlensError("the bundled example (impactlens/examples/shop) is not installed")
    return p


_TEMP = "\0temp"  # `--keep` without a directory: keep the temporary copy


def _demo_dir(keep: str | None) -> tuple[Path, Path | None]:
    """(where the demo repository goes, the temporary directory to remove afterwards)."""
    if keep is None or keep == _TEMP:
        tmp = Path(tempfile.mkdtemp(prefix="impactlens-demo-"))
        return tmp / "shop", None if keep else tmp
    repo = Path(keep).resolve()
    if repo.exists() and (not repo.is_dir() or any(repo.iterdir())):
        raise BadInputError(f"{keep}: --keep needs a new or empty directory")
    return repo, None


@main.command("demo")
@click.option("--keep", "keep", is_flag=False, flag_value=_TEMP, default=None,
              metavar="[DIR]",
              help="Keep the demo repository: in DIR (new or empty), or, with no DIR, in a "
                   "temporary directory whose path is printed.")
@click.option("--format", "fmt", type=click.Choice(["terminal", "markdown", "json"]),
              default="terminal", show_default=True, help="Report format on stdout.")
@click.option("--all", "show_all", is_flag=True, help="Show every entry, uncut.")
def demo_cmd(keep: str | None, fmt: str, show_all: bool) -> None:
    """Analyze a sample edit on the bundled example shop: no setup needed."""
    from impactlens.index import git
    from impactlens.run import write_outputs

    src = _example_dir()
    repo, remove = _demo_dir(keep)
    err = Console(stderr=True, highlight=False)
    try:
        shutil.copytree(src, repo, dirs_exist_ok=True, ignore=shutil.ignore_patterns(
            "__pycache__", "*.pyc", ".impactlens", "sample_edit.diff"))
        patch = (src / "sample_edit.diff").read_bytes()
        git.init_and_commit(repo, "shop: initial import", date="2024-01-01T00:00:00+00:00")
        if fmt == "terminal":
            err.print(f"[dim]demo repository: {repo}[/dim]" if remove is None else
                      "[dim]demo repository: a temporary copy of the bundled example shop[/dim]")
        with open_project(repo) as project:
            summary = project.index()
            if fmt == "terminal":
                err.print(f"[dim]indexed {summary.files} files: {summary.symbols} symbols, "
                          f"{summary.edges} edges[/dim]")
            git.apply(repo, patch)
            if fmt == "terminal":
                err.print("[dim]applied sample_edit.diff to the working tree[/dim]")
            change = project.proposed_change()
            result = project.analyze(change)
            settings = project.settings
            out_dir = repo / DEFAULT_OUT
            write_outputs(result, out_dir, settings)
        answer = build_answer(result)
        _print(answer, budgeted_json(answer, settings), fmt, settings, show_all=show_all,
               label=f"sample_edit.diff ({change.label})",
               out_dir=out_dir if remove is None else None)
    finally:
        if remove is not None:
            shutil.rmtree(remove, ignore_errors=True)
    if remove is None:
        click.echo(f"demo repository kept at {repo} (remove it when done); try "
                   f"`impactlens tests --repo {repo}`", err=True)
    elif fmt == "terminal":
        click.echo("the demo repository was removed; `impactlens demo --keep DIR` keeps it "
                   "in DIR", err=True)
