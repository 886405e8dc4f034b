"""A marker in any bracket or dash style, in every supported language (issue 37 §3):
``【答案】``, ``[Answer]``, ``**Answer:**``, ``Answer —``, and the letter-first verdicts of
Chinese and Japanese exam answers (``选项A正确``, ``所以D是正确答案``)."""

from __future__ import annotations

import pytest

from answerx import extract

_OPTIONS = ["甲", "乙", "丙", "丁"]


@pytest.mark.parametrize(
    "raw",
    [
        "解析：氧气不可燃，助燃。\n【答案】C",
        "【答案】 C",
        "[答案] C",
        "〔答案〕：C",
        "[Answer] C",
        "【Answer】C",
        "**Answer:** C",
        "Weighing the options once more.\n\nAnswer — C",
        "Final answer – C",
        "[Respuesta] C",
        "【Réponse】 C",
        "[Antwort] C",
        "[Ответ] C",
        "Kwa hiyo, jibu ni C.",
    ],
)
def test_a_bracketed_or_dashed_marker_states_the_choice(raw: str) -> None:
    result = extract(raw, "multiple_choice", choices=_OPTIONS)
    assert (result.answer, result.method, result.unfinished) == ("C", "final_answer_phrase", False)


@pytest.mark.parametrize(
    ("raw", "answer"),
    [
        ("【答案】240<eoa>", "240"),
        ("[Answer] 18", "18"),
        ("Answer — 7.5", "7.5"),
        ("ধাপে ধাপে উত্তর: ... উত্তর হল 11।", "11"),
        ("సమాధానం 11.", "11"),
        ("คำตอบคือ 11", "11"),
        ("Jibu: 11", "11"),
        ("Die Antwort lautet 11.", "11"),
        ("Ответ — 11.", "11"),
        ("答えは11です。", "11"),
    ],
)
def test_a_number_after_a_marker_of_any_style_or_mgsm_language(raw: str, answer: str) -> None:
    assert extract(raw, "numeric").answer == answer


@pytest.mark.parametrize(
    ("raw", "answer"),
    [
        ("逐项分析后，选项B正确。", "B"),
        ("B选项正确。", "B"),
        ("综上所述，所以D是正确答案。", "D"),
        ("正确的是 A。", "A"),
        ("故选：C", "C"),
        ("答案为 C", "C"),
        ("A不正确，B错误，D正确。", "D"),
        ("A正确吗？不，C是正确的。", "C"),
        ("したがって、B が正解です。", "B"),
    ],
)
def test_a_chinese_or_japanese_verdict_names_its_option(raw: str, answer: str) -> None:
    assert extract(raw, "multiple_choice", choices=_OPTIONS).answer == answer


def test_a_question_about_an_option_or_a_phrase_about_it_is_no_verdict() -> None:
    assert extract("A正确吗？", "multiple_choice", choices=_OPTIONS).answer is None
    assert extract("A对于这个问题没有帮助。", "multiple_choice", choices=_OPTIONS).answer is None


@pytest.mark.parametrize(
    ("raw", "answer"),
    [
        ("يتأين الحمض تمامًا، لذا pH = 3. الإجابة هي (B)", "B"),
        ("pH = 3입니다.\n\n**답은 (B)입니다**", "B"),
    ],
)
def test_arabic_and_bold_korean_answer_sentences(raw: str, answer: str) -> None:
    result = extract(raw, "multiple_choice", choices=["1", "3", "5", "7"])
    assert (result.answer, result.method) == (answer, "final_answer_phrase")


def test_a_title_s_full_stop_does_not_end_the_stated_answer() -> None:
    assert extract("Exact Answer: Mrs. Robinson\nConfidence: 60%", "short_answer").answer == (
        "Mrs. Robinson"
    )
    assert (
        extract("The answer is B. Then we check C.", "multiple_choice", choices=_OPTIONS).answer
        == "B"
    )
