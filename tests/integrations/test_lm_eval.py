"""answerx inside lm-evaluation-harness: the filter and metric through lm-eval's own machinery.

Tasks are answerx's shipped YAMLs (config/integrations/lm_eval) pointed at a few local
rows through a small YAML that ``include``s them: lm-eval builds the task, the filter
pipeline and the metric itself, exactly as ``lm_eval --include_path`` would.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from answerx.errors import ConfigError
from answerx.integrations.lm_eval import NO_ANSWER, AnswerxFilter, task_dir
from answerx.testing import FakeProviderServer, RecordedRequest, Reply

SHIPPED = task_dir()

GSM8K_ROWS = [
    {"question": "A shirt costs $14.50. What do two cost?", "answer": "14.5*2=29\n#### 29"},
    {"question": "A town has 1,250 people and 40 leave. How many remain?", "answer": "#### 1210"},
    {"question": "Sam reads 12 pages a day for 3 days. How many pages?", "answer": "#### 36"},
    {"question": "Ann has 7 boxes of 8 eggs. How many eggs?", "answer": "#### 56"},
]
# What a model answers to each question above (keyed by a word of the question).
GSM8K_REPLIES = {
    "shirt": "Each shirt is $14.50, so two cost 2 x $14.50 = $29.00.\n#### $29.00",
    "town": "Summing up, 1,250 - 40 = 1,210 people remain in the town.",
    "Sam": "<think>12 pages times 3 days is 36.</think>\nSam reads **36** pages.",
    "Ann": "I cannot help with that.",
}
MMLU_PRO_ROWS = [
    {
        "question": "Which organelle produces most of a cell's ATP?",
        "options": ["Nucleus", "Mitochondrion", "Ribosome", "Golgi body"],
        "answer": "B",
        "category": "biology",
    },
    {
        "question": "What is 6 x 7?",
        "options": ["36", "42", "48", "49"],
        "answer": "D",
        "category": "math",
    },
]


@pytest.fixture(scope="module")
def lm_eval() -> Any:
    os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    return pytest.importorskip("lm_eval")


def local_task(folder: Path, shipped: str, name: str, rows: list[dict[str, Any]]) -> Path:
    """A task YAML in ``folder`` that is the shipped one, reading ``rows`` from a local file."""
    data = folder / f"{name}.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    (folder / f"{name}.yaml").write_text(
        f"include: {SHIPPED / shipped}\n"
        f"task: {name}\n"
        "dataset_path: json\n"
        "dataset_name: null\n"
        "tag: []\n"
        f"dataset_kwargs:\n  data_files:\n    test: {data}\n",
        encoding="utf-8",
    )
    return folder


def built_task(lm_eval: Any, folder: Path, name: str) -> Any:
    from lm_eval.tasks import TaskManager

    # include_defaults=False: indexing lm-eval's own 10,000 task files takes ~10 s.
    loaded = TaskManager(include_path=str(folder), include_defaults=False).load([name])
    tasks = loaded["tasks"] if isinstance(loaded, dict) and "tasks" in loaded else loaded
    return tasks[name]


def filtered(task: Any, replies: list[str]) -> list[Any]:
    """lm-eval's own filter pipeline on ``replies`` (one per document, in order)."""
    task.build_all_requests(limit=len(replies), rank=0, world_size=1)
    for instance, reply in zip(task.instances, replies, strict=True):
        instance.resps = [reply]
    task.apply_filters()
    return [instance.filtered_resps["answerx"] for instance in task.instances]


def test_the_module_imports_and_filters_without_lm_eval() -> None:
    blocked = (
        "import sys; sys.modules['lm_eval'] = None\n"
        "from answerx.integrations.lm_eval import AnswerxFilter\n"
        "print(AnswerxFilter(task='numeric').apply([['so 2+2 = 4']], [{}]))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", blocked], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[['4']]"


@pytest.mark.parametrize(
    ("module", "framework"),
    [
        ("answerx.integrations.inspect_ai", "inspect_ai"),
        ("answerx.integrations.lighteval", "lighteval"),
        ("answerx.integrations.dspy", "dspy"),
        ("answerx.integrations.verl_manager", "verl"),
        ("answerx.integrations.verifiers", "verifiers"),
    ],
)
def test_every_plug_in_imports_without_its_framework(module: str, framework: str) -> None:
    blocked = f"import sys; sys.modules[{framework!r}] = None\nimport {module}\n"
    subprocess.run([sys.executable, "-c", blocked], check=True, capture_output=True)


def test_filter_keeps_lm_eval_shape_and_order() -> None:
    answers = AnswerxFilter(task="numeric").apply(
        [["#### 3", "The answer is 4."], ["nothing here"], "#### 5"], [{}, {}, {}]
    )
    assert answers == [["3", "4"], [NO_ANSWER], "5"]


def test_fallback_never_keeps_only_answers_the_model_marked() -> None:
    responses = [["12 * 3 = 36", "The answer is 36."]]
    assert AnswerxFilter(task="numeric").apply(responses, [{}]) == [["36", "36"]]
    assert AnswerxFilter(task="numeric", fallback="never").apply(responses, [{}]) == [
        [NO_ANSWER, "36"]
    ]


def test_an_unclosed_think_block_is_no_answer_not_its_last_number() -> None:
    # lm-eval #3382: a reasoning model cut off inside <think> was graded on a number from it.
    cut_off = [["<think>First, 7 * 8 = 56, and then we add"]]
    assert AnswerxFilter(task="numeric").apply(cut_off, [{}]) == [[NO_ANSWER]]


def test_filter_reads_options_from_the_named_fields() -> None:
    doc = {"choice1": "Paris", "choice2": "Rome", "choice3": "Oslo", "choice4": "Bern"}
    fields = ["choice1", "choice2", "choice3", "choice4"]
    answers = AnswerxFilter(task="multiple_choice", choices_field=fields).apply(
        [["Thinking it over, the answer is (C)."]], [doc]
    )
    assert answers == [["C"]]


def test_filter_reads_a_puzzles_numbers_from_the_doc() -> None:
    reply = [["Try (10 - 7) * (4 + 4) = 24. Answer: (10 - 7) * (4 + 4) = 24"]]
    doc = {"numbers": [4, 4, 7, 10]}
    answers = AnswerxFilter(task="game24", numbers_field="numbers").apply(reply, [doc])
    assert answers == [["(10 - 7) * (4 + 4)"]]


def test_filter_options_are_checked_when_the_task_is_built() -> None:
    with pytest.raises(TypeError, match="choice_field"):
        AnswerxFilter(choice_field="options")
    with pytest.raises(ConfigError, match="valid tasks"):
        AnswerxFilter(task="gsm8k")
    with pytest.raises(ConfigError, match="valid values"):
        AnswerxFilter(fallback="sometimes")


def test_options_are_found_under_the_usual_field_names() -> None:
    reply = [["Comparing them, the answer is Rome."]]
    options = ["Paris", "Rome", "Oslo"]
    assert AnswerxFilter().apply(reply, [{"choices": options}]) == [["B"]]
    assert AnswerxFilter().apply(reply, [{"options": options}]) == [["B"]]
    assert AnswerxFilter().apply(reply, [{"choices": {"text": options, "label": "ABC"}}]) == [["B"]]


def test_a_named_choices_field_missing_from_the_doc_is_an_error() -> None:
    with pytest.raises(ConfigError, match="'options' is not in the document"):
        AnswerxFilter(task="multiple_choice", choices_field="options").apply([["B"]], [{}])


def test_shipped_gsm8k_task_filters_answers_lm_eval_regexes_miss(
    lm_eval: Any, tmp_path: Path
) -> None:
    folder = local_task(tmp_path, "gsm8k_cot_answerx.yaml", "gsm8k_local", GSM8K_ROWS)
    task = built_task(lm_eval, folder, "gsm8k_local")
    answers = filtered(task, list(GSM8K_REPLIES.values()))
    # lm-eval's strict-match finds none of these; flexible-extract takes "29.00", "1,210", "36"
    # and "8" would be a guess had the refusal held a number.
    assert answers == ["29", "1210", "36", NO_ANSWER]


def test_filter_is_found_by_name_once_answerx_is_imported(lm_eval: Any) -> None:
    from lm_eval.api.registry import get_filter
    from lm_eval.filters import build_filter_ensemble

    assert get_filter("answerx") is AnswerxFilter
    ensemble = build_filter_ensemble(
        "answerx", [["answerx", {"task": "math"}], ["take_first", None]]
    )
    from lm_eval.api.instance import Instance

    instance = Instance(request_type="generate_until", doc={}, arguments=("", {}), idx=0)
    instance.resps = ["so $x = \\boxed{\\frac{1}{2}}$", "x = 3"]
    ensemble.apply([instance])
    assert instance.filtered_resps["answerx"] == "\\frac{1}{2}"


def test_shipped_mmlu_pro_task_reads_letters_with_the_options(lm_eval: Any, tmp_path: Path) -> None:
    folder = local_task(tmp_path, "mmlu_pro_answerx.yaml", "mmlu_pro_local", MMLU_PRO_ROWS)
    task = built_task(lm_eval, folder, "mmlu_pro_local")
    answers = filtered(
        task,
        ["ATP is made in the mitochondrion. The answer is (B).", "6 x 7 = 42, so the answer is 42"],
    )
    assert answers == ["B", "B"]


def test_every_shipped_task_uses_the_answerx_filter_and_metric(lm_eval: Any) -> None:
    from lm_eval.tasks import TaskManager
    from lm_eval.tasks._yaml_loader import load_yaml  # lm-eval's loader, !function resolved

    from answerx.integrations.lm_eval import answerx_verify

    manager = TaskManager(include_path=str(SHIPPED), include_defaults=False)
    shipped = {path.stem for path in SHIPPED.glob("*.yaml")}
    # the tasks and their tags: the Hub ones, the gated one, the offline ones
    assert set(manager.all_tasks) == shipped | {"answerx", "answerx_gated", "answerx_local"}
    for name in shipped:
        config = load_yaml(manager.task_index[name].yaml_path)
        (pipeline,) = config["filter_list"]
        assert pipeline["filter"][0]["function"] is AnswerxFilter
        assert config["metric_list"][0]["metric"] is answerx_verify
        assert callable(config.get("process_docs", len))


# --- grading (answerx.grading) ----------------------------------------------------------


@pytest.fixture
def grading() -> Any:
    return pytest.importorskip("answerx.grading")


def test_metric_grades_equivalent_answers_as_equal(grading: Any) -> None:
    from answerx.integrations.lm_eval import answerx_verify

    assert answerx_verify(["29"], ["29.00"], task="numeric") == 1.0
    assert answerx_verify(["0.5"], ["\\frac{1}{2}"], task="math") == 1.0
    assert answerx_verify(["30"], ["29"], task="numeric") == 0.0
    assert answerx_verify(["29"], [NO_ANSWER], task="numeric") == 0.0


@pytest.mark.slow
def test_lm_eval_run_against_the_fake_provider(lm_eval: Any, grading: Any, tmp_path: Path) -> None:
    """``lm_eval run`` of the shipped gsm8k task through its OpenAI-compatible chat model."""
    folder = local_task(tmp_path, "gsm8k_cot_answerx.yaml", "gsm8k_local", GSM8K_ROWS)

    def reply(request: RecordedRequest) -> Reply:
        key = next(word for word in GSM8K_REPLIES if word in request.text)
        return Reply.text(GSM8K_REPLIES[key])

    with FakeProviderServer(default=reply) as fake:
        env = {
            **os.environ,
            "HF_DATASETS_OFFLINE": "1",
            "HF_HUB_OFFLINE": "1",
            "OPENAI_API_KEY": "sk-fake-not-a-key",
            "PYTHONPATH": os.pathsep.join(sys.path),
        }
        command = [
            sys.executable, "-m", "lm_eval", "run",
            "--model", "local-chat-completions",
            "--model_args", f"model=fake-model,base_url={fake.openai_base_url}/chat/completions,"
            "num_concurrent=1,max_retries=1",
            "--tasks", "gsm8k_local", "--include_path", str(folder), "--apply_chat_template",
            "--output_path", str(tmp_path / "out"), "--log_samples",
        ]  # fmt: skip
        run = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stderr[-3000:]
        assert len(fake.requests) == len(GSM8K_ROWS)

    results = json.loads(next((tmp_path / "out").rglob("results_*.json")).read_text())
    assert results["results"]["gsm8k_local"]["answerx_verify,answerx"] == 0.75
    samples = [
        json.loads(line) for line in next((tmp_path / "out").rglob("samples_*.jsonl")).open()
    ]
    by_target = {s["target"]: (s["filtered_resps"], s["answerx_verify"]) for s in samples}
    assert by_target == {
        "29": (["29"], 1.0),
        "1210": (["1210"], 1.0),
        "36": (["36"], 1.0),
        "56": ([NO_ANSWER], 0.0),
    }


# --- the plain `lm_eval` command and `answerx lm-eval`, end to end, offline -------------


def builtin_tasks(folder: Path) -> Path:
    """lm-eval's own gsm8k (gsm8k_cot_zeroshot: strict-match and flexible-extract regexes,
    exact match) and GPQA-style multiple choice (gpqa_cot_zeroshot's regexes) on the same
    local items, for the built-in's score beside answerx's."""
    import lm_eval

    own = Path(lm_eval.__file__).parent / "tasks"
    dataset = "custom_dataset: !function answerx.integrations.local_data.local_dataset\n"
    (folder / "builtin_local_gsm8k.yaml").write_text(
        f"include: {own / 'gsm8k' / 'gsm8k-cot-zeroshot.yaml'}\n"
        "task: builtin_local_gsm8k\ntag: []\ndataset_path: null\ndataset_name: null\n"
        f"{dataset}dataset_kwargs:\n  name: gsm8k\n"
        "training_split: null\nfewshot_split: null\n",
        encoding="utf-8",
    )
    (folder / "builtin_local_multiple_choice.yaml").write_text(
        f"include: {own / 'gpqa' / 'cot_zeroshot' / '_gpqa_cot_zeroshot_yaml'}\n"
        "task: builtin_local_multiple_choice\ntag: []\ndataset_path: null\n"
        f"{dataset}dataset_kwargs:\n  name: multiple_choice\n"
        "process_docs: null\ntraining_split: null\nvalidation_split: null\ntest_split: test\n"
        "doc_to_text: \"{{question}}\\n{% for option in choices %}({{ 'ABCD'[loop.index0] }}) "
        "{{ option }}\\n{% endfor %}Think step by step, then finish with "
        '\\"The answer is (X)\\"."\n'
        'doc_to_target: "({{answer}})"\n',
        encoding="utf-8",
    )
    return folder


def run_lm_eval(command: list[str], fake: FakeProviderServer, out: Path) -> dict[str, Any]:
    """Run ``command`` (an lm-eval command line) against the fake server; its results."""
    env = {
        **os.environ,
        "HF_DATASETS_OFFLINE": "1",
        "HF_HUB_OFFLINE": "1",
        "OPENAI_API_KEY": "sk-fake-not-a-key",
        "PYTHONPATH": os.pathsep.join(sys.path),
    }
    model = [
        "--model", "local-chat-completions",
        "--model_args", f"model=fake-model,base_url={fake.openai_base_url}/chat/completions,"
        "num_concurrent=1,max_retries=1",
        "--apply_chat_template", "--output_path", str(out), "--log_samples",
    ]  # fmt: skip
    run = subprocess.run([*command, *model], env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    results: dict[str, Any] = json.loads(next(out.rglob("results_*.json")).read_text())
    return results["results"]


def scripted_reply(request: RecordedRequest) -> Reply:
    from scripted import reply_to

    return Reply.text(reply_to(request.text))


@pytest.mark.slow
def test_the_plain_lm_eval_command_runs_the_local_tasks_offline(
    lm_eval: Any, tmp_path: Path
) -> None:
    """``lm_eval run --include_path <answerx tasks> --tasks answerx_local``: no import of
    answerx beyond what the task YAMLs' ``!function`` tags load, no network but the fake
    server; lm-eval's built-in gsm8k and multiple-choice regexes run on the same replies."""
    from scripted import EXPECTED, record

    lm_eval_command = Path(sys.executable).with_name("lm_eval")
    (tmp_path / "builtin").mkdir()
    folder = builtin_tasks(tmp_path / "builtin")
    with FakeProviderServer(default=scripted_reply) as fake:
        ours = run_lm_eval(
            [str(lm_eval_command), "run", "--tasks", "answerx_local",
             "--include_path", str(SHIPPED)],
            fake, tmp_path / "ours",
        )  # fmt: skip
        builtin = run_lm_eval(
            [str(lm_eval_command), "run", "--tasks",
             "builtin_local_gsm8k,builtin_local_multiple_choice", "--include_path", str(folder)],
            fake, tmp_path / "builtin-out",
        )  # fmt: skip
    scores = {name: ours[name]["answerx_verify,answerx"] for name in ours}
    assert scores == {
        "answerx_local_gsm8k": EXPECTED,
        "answerx_local_math": EXPECTED,
        "answerx_local_multiple_choice": EXPECTED,
    }
    flexible = [
        builtin["builtin_local_gsm8k"]["exact_match,flexible-extract"],
        builtin["builtin_local_multiple_choice"]["exact_match,flexible-extract"],
    ]
    # gsm8k's strict regex wants "The answer is N.": none of the four replies says it so.
    assert builtin["builtin_local_gsm8k"]["exact_match,strict-match"] == 0.0
    record("lm-eval (plain lm_eval CLI)", sum(scores.values()) / 3, sum(flexible) / 2,
           "flexible-extract, gsm8k + multiple choice")  # fmt: skip


@pytest.mark.slow
def test_answerx_lm_eval_finds_the_filter_and_metric_by_name(lm_eval: Any, tmp_path: Path) -> None:
    """A user's YAML naming ``function: answerx`` and ``metric: answerx_verify`` (which a
    plain lm-eval 0.4.13 cannot find) runs through ``answerx lm-eval``, with the user's
    own include path and answerx's local data."""
    (tmp_path / "mine.yaml").write_text(
        "task: my_gsm8k\n"
        "custom_dataset: !function answerx.integrations.local_data.local_dataset\n"
        "dataset_kwargs:\n  name: gsm8k\n"
        "output_type: generate_until\ntest_split: test\n"
        'doc_to_text: "Q: {{question}}\\nA:"\n'
        "doc_to_target: \"{{answer.split('####')[-1].strip()}}\"\n"
        "filter_list:\n  - name: answerx\n    filter:\n"
        "      - function: answerx\n        task: numeric\n      - function: take_first\n"
        "metric_list:\n  - metric: answerx_verify\n",
        encoding="utf-8",
    )
    answerx = Path(sys.executable).with_name("answerx")
    with FakeProviderServer(default=scripted_reply) as fake:
        results = run_lm_eval(
            [str(answerx), "lm-eval", "run", "--tasks", "my_gsm8k,answerx_local_gsm8k",
             "--include_path", str(tmp_path)],
            fake, tmp_path / "out",
        )  # fmt: skip
    assert results["my_gsm8k"]["answerx_verify,answerx"] == 0.5
    assert results["answerx_local_gsm8k"]["answerx_verify,answerx"] == 0.5


def test_the_local_sets_hold_four_items_each_in_their_datasets_shapes() -> None:
    from answerx.integrations.local_data import LOCAL_SETS, local_path, local_rows

    shapes = {"gsm8k": {"id", "question", "answer"},
              "math": {"id", "problem", "solution", "answer"},
              "multiple_choice": {"id", "question", "choices", "answer"}}  # fmt: skip
    for name in LOCAL_SETS:
        rows = local_rows(name)
        assert len(rows) == 4 and all(set(row) == shapes[name] for row in rows)
    assert all("####" in row["answer"] for row in local_rows("gsm8k"))
    with pytest.raises(ConfigError, match="unknown local set"):
        local_path("gsm8k_hub")
