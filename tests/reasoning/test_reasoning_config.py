"""Names, settings and prompt overrides: clear errors, and user templates that take effect."""

from __future__ import annotations

from pathlib import Path
from typing import get_args, get_type_hints

import pytest
from reasoning_script import ScriptedModel, last_user_text

from answerx.errors import ConfigError, InputError, UnknownName
from answerx.reasoning import (
    APPROACH_DESCRIPTIONS,
    APPROACHES,
    SEARCH_APPROACHES,
    ApproachName,
    ApproachOptions,
    get_approach,
)
from answerx.reasoning.parsing import (
    last_code_block,
    last_output_line,
    numbered_items,
    score_of,
    verdict_of,
)
from answerx.reasoning.settings import RUN_OPTIONS
from answerx.structured import InstructorClientManager
from answerx.testing import FakeProviderServer


def test_an_unknown_approach_lists_the_valid_names(manager: InstructorClientManager) -> None:
    with pytest.raises(ConfigError, match="unknown approach 'socratic'") as caught:
        get_approach("socratic", manager)

    for name in APPROACHES:
        assert name in str(caught.value)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"strategy": "three_stage"}, "valid strategies: structured, two_stage"),
        ({"task": "essay"}, "valid tasks: auto, math"),
        (
            {"rounds_": 2},
            "unknown setting 'rounds_' \\(did you mean 'rounds'\\?\\); "
            "valid settings of approach 'reflection':",
        ),
        ({"multi_call": True, "rounds": 0}, "rounds: Input should be greater than or equal to 1"),
        ({"temperature": "hot"}, "temperature: Input should be a valid number"),
    ],
)
def test_bad_options_are_config_errors_that_say_what_is_valid(
    manager: InstructorClientManager, options: dict[str, object], message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        get_approach("reflection", manager, **options)  # type: ignore[arg-type]


def test_the_settings_error_lists_the_approachs_own_settings(
    manager: InstructorClientManager,
) -> None:
    with pytest.raises(ConfigError) as caught:
        get_approach("tree_of_thought", manager, width=3)

    for name in ("breadth", "depth", "thoughts_per_step", "multi_call", "temperature"):
        assert name in str(caught.value)


def test_every_approach_has_a_one_line_description() -> None:
    assert list(APPROACH_DESCRIPTIONS) == list(APPROACHES)
    assert all(d and "\n" not in d for d in APPROACH_DESCRIPTIONS.values())


def test_an_empty_question_is_an_input_error(manager: InstructorClientManager) -> None:
    with pytest.raises(InputError, match="non-empty"):
        get_approach("none", manager).execute("   ")


def test_a_prompt_directory_overrides_a_bundled_template(
    manager: InstructorClientManager,
    fake_provider: FakeProviderServer,
    model: ScriptedModel,
    tmp_path: Path,
) -> None:
    (tmp_path / "chain_of_thought.txt").write_text(
        "CUSTOM. Costs $$5? $question$choices_block\nEnd with <answer>…</answer>.\n"
    )

    response = get_approach(
        "chain_of_thought", manager, strategy="two_stage", prompt_dir=tmp_path
    ).execute("What is 2 + 2?", choices=["3", "4"])

    prompt = last_user_text(fake_provider.chat_requests[0])
    assert (
        prompt
        == "CUSTOM. Costs $5? What is 2 + 2?\nOptions:\nA. 3\nB. 4\n\nEnd with <answer>…</answer>."
    )
    assert response.parameters["prompt_dir"] == str(tmp_path)


def test_the_prompt_directory_can_come_from_the_environment(
    manager: InstructorClientManager,
    fake_provider: FakeProviderServer,
    model: ScriptedModel,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    (tmp_path / "none.txt").write_text("JUST ANSWER: $question")
    monkeypatch.setenv("ANSWERX_PROMPT_DIR", str(tmp_path))

    get_approach("none", manager).execute("What is 2 + 2?")

    # The override, then the bundled structured_fields instructions.
    assert last_user_text(fake_provider.chat_requests[0]).startswith(
        "JUST ANSWER: What is 2 + 2?\n\nReply by filling in the fields"
    )


def test_a_template_with_an_unknown_field_says_which_fields_exist(
    manager: InstructorClientManager, model: ScriptedModel, tmp_path: Path
) -> None:
    (tmp_path / "none.txt").write_text("Question: $questoin")

    with pytest.raises(ConfigError, match=r"'none' cannot be filled in .*\$question"):
        get_approach("none", manager, prompt_dir=tmp_path).execute("What is 2 + 2?")


# --------------------------------------------------------------------------- readers


@pytest.mark.parametrize(
    ("critique", "verdict"),
    [
        ("All good.\n<verdict>correct</verdict>", True),
        ("<verdict>correct</verdict> ... on second thought <verdict>revise</verdict>", False),
        ("< Verdict > Correct </verdict>", True),
        ("Looks fine to me.", None),
    ],
)
def test_verdict_of_reads_the_last_verdict(critique: str, verdict: bool | None) -> None:
    assert verdict_of(critique) is verdict


def test_numbered_items_reads_numbered_and_bulleted_lines_up_to_the_limit() -> None:
    text = (
        "Here is the plan:\n1. First point\n2) **Second point**\n- Third\n"
        "3.5 is not an item\n* Third\nPoint 4: Fourth\n5. Fifth"
    )

    assert numbered_items(text, 10) == [
        "First point", "Second point", "Third", "Fourth", "Fifth",
    ]  # fmt: skip
    assert numbered_items(text, 2) == ["First point", "Second point"]
    assert numbered_items("no list here", 3) == []


@pytest.mark.parametrize(
    ("evaluation", "score"),
    [
        ("Good step. <score>8</score>", 0.8),
        ("<score>3</score> no wait <score>7.5</score>", 0.75),
        ("Score: 10 out of 10", 1.0),
        ("<score>15</score>", 1.0),
        ("I cannot rate this.", 0.0),
    ],
)
def test_score_of_reads_the_last_score_out_of_ten(evaluation: str, score: float) -> None:
    assert score_of(evaluation) == score


def test_last_code_block_and_last_output_line() -> None:
    reply = "```python\nprint(1)\n```\nthen\n```py\nx = 2\nprint(x)\n```\n<answer>2</answer>"

    assert last_code_block(reply) == "x = 2\nprint(x)\n"
    assert last_code_block("no code") is None
    assert last_output_line("a\n  42  \n\n") == ("42", 4, 6)
    assert last_output_line("\n \n") is None


def test_the_approach_options_declare_every_setting_of_every_approach() -> None:
    # get_approach's keywords are typed by ApproachOptions: a new setting must be added there.
    declared = set(get_type_hints(ApproachOptions)) - set(RUN_OPTIONS)
    settings = {field for cls in APPROACHES.values() for field in cls.settings_model.model_fields}
    assert declared == settings


def test_the_approach_names_are_the_registry_in_order() -> None:
    assert get_args(ApproachName) == tuple(APPROACHES)
    assert set(SEARCH_APPROACHES) < set(APPROACHES)


def test_a_misspelt_approach_is_an_unknown_name_with_a_suggestion(
    manager: InstructorClientManager,
) -> None:
    with pytest.raises(UnknownName, match=r"unknown approach 'ircott' \(did you mean 'ircot'\?\)"):
        get_approach("ircott", manager)
