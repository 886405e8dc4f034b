"""No piece of a configured key survives in errors, stored records or reports.

A provider echoing the ``Authorization`` header and pydantic cutting the echo to
``input_value='Bearer sk-proj-4fJ9q2LxT...W6yZ0aK5hD2gU9iO4pS7tQ1'`` showed that
replacing whole keys is not enough: every run of 6 or more characters of a key
(its start, its end, a piece of its middle), and of its base64 and URL-encoded
forms, is replaced, wherever answerx lets text go. (The service's bodies and log:
``tests/service``.)
"""

from __future__ import annotations

import base64
import json
import time
import urllib.parse
from datetime import UTC, datetime
from pathlib import Path

import pytest
from pydantic import BaseModel, ValidationError

import answerx.redactor
from answerx.errors import ProviderError, redact
from answerx.experiments.records import ItemRecord
from answerx.experiments.report import report_from_store
from answerx.experiments.report_files import write_report
from answerx.experiments.store import ResultStore
from answerx.redactor import (
    MIN_FRAGMENT,
    Redactor,
    configured_secrets,
    redact_keys,
    redact_keys_deep,
    register_secret,
)

KEY = "sk-proj-4fJ9q2LxT7vB1mN8cR3eW6yZ0aK5hD2gU9iO4pS7tQ1"  # 51 characters


def pieces_of(key: str, text: str) -> list[str]:
    """The 8-character pieces of ``key`` found in ``text``."""
    return [key[i : i + 8] for i in range(len(key) - 7) if key[i : i + 8] in text]


@pytest.fixture
def configured_key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    return KEY


@pytest.mark.parametrize(
    ("text", "redacted"),
    [
        (KEY, "***"),
        (f"prefix {KEY[:8]} end", "prefix *** end"),  # the start: 8 characters
        (f"suffix ...{KEY[-23:]}'", "suffix ...***'"),  # pydantic's cut: the last 23
        (f"middle {KEY[20:31]}!", "middle ***!"),
        (f"seven {KEY[8:15]} and {KEY[30:37]}", "seven *** and ***"),  # issue 35: 7 leaked
        (f"five {KEY[:5]} and {KEY[30:35]}", f"five {KEY[:5]} and {KEY[30:35]}"),
        (f"two {KEY[:10]}{KEY[25:40]} runs", "two *** runs"),  # adjacent pieces: one mask
        ("no key at all, a long word: internationalisation", None),
    ],
)
def test_every_run_of_six_characters_of_a_key_is_replaced(text: str, redacted: str | None) -> None:
    assert Redactor([KEY])(text) == (text if redacted is None else redacted)


@pytest.mark.parametrize("offset", [0, 1, 2])
def test_a_key_in_base64_is_replaced_at_every_byte_alignment(offset: int) -> None:
    encoded = base64.b64encode(("u" * offset + f"user:{KEY}!").encode()).decode()
    urlsafe = base64.urlsafe_b64encode(f"{KEY}?>".encode()).decode()

    cleaned = Redactor([KEY])(f"Basic {encoded} and {urlsafe}")

    assert cleaned.count("***") == 2
    key_forms = [base64.b64encode(KEY.encode()).decode()[4:40], KEY]
    assert [f for f in key_forms if f[:6] in cleaned or f[-6:] in cleaned] == []


def test_a_url_encoded_key_is_replaced() -> None:
    key = "ab+cd/ef=gh&ij kl"
    quoted = urllib.parse.quote(key, safe="")

    assert Redactor([key])(f"?key={quoted}&x=1") == "?key=***&x=1"
    assert Redactor([key])(f"?key={quoted.lower()}") == "?key=***"
    assert Redactor([key])(f"?key={urllib.parse.quote_plus(key)}") == "?key=***"


def test_short_pieces_of_one_character_class_are_words_not_key_pieces() -> None:
    # A key made of words must not take the words out of every text; 8 characters of
    # it are still a piece, and so is any 6 of a generated key (KEY[8:14]: "4fJ9q2").
    redactor = Redactor(["sk-test-judge-runner-key"])

    assert redactor("openai/judge-model, runner") == "openai/judge-model, runner"
    assert redactor("got sk-test-judge") == "got ***"
    assert Redactor([KEY])(f"got {KEY[8:14]}.") == "got ***."


def test_pydantics_cut_of_an_echoed_key_is_redacted_at_both_ends() -> None:
    class Answer(BaseModel):
        confidence: float

    with pytest.raises(ValidationError) as invalid:
        Answer.model_validate({"confidence": f"Bearer {KEY}"})
    message = str(invalid.value)
    assert KEY not in message and KEY[-20:] in message  # cut: whole-key redaction misses it

    cleaned = Redactor([KEY])(message)

    assert pieces_of(KEY, cleaned) == []
    assert "input_value='Bearer ***...***'" in cleaned


def test_secrets_shorter_than_a_fragment_are_not_cut_into_pieces() -> None:
    redactor = Redactor(["shrt5"])

    assert not redactor
    assert redactor("shrt5 stays") == "shrt5 stays"  # whole short secrets: the caller's
    assert MIN_FRAGMENT == 6


def test_a_megabyte_of_text_full_of_near_misses_is_redacted_in_linear_time() -> None:
    # Every aligned 4-character piece is one of the key's, no 8 characters are: the
    # worst case of the prefilter. Timed in CPU seconds, generously (not a benchmark).
    near_miss = "".join(KEY[i : i + 4] + KEY[i + 20 : i + 24] for i in range(0, 16, 4))
    text = (near_miss + " ") * (1_000_000 // (len(near_miss) + 1))
    redactor = Redactor([KEY])

    started = time.process_time()
    cleaned = redactor(text)
    spent = time.process_time() - started

    assert cleaned == text
    assert spent < 10


def test_configured_keys_come_from_the_credential_variables_and_direct_keys(
    configured_key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(answerx.redactor, "_registered", {})  # this test's direct keys only
    monkeypatch.setenv("ANSWERX_MAX_BATCH", "1000")
    monkeypatch.setenv("MY_PROVIDER_CREDENTIAL", "given-directly-0123456789")  # no known name

    assert configured_key in configured_secrets()
    assert "1000" not in configured_secrets()
    assert "given-directly-0123456789" not in configured_secrets()
    register_secret("given-directly-0123456789")  # as a manager built with api_key= does
    assert redact_keys("got given-directly-01") == "got ***"


def test_errors_are_redacted_of_key_pieces(configured_key: str) -> None:
    error = ProviderError(f"invalid output: input_value='Bearer sk-...{KEY[-23:]}'", provider="x")

    assert pieces_of(KEY, str(error)) == []
    assert pieces_of(KEY, redact(f"the key ends in {KEY[-12:]}")) == []


def test_stored_records_hold_no_piece_of_a_key(tmp_path: Path, configured_key: str) -> None:
    echo = f"The header was Authorization: Bearer {KEY[:30]}... and {KEY[-23:]}"
    with ResultStore(tmp_path / "runs.db") as store:
        run = store.start_run("echo", {"note": f"copied {KEY[5:20]}"}, "hash")
        store.add_item(_item(run.run_id, raw_output=echo, error=f"failed on {KEY[-10:]}"))
        [stored] = store.items(run.run_id)
        stored_run = store.get_run(run.run_id)

    everything = stored.model_dump_json() + stored_run.model_dump_json()
    assert pieces_of(KEY, everything) == []
    assert stored.raw_output.startswith("The header was Authorization: Bearer ***")
    assert pieces_of(KEY, (tmp_path / "runs.db").read_bytes().decode("latin-1")) == []


def test_reports_hold_no_piece_of_a_key(
    tmp_path: Path, configured_key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A store written before the key was configured (or by an older answerx) still has
    # a piece of it: the report written from it must not.
    monkeypatch.delenv("OPENAI_API_KEY")
    with ResultStore(tmp_path / "runs.db") as store:
        run = store.start_run(f"run {KEY[-16:]}", {}, "hash")
        store.add_item(_item(run.run_id, raw_output="4", model=f"model-{KEY[:12]}"))
        report = report_from_store(store, run.run_id)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)

    written = write_report(report, tmp_path / "report")

    text = "".join(p.read_text() for p in written if p.suffix in (".md", ".json"))
    assert pieces_of(KEY, text) == []
    json.loads((tmp_path / "report" / "report.json").read_text())  # still JSON


def test_records_keep_their_shape_when_redacted(configured_key: str) -> None:
    record = {"a": [KEY[:9], {"b": (1, KEY)}], KEY[-9:]: None, "n": 3}

    assert redact_keys_deep(record) == {"a": ["***", {"b": (1, "***")}], "***": None, "n": 3}


def _item(run_id: str, **fields: object) -> ItemRecord:
    values: dict[str, object] = {
        "run_id": run_id, "approach": "none", "strategy": "structured", "provider": "openai",
        "model": "gpt-test", "item_id": "q1", "task": "numeric", "question": "2 + 2?",
        "gold": "4", "extracted_answer": "4", "method": "answer_block",
        "finished_at": datetime(2026, 11, 21, 14, 30, tzinfo=UTC),
    }  # fmt: skip
    values.update(fields)
    return ItemRecord.model_validate(values)
