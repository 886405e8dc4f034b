"""``verify --judge``'s safety flags against the fake provider server: the confidence
floor, and a judge that fails on every call said on stderr (``--judge-strict``: exit 5)."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from answerx.cli import app
from answerx.testing import FakeProviderServer, Reply

runner = CliRunner()
JUDGE = "openai/judge-model"
UNSURE = {"stated_answer": "Lyon", "reason": "Perhaps Lyon.", "verdict": "correct",
          "confidence": 0.55}  # fmt: skip
ARGS = ["verify", "Maybe Lyon, or perhaps Paris.", "-g", "Lyon", "-g", "Lugdunum", "--question",
        "Which city?", "--judge", JUDGE, "--format", "json"]  # fmt: skip


def test_the_min_confidence_flag_sets_the_judges_floor(
    fake_provider_env: FakeProviderServer,
) -> None:
    fake_provider_env.set_default(Reply.tool_call(UNSURE))
    used = json.loads(runner.invoke(app, ARGS).stdout)  # 0.55 passes the default 0.5
    floor = json.loads(runner.invoke(app, [*ARGS, "--judge-min-confidence", "0.7"]).stdout)
    assert (used["correct"], used["how"]) == (True, "llm_judge")
    assert (floor["correct"], floor["how"]) == (False, "several_candidates")


def test_a_judge_failing_on_every_call_is_said_and_strict_exits_with_the_provider_code(
    fake_provider_env: FakeProviderServer,
) -> None:
    fake_provider_env.set_default(Reply.unauthorized())
    lenient = runner.invoke(app, ARGS)
    strict = runner.invoke(app, [*ARGS, "--judge-strict"])
    assert lenient.exit_code == 0, lenient.output
    assert "failed on every call it made (1)" in lenient.stderr
    assert "Last failure: judge failed" in lenient.stderr
    assert strict.exit_code == 5
    assert json.loads(strict.stdout)["how"] == "several_candidates"  # the rules' verdict


def test_the_judge_flags_need_a_judge() -> None:
    result = runner.invoke(app, ["verify", "Lyon", "-g", "Lyon", "--judge-strict"])
    assert result.exit_code == 2


def test_the_server_takes_the_judges_floor_from_its_environment(
    fake_provider_env: FakeProviderServer,
) -> None:
    from answerx.service.judge import server_judge
    from answerx.service.metrics import ServiceMetrics
    from answerx.service.settings import ServiceSettings

    env = {"ANSWERX_JUDGE": JUDGE, "ANSWERX_JUDGE_CACHE": "off"}
    default = ServiceSettings.from_env(env)
    raised = ServiceSettings.from_env({**env, "ANSWERX_JUDGE_MIN_CONFIDENCE": "0.8"})
    assert default.judge_min_confidence == 0.5
    judge = server_judge(raised, ServiceMetrics())
    assert judge is not None and judge.llm.min_confidence == 0.8
