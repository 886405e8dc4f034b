"""Did the model finish its output? A deterministic reading of how the text ends.

An output cut off at the token limit usually states no answer, and its last number
or letter is an intermediate value, not the model's answer. The engine lets a
fallback rule (last number, last expression, choice letter, bottom scan) answer
only when the output is finished; explicit markers found before a cut still count.

The rule, in order (the first that applies decides):

1. the provider's finish reason: a length stop (``length``, ``max_tokens``,
   ``MAX_TOKENS``, ...) means unfinished; a normal stop (``stop``, ``end_turn``,
   ``stop_sequence``, ``COMPLETE``, ...) means finished;
2. structure left open: a ``<think>`` never closed, a JSON string or object never
   closed, a code fence never closed;
3. how the last paragraph ends: inside math (``$``, ``\\(``, ``\\[``, ``{`` left
   open), on an operator or a connecting character (``=``, ``+``, ``,``, ``:``,
   ``(``, ``\\``), on a word that cannot end a sentence ("the", "and", "wait"), or
   mid-sentence (a prose line of two words or more that stops on a letter or a
   digit, not on a sentence's, formula's or block's end; a one-line output shorter
   than 80 characters only with more than three words: "New York City" is an answer;
   never a one-line output of words (no digit, no first person) shorter than 300
   characters that ends no sentence or clause inside: an answer-only reply, a phrase or
   a list of words),
   right after a list marker ("1.", "-") or at a GSM8K calculator annotation
   (``<<6/2=3>>``);
4. looping: the last 60 characters occur three times or more in the last 4,000.

Only the end of the text is read (a bounded tail; the ``<think>`` and JSON checks
scan forward from their last opening), so the check is linear and cheap.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from answerx.extraction.models import LETTER_CLASS, option_letters

__all__ = ["LENGTH_REASONS", "STOP_REASONS", "unfinished_reason"]

#: Finish reasons that mean the output was cut at the token limit.
LENGTH_REASONS = frozenset(
    {"length", "max_tokens", "max_output_tokens", "max_tokens_reached", "model_length"}
)
#: Finish reasons that mean the model stopped by itself.
STOP_REASONS = frozenset(
    {"stop", "end_turn", "stop_sequence", "eos", "eos_token", "complete", "tool_calls",
     "tool_use", "function_call", "pause_turn"}
)  # fmt: skip

_TAIL = 4000
_PARAGRAPH = 1500  # the end of a last paragraph longer than this is read
_LOOP_UNIT = 60
_LOOP_MIN = 3
_MAX_JSON_TRIES = 32
# A one-line text shorter than this ending in a lowercase word may be a terse note.
_MIN_CUT_CHARS = 80
_SHORT_REPLY = 300  # a longer output ending on an option's words was cut there
_LIST_MARKER = re.compile(r"\s*(?:\d{1,2}[.)]|[-*•]|[a-z][.)]|Step \d+:?)\s*")
_THINK_OPEN_END = re.compile(r"\s*>")
_THINK_CLOSE = re.compile(r"<\s*/\s*think\s*>")
_JSON_OPEN = re.compile(r'\{\s*"[^"\n]{1,60}"\s*:')
# A whole string is one token ("unrolled" so a long string is one fast scan).
_JSON_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|"|[{}\[\]]', re.DOTALL)
_DANGLING_CHARS = frozenset("=+-/^\\,:;([{&<")
_DANGLING_WORDS = frozenset(
    """a an the of to and or but nor is are was were be been being that which who whom
    whose with for from by at on in as if then than into onto upon since because while where when
    whereas though although we i you our my your their not can could will would should
    must may might has have had does did let lets maybe wait hmm hm um also every gives
    equals becomes using per via plus minus such therefore thus hence however""".split()  # noqa: SIM905
)
_CLOSERS = re.compile(r"[$*_`'\")}\]. \n\t]+")  # what may follow a stated answer
_CALC_TAIL = re.compile(r"=\s*(-?[\d.,]+)>>\s*(-?[\d.,]*)$")
_PROSE_WORD = re.compile(r"[^\W\d_]+")
_WORD = re.compile(r"([A-Za-z']+)\W*$")
_SENTENCE_END = frozenset(".!?")
_SENTENCE_INSIDE = re.compile(r"[.!?:;]\s")  # a sentence (or a clause) ended inside a line
# The writer in the first person: a line about its own work is reasoning, not a reply.
_WRITER = re.compile(r"\b(?:I|I'm|I'll|me|my|we|we're|we'll|us|our|let|let's)\b", re.IGNORECASE)
_INITIAL = re.compile(r"[A-Z]\.(?:[A-Z]\.)*")


def unfinished_reason(
    text: str,
    lower: str,
    finish_reason: str | None = None,
    answer_end: int | None = None,
    choices: Sequence[str] | None = None,
) -> str | None:
    """Why ``text`` looks unfinished, or None when it looks finished.

    ``lower`` is ``text`` lowercased with every index unchanged; ``finish_reason`` is
    the provider's, when known (it decides on its own when it names a length or a
    normal stop). ``answer_end`` is where an explicit marker's answer ends: an output
    whose last line states the answer ended there by choice, however that line ends
    ("The answer is (B)"), so only open structure can make it unfinished. A last line
    that ends in an option letter on its own ("… is the tallest. A") or in the text of
    one of ``choices`` ends a reply, not a thought."""
    if finish_reason is not None:
        reason = finish_reason.strip().lower()
        if reason in LENGTH_REASONS:
            return f"finish reason {finish_reason!r}"
        if reason in STOP_REASONS:
            return None
    structure = _open_structure(text, lower, answer_end)
    if structure is not None:
        return structure
    if answer_end is not None:
        end = len(text.rstrip())
        if answer_end >= text.rfind("\n", 0, end) + 1:
            return None
        if end - answer_end < 200 and not _CLOSERS.sub("", text[answer_end:end]):
            return None
    return _cut_ending(text, choices) or _looping(text)


def _open_structure(text: str, lower: str, answer_end: int | None = None) -> str | None:
    if "<" in lower and "think" in lower:  # "<" first: one memchr, most outputs have none
        opened = _last_think_open(lower)
        if opened != -1 and _THINK_CLOSE.search(lower, opened) is None:
            return "unclosed <think>"
    # The last JSON object: found with rfind (LaTeX is full of "{"; a JSON object
    # starts '{"' or '{' + newline), then read token by token (a whole string is one
    # token), so a long reasoning string costs one regex step.
    # Only what starts after a stated answer can leave it unfinished: search there.
    after = 0 if answer_end is None else answer_end
    start = -1
    if text.find("{", after) != -1:  # one memchr spares most texts the three rfinds
        start = max(text.rfind('{"', after), text.rfind("{\n", after), text.rfind('{ "', after))
    if start != -1:
        for _ in range(_MAX_JSON_TRIES):
            if start == -1 or _JSON_OPEN.match(text, start):
                break
            start = max(text.rfind('{"', after, start), text.rfind("{\n", after, start))
        else:
            start = -1
        if start != -1:
            depth = 0
            for tok in _JSON_TOKENS.finditer(text, start):
                t = tok.group()
                if t == '"':
                    return "unclosed JSON string"
                if t in "{[":
                    depth += 1
                elif t in "}]":
                    depth -= 1
                    if depth == 0:
                        break
            else:
                if depth > 0:
                    return "unclosed JSON object"
    last = text.rfind("```", after)
    # An opening fence has content after it (checked first: the count is dearer).
    if last != -1 and text[last + 3 : last + 4000].strip() and text.count("```") % 2:
        return "unclosed code block"
    return None


def _last_think_open(lower: str) -> int:
    """Where the last ``<think>`` (spaces allowed inside) ends, or -1: found with rfind
    from the end (a regex scan of the whole text was most of this check's cost)."""
    i = lower.rfind("think")
    while i != -1:
        closing = _THINK_OPEN_END.match(lower, i + 5)
        if closing is not None:
            j = i - 1
            while j >= 0 and lower[j].isspace():
                j -= 1
            # A "<" then spaces then "think": not "</think>" ("/" is no space).
            if j >= 0 and lower[j] == "<":
                return closing.end()
        i = lower.rfind("think", 0, i)
    return -1


def _cut_ending(text: str, choices: Sequence[str] | None = None) -> str | None:
    end = len(text.rstrip())
    if end == 0:
        return None
    start = max(end - _PARAGRAPH, 0)
    para_start = text.rfind("\n\n", start, end)
    para = text[(para_start + 2 if para_start != -1 else start) : end]
    if _open_math(para):
        return "cut inside a formula"
    last = para[-1]
    if last in _DANGLING_CHARS and not para.endswith(("\\]", "\\)", "\\}", ":)", "-->")):
        return "cut after an operator or a connector"
    line = para[para.rfind("\n") + 1 :][-200:]
    if line.endswith(">>") or line.count("<<") > line.count(">>"):
        return "cut at a calculator annotation"  # GSM8K "<<6/2=3>>3": the value follows
    calc = _CALC_TAIL.search(line) if ">>" in line else None
    if (
        calc is not None
        and calc.group(2) != calc.group(1)
        and calc.group(1).startswith(calc.group(2))
    ):
        return "cut inside a number"  # "<<16/10=1.6>>1.": the value was being written
    if (
        line.endswith("$")
        and line[-2:-1] in (" ", "=", "")
        and "$" not in line[:-1].replace("\\$", "")
    ):
        return "cut after a currency sign"
    if _LIST_MARKER.fullmatch(line):
        return "cut after a list marker"
    word = _WORD.search(line)
    at_end = word is not None and word.end(1) == len(line)
    if (
        at_end
        and word is not None
        and word.group(1).lower() in _DANGLING_WORDS
        and (len(line.split()) >= 2 or "\n" in text[:end])
    ):
        # "… is the tallest. A" ends on an option letter, not on the article "A".
        return None if _ends_with_a_choice(line, text, choices) else "cut mid-sentence"
    # A finished reasoning text ends its last sentence ("."), formula ("$", "\\]") or
    # block; a prose line (two words or more) that stops on a letter or a digit was
    # cut ("Jana ha", "5 hours * 1"). A last line that is only an answer ("Paris",
    # "4 9 10 13", "B") is not prose; nor is a one-line output shorter than
    # _MIN_CUT_CHARS (a terse note).
    if last.isalnum():
        if (
            "\n" not in text[:end]
            and end < _SHORT_REPLY
            and not _SENTENCE_INSIDE.search(line)
            and not any(char.isdigit() for char in line)
            and not _WRITER.search(line)
        ):
            # One line of words, one clause, no sentence before it: what an answer-only
            # prompt gets back ("due to their customer base and similar economic
            # characteristics", a list of words). Cut reasoning has finished a sentence
            # before the limit, is longer than a reply, works with numbers ("we add
            # them and get 4", which a fallback would take for the answer), or speaks
            # of its writer ("Let me think about this carefully first").
            cut = False
        elif "\n" in text[:end] or end >= _MIN_CUT_CHARS:
            cut = len(_PROSE_WORD.findall(line)) >= 2
        else:  # a one-line sentence of reasoning, not a terse answer
            # A name's initials are not words: "J. R. R. Tolkien" is a name, not prose.
            words = [w for w in line.split() if not _INITIAL.fullmatch(w)]
            cut = len(words) > 3 and len(_PROSE_WORD.findall(line)) >= 2
        # Checked last (they are the dearest): a line that ends on an option is a reply;
        # a short last sentence that states a number ("So the total is 42") is a
        # conclusion written without its period.
        if (
            cut
            and not _ends_with_a_choice(line, text, choices)
            and (choices or not _states_a_number(line))
        ):
            return "cut mid-sentence"
    return None


def _ends_with_a_choice(line: str, text: str, choices: Sequence[str] | None) -> bool:
    """The line ends with an option letter on its own after a sentence ("… tallest. A",
    "Final: (C)"), or a short reply ends with one option's whole text ("… so it is March
    and April")."""
    at_end = _LETTER_AT_END.search(line)
    if at_end is not None and at_end.group(1) in option_letters(choices):
        return True
    if not choices or len(text) > _SHORT_REPLY:
        return False  # reasoning cut after an option's words is still cut
    tail = " ".join(line[-300:].lower().split())
    for text in choices:
        option = " ".join(text.lower().split()).rstrip(".")
        if (
            len(option) >= 2
            and tail.endswith(option)
            and not tail[-len(option) - 1 : -len(option)].isalnum()
        ):
            return True
    return False


# A conclusion's last sentence: a conclusion word, then "is"/"equals"/"=" and a number, at
# most two unit words after it ("So the total is 42", "Therefore, x equals -3.5 cm"). Not
# with options: a multiple-choice answer is a letter, and a number there is a step.
_NUMBER_STATEMENT = re.compile(
    r"(?:^|[.!?:]\s+)(?:so|thus|hence|therefore|finally|in\s+total|overall|altogether)\b"
    r"[^.!?\n=]{0,80}"
    r"\b(?:is|are|was|were|equals|comes\s+to|=)\s+(?:(?:negative|minus)\s+)?(?:\\?\$|€|£)?\s*[-−]?\d[\d,]*(?:\.\d+)?"
    r"\s*%?(?:\s+[A-Za-z]+){0,2}$",
    re.IGNORECASE,
)
_STATEMENT_CHARS = 120


def _states_a_number(line: str) -> bool:
    return _NUMBER_STATEMENT.search(line[-_STATEMENT_CHARS:]) is not None


_LETTER_AT_END = re.compile(rf"(?:^|[.!?:;])[ \t]*\(?({LETTER_CLASS})\)?$")


def _open_math(para: str) -> bool:
    if para.count("\\[") > para.count("\\]") or para.count("\\(") > para.count("\\)"):
        return True
    if para.count("$$") % 2 == 1:
        return True
    dollars = para.count("$")
    if dollars % 2 == 1 and not re.search(r"\$\s?\d", para):  # "$5": currency, not math
        return True
    opens = para.count("{") - para.count("\\{")
    closes = para.count("}") - para.count("\\}")
    return opens > closes


def _looping(text: str) -> str | None:
    end = len(text.rstrip())
    if end < _LOOP_UNIT * _LOOP_MIN:
        return None
    unit = text[end - _LOOP_UNIT : end]
    if text.count(unit, max(end - _TAIL, 0), end) >= _LOOP_MIN:
        return "repeating text"
    return None
