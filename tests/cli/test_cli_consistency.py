"""One CLI vocabulary: noun groups, old names as warned aliases, list options, ``--format``,
``--out`` vs ``--out-dir``, ``--set``, completion from the registries, a grouped ``--help``."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from answerx.cli import PANELS, app
from answerx.cli.options import parse_set, split_list
from answerx.experiments import runner as experiments_runner
from answerx.extraction import TASKS
from answerx.reasoning import APPROACHES, STRATEGIES
from answerx.testing import FakeProviderServer
from documentation import documentation_text
from experiments.runner_helpers import GoldModel, write_config

runner = CliRunner()
DEPRECATED = re.compile(r"note: (.+) is deprecated and goes away in the next release; use (.+)")


def invoke(*args: str | Path, input: str | None = None) -> Result:
    return runner.invoke(app, [str(a) for a in args], input=input)


def complete(words: str) -> list[str]:
    """What the shell would offer for the last word of ``words`` (zsh's protocol)."""
    result = runner.invoke(
        app, [], prog_name="answerx",
        env={"_ANSWERX_COMPLETE": "complete_zsh", "_TYPER_COMPLETE_ARGS": f"answerx {words}"},
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return re.findall(r'"([^"]*)"', result.stdout)


@pytest.fixture
def stored(
    fake_provider: FakeProviderServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[str, Path]:
    """A finished run (4 arithmetic questions × 2 approaches on the fake server) and its store."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-consistency")
    fake_provider.set_default(GoldModel())
    config = write_config(tmp_path / "run.yaml", fake_provider.openai_base_url)
    result = invoke("run", config, "-q", "--no-report")
    match = re.search(r"run (\d{8}-\d{6}-[0-9a-f]{4}) finished", result.stderr)
    assert match, result.output
    return match.group(1), tmp_path / "runs" / "answerx.db"


# --- noun groups ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("group", "verbs"),
    [
        ("runs", ("list", "show", "export", "delete", "recover", "score", "report")),
        ("model", ("serve", "status")),
        ("approaches", ("list",)),
        ("index", ("build", "search")),
    ],
)
def test_each_noun_group_offers_its_verbs(group: str, verbs: tuple[str, ...]) -> None:
    result = invoke(group, "--help")

    assert result.exit_code == 0, result.output
    listed = re.findall(r"^│ (\S+)\s", result.stdout, re.M)
    assert set(verbs) <= set(listed)


def test_runs_score_and_runs_report_work_on_a_stored_run(
    stored: tuple[str, Path], tmp_path: Path
) -> None:
    run_id, db = stored

    scored = invoke("runs", "score", run_id, "--db", db)
    reported = invoke("runs", "report", run_id, "--db", db, "--out-dir", tmp_path / "r")

    assert scored.exit_code == reported.exit_code == 0, scored.output + reported.output
    assert f"run {run_id}: 8 items, 8/8 correct" in scored.stderr
    assert (tmp_path / "r" / run_id / "report.json").is_file()
    assert not DEPRECATED.search(scored.stderr + reported.stderr)


# --- old names: hidden aliases that warn ---------------------------------------------------


@pytest.mark.parametrize(("old", "new"), [("score", "runs score"), ("report", "runs report")])
def test_a_moved_command_still_runs_under_its_old_name_and_says_the_new_one(
    stored: tuple[str, Path], old: str, new: str
) -> None:
    run_id, db = stored

    via_alias = invoke(old, run_id, "--db", db)
    via_group = invoke(*new.split(), run_id, "--db", db)

    assert via_alias.exit_code == 0, via_alias.output
    assert via_alias.stdout == via_group.stdout
    assert DEPRECATED.search(via_alias.stderr).groups() == (f"answerx {old}", f"answerx {new}")


def test_bare_approaches_still_lists_them_with_a_deprecation_note() -> None:
    result = invoke("approaches")

    assert result.exit_code == 0, result.output
    assert "chain_of_thought" in result.stdout and "search_r1" in result.stdout
    assert "use answerx approaches list" in result.stderr


@pytest.mark.parametrize(
    ("old", "new", "why"),
    [
        (["--markdown"], ["--format", "markdown"], "--markdown"),
        (["--out", "OUT"], ["--out-dir", "OUT"], "--out"),
    ],
)
def test_an_old_option_spelling_still_works_and_warns(
    stored: tuple[str, Path], tmp_path: Path, old: list[str], new: list[str], why: str
) -> None:
    run_id, db = stored
    expand = {"OUT": str(tmp_path / "reports")}

    before = invoke("runs", "report", run_id, "--db", db, *(expand.get(a, a) for a in old))
    after = invoke("runs", "report", run_id, "--db", db, *(expand.get(a, a) for a in new))

    assert before.exit_code == after.exit_code == 0, before.output + after.output
    assert before.stdout == after.stdout
    assert DEPRECATED.search(before.stderr).group(1) == why
    assert not DEPRECATED.search(after.stderr)


def test_the_old_json_flag_prints_what_format_json_prints_and_warns() -> None:
    args = ("verify", "The answer is 42.", "--gold", "42")

    old = invoke(*args, "--json")
    new = invoke(*args, "--format", "json")

    assert old.exit_code == new.exit_code == 0, old.output
    timeless = [{**json.loads(r.stdout), "elapsed_s": None} for r in (old, new)]
    assert timeless[0] == timeless[1] and timeless[0]["correct"] is True
    assert DEPRECATED.search(old.stderr).groups() == ("--json", "--format json")


def test_hidden_aliases_stay_out_of_the_help() -> None:
    result = invoke("--help")

    listed = set(re.findall(r"^│ (\S+)\s", result.stdout, re.M))
    assert {"score", "report"}.isdisjoint(listed)
    assert "--markdown" not in invoke("runs", "report", "--help").stdout


# --- list options: repeatable and comma-separated ------------------------------------------


def test_split_list_flattens_repeats_and_commas_and_keeps_not_given_apart() -> None:
    assert split_list(["none,chain_of_thought", " reflection ", "a,,b"]) == [
        "none", "chain_of_thought", "reflection", "a", "b",
    ]  # fmt: skip
    assert split_list(None) is None


def test_run_takes_list_options_repeated_and_comma_separated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[Any] = []

    def capture(cfg: Any, **_: Any) -> None:
        seen.append(cfg)
        raise KeyboardInterrupt  # stop before anything runs

    monkeypatch.setattr(experiments_runner, "run_experiment", capture)
    config = write_config(tmp_path / "run.yaml", "http://127.0.0.1:9/v1")

    result = invoke(
        "run", config, "-q", "--approaches", "none,chain_of_thought", "--approaches", "reflection",
        "--strategies", "structured,two_stage", "--target", "openai/a,openai/b",
        "--target", "openai/c", "--dataset", "arithmetic,multiple_choice",
    )  # fmt: skip

    assert result.exit_code == 130, result.output
    cfg = seen[0]
    assert cfg.approaches == ["none", "chain_of_thought", "reflection"]
    assert cfg.strategies == ["structured", "two_stage"]
    assert [t.model for t in cfg.targets] == ["a", "b", "c"]
    assert len(cfg.datasets) == 2


def test_a_wrong_name_inside_a_comma_list_is_named_with_a_suggestion(tmp_path: Path) -> None:
    config = write_config(tmp_path / "run.yaml", "http://127.0.0.1:9/v1")

    result = invoke("run", config, "--approaches", "none,chain_of_thougt")

    assert result.exit_code == 2
    assert "unknown approach 'chain_of_thougt' (did you mean 'chain_of_thought'?)" in result.stderr


def test_numbers_are_accepted_repeated_or_comma_separated() -> None:
    text = "Output: (10 - 4) * (13 - 9) = 24"

    repeated = invoke("extract", "-t", "game24", "-n", "4", "-n", "9", "-n", "10,13", text)
    one = invoke("extract", "-t", "game24", "-n", "4,9,10,13", text)

    assert repeated.exit_code == one.exit_code == 0, repeated.output
    assert json.loads(repeated.stdout) == json.loads(one.stdout)
    assert json.loads(one.stdout)["valid"] is True  # the numbers reached the validator


# --- --format ------------------------------------------------------------------------------


def test_runs_list_prints_each_format(stored: tuple[str, Path]) -> None:
    run_id, db = stored

    table = invoke("runs", "list", "--db", db)
    as_json = invoke("runs", "list", "--db", db, "--format", "json")
    as_jsonl = invoke("runs", "list", "--db", db, "--format", "jsonl")
    markdown = invoke("runs", "list", "--db", db, "--format", "markdown")

    assert run_id in table.stdout and "┃ run" in table.stdout
    [row] = json.loads(as_json.stdout)
    assert (row["run"], row["items"], row["status"]) == (run_id, 8, "finished")
    assert [json.loads(line) for line in as_jsonl.stdout.splitlines()] == [row]
    lines = markdown.stdout.splitlines()
    assert lines[0] == "| run | name | status | items | started | finished | answerx |"
    assert lines[2].startswith(f"| {run_id} | test-run | finished | 8 |")


def test_runs_report_prints_its_data_as_json(stored: tuple[str, Path]) -> None:
    run_id, db = stored

    result = invoke("runs", "report", run_id, "--db", db, "--format", "json")
    shown = invoke("runs", "show", run_id, "--db", db)

    assert result.exit_code == shown.exit_code == 0, result.output
    assert json.loads(result.stdout)["runs"][0]["run_id"] == run_id
    for printed in (result.stdout, shown.stdout):  # --format json, printed one way
        assert printed == json.dumps(json.loads(printed), ensure_ascii=False, indent=2) + "\n"


def test_approaches_list_as_markdown_is_a_table_with_a_row_an_approach() -> None:
    result = invoke("approaches", "list", "--format", "markdown")

    lines = result.stdout.splitlines()
    assert lines[0] == "| approach | searches | description |"
    assert len(lines) == 2 + len(APPROACHES)  # the search loops are in the one registry


@pytest.mark.parametrize(
    ("args", "offered"),
    [
        (["ask", "q", "--format", "csv"], "table, json"),
        (["runs", "list", "--format", "parquet"], "table, json, jsonl, markdown"),
        (["extract", "x", "--format", "markdown"], "table, json, jsonl, csv, parquet"),
    ],
)
def test_a_format_the_command_lacks_is_a_usage_error_naming_its_formats(
    args: list[str], offered: str
) -> None:
    result = invoke(*args)

    assert result.exit_code == 2
    assert f"this command prints {offered}" in result.stderr


def test_format_completion_offers_only_the_commands_formats() -> None:
    assert complete("runs list --format ") == ["table", "json", "jsonl", "markdown"]
    assert complete("ask q --format ") == ["table", "json"]


# --- --out is a file, --out-dir a directory ------------------------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["extract", "--examples", "--out-dir", "somewhere"], "--out-dir is for --engine ray"),
        (["index", "build", "--bundled", "--out-dir", "somewhere"], "writes one file: give --out"),
    ],
)
def test_out_dir_is_refused_where_the_output_is_one_file(
    args: list[str], message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)

    result = invoke(*args)

    assert result.exit_code == 2
    assert message in result.stderr
    assert not (tmp_path / "somewhere").exists()


def test_a_ray_run_writes_into_out_dir_and_out_directory_is_an_old_spelling(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from answerx.batch.files import BatchSummary
    from answerx.integrations import ray as ray_plugin

    destinations: list[str | None] = []

    def fake_ray(command: str, file: str, out: str | None, **_: Any) -> ray_plugin.RayRunResult:
        destinations.append(out)  # Ray itself is not needed to see where the files would go
        return ray_plugin.RayRunResult(str(out), "error", BatchSummary())

    monkeypatch.setattr(ray_plugin, "run_ray_cli", fake_ray)
    args = ("extract", "--file", str(tmp_path / "in.parquet"), "--engine", "ray")

    new = invoke(*args, "--out-dir", tmp_path / "new")
    old = invoke(*args, "--out", tmp_path / "old")

    assert new.exit_code == old.exit_code == 0, new.output + old.output
    assert destinations == [str(tmp_path / "new"), str(tmp_path / "old")]
    assert not DEPRECATED.search(new.stderr)
    assert DEPRECATED.search(old.stderr).groups() == (
        "--out DIRECTORY with --engine ray",
        "--out-dir",
    )


def test_verify_refuses_a_format_for_a_file_whose_extension_decides_it(tmp_path: Path) -> None:
    records = tmp_path / "in.jsonl"
    records.write_text('{"raw_output": "42", "gold": "42"}\n', encoding="utf-8")

    result = invoke("verify", "--file", records, "--format", "json")

    assert result.exit_code == 2
    assert "--format is for a single text or --self-check" in result.stderr


def test_run_writes_its_report_into_out_dir_and_report_dir_is_an_old_spelling(
    fake_provider: FakeProviderServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-consistency")
    fake_provider.set_default(GoldModel())
    config = write_config(tmp_path / "run.yaml", fake_provider.openai_base_url)

    new = invoke("run", config, "-q", "--out-dir", tmp_path / "new")
    old = invoke("run", config, "-q", "--no-cache", "--report-dir", tmp_path / "old")

    assert new.exit_code == old.exit_code == 0, new.output + old.output
    assert list((tmp_path / "new").glob("*/report.md")) and list(
        (tmp_path / "old").glob("*/report.md")
    )
    assert DEPRECATED.search(old.stderr).groups() == ("--report-dir", "--out-dir")


# --- --set ---------------------------------------------------------------------------------


def test_set_values_are_yaml_everywhere() -> None:
    assert parse_set(["rounds=2", "multi_call=true", "names=[a, b]", "temperature=0.5"]) == {
        "rounds": 2, "multi_call": True, "names": ["a", "b"], "temperature": 0.5,
    }  # fmt: skip
    assert parse_set(["note=a: b: c", "empty="]) == {"note": "a: b: c", "empty": None}


@pytest.mark.parametrize(
    "args", [["ask", "q", "--set", "rounds"], ["run", "x.yaml", "--set", "=4"]]
)
def test_a_set_without_key_and_value_is_the_same_usage_error_in_every_command(
    args: list[str],
) -> None:
    result = invoke(*args)

    assert result.exit_code == 2
    assert "--set: expected KEY=VALUE" in result.stderr


# --- names are choices, completed from the registries -------------------------------------


def test_completion_offers_the_registries_names() -> None:
    assert complete("ask q --approach ") == list(APPROACHES)
    assert complete("ask q --strategy ") == list(STRATEGIES)
    assert complete("extract --task ") == list(TASKS)
    assert complete("verify --task m") == [t for t in TASKS if t.startswith("m")]
    assert complete("run c.yaml --approaches none,chain") == [
        f"none,{name}" for name in APPROACHES if name.startswith("chain")
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["ask", "q", "-a", "reflexion"], "approach 'reflexion' (did you mean 'reflection'?)"),
        (["ask", "q", "--strategy", "two-stage"], "'two-stage' (did you mean 'two_stage'?)"),
        (["verify", "x", "-g", "1", "-t", "maths"], "unknown task 'maths' (did you mean 'math'?)"),
        (["reward-func", "write", "r.py", "--task", "mcq"], "unknown task 'mcq'"),
    ],
)  # fmt: skip
def test_an_unknown_name_is_refused_before_any_work_with_a_suggestion(
    args: list[str], message: str
) -> None:
    result = invoke(*args)

    assert result.exit_code == 2
    assert message in result.stderr
    assert not Path("r.py").exists()


# --- grouped help ----------------------------------------------------------------------------


def test_the_top_level_help_lists_every_command_under_its_panel() -> None:
    result = invoke("--help")

    assert result.exit_code == 0
    text = result.stdout
    starts = {title: text.index(f"─ {title} ─") for title in PANELS}
    assert list(starts) == sorted(starts, key=starts.__getitem__)  # panels in PANELS' order
    ends = [*sorted(starts.values())[1:], len(text)]
    for (title, start), end in zip(starts.items(), ends, strict=True):
        listed = re.findall(r"^│ (\S+)\s", text[start:end], re.M)
        assert listed and set(listed) == set(PANELS[title]), title


def test_the_readme_command_table_matches_the_help_panels() -> None:
    readme = documentation_text()
    section = readme.split("lists the commands by purpose", 1)[1].split("\n\n", 2)[1]
    rows = re.findall(r"^\| ([^|]+?) \| (.+) \|$", section, re.M)[1:]  # after the header

    documented = {panel: re.findall(r"`([\w-]+)", commands) for panel, commands in rows}
    assert documented == {panel: list(commands) for panel, commands in PANELS.items()}
