"""The short-answer policy of the README's table: what the rules accept, what they
reject, and where they are unsure (``doubt``), in phrasings of this file's own."""

from __future__ import annotations

import pytest

from answerx import verify

# (reply, accepted answers, question, correct, doubt)
POLICY = [
    # the main claim states an accepted answer: its first sentence, an answer block
    ("Ottawa is the capital. Toronto is the largest city, and Montreal is second.",
     ["Ottawa"], "What is the capital of Canada?", True, None),
    ("Answer:\nOttawa", ["Ottawa"], "What is the capital of Canada?", True, None),
    # the answer's words in another order, or without its qualifiers
    ("Construction started in 1904 and ended in 1914.", ["between 1904 and 1914"],
     "When was the canal built?", True, None),
    ("roughly 4.5 billion years ago", ["about 4.5 billion years ago"], "How old is the Earth?",
     True, None),
    # more detail than the accepted answer
    ("Salzburg, Austria", ["Salzburg"], "Where was Mozart born?", True, None),
    # a coarser answer: the year of a date when the question asks when; a place's head
    ("It opened in 1889.", ["31 March 1889"], "When did the Eiffel Tower open?", True,
     "cover_f1_disagree"),
    ("Cambridge", ["Cambridge, Massachusetts"], "Where is Harvard?", True, "cover_f1_disagree"),
    # ... but not when the question asks for the date itself (unsure: it is part of it)
    ("1889", ["31 March 1889"], "On what date did the Eiffel Tower open?", False,
     "cover_f1_disagree"),
    # an accepted answer named only as a rejected or compared candidate
    ("Some people think Sydney is the capital, but the capital is Canberra.", ["Sydney"],
     "What is the capital of Australia?", False, "guard_fired"),
    ("Not Sydney: Canberra.", ["Sydney"], "What is the capital of Australia?", False,
     "guard_fired"),
    # several candidates, a hedge
    ("Maybe Sydney or Melbourne.", ["Sydney"], "What is the capital of Australia?", False,
     "guard_fired"),
    # a list of accepted answers only is no shotgun
    ("The primary colours of light are red, green and blue.", ["red", "green", "blue"],
     "Name a primary colour of light.", True, None),
    # an accepted answer written as a sentence: the reply is its subject or its last words
    ("Answer: Marie Curie", ["Marie Curie was the first woman to win a Nobel Prize."],
     "Who was the first woman to win a Nobel Prize?", True, "cover_f1_disagree"),
    ("Answer: Nairobi", ["The capital of the largest country in East Africa is Nairobi"],
     "What is the capital of the largest country in East Africa?", True, "cover_f1_disagree"),
    # ... but not a word from its middle, an item of a list, or a subject it turns against
    ("Answer: 7", ["Anna was 7 years old when her brother was 12."],
     "How old was Anna's brother when Anna was seven?", False, None),
    ("Answer: Oslo", ["Oslo, Bergen, Trondheim and Stavanger"], "Name Norway's four largest "
     "cities.", False, None),
    ("Answer: Thomas Edison", ["Thomas Edison is often credited, but Joseph Swan was first."],
     "Who invented the incandescent light bulb first?", False, None),
    ("The most interesting man in the world",
     ["People would disagree on the most interesting man in the world"],
     "Who is the most interesting man in the world?", False, "cover_f1_disagree"),
    # plainly wrong
    ("Melbourne", ["Canberra"], "What is the capital of Australia?", False, None),
]  # fmt: skip


@pytest.mark.parametrize(("reply", "golds", "question", "correct", "doubt"), POLICY)
def test_the_short_answer_policy(
    reply: str, golds: list[str], question: str, correct: bool, doubt: str | None
) -> None:
    verdict = verify(reply, golds, question=question, finish_reason="stop")
    assert (verdict.correct, verdict.doubt) == (correct, doubt)
