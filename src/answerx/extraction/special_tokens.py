"""End-of-turn and other special tokens that chat templates leave in saved outputs.

A harness that decodes with ``skip_special_tokens=False`` (or a base model that writes
the tokens as text) stores ``…the answer is 42.<|eot_id|>`` or ``【答案】D <eoa>``. The
tokens are the template's, not the model's answer: :func:`blank_special_tokens` turns
each into a line break padded with spaces to the token's length, so every span the
rules report still points into the raw output, an answer right before a token is read
as it is, and a trailing token never makes an output look unfinished.

:func:`end_of_sequence` says where the first end-of-sequence token is: a base model
that wrote ``</s><s>`` and went on with a new instruction answered before it; and
:func:`ended_by_token` whether the output ends with one: the model stopped by itself, as
a provider's finish reason ``stop`` says, so it was not cut at a token limit.
"""

from __future__ import annotations

import re
from typing import NamedTuple

__all__ = [
    "SPECIAL_TOKENS",
    "SpecialToken",
    "blank_special_tokens",
    "end_of_sequence",
    "ended_by_token",
]


class SpecialToken(NamedTuple):
    """One special token as it appears in decoded text, and whose template writes it."""

    text: str
    family: str  # the tokenizer / chat template that defines it
    ends_sequence: bool  # the model stops here: what follows is not its answer


#: The tokens of the popular chat templates, with the tokenizer family that defines each.
SPECIAL_TOKENS: tuple[SpecialToken, ...] = (
    SpecialToken("<|im_end|>", "ChatML (Qwen, Yi, OpenHermes)", True),
    SpecialToken("<|im_start|>", "ChatML (Qwen, Yi, OpenHermes)", False),
    SpecialToken("<|endoftext|>", "GPT-2 / GPT-NeoX / Qwen / Phi", True),
    SpecialToken("<|eot_id|>", "Llama 3", True),
    SpecialToken("<|end_of_text|>", "Llama 3", True),
    SpecialToken("<|start_header_id|>", "Llama 3", False),
    SpecialToken("<|end_header_id|>", "Llama 3", False),
    SpecialToken("<|begin_of_text|>", "Llama 3", False),
    SpecialToken("<|eom_id|>", "Llama 3.1", True),
    SpecialToken("</s>", "Llama 2 / Mistral / Vicuna / Alpaca (SentencePiece)", True),
    SpecialToken("<s>", "Llama 2 / Mistral / Vicuna / Alpaca (SentencePiece)", False),
    SpecialToken("[/INST]", "Llama 2 / Mistral instruct", False),
    SpecialToken("[INST]", "Llama 2 / Mistral instruct", False),
    SpecialToken("<end_of_turn>", "Gemma", True),
    SpecialToken("<start_of_turn>", "Gemma", False),
    SpecialToken("<eos>", "Gemma", True),
    SpecialToken("<|end|>", "Phi-3", True),
    SpecialToken("<|assistant|>", "Phi-3 / Zephyr", False),
    SpecialToken("<|user|>", "Phi-3 / Zephyr / ChatGLM", False),
    SpecialToken("<｜end▁of▁sentence｜>", "DeepSeek", True),
    SpecialToken("<｜begin▁of▁sentence｜>", "DeepSeek", False),
    SpecialToken("<｜Assistant｜>", "DeepSeek", False),
    SpecialToken("<|END_OF_TURN_TOKEN|>", "Cohere Command-R", True),
    SpecialToken("<|START_OF_TURN_TOKEN|>", "Cohere Command-R", False),
    SpecialToken("<|CHATBOT_TOKEN|>", "Cohere Command-R", False),
    SpecialToken("<eoa>", "InternLM (OpenCompass GAOKAO: end of answer)", True),
    SpecialToken("<eoh>", "InternLM (end of human turn)", False),
    SpecialToken("<eoe>", "GAOKAO-Bench prompts (end of explanation)", False),
    SpecialToken("<|observation|>", "ChatGLM", False),
)

_PATTERN = re.compile(
    "|".join(re.escape(t.text) for t in sorted(SPECIAL_TOKENS, key=lambda t: -len(t.text)))
)
_ENDS = frozenset(t.text for t in SPECIAL_TOKENS if t.ends_sequence)


# Every token but [INST] starts with one of these two characters: found by a literal "<"
# scan at C speed (gsm8k's "<<6/2=3>>" annotations pass it by), then the token table.
_TOKEN_START = re.compile(r"<[|｜/es]")


def _has_token_start(text: str) -> bool:
    if "<" in text and _TOKEN_START.search(text) is not None:
        return _PATTERN.search(text) is not None
    return "[" in text and "INST]" in text


def blank_special_tokens(text: str) -> str:
    """``text`` with every special token replaced by a line break and spaces (same length).

    >>> blank_special_tokens("So D.<eoe>\\n【答案】D <eoa>")
    'So D.\\n    \\n【答案】D \\n    '
    """
    if ("<" not in text and "[" not in text) or not _has_token_start(text):
        return text  # (the usual output: two memchr scans, no call)
    return _PATTERN.sub(lambda m: "\n" + " " * (len(m.group()) - 1), text)


def end_of_sequence(text: str) -> int | None:
    """Where the first end-of-sequence token starts, when some text precedes it and
    other text follows it (a run-on past the model's own end); else None.

    >>> end_of_sequence("The answer is 5.</s><s>Instruction: name a colour")
    16
    """
    if not _has_token_start(text):
        return None
    for m in _PATTERN.finditer(text):
        if m.group() in _ENDS:
            if not text[: m.start()].strip():
                continue  # a token the output starts with ends nothing of its own
            rest = _PATTERN.sub("", text[m.end() :])
            return m.start() if rest.strip() else None
    return None


_TRAILING_TOKENS = re.compile("(?:" + _PATTERN.pattern + r"|\s)+$")


def ended_by_token(text: str) -> bool:
    """Whether ``text`` ends (spaces and other tokens aside) with an end-of-sequence token.

    >>> ended_by_token("Angle = 60 degrees</s><s>"), ended_by_token("Angle = 60 deg")
    (True, False)
    """
    if not _has_token_start(text[-64:]):
        return False
    tail = _TRAILING_TOKENS.search(text, max(0, len(text) - 256))
    return tail is not None and any(t in _ENDS for t in _PATTERN.findall(tail.group()))
