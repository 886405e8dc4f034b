"""The cues ``bench/short_answers_ablations.py`` counts (issue 38): each fires on a reply
that names one of several answers wanted together, and not on a reply that names them all
or on a question that wants one."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from answerx import verify

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from short_answers_ablations import dates_cue, family_cue, question_cue


def _item(question: str, golds: list[str], output: str) -> tuple[dict[str, Any], Any]:
    item = {"question": question, "golds": golds, "output": output}
    return item, verify(output, golds, question=question, finish_reason="stop")


def test_a_question_for_two_things_answered_with_one_fires_the_question_cue() -> None:
    golds = ["Blue Nile", "White Nile"]
    one = _item("which two rivers meet at Khartoum", golds, "The Blue Nile.")
    both = _item("which two rivers meet at Khartoum", golds, "The Blue Nile and the White Nile.")
    single = _item("which river flows through Cairo", ["Nile", "the Nile River"], "The Nile.")
    assert question_cue(*one)
    assert not question_cue(*both)
    assert not question_cue(*single)  # "the Nile River" is another way of writing "Nile"


def test_one_of_two_brothers_by_full_name_fires_the_family_cue_but_the_surname_does_not() -> None:
    golds = ["Orville Wright", "Wilbur Wright"]
    question = "who flew the first powered aeroplane"
    assert family_cue(*_item(question, golds, "Wilbur Wright"))
    assert not family_cue(*_item(question, golds, "The Wright brothers."))
    assert not family_cue(*_item(question, golds, "Orville and Wilbur Wright"))


def test_the_year_of_one_of_several_dates_fires_the_dates_cue() -> None:
    golds = ["14 June 1990", "3 May 2004"]
    year = _item("when did the river flood the town", golds, "2004")
    assert year[1].how == "part_match"  # the rules accept it as a coarser answer, with a doubt
    assert dates_cue(*year)
    assert not dates_cue(*_item("when did the river flood the town", golds, "3 May 2004"))
