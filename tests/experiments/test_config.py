"""Experiment configs: YAML files validated with errors that name the key and its line."""

from __future__ import annotations

import hashlib
import json
import textwrap
from pathlib import Path

import pytest

from answerx.errors import ConfigError
from answerx.experiments.config import (
    HASH_EXCLUDED_KEYS,
    ExperimentConfig,
    apply_overrides,
    config_from_dict,
    config_hash,
    load_config,
)
from answerx.experiments.datasets import load_datasets
from answerx.structured.providers import get_provider
from answerx.support.resources import data_file

MINIMAL = {"datasets": [{"sample": "arithmetic"}], "approaches": ["none"]}


def write(tmp_path: Path, text: str, name: str = "exp.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return path


def error_of(path: Path, overrides: dict[str, object] | None = None) -> str:
    with pytest.raises(ConfigError) as caught:
        load_config(path, overrides)
    return str(caught.value)


def test_a_minimal_config_runs_the_local_model_into_runs_answerx_db(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("ANSWERX_HOME")  # the default without it
    config = config_from_dict(MINIMAL)
    assert [t.label for t in config.targets] == [f"local/{get_provider('local').default_model}"]
    assert config.strategies == ["structured"]
    assert config.output.db == Path("runs/answerx.db")
    assert config.cache is True and config.repetitions == 1


def test_the_bundled_demo_is_twelve_questions_by_two_approaches_on_the_local_model() -> None:
    # Small enough for `make demo` to finish in minutes on two cores (answerx demo shows
    # the multi-call approach, reflection, on a few questions).
    config = load_config(data_file("config/experiments/demo.yaml"))
    assert len(load_datasets(config.datasets)) == 12
    assert len(config.approaches) == 2
    assert config.providers == ["local"]
    assert config.max_tokens is not None and config.max_tokens <= 256  # a 135M model on CPU


def test_the_example_config_shows_every_top_level_key_and_is_valid() -> None:
    path = data_file("config/experiments/example.yaml")
    text = path.read_text(encoding="utf-8")
    config = load_config(path)
    assert {"openai", "anthropic"} <= set(config.providers)
    for key in ExperimentConfig.model_fields:
        assert f"\n{key}:" in text or f"\n# {key}:" in text, f"example.yaml does not show {key}"


def test_the_name_defaults_to_the_file_stem(tmp_path: Path) -> None:
    path = write(tmp_path, "datasets: [{sample: game24}]\napproaches: [none]\n", "cot-vs-none.yaml")
    assert load_config(path).name == "cot-vs-none"


@pytest.mark.parametrize(
    ("yaml_text", "expected"),
    [
        (
            """
            datasets:
              - sample: arithmetic
            approaches: [none]
            temprature: 0.2
            """,
            "exp.yaml:4: temprature: unknown key (did you mean 'temperature'?)",
        ),
        (
            """
            datasets:
              - sample: arithmetic
                fields:
                  questoin: prompt
            approaches: [none]
            """,
            "exp.yaml:4: datasets[0].fields.questoin: unknown key (did you mean 'question'?)",
        ),
        (
            """
            datasets: [{sample: arithmetic}]
            approaches: [none]
            budget:
              max_call: 3
            """,
            "exp.yaml:4: budget.max_call: unknown key (did you mean 'max_calls'?)",
        ),
        (
            """
            datasets: [{sample: arithmetic}]
            approaches: [none]
            targets:
              - provider: openai
                modle: gpt-4o-mini
            """,
            "exp.yaml:5: targets[0].modle: unknown key (did you mean 'model'?)",
        ),
    ],
)
def test_a_misspelt_key_is_named_with_its_line_and_the_likely_key(
    tmp_path: Path, yaml_text: str, expected: str
) -> None:
    assert expected in error_of(write(tmp_path, yaml_text))


def test_bad_values_are_reported_at_their_own_line(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        datasets:
          - sample: arithmetic
            limit: 0
        approaches: [none, chain_of_thougt]
        targets:
          - provider: opnai
        concurrency: many
        """,
    )
    message = error_of(path)
    assert "exp.yaml:3: datasets[0].limit: Input should be greater than or equal to 1" in message
    assert "exp.yaml:4: approaches[1]: unknown approach 'chain_of_thougt'" in message
    assert "did you mean 'chain_of_thought'?" in message
    assert "exp.yaml:6: targets[0]: unknown provider 'opnai'; valid providers:" in message
    assert "exp.yaml:7: concurrency:" in message
    # one line per problem, in file order
    assert [line.split(":")[1] for line in message.splitlines()[1:]] == ["3", "4", "6", "7"]


def test_a_missing_required_key_is_named(tmp_path: Path) -> None:
    message = error_of(write(tmp_path, "approaches: [none]\n"))
    assert "datasets: required key is missing" in message


def test_invalid_yaml_reports_the_line(tmp_path: Path) -> None:
    path = write(tmp_path, "datasets:\n  - sample: arithmetic\napproaches: [none\n")
    message = error_of(path)
    assert "invalid YAML" in message and "exp.yaml:" in message


def test_a_duplicate_key_is_an_error_not_silently_the_last_one(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        datasets: [{sample: arithmetic}]
        approaches: [none]
        temperature: 0.0
        temperature: 0.7
        """,
    )
    assert "exp.yaml:4: temperature: duplicate key (first on line 3)" in error_of(path)


def test_approach_settings_are_checked_against_that_approach_with_lines(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        datasets: [{sample: arithmetic}]
        approaches: [none, reflection]
        approach_settings:
          reflection:
            multi_call: true
            roundz: 2
        """,
    )
    assert (
        "exp.yaml:6: approach_settings.reflection.roundz: unknown key (did you mean 'rounds'?)"
        in error_of(path)
    )


def test_settings_for_an_approach_that_is_not_run_are_an_error(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        datasets: [{sample: arithmetic}]
        approaches: [none]
        approach_settings:
          reflection: {rounds: 2}
        """,
    )
    assert "settings for 'reflection', which is not in approaches (none)" in error_of(path)


def test_a_dataset_file_that_does_not_exist_is_reported_at_its_line(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        datasets:
          - sample: arithmetic
          - path: missing.jsonl
        approaches: [none]
        """,
    )
    assert "exp.yaml:3: datasets[1].path: dataset file 'missing.jsonl' does not exist" in (
        error_of(path)
    )


def test_an_empty_section_means_its_default(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        datasets: [{sample: arithmetic}]
        approaches: [none]
        approach_settings:
        rate_limits:
        budget:
        """,
    )
    config = load_config(path)
    assert config.approach_settings == {} and config.budget.max_calls is None


def test_targets_take_a_shorthand_and_the_provider_default_model() -> None:
    config = config_from_dict(
        {**MINIMAL, "targets": ["openai/gpt-4.1", "anthropic", "openrouter/openai/gpt-4o"]}
    )
    assert [t.label for t in config.targets] == [
        "openai/gpt-4.1",
        f"anthropic/{get_provider('anthropic').default_model}",
        "openrouter/openai/gpt-4o",
    ]


def test_modes_a_provider_sdk_cannot_use_are_refused() -> None:
    with pytest.raises(ConfigError, match=r"modes \['md_json'\] are not available"):
        config_from_dict({**MINIMAL, "targets": [{"provider": "anthropic", "modes": ["md_json"]}]})


def test_the_same_target_twice_is_an_error() -> None:
    with pytest.raises(ConfigError, match="targets listed more than once: openai/gpt-4o-mini"):
        config_from_dict({**MINIMAL, "targets": ["openai/gpt-4o-mini", "openai/gpt-4o-mini"]})


def test_command_line_overrides_replace_and_narrow_the_file(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        datasets:
          - sample: arithmetic
          - sample: game24
        approaches: [none, chain_of_thought, reflection]
        approach_settings:
          reflection: {multi_call: true}
        targets: [openai, anthropic]
        """,
    )
    config = load_config(
        path,
        {
            "approaches": "none,chain_of_thought",
            "limit": 5,
            "concurrency": "12",
            "provider": "openai",
            "model": "gpt-4.1-mini",
            "requests_per_minute": 60,
            "budget.max_calls": 4,
            "db": str(tmp_path / "results.db"),
            "seed": None,  # not given on the command line: the file's value stays
        },
    )
    assert config.approaches == ["none", "chain_of_thought"]
    assert config.approach_settings == {}  # reflection's settings left with reflection
    assert [d.limit for d in config.datasets] == [5, 5]
    assert config.concurrency == 12
    assert [t.label for t in config.targets] == ["openai/gpt-4.1-mini"]
    assert config.rate_limits["openai"].requests_per_minute == 60
    assert config.budget.max_calls == 4
    assert config.output.db == tmp_path / "results.db"


def test_a_dataset_override_takes_sample_names_and_files(tmp_path: Path) -> None:
    data = tmp_path / "mine.jsonl"
    data.write_text('{"question": "1+1?", "answer": "2"}\n', encoding="utf-8")
    config = config_from_dict(MINIMAL, {"datasets": f"game24,{data}"})
    assert [(d.sample, d.path) for d in config.datasets] == [("game24", None), (None, data)]


def test_a_bad_override_value_says_it_came_from_the_command_line(tmp_path: Path) -> None:
    path = write(tmp_path, "datasets: [{sample: arithmetic}]\napproaches: [none]\n")
    message = error_of(path, {"limit": 0})
    assert "exp.yaml (command-line override): datasets[0].limit:" in message


def test_an_unknown_override_is_refused_with_the_likely_one() -> None:
    with pytest.raises(ConfigError, match=r"unknown override 'concurency' \(did you mean"):
        apply_overrides(MINIMAL, {"concurency": 3})


def test_a_model_override_needs_a_provider_when_there_are_several_targets() -> None:
    data = {**MINIMAL, "targets": ["openai", "anthropic"]}
    with pytest.raises(ConfigError, match="several targets"):
        config_from_dict(data, {"model": "gpt-4o"})
    one = config_from_dict({**MINIMAL, "targets": ["openai"]}, {"model": "gpt-4o"})
    assert one.targets[0].label == "openai/gpt-4o"


def test_the_hash_names_the_experiment_not_how_it_is_executed() -> None:
    base = config_from_dict(MINIMAL)
    assert config_hash(base) == config_hash(config_from_dict(MINIMAL))
    assert len(config_hash(base)) == 64
    executed_differently = config_from_dict(
        MINIMAL, {"concurrency": 32, "db": "elsewhere.db", "name": "again", "cache": False}
    )
    assert config_hash(executed_differently) == config_hash(base)
    for change in ({"approaches": "chain_of_thought"}, {"temperature": 0.5}, {"limit": 3}):
        assert config_hash(config_from_dict(MINIMAL, change)) != config_hash(base), change


def test_an_unset_index_leaves_the_hash_of_earlier_runs_as_it_was() -> None:
    # Runs stored before configs had index (or extraction, or judge): must still resume.
    base = config_from_dict(MINIMAL)
    newer = {"index", "extraction", "judge"}
    before = base.model_dump(mode="json", exclude=set(HASH_EXCLUDED_KEYS) | newer)
    canonical = json.dumps(before, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert config_hash(base) == hashlib.sha256(canonical.encode("utf-8")).hexdigest()
    assert config_hash(config_from_dict(MINIMAL, {"index": "bundled"})) != config_hash(base)


def test_the_judge_counts_in_the_hash_but_its_budget_does_not() -> None:
    # Another judge gives other verdicts: another experiment. A larger budget only asks
    # more, so a run its judge's budget stopped resumes with a larger one.
    base = config_from_dict(MINIMAL)
    judged = config_from_dict(MINIMAL, {"judge": "openai/gpt-4o-mini"})
    assert config_hash(judged) != config_hash(base)
    other = config_from_dict(MINIMAL, {"judge": "openai/gpt-4o"})
    assert config_hash(other) != config_hash(judged)
    limits = {"judge": {"provider": "openai", "model": "gpt-4o-mini", "max_calls": 5,
                        "max_cost_usd": 0.5, "concurrency": 2}}  # fmt: skip
    assert config_hash(config_from_dict(MINIMAL, limits)) == config_hash(judged)


def test_a_judge_section_is_checked_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "judged.yaml"
    path.write_text(
        "datasets: [{sample: arithmetic}]\napproaches: [none]\n"
        "judge:\n  provider: openai\n  max_call: 3\n",
        encoding="utf-8",
    )
    with pytest.raises(ConfigError, match=r"judged.yaml:5: judge.max_call: .*'max_calls'"):
        load_config(path)


def test_a_stored_config_validates_back_to_the_same_config() -> None:
    config = load_config(data_file("config/experiments/example.yaml"))
    again = ExperimentConfig.model_validate(config.model_dump(mode="json"))
    assert again == config and config_hash(again) == config_hash(config)


def test_a_dotted_override_reaches_into_nested_keys_and_list_entries() -> None:
    data = {**MINIMAL, "datasets": [{"sample": "arithmetic"}, {"sample": "game24"}]}
    config = config_from_dict(
        data, {"datasets.1.limit": "2", "rate_limits.openai.tokens_per_minute": 90_000}
    )
    assert [d.limit for d in config.datasets] == [None, 2]
    assert config.rate_limits["openai"].tokens_per_minute == 90_000
    with pytest.raises(ConfigError, match="datasets has 2 entries, no entry '5'"):
        config_from_dict(data, {"datasets.5.limit": 2})


def test_a_dataset_override_of_unknown_format_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match=r"dataset 'notes\.txt': cannot tell the format"):
        config_from_dict(MINIMAL, {"datasets": "notes.txt"})
