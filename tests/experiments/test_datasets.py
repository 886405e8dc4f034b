"""Datasets: JSONL, CSV, Parquet, the bundled samples and cached Hugging Face datasets."""

from __future__ import annotations

import ast
import csv
import json
import os
import re
import sys
import types
from collections import Counter
from fractions import Fraction
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import answerx
from answerx.errors import ConfigError, InputError
from answerx.experiments.datasets import (
    DatasetItem,
    DatasetSpec,
    FieldMap,
    list_samples,
    load_dataset,
    load_datasets,
    parse_dataset_ref,
    sample_path,
)
from answerx.extraction.game24 import as_expression

ROWS: list[dict[str, Any]] = [
    {"id": "q1", "question": "What is 6 * 7?", "answer": "42", "task": "numeric"},
    {
        "id": "q2",
        "question": "Which is a mammal?",
        "answer": "B",
        "choices": ["Trout", "Whale", "Eagle", "Frog"],
        "task": "multiple_choice",
    },
    {
        "id": "q3",
        "question": "Make 24 from 1 2 3 4.",
        "answer": "1 * 2 * 3 * 4",
        "numbers": [1, 2, 3, 4],
        "task": "game24",
    },
]
EXPECTED = [
    DatasetItem(id="q1", question="What is 6 * 7?", gold="42", task="numeric", dataset="mini"),
    DatasetItem(
        id="q2",
        question="Which is a mammal?",
        gold="B",
        choices=["Trout", "Whale", "Eagle", "Frog"],
        task="multiple_choice",
        dataset="mini",
    ),
    DatasetItem(
        id="q3",
        question="Make 24 from 1 2 3 4.",
        gold="1 * 2 * 3 * 4",
        numbers=[1, 2, 3, 4],
        task="game24",
        dataset="mini",
    ),
]


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def write_csv(path: Path, rows: list[dict[str, Any]], *, pipes: bool = False) -> Path:
    columns = list(dict.fromkeys(k for row in rows for k in row))
    with path.open("w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, columns)
        writer.writeheader()
        for row in rows:
            cells = {}
            for key, value in row.items():
                if isinstance(value, list):
                    value = (
                        "|".join(map(str, value))
                        if pipes and key == "choices"
                        else " ".join(map(str, value))
                        if pipes
                        else json.dumps(value)
                    )
                cells[key] = value
            writer.writerow(cells)
    return path


def write_parquet(path: Path, rows: list[dict[str, Any]]) -> Path:
    table = pa.table(
        {
            "id": [r["id"] for r in rows],
            "question": [r["question"] for r in rows],
            "answer": [r["answer"] for r in rows],
            "choices": pa.array([r.get("choices") for r in rows], pa.list_(pa.string())),
            "numbers": pa.array([r.get("numbers") for r in rows], pa.list_(pa.int64())),
            "task": [r["task"] for r in rows],
        }
    )
    pq.write_table(table, path)
    return path


@pytest.mark.parametrize(
    "writer",
    [
        lambda p: write_jsonl(p / "mini.jsonl", ROWS),
        lambda p: write_csv(p / "mini.csv", ROWS),
        lambda p: write_csv(p / "mini.csv", ROWS, pipes=True),
        lambda p: write_parquet(p / "mini.parquet", ROWS),
    ],
    ids=["jsonl", "csv-json-lists", "csv-pipes-and-spaces", "parquet"],
)
def test_every_format_reads_the_same_items(tmp_path: Path, writer: Any) -> None:
    path = writer(tmp_path)
    assert load_dataset(DatasetSpec(path=path)) == EXPECTED
    assert load_dataset(path) == EXPECTED  # a bare path works too


def test_a_field_mapping_reads_other_column_names(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "other.jsonl",
        [{"qid": 7, "prompt": "2+2?", "target": 4, "options": "x|y", "kind": "numeric"}],
    )
    fields = FieldMap(question="prompt", gold="target", choices="options", task="kind", id="qid")
    [item] = load_dataset(DatasetSpec(path=path, fields=fields, name="renamed"))
    assert item == DatasetItem(
        id="7", question="2+2?", gold="4", choices=["x", "y"], task="numeric", dataset="renamed"
    )
    assert item.uid == "renamed/7"


def test_items_without_ids_are_numbered_by_position_and_take_the_default_task(
    tmp_path: Path,
) -> None:
    path = write_jsonl(tmp_path / "plain.jsonl", [{"question": "a?"}, {"question": "b?"}])
    items = load_dataset(DatasetSpec(path=path, task="text"))
    assert [(i.id, i.task, i.gold) for i in items] == [("0", "text", None), ("1", "text", None)]


ALIASES = ["Paris", "City of Light"]


@pytest.mark.parametrize(
    "writer",
    [
        lambda p: write_jsonl(p / "qa.jsonl", [{"question": "Capital?", "answers": ALIASES}]),
        lambda p: write_jsonl(p / "qa.jsonl", [{"question": "Capital?", "answer": ALIASES}]),
        lambda p: write_jsonl(
            p / "qa.jsonl", [{"question": "Capital?", "answer": "Paris", "answers": ALIASES}]
        ),
        lambda p: write_csv(p / "qa.csv", [{"question": "Capital?", "answers": ALIASES}]),
        lambda p: _text(p / "qa.csv", "question,answers\nCapital?,Paris|City of Light\n"),
        lambda p: _parquet(p / "qa.parquet", {"question": ["Capital?"], "answers": [ALIASES]}),
    ],
    ids=["jsonl-answers", "jsonl-list-gold", "jsonl-gold-and-answers", "csv-json", "csv-pipes",
         "parquet"],
)  # fmt: skip
def test_several_accepted_answers_are_read_from_any_format(tmp_path: Path, writer: Any) -> None:
    [item] = load_dataset(writer(tmp_path))
    assert (item.gold, item.answers, item.golds) == ("Paris", ALIASES, ALIASES)


def test_a_list_of_one_accepted_answer_stays_a_list(tmp_path: Path) -> None:
    # verify(output, ["Paris"]) grades a list as aliases; a run must see the same list.
    rows = [{"question": "Capital?", "answers": ["Paris", ""]}, {"question": "Year?", "gold": 1945}]
    path = write_jsonl(tmp_path / "one.jsonl", rows)
    listed, single = load_dataset(path)
    assert (listed.gold, listed.answers, listed.golds) == ("Paris", ["Paris"], ["Paris"])
    assert (single.gold, single.answers, single.golds) == ("1945", None, "1945")


def test_a_mapped_answers_column_is_read_and_a_bad_alias_names_its_line(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "mapped.jsonl",
        [{"q": "Capital?", "aliases": ALIASES}, {"q": "Year?", "aliases": [1989, {"x": 1}]}],
    )
    spec = DatasetSpec(path=path, fields=FieldMap(question="q", answers="aliases"))
    with pytest.raises(InputError, match=r"mapped.jsonl: line 2: each of answers must be a str"):
        load_dataset(spec)


def _text(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def _parquet(path: Path, columns: dict[str, Any]) -> Path:
    pq.write_table(pa.table(columns), path)
    return path


def test_a_limit_keeps_the_first_items(tmp_path: Path) -> None:
    assert [i.id for i in load_dataset(DatasetSpec(sample="arithmetic", limit=3))] == [
        "arith-01",
        "arith-02",
        "arith-03",
    ]


def test_an_empty_csv_cell_is_a_missing_value(tmp_path: Path) -> None:
    path = tmp_path / "gaps.csv"
    path.write_text("question,answer,choices\nWhat?,,\n", encoding="utf-8")
    [item] = load_dataset(path)
    assert item.gold is None and item.choices is None


def test_a_bad_jsonl_line_is_reported_with_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.jsonl"
    path.write_text('{"question": "ok?"}\n\n{"question": "half\n', encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_dataset(path)
    assert caught.value.line == 3
    assert str(caught.value).startswith(f"{path}: line 3: invalid JSON")


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ('["a list"]', "expected a JSON object"),
        ('{"question": ""}', "the question must be a non-empty string"),
        ('{"question": "q", "numbers": [1, "two"]}', "numbers must be integers, got 'two'"),
        ('{"question": "q", "task": "poetry"}', "unknown task 'poetry'"),
        ('{"question": "q", "choices": []}', "choices must be a non-empty list"),
        ('{"question": "q", "answer": {"x": 1}}', "gold must be a string or a number"),
    ],
)
def test_a_malformed_row_names_its_line_and_what_is_wrong(
    tmp_path: Path, row: str, message: str
) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text('{"question": "fine"}\n' + row + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=f"line 2: {message}") as caught:
        load_dataset(path)
    assert caught.value.line == 2


def test_a_line_that_is_not_utf8_is_reported_with_its_line_and_byte(tmp_path: Path) -> None:
    path = tmp_path / "latin1.jsonl"
    path.write_bytes(
        b'{"question": "What is 1 + 1?", "answer": "2"}\n'
        b'{"question": "Caf\xe9 au lait costs 3; two cost?", "answer": "6"}\n'
    )
    with pytest.raises(InputError) as caught:
        load_dataset(path)
    assert str(caught.value) == (
        f"{path}: line 2: not valid UTF-8 (byte 0xe9 at byte 18 of the line): "
        "save the file as UTF-8 (e.g. iconv -f latin1 -t utf-8)"
    )
    assert caught.value.line == 2


def test_every_malformed_row_is_reported_in_one_error_each_with_its_line(
    tmp_path: Path,
) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_bytes(
        b'{"question": "fine", "answer": "1"}\n'
        b'{"question": "bad bytes \xff"}\n'
        b'{"question": "fine too", "answer": "2"}\n'
        b'{"question": "half\n'
        b'{"question": "q", "choices": "not a list"}\n'
    )
    with pytest.raises(InputError) as caught:
        load_dataset(path)
    lines = str(caught.value).splitlines()
    assert [line.split(": ")[1] for line in lines[:3]] == ["line 2", "line 4", "line 5"]
    assert "not valid UTF-8" in lines[0] and "invalid JSON" in lines[1]
    assert lines[3] == f"{path}: 3 malformed rows: fix or remove them, then run again"
    assert caught.value.line == 2


@pytest.mark.parametrize("choices", ['"not a list"', '["only one"]', '"A only"'])
def test_choices_that_are_not_a_list_of_options_are_an_error_not_one_option(
    tmp_path: Path, choices: str
) -> None:
    path = tmp_path / "mc.jsonl"
    path.write_text(
        '{"question": "Pick one", "answer": "A", "choices": ' + choices + "}\n", encoding="utf-8"
    )
    with pytest.raises(InputError, match="line 1: choices must list at least 2 options, got 1"):
        load_dataset(path)


def test_a_csv_quote_that_is_never_closed_is_an_error_not_a_question(tmp_path: Path) -> None:
    path = tmp_path / "rows.csv"
    path.write_text(
        'id,question,answer\n1,What is 1 + 1?,2\n2,"What is 3 + 4?,7\n3,What is 2 + 2?,4\n',
        encoding="utf-8",
    )
    with pytest.raises(InputError) as caught:
        load_dataset(path)
    assert str(caught.value).startswith(
        f"{path}: line 3: a quoted cell opened in this row is never closed"
    )
    assert caught.value.line == 3


@pytest.mark.parametrize(
    ("row", "problem"),
    [
        ("2,What is 3 + 4?", "2 cells, but the header has 3 columns"),
        ("2,What is 3 + 4?,7,extra", "4 cells, but the header has 3 columns"),
        ('2,"What"s 3 + 4?,7', "not valid CSV (',' expected after '\"')"),
    ],
)
def test_a_csv_row_of_the_wrong_shape_names_its_line_and_the_rows_after_it_are_read(
    tmp_path: Path, row: str, problem: str
) -> None:
    path = tmp_path / "rows.csv"
    path.write_text(
        f"id,question,answer\n1,What is 1 + 1?,2\n{row}\n3,What is 2 + 2?,x\n4,ok,1,2\n",
        encoding="utf-8",
    )
    with pytest.raises(InputError) as caught:
        load_dataset(path)
    lines = str(caught.value).splitlines()
    assert lines[0].startswith(f"{path}: line 3: {problem}")
    assert lines[1] == f"{path}: line 5: 4 cells, but the header has 3 columns"


def test_a_bad_csv_row_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "rows.csv"
    path.write_text("question,numbers\nfine,1 2\nbad,1 x\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"rows.csv: line 3: numbers must be integers"):
        load_dataset(path)


def test_a_duplicate_id_is_an_error(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "d.jsonl", [{"id": 1, "question": "a"}, {"id": 1, "question": "b"}]
    )
    with pytest.raises(InputError, match=r"line 2: duplicate id '1' \(first at line 1\)"):
        load_dataset(path)


def test_a_missing_question_field_names_the_field_and_the_mapping(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "q.jsonl", [{"prompt": "2+2?"}])
    with pytest.raises(ConfigError, match=r"line 1: no 'question' field .*fields.question"):
        load_dataset(path)


def test_a_mapped_field_that_no_row_has_is_named(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "q.jsonl", [{"question": "2+2?", "answer": "4"}])
    with pytest.raises(ConfigError, match=r"no row has the field 'label' \(mapped as gold\)"):
        load_dataset(DatasetSpec(path=path, fields=FieldMap(gold="label")))


def test_a_corrupt_parquet_file_is_an_input_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.parquet"
    path.write_bytes(b"not parquet at all")
    with pytest.raises(InputError, match="not a readable Parquet file"):
        load_dataset(path)


def test_a_spec_names_exactly_one_source_and_a_known_format() -> None:
    with pytest.raises(ValueError, match="exactly one of 'path', 'sample' or 'hf'"):
        DatasetSpec(sample="arithmetic", path=Path("x.jsonl"))
    with pytest.raises(ValueError, match=r"cannot tell the format of 'x\.txt'"):
        DatasetSpec(path=Path("x.txt"))
    assert DatasetSpec(path=Path("x.txt"), format="jsonl").file_format == "jsonl"
    with pytest.raises(ValueError, match="unknown sample 'trivia'; bundled samples: arithmetic"):
        DatasetSpec(sample="trivia")


def test_short_references_pick_samples_files_and_hugging_face() -> None:
    assert parse_dataset_ref("game24") == DatasetSpec(sample="game24")
    assert parse_dataset_ref("data/q.csv") == DatasetSpec(path=Path("data/q.csv"))
    assert parse_dataset_ref("hf:openai/gsm8k:main@test") == DatasetSpec(
        hf="openai/gsm8k", hf_config="main", split="test"
    )


def test_datasets_with_one_name_are_refused_together() -> None:
    spec = DatasetSpec(sample="game24", limit=1)
    with pytest.raises(ConfigError, match="two datasets are named 'game24'"):
        load_datasets([spec, spec])
    items = load_datasets([spec, DatasetSpec(sample="game24", name="again", limit=1)])
    assert [i.uid for i in items] == ["game24/g24-01", "again/g24-01"]


# --- the bundled samples ------------------------------------------------------------------


def test_the_bundled_samples_are_listed_and_ship_inside_the_package() -> None:
    assert list_samples() == ["arithmetic", "game24", "multiple_choice"]
    package = Path(answerx.__file__).resolve().parent
    for name in list_samples():
        assert sample_path(name).is_relative_to(package)  # hatchling packs src/answerx whole


def test_the_arithmetic_sample_has_numeric_gold_answers() -> None:
    items = load_dataset("arithmetic")
    assert len(items) >= 20
    assert all(i.task == "numeric" and i.gold is not None for i in items)
    assert all(re.fullmatch(r"-?\d+(?:\.\d+)?", i.gold or "") for i in items), items
    assert len({i.id for i in items}) == len(items)


def test_the_multiple_choice_sample_has_four_options_and_a_valid_letter() -> None:
    items = load_dataset("multiple_choice")
    assert len(items) >= 20
    for item in items:
        assert item.choices is not None and len(set(item.choices)) == 4
        assert item.gold in ("A", "B", "C", "D"), item
    letters = Counter(i.gold for i in items)
    assert max(letters.values()) - min(letters.values()) <= 1  # no letter is a safe guess


def _value(expression: str) -> Fraction:
    """Exact value of + - * / over integers (no eval)."""

    def walk(node: ast.AST) -> Fraction:
        if isinstance(node, ast.BinOp):
            left, right = walk(node.left), walk(node.right)
            ops = {ast.Add: left.__add__, ast.Sub: left.__sub__, ast.Mult: left.__mul__}
            if isinstance(node.op, ast.Div):
                return left / right
            return ops[type(node.op)](right)
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return Fraction(node.value)
        raise ValueError(ast.dump(node))

    return walk(ast.parse(expression, mode="eval").body)


def test_every_game24_gold_uses_its_numbers_once_and_makes_24() -> None:
    items = load_dataset("game24")
    assert len(items) >= 10
    for item in items:
        assert item.gold is not None and item.numbers is not None and len(item.numbers) == 4
        assert as_expression(item.gold, item.numbers) == item.gold, item
        assert _value(item.gold) == 24, item


# --- Hugging Face: from the local cache only ----------------------------------------------


def test_hugging_face_without_the_extra_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "datasets", None)  # import datasets -> ImportError
    with pytest.raises(ConfigError, match=r"pip install 'answerx\[hf\]'"):
        load_dataset(DatasetSpec(hf="openai/gsm8k", hf_config="main"))


def _fake_datasets(monkeypatch: pytest.MonkeyPatch, load: Any) -> types.ModuleType:
    """A stand-in ``datasets`` package: its ``load_dataset`` is ``load``."""
    module = types.ModuleType("datasets")
    config = types.ModuleType("datasets.config")
    config.HF_HUB_OFFLINE = False  # type: ignore[attr-defined]
    module.config = config  # type: ignore[attr-defined]
    module.load_dataset = load  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "datasets", module)
    monkeypatch.setitem(sys.modules, "datasets.config", config)
    monkeypatch.delenv("HF_DATASETS_OFFLINE", raising=False)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    return module


def test_hugging_face_datasets_load_offline_from_the_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[dict[str, Any]] = []

    def load(name: str, subset: str | None, **kwargs: Any) -> list[dict[str, Any]]:
        calls.append(
            {
                "args": (name, subset),
                **kwargs,
                "env": os.environ.get("HF_DATASETS_OFFLINE"),
                "hub_offline": sys.modules["datasets.config"].HF_HUB_OFFLINE,
            }
        )
        return [{"question": "Janet has 3 apples...", "answer": "#### 5"}]

    fake = _fake_datasets(monkeypatch, load)
    items = load_dataset(parse_dataset_ref("hf:openai/gsm8k:main"))
    assert items == [
        DatasetItem(
            id="0", question="Janet has 3 apples...", gold="#### 5", dataset="openai/gsm8k:main"
        )
    ]
    [call] = calls
    assert call["args"] == ("openai/gsm8k", "main") and call["split"] == "test"
    assert call["download_mode"] == "reuse_dataset_if_exists"
    assert call["env"] == "1" and call["hub_offline"] is True
    # and everything is as it was afterwards
    assert "HF_DATASETS_OFFLINE" not in os.environ and fake.config.HF_HUB_OFFLINE is False


def test_a_hugging_face_dataset_not_in_the_cache_is_a_clear_config_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def load(name: str, subset: str | None, **kwargs: Any) -> None:
        raise ConnectionError("Couldn't reach 'openai/gsm8k' on the Hub (offline mode)")

    _fake_datasets(monkeypatch, load)
    with pytest.raises(ConfigError, match=r"not in the local Hugging Face cache.*never downloads"):
        load_dataset(DatasetSpec(hf="openai/gsm8k", split="train"))
