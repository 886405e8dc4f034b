"""answerx inside lighteval: ``answerx_metric`` computed on lighteval's own Doc/ModelResponse,
as lighteval's metric tests do, and the ``--custom-tasks`` module loaded by lighteval's
registry."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

# lighteval checks its pinned latex2sympy2_extended at import of its metrics: in an
# environment where answerx's math-verify holds the newer one, lighteval is unusable.
pytest.importorskip("lighteval.metrics.metrics")
pytest.importorskip("answerx.grading")

from lighteval.models.model_output import ModelResponse
from lighteval.tasks.requests import Doc

from answerx.integrations.lighteval import answerx_metric, make_answerx_metric

GSM8K_GOLD = " Natalia sold 48/2 = <<48/2=24>>24 clips in May.\n48+24 = <<48+24=72>>72\n#### 72"


def gsm8k_doc() -> Doc:
    # The shape of lighteval's own gsm8k docs: the whole reference solution is the gold.
    return Doc(query="Question: ...\nAnswer:", choices=[GSM8K_GOLD], gold_index=0)


def test_metric_reads_answer_and_gold_and_records_them_where_extractive_match_does() -> None:
    doc = gsm8k_doc()
    response = ModelResponse(text=["She sold 48 + 24 = 72 clips. The answer is $72.00."])
    assert answerx_metric.compute_sample(doc=doc, model_response=response) == {"answerx": 1.0}
    assert doc.specific["extracted_predictions"] == ["72"]
    assert doc.specific["extracted_golds"] == ["72"]
    assert doc.specific["answerx_methods"] == ["final_answer_phrase"]


def test_a_wrong_or_missing_answer_scores_zero() -> None:
    wrong, missing = gsm8k_doc(), gsm8k_doc()
    assert answerx_metric.compute_sample(
        doc=wrong, model_response=ModelResponse(text=["The answer is 70."])
    ) == {"answerx": 0.0}
    assert answerx_metric.compute_sample(
        doc=missing, model_response=ModelResponse(text=["I cannot solve this."])
    ) == {"answerx": 0.0}
    assert missing.specific["extracted_predictions"] == [""]


def test_math_answers_are_graded_by_equivalence() -> None:
    metric = make_answerx_metric("math")
    doc = Doc(query="...", choices=["ANSWER: so $x=\\boxed{\\frac{1}{2}}$"], gold_index=0)
    response = ModelResponse(text=["Hence $x = 0.5$.\n\nFinal Answer: $0.5$"])
    assert metric.compute_sample(doc=doc, model_response=response) == {"answerx": 1.0}
    assert doc.specific["extracted_golds"] == ["\\frac{1}{2}"]


def test_multiple_choice_reads_letters_and_option_texts() -> None:
    metric = make_answerx_metric("multiple_choice")
    options = ["Paris", "Rome", "Oslo", "Bern"]
    by_letter = Doc(query="...", choices=options, gold_index=2)
    by_text = Doc(query="...", choices=options, gold_index=2)
    assert metric.compute_sample(
        doc=by_letter, model_response=ModelResponse(text=["Thinking... The answer is (C)."])
    ) == {"answerx": 1.0}
    assert metric.compute_sample(
        doc=by_text, model_response=ModelResponse(text=["So the answer is Oslo."])
    ) == {"answerx": 1.0}


def test_the_best_of_several_samples_counts_like_extractive_match() -> None:
    response = ModelResponse(text=["The answer is 70.", "The answer is 72."])
    doc = gsm8k_doc()
    assert answerx_metric.compute_sample(doc=doc, model_response=response) == {"answerx": 1.0}
    assert doc.specific["extracted_predictions"] == ["70", "72"]


def test_custom_tasks_module_loads_through_lighteval_registry() -> None:
    from lighteval.tasks.registry import Registry

    module = Registry.create_custom_tasks_module("answerx.integrations.lighteval")
    configs = Registry._extract_configs(module)
    assert set(configs) == {"gsm8k_answerx", "math_500_answerx", "gpqa_diamond_answerx",
                            "answerx_local_gsm8k", "answerx_local_math",
                            "answerx_local_multiple_choice"}  # fmt: skip
    for config in configs.values():
        assert [m.metric_name for m in config.metrics] == ["answerx"]


def test_gpqa_prompt_orders_options_the_same_way_every_time() -> None:
    from answerx.integrations.lighteval import gpqa_prompt

    row = {
        "Question": "Which gas is most abundant in air?",
        "Correct Answer": "Nitrogen",
        "Incorrect Answer 1": "Oxygen",
        "Incorrect Answer 2": "Argon",
        "Incorrect Answer 3": "Carbon dioxide",
    }
    first, again = gpqa_prompt(row, "gpqa"), gpqa_prompt(row, "gpqa")
    assert first.choices == again.choices and first.gold_index == again.gold_index
    assert first.choices[first.gold_index] == "Nitrogen"
    letter = "ABCD"[first.gold_index]
    assert f"{letter}) Nitrogen" in first.query


# --- a real `lighteval` command, end to end and offline --------------------------------

# lighteval's `custom` backend runs any LightevalModel: this one asks answerx's fake
# provider server over HTTP, as an OpenAI-compatible endpoint would be asked.
FAKE_SERVER_MODEL = """
import os

import httpx
from lighteval.models.abstract_model import LightevalModel
from lighteval.models.model_output import ModelResponse
from lighteval.utils.cache_management import SampleCache


class FakeServerModel(LightevalModel):
    def __init__(self, config):
        self.config = config
        self._cache = SampleCache(config)
        self._url = os.environ["FAKE_OPENAI_BASE_URL"] + "/chat/completions"

    @property
    def tokenizer(self):
        return None

    @property
    def add_special_tokens(self):
        return False

    @property
    def max_length(self):
        return 4096

    def greedy_until(self, docs):
        replies = []
        for doc in docs:
            body = {"model": "fake-model", "messages": [{"role": "user", "content": doc.query}]}
            reply = httpx.post(self._url, json=body, headers={"Authorization": "Bearer sk-fake"})
            replies.append(ModelResponse(text=[reply.json()["choices"][0]["message"]["content"]]))
        return replies

    def loglikelihood(self, docs):
        raise NotImplementedError

    def loglikelihood_rolling(self, docs):
        raise NotImplementedError
"""

LOCAL_TASKS = ("answerx_local_gsm8k", "answerx_local_math", "answerx_local_multiple_choice")


@pytest.mark.slow
def test_the_lighteval_command_runs_the_local_tasks_offline(tmp_path: Path) -> None:
    from scripted import EXPECTED, items, record

    from answerx.testing import FakeProviderServer, Reply

    model_file = tmp_path / "fake_server_model.py"
    model_file.write_text(FAKE_SERVER_MODEL, encoding="utf-8")
    lighteval = Path(sys.executable).with_name("lighteval")

    def scripted(request: Any) -> Reply:
        from scripted import reply_to

        return Reply.text(reply_to(request.text))

    with FakeProviderServer(default=scripted) as fake:
        env = {**os.environ, "FAKE_OPENAI_BASE_URL": fake.openai_base_url,
               "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
               "PYTHONPATH": os.pathsep.join(sys.path)}  # fmt: skip
        command = [
            str(lighteval), "custom", "fake-model", str(model_file),
            ",".join(f"{name}|0" for name in LOCAL_TASKS),
            "--custom-tasks", "answerx.integrations.lighteval",
            "--output-dir", str(tmp_path / "out"),
        ]  # fmt: skip
        run = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, (run.stdout + run.stderr)[-4000:]
        assert len(fake.requests) == 12
    results = json.loads(next((tmp_path / "out").rglob("results_*.json")).read_text())
    scores = {name: results["results"][f"{name}|0"]["answerx"] for name in LOCAL_TASKS}
    assert scores == dict.fromkeys(LOCAL_TASKS, EXPECTED)
    # lighteval's own metrics of the same tasks on the same replies.
    from lighteval.metrics.metrics import Metrics

    from answerx.integrations.lighteval import gsm8k_prompt, local_mc_prompt, math_500_prompt

    prompts = {"gsm8k": gsm8k_prompt, "math": math_500_prompt,
               "multiple_choice": local_mc_prompt}  # fmt: skip
    metrics = {"gsm8k": Metrics.expr_gold_metric, "math": Metrics.expr_gold_metric,
               "multiple_choice": Metrics.gpqa_instruct_metric}  # fmt: skip
    theirs = []
    for item in items():
        doc = prompts[item["set"]](item, "local")
        metric = metrics[item["set"]].value
        value = metric.compute_sample(doc=doc, model_response=ModelResponse(text=[item["reply"]]))
        theirs.append(float(next(iter(value.values()))))
    record("lighteval (lighteval custom CLI)", sum(scores.values()) / 3,
           sum(theirs) / len(theirs), "expr_gold_metric, gpqa_instruct_metric")  # fmt: skip
