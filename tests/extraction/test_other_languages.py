"""Answer markers in other languages (issue 23 §1): "the answer is" and "Answer:" as Chinese,
Japanese, Korean, Spanish, French, German, Portuguese, Italian and Russian outputs write them,
full-width colons and brackets included, for letters, numbers and formulas alike."""

from __future__ import annotations

import pytest

from answerx import extract

MC = "multiple_choice"


@pytest.mark.parametrize(
    ("raw", "answer"),
    [
        ("答案：A", "A"),
        ("答案:D", "D"),
        ("答案是 C", "C"),
        ("因此答案为B。", "B"),
        ("故选B", "B"),
        ("所以选 D", "D"),
        ("正确答案为（B）", "B"),
        ("综上，本题应选 A 项。", "A"),
        ("我选择C，因为它最符合题意。", "C"),
        ("答え：B", "B"),
        ("正解は C です。", "C"),
        ("정답은 D입니다.", "D"),
        ("La respuesta correcta es la (B).", "B"),
        ("Respuesta: C", "C"),
        ("La bonne réponse est D.", "D"),
        ("Réponse : A", "A"),
        ("Die richtige Antwort ist C.", "C"),
        ("Antwort: B", "B"),
        ("A resposta correta é a letra B.", "B"),
        ("Resposta: D", "D"),
        ("La risposta corretta è A.", "A"),
        ("Ответ: C", "C"),
        ("Правильный ответ — B.", "B"),
    ],
)
def test_a_choice_after_a_marker_of_another_language(raw: str, answer: str) -> None:
    result = extract("分析略。\n" + raw if raw[0] > "\u3000" else raw, MC)
    assert (result.answer, result.method, result.unfinished) == (
        answer,
        "final_answer_phrase",
        False,
    )


@pytest.mark.parametrize(
    ("raw", "answer"),
    [
        ("小明有 20 元，花了 8 元，还剩 12 元。\n答案：12", "12"),
        ("每排 9 个座位，共 6 排，一共 54 个。答案是 54 个。", "54"),
        ("总共需要 35 分钟。答：35", "35"),
        ("りんごは全部で 18 個です。答えは 18 です。", "18"),
        ("La respuesta es 27.", "27"),
        ("Le résultat final : la réponse est 3,75 €.", "3.75"),
        ("Die Antwort lautet 2,5 Stunden.", "2.5"),
        ("A resposta é 1,5 litros.", "1.5"),
        ("Ответ: 0,25", "0.25"),
        ("答案：４２", "42"),  # full-width digits are digits (NFKC)
    ],
)
def test_a_number_after_a_marker_of_another_language(raw: str, answer: str) -> None:
    result = extract(raw, "numeric")
    assert (result.answer, result.method) == (answer, "final_answer_phrase")


def test_a_decimal_comma_after_a_marker_of_a_decimal_comma_language_is_a_decimal() -> None:
    assert extract("La réponse est 3,5.", "numeric").answer == "3.5"
    assert extract("Ответ: 12,75", "math").answer == "12.75"


def test_a_box_after_a_chinese_marker_is_read_as_a_box() -> None:
    result = extract("所以答案是 \\boxed{7}", "math")
    assert (result.answer, result.method) == ("7", "boxed")


def test_a_formula_after_a_marker_of_another_language() -> None:
    result = extract("因此，答案是 $\\frac{3}{4}$。", "math")
    assert (result.answer, result.method) == ("\\frac{3}{4}", "final_answer_phrase")


def test_an_english_marker_still_comes_first() -> None:
    raw = "答案：A\n\nWait, I misread the chart. The answer is (C)."
    assert extract(raw, MC).answer == "C"


@pytest.mark.parametrize(
    "raw",
    [
        "Nuestra respuesta es incompleta sin más datos.",
        "Die Antwort ist nicht eindeutig.",
        "答案不唯一，需要更多信息。",
    ],
)
def test_a_marker_followed_by_no_answer_gives_none(raw: str) -> None:
    assert extract(raw, MC).answer is None
