"""The formats table of issue 37: every answer format the public benchmarks ask for.

Each row is one generative benchmark task as its harness defines it: the harness and
file the task comes from, the prompt's wording of the answer format, the form of the
expected answer, the harness's own scoring regex or filter, and the answerx task the
benchmark implies. Every row carries realistic outputs in the styles of several model
families (chat-template end tokens left in, as saved outputs have them), right and wrong,
each with the answer answerx should read, the gold and the verdict.

The harvest (read 2026-11-28): lm-evaluation-harness ``lm_eval/tasks`` (``doc_to_text``,
``generation_kwargs.until``, ``filter_list``), simple-evals (``common.py`` templates and
answer regexes, ``mgsm_eval.py``), LiveBench ``process_results``, lighteval's task
prompts, OpenCompass dataset configs (``*_gen``), the AGIEval, GAOKAO, C-Eval, CMMLU,
MMLU-Pro and OlympiadBench prompts. Paraphrased into data; no harness code is copied.

``python bench/formats_table.py build`` writes ``tests/data/formats/formats.yaml`` (the
data file the tests read) and ``docs/FORMATS.md`` (rendered from that file);
``tests/extraction/test_formats_table.py`` fails when either differs from what this
script writes, and tests every output through ``answerx.extract`` and ``answerx.verify``.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

__all__ = [
    "DATA",
    "DOC",
    "KNOWN",
    "build_rows",
    "cases",
    "check",
    "find_rules",
    "load_known",
    "load_rows",
    "load_rules",
    "read",
    "render_doc",
    "render_yaml",
]

_ROOT = Path(__file__).resolve().parent.parent
DATA = _ROOT / "tests" / "data" / "formats" / "formats.yaml"
DOC = _ROOT / "docs" / "FORMATS.md"

# ---------------------------------------------------------------------------------------
# Styles: how each model family wraps a piece of reasoning and the line that states the
# answer, with the end-of-turn token its chat template leaves in a saved output. The
# token table is the tokenizer's own (named in the comment), not a guess.
# ---------------------------------------------------------------------------------------

Style = Callable[[str, str], str]
_LME = "lm-evaluation-harness"

STYLES: dict[str, Style] = {
    # OpenAI chat models: plain prose, a blank line before the requested last line.
    "gpt-4o": lambda work, final: f"{work}\n\n{final}",
    # Anthropic: a short preamble (in English only when asked in English: it answers in the
    # question's language), markdown emphasis on the answer line.
    "claude-3.5-sonnet": lambda work, final: (
        ("I'll work through this step by step.\n\n" if work.isascii() else "")
        + f"{work}\n\n{_bold(final)}"
    ),
    # Llama 3 chat template: <|eot_id|> ends the assistant turn.
    "llama-3.1-8b-instruct": lambda work, final: f"{work}\n\n{final}<|eot_id|>",
    # Qwen2/2.5 ChatML: <|im_end|> ends the turn.
    "qwen2.5-7b-instruct": lambda work, final: f"{work}\n{final}<|im_end|>",
    # DeepSeek-R1: a <think> region, a summary, then its own end-of-sentence token.
    "deepseek-r1": lambda work, final: (
        f"<think>\n{work}\nLet me double-check that once more. Yes, that holds.\n</think>\n\n"
        f"{work}\n\n{final}<｜end▁of▁sentence｜>"
    ),
    # Gemma 2: <end_of_turn> (the template's turn delimiter); the marker alone in bold,
    # "**Answer:** B".
    "gemma-2-9b-it": lambda work, final: f"{work}\n\n{_bold_marker(final)}<end_of_turn>",
    # Mistral/Mixtral [INST] template: the SentencePiece </s> is decoded into the text.
    "mistral-7b-instruct": lambda work, final: f"{work} {final}</s>",
    # ChatGLM3/GLM-4: <|endoftext|> or the next role token <|user|>.
    "glm-4-9b-chat": lambda work, final: f"{work}\n{final}<|user|>",
    # Phi-3: <|end|> closes a turn.
    "phi-3-mini": lambda work, final: f"{work}\n\n{final}<|end|>",
    # Command R: <|END_OF_TURN_TOKEN|>.
    "command-r": lambda work, final: f"{work}\n\n{final}<|END_OF_TURN_TOKEN|>",
    # Llama 2 chat: the </s> of the turn and the <s>[INST] of the next one decoded in.
    "llama-2-13b-chat": lambda work, final: f" {work} {final} </s><s>[INST]",
    # InternLM (first generation) chat: <eoa> ends the answer.
    "internlm-chat-7b": lambda work, final: f"{work}\n{final}<eoa>",
    # Qwen (first generation) and GPT-2-style tokenizers: <|endoftext|>.
    "qwen-7b-chat": lambda work, final: f"{work}\n\n{final}<|endoftext|>",
    # A base model under a few-shot prompt: answers, then goes on with the next exemplar
    # (a harness without that stop sequence saves the continuation).
    "base-llama-2-7b": lambda work, final: (
        f" {work} {final}\n\nQ: A farmer has 12 cows and buys 5 more. How many cows does he "
        "have now?\nA: The farmer"
    ),
}

#: The rotations of styles a row's outputs take: right, wrong, right (with an end token).
_ROTATIONS: tuple[tuple[str, str, str], ...] = (
    ("gpt-4o", "llama-3.1-8b-instruct", "deepseek-r1"),
    ("claude-3.5-sonnet", "qwen2.5-7b-instruct", "gemma-2-9b-it"),
    ("qwen2.5-7b-instruct", "mistral-7b-instruct", "phi-3-mini"),
    ("deepseek-r1", "gpt-4o", "command-r"),
    ("llama-3.1-8b-instruct", "glm-4-9b-chat", "claude-3.5-sonnet"),
    ("gemma-2-9b-it", "base-llama-2-7b", "qwen2.5-7b-instruct"),
    ("internlm-chat-7b", "llama-2-13b-chat", "qwen-7b-chat"),
    ("qwen-7b-chat", "claude-3.5-sonnet", "llama-2-13b-chat"),
)


def _bold_marker(final: str) -> str:
    """Gemma's habit: the marker before a colon in bold, the answer after it plain."""
    found = re.match(r"([^:：\n*<]{1,30}[:：])[ \t]*(\S.*)", final)
    if found is None:
        return final
    return f"**{found[1]}** {found[2]}"


def _tidy(output: str) -> str:
    """With no reasoning the reply is the answer line alone; an answer line that starts a
    line of its own leaves no trailing blanks or a third newline behind."""
    output = re.sub(r"[ \t]+\n", "\n", output.lstrip("\n"))
    return re.sub(r"\n{3,}", "\n\n", output)


def _bold(final: str) -> str:
    """Claude's habit: the one answer line in bold (a multi-line or tagged line is left)."""
    if not final or "\n" in final or "<" in final or "**" in final:
        return final
    return f"**{final}**"


#: A wrong answer's reasoning, when the row gives none of its own: the model second-guesses
#: a right line of reasoning, as wrong outputs often do.
_FLIP = {
    "latin": " Wait, I think I misread one of the conditions; going with my second reading.",
    "cjk": "不过再仔细看一遍题目，我认为应该改选另一个。",
}


def _flipped(work: str) -> str:
    # Only in the two languages the flip is written in; elsewhere a wrong answer keeps the
    # reasoning as it is (a model stating a different option than it worked out).
    if not work:
        return work
    if work.isascii():
        return work + _FLIP["latin"]
    if re.search(r"[\u4e00-\u9fff]", work) and not re.search(r"[\u3040-\u30ff]", work):
        return work + _FLIP["cjk"]
    return work


@dataclass(frozen=True)
class Spec:
    """One benchmark task and the content of its outputs."""

    family: str
    harness: str
    task: str
    source: str
    prompt: str
    form: str
    scoring: str
    answerx_task: str
    say: Callable[[str], str]
    right: str
    wrong: str
    work: str
    wrong_work: str | None = None
    gold: str | None = None  # the dataset's gold when it differs from the stated right answer
    choices: Sequence[str] | None = None
    styles: tuple[str, ...] | None = None
    #: what answerx reads for a stated answer when it writes it differently ("1,250" is
    #: the number 1250)
    read_as: dict[str, str] = field(default_factory=dict)
    extra: tuple[dict[str, Any], ...] = field(default_factory=tuple)


def phrase(template: str) -> Callable[[str], str]:
    """The answer line a prompt asks for, ``{}`` standing for the answer."""
    return lambda answer: template.format(answer)


def _outputs(spec: Spec, index: int) -> list[dict[str, Any]]:
    styles = spec.styles or _ROTATIONS[index % len(_ROTATIONS)]
    gold = spec.gold if spec.gold is not None else spec.right
    wrong_work = spec.wrong_work if spec.wrong_work is not None else _flipped(spec.work)
    stated = [(spec.right, spec.work), (spec.wrong, wrong_work)]
    stated.append((spec.right, spec.work))
    rows = []
    for style, (answer, work) in zip(styles, stated, strict=False):
        rows.append(
            {
                "style": style,
                "output": _tidy(STYLES[style](work, spec.say(answer))),
                "answer": spec.read_as.get(answer, answer),
                "gold": gold,
                "correct": answer == spec.right,
            }
        )
    if spec.choices and spec.family in _OPTION_TEXT_FAMILIES and spec.work:
        rows.append(_with_option_text(spec, index, gold))
    rows.extend(dict(extra, gold=extra.get("gold", gold)) for extra in spec.extra)
    return rows


#: Families whose prompts ask for a bare letter, where models often write the option's
#: text after it ("So the answer is (B) 12/17/1937.").
_OPTION_TEXT_FAMILIES = {"BIG-Bench-Hard", "GPQA", "MMLU", "MMLU-Pro", "ARC"}
_OPTION_TEXT_STYLES = ("mistral-7b-instruct", "gemma-2-9b-it", "llama-3.1-8b-instruct", "gpt-4o")


def _with_option_text(spec: Spec, index: int, gold: str) -> dict[str, Any]:
    """A right answer stated with the option's text after the letter."""
    assert spec.choices is not None
    text = spec.choices[ord(spec.right) - ord("A")]
    line = spec.say(spec.right)
    stop = "." if line.endswith(".") else ""
    line = line.removesuffix(".")
    line = f"{line} {text}{stop}" if line.endswith(")") else f"{line} ({text}){stop}"
    style = _OPTION_TEXT_STYLES[index % len(_OPTION_TEXT_STYLES)]
    return {
        "style": style,
        "output": _tidy(STYLES[style](spec.work, line)),
        "answer": spec.right,
        "gold": gold,
        "correct": True,
        "note": "an option's letter followed by its text",
    }


#: Short harness names for row ids (a task name alone is not unique: ``drop`` is both
#: lm-eval's and simple-evals').
_SHORT = {
    _LME: "lm-eval",
    "AGIEval (OpenCompass agieval_gen)": "agieval",
    "GAOKAO-Bench (OpenCompass GaokaoBench_gen)": "gaokao",
    "C-Eval (official prompt)": "ceval",
}


def _row(spec: Spec, index: int) -> dict[str, Any]:
    row: dict[str, Any] = {
        "id": f"{_SHORT.get(spec.harness, spec.harness)}:{spec.task}",
        "family": spec.family,
        "harness": spec.harness,
        "task": spec.task,
        "source": spec.source,
        "prompt": spec.prompt,
        "form": spec.form,
        "scoring": spec.scoring,
        "answerx_task": spec.answerx_task,
    }
    if spec.choices is not None:
        row["choices"] = list(spec.choices)
    row["outputs"] = _outputs(spec, index)
    return row


# ---------------------------------------------------------------------------------------
# BIG-Bench-Hard: all 27 tasks, lm-evaluation-harness bbh_cot_fewshot (3-shot CoT).
# ---------------------------------------------------------------------------------------

_BBH_PROMPT = (
    "Q: {input}\nA: Let's think step by step. (3-shot exemplars end 'So the answer is X.')"
)
_BBH_SCORING = (
    "regex (?<=the answer is )(.*)(?=.) take_first; exact_match. "
    "cot_zeroshot adds a flexible-extract filter per task"
)
_BBH_SAY = phrase("So the answer is {}.")


def _bbh_mc(name: str, n: int, right: str, wrong: str, work: str, options: Sequence[str]) -> Spec:
    assert len(options) == n
    return Spec(
        family="BIG-Bench-Hard",
        harness=_LME,
        task=f"bbh_cot_fewshot_{name}",
        source=f"lm_eval/tasks/bbh/cot_fewshot/{name}.yaml",
        prompt=_BBH_PROMPT,
        form=f"an option in parentheses, (A) to ({chr(64 + n)})",
        scoring=_BBH_SCORING + r" (flexible: MultiChoiceRegexFilter (\([A-Z]\)))",
        answerx_task="multiple_choice",
        say=lambda a: _BBH_SAY(f"({a})"),
        right=right,
        wrong=wrong,
        work=work,
        choices=options,
    )


def _bbh_other(
    name: str, form: str, task: str, right: str, wrong: str, work: str, flexible: str
) -> Spec:
    return Spec(
        family="BIG-Bench-Hard",
        harness=_LME,
        task=f"bbh_cot_fewshot_{name}",
        source=f"lm_eval/tasks/bbh/cot_fewshot/{name}.yaml",
        prompt=_BBH_PROMPT,
        form=form,
        scoring=_BBH_SCORING + f" (flexible: {flexible})",
        answerx_task=task,
        say=_BBH_SAY,
        right=right,
        wrong=wrong,
        work=work,
    )


def bbh() -> list[Spec]:
    yes_no = "regex \\b(Yes|No|yes|no)\\b, last match"
    return [
        _bbh_other(
            "boolean_expressions",
            "True or False",
            "boolean",
            "True",
            "False",
            "Remember that (i) expressions inside brackets are evaluated first and (ii) "
            "'not' binds tighter than 'or'. not ( False ) or True = True or True = True.",
            "regex \\b(True|False)\\b",
        ),
        _bbh_other(
            "causal_judgement",
            "Yes or No",
            "boolean",
            "No",
            "Yes",
            "Frank T. did not intend to shoot the neighbour's body; the bullet bounced off a "
            "stone. A typical person would not say he caused the injury intentionally.",
            yes_no,
        ),
        _bbh_mc(
            "date_understanding",
            6,
            "B",
            "D",
            "Today is Christmas Eve of 1937, 12/24/1937. One week ago is 12/17/1937.",
            ["12/11/1937", "12/17/1937", "12/25/1937", "01/04/1938", "12/04/1937", "12/31/1937"],
        ),
        _bbh_mc(
            "disambiguation_qa",
            3,
            "A",
            "C",
            "Here the pronoun 'they' refers to the chief: the chief was the one who "
            "lost the keys, and the sentence is not ambiguous.",
            ["The chief lost the keys", "The counselor lost the keys", "Ambiguous"],
        ),
        _bbh_other(
            "dyck_languages",
            "the closing brackets, space-separated, e.g. ] > )",
            "text",
            "] > )",
            "] )",
            "We should process each input one by one and keep track of the stack "
            "configuration. 0: empty stack; 1: ( ; 2: ( < ; 3: ( < [ . Now we close the "
            "remaining brackets in reverse order.",
            'regex (?<= )([" \\[\\(<{}>\\)\\]]+), last match',
        ),
        _bbh_other(
            "formal_fallacies",
            "valid or invalid",
            "text",
            "invalid",
            "valid",
            "From (1) every ally of Tom is a friend of Ann and (2) nobody is both, we "
            "cannot deduce that no friend of Ann is an ally of Tom. The argument is not "
            "deductively valid.",
            "regex \\b(valid|invalid)\\b, last match",
        ),
        _bbh_mc(
            "geometric_shapes",
            10,
            "C",
            "F",
            "The path has 6 separate line segments that close back on the start point, "
            "so it draws a hexagon.",
            [
                "circle",
                "heptagon",
                "hexagon",
                "kite",
                "line",
                "octagon",
                "pentagon",
                "rectangle",
                "sector",
                "triangle",
            ],
        ),
        _bbh_mc(
            "hyperbaton",
            2,
            "B",
            "A",
            "Adjective order is opinion, size, age, shape, colour, origin, material, "
            "purpose. Option (B) 'lovely small old rectangular green Japanese wooden "
            "sweater' follows it.",
            [
                "small lovely old green Japanese wooden sweater",
                "lovely small old green Japanese wooden sweater",
            ],
        ),
        _bbh_mc(
            "logical_deduction_five_objects",
            5,
            "D",
            "B",
            "Ordering the birds from left to right: owl, robin, hawk, crow, hummingbird. "
            "The crow is the second from the right.",
            [
                "The owl is the second from the right",
                "The robin is the second from the right",
                "The hawk is the second from the right",
                "The crow is the second from the right",
                "The hummingbird is the second from the right",
            ],
        ),
        _bbh_mc(
            "logical_deduction_seven_objects",
            7,
            "G",
            "E",
            "The seven books in order are: red, blue, green, white, orange, purple, "
            "black. The black book is the rightmost.",
            [
                "The red book is the rightmost",
                "The blue book is the rightmost",
                "The green book is the rightmost",
                "The white book is the rightmost",
                "The orange book is the rightmost",
                "The purple book is the rightmost",
                "The black book is the rightmost",
            ],
        ),
        _bbh_mc(
            "logical_deduction_three_objects",
            3,
            "C",
            "A",
            "The apples are cheaper than the peaches, the mangoes the most expensive, so "
            "the order is apples, peaches, mangoes.",
            [
                "The apples are the most expensive",
                "The peaches are the most expensive",
                "The mangoes are the most expensive",
            ],
        ),
        _bbh_mc(
            "movie_recommendation",
            4,
            "A",
            "C",
            "Star Wars, The Matrix, Raiders of the Lost Ark and Independence Day are all "
            "classic action/adventure blockbusters; Jurassic Park fits best.",
            ["Jurassic Park", "The Seventh Seal", "Clerks", "Amélie"],
        ),
        _bbh_other(
            "multistep_arithmetic_two",
            "an integer",
            "numeric",
            "11",
            "-1",
            "Let's recall that the order of operations is parentheses first. "
            "A = (-1 + 2 * 3) = (-1 + 6) = 5, B = (4 - 5 * 2) = (4 - 10) = -6, so "
            "A - B = 5 - (-6) = 11.",
            "regex (-?\\d+)(?!.*\\d), last integer",
        ),
        _bbh_other(
            "navigate",
            "Yes or No",
            "boolean",
            "No",
            "Yes",
            "We start at the origin facing forward. Take 3 steps: (0, 3). Turn around, take "
            "5 steps: (0, -2). We are not back at the starting point.",
            yes_no,
        ),
        _bbh_other(
            "object_counting",
            "an integer",
            "numeric",
            "6",
            "5",
            "We list the musical instruments: piano (1), flute (1), two trombones (2), "
            "violin (1), accordion (1). Adding them up: 1 + 1 + 2 + 1 + 1 = 6.",
            "regex (\\d+)(?!.*\\d), last integer",
        ),
        _bbh_mc(
            "penguins_in_a_table",
            5,
            "B",
            "D",
            "The penguins are Louis (7), Bernard (5), Vincent (9), Gwen (8). Those older "
            "than 8: only Vincent, so there is 1 such penguin.",
            ["0", "1", "2", "3", "4"],
        ),
        _bbh_mc(
            "reasoning_about_colored_objects",
            6,
            "E",
            "A",
            "On the desk there are a red pencil, a purple mug and a teal keychain. The "
            "keychain is teal.",
            ["red", "orange", "yellow", "green", "teal", "purple"],
        ),
        _bbh_mc(
            "ruin_names",
            4,
            "C",
            "B",
            "'the beatles' → 'the bentles' is not funny; 'the beagles' replaces a letter "
            "and names a dog breed, a humorous edit.",
            ["the beatless", "the bentles", "the beagles", "the beatles"],
        ),
        _bbh_mc(
            "salient_translation_error_detection",
            6,
            "B",
            "D",
            "The source says 'drei Kilometer' but the translation says 'thirteen "
            "kilometers', a numerical value error.",
            [
                "Modifiers or Adjectives",
                "Numerical Values",
                "Negation or Antonyms",
                "Named Entities",
                "Dropped Content",
                "Facts",
            ],
        ),
        _bbh_mc(
            "snarks",
            2,
            "A",
            "B",
            "Statement (A) says 'Because nothing says fun like standing in line for "
            "three hours', which is clearly ironic.",
            [
                "Because nothing says fun like standing in line for three hours",
                "Because standing in line for three hours is tiring",
            ],
        ),
        _bbh_other(
            "sports_understanding",
            "yes or no",
            "boolean",
            "no",
            "yes",
            "Joao Moutinho is a soccer player. Catching a screen pass is part of American "
            "football, so the sentence is not plausible.",
            yes_no,
        ),
        _bbh_mc(
            "temporal_sequences",
            4,
            "C",
            "A",
            "Wake-up time: 5am. 5am-6am: buying clothes. 6am-11am: gym. 11am-3pm: free. "
            "So Susan could have gone to the museum between 11am and 3pm.",
            ["5am to 6am", "6am to 11am", "11am to 3pm", "3pm to 5pm"],
        ),
        _bbh_mc(
            "tracking_shuffled_objects_five_objects",
            5,
            "E",
            "C",
            "At the start: Alice: red, Bob: green, Claire: blue, Dave: black, Eve: pink. "
            "After the five swaps, Alice has the pink ball.",
            ["red ball", "green ball", "blue ball", "black ball", "pink ball"],
        ),
        _bbh_mc(
            "tracking_shuffled_objects_seven_objects",
            7,
            "B",
            "F",
            "Tracking the seven dancers through the swaps, Gertrude ends with Izzi.",
            ["Lola", "Izzi", "Melissa", "Jamie", "Rodrigo", "Ophelia", "Sam"],
        ),
        _bbh_mc(
            "tracking_shuffled_objects_three_objects",
            3,
            "A",
            "B",
            "Alice and Bob swap, then Bob and Claire, then Alice and Claire: Claire ends "
            "with the yellow present.",
            ["yellow present", "red present", "white present"],
        ),
        _bbh_other(
            "web_of_lies",
            "Yes or No",
            "boolean",
            "Yes",
            "No",
            "Fidel tells the truth. Jerry says Fidel lies, so Jerry lies. Vina says Jerry "
            "tells the truth, so Vina lies. Millicent says Vina lies: Millicent tells the "
            "truth.",
            yes_no,
        ),
        _bbh_other(
            "word_sorting",
            "the words in alphabetical order, space-separated",
            "text",
            "dew foothill ketchup multiply",
            "dew foothill multiply ketchup",
            "The first letters: 'foothill': 'f', 'dew': 'd', 'multiply': 'm', 'ketchup': "
            "'k'. Sorting by first letter: d < f < k < m.",
            "none beyond strict (exact string after 'the answer is ')",
        ),
    ]


# ---------------------------------------------------------------------------------------
# MGSM: every language, three harnesses (lm-eval native CoT and direct, simple-evals).
# ---------------------------------------------------------------------------------------

#: language -> (lm-eval native CoT prompt, the exemplar's answer sentence, reasoning,
#: simple-evals answer word, direct answer word in lm-eval)
_MGSM: dict[str, tuple[str, str, str, str, str]] = {
    "en": (
        "Step-by-Step Answer:",
        "The answer is {}.",
        "Janet's ducks lay 16 eggs. She eats 3 and bakes with 4, so 16 - 3 - 4 = 9 are "
        "left. She sells each for $2: 9 * 2 = 18.",
        "Answer",
        "Answer:",
    ),
    "es": (
        "Respuesta paso a paso:",
        "La respuesta es {}.",
        "Los patos de Janet ponen 16 huevos. Come 3 y usa 4 para hornear, así que quedan "
        "16 - 3 - 4 = 9. Vende cada uno a 2 $: 9 * 2 = 18.",
        "Respuesta",
        "Respuesta:",
    ),
    "fr": (
        "Réponse étape par étape :",
        "La réponse est {}.",
        "Les canes de Janet pondent 16 œufs. Elle en mange 3 et en utilise 4, il en reste "
        "donc 16 - 3 - 4 = 9. Elle vend chacun 2 $ : 9 * 2 = 18.",
        "Réponse",
        "Réponse :",
    ),
    "de": (
        "Schritt-für-Schritt-Antwort:",
        "Die Antwort lautet {}.",
        "Janets Enten legen 16 Eier. Sie isst 3 und backt mit 4, also bleiben "
        "16 - 3 - 4 = 9. Sie verkauft jedes für 2 $: 9 * 2 = 18.",
        "Antwort",
        "Antwort:",
    ),
    "ru": (
        "Пошаговоерешение:",
        "Ответ — {}.",
        "Утки Джанет несут 16 яиц. Она съедает 3 и использует 4 для выпечки, остаётся "
        "16 - 3 - 4 = 9. Она продаёт каждое по 2 доллара: 9 * 2 = 18.",
        "Ответ",
        "Answer:",
    ),
    "zh": (
        "逐步解答:",
        "答案是 {}。",
        "珍妮特的鸭子每天下16个蛋。她吃掉3个，烘焙用掉4个，剩下 16 - 3 - 4 = 9 个。"
        "每个卖2美元：9 * 2 = 18。",
        "答案",
        "Answer:",
    ),
    "ja": (
        "ステップごとの答え:",
        "答えは{}です。",
        "ジャネットのアヒルは1日に16個の卵を産みます。3個食べて4個をお菓子に使うので、"
        "16 - 3 - 4 = 9個残ります。1個2ドルで売るので、9 * 2 = 18ドルです。",
        "答え",
        "Answer:",
    ),
    "bn": (
        "ধাপে ধাপে উত্তর:",
        "উত্তর হল {}।",
        "জ্যানেটের হাঁস দিনে 16টি ডিম দেয়। সে 3টি খায় এবং 4টি দিয়ে কেক বানায়, তাই "
        "16 - 3 - 4 = 9টি থাকে। প্রতিটি 2 ডলারে বিক্রি করে: 9 * 2 = 18।",
        "উত্তর",
        "Answer:",
    ),
    "te": (
        "దశలవారీగా సమాధానం:",
        "సమాధానం {}.",
        "జానెట్ బాతులు రోజుకు 16 గుడ్లు పెడతాయి. ఆమె 3 తింటుంది, 4 బేకింగ్‌కు వాడుతుంది, "
        "కాబట్టి 16 - 3 - 4 = 9 మిగిలాయి. ఒక్కొక్కటి 2 డాలర్లకు అమ్ముతుంది: 9 * 2 = 18.",
        "సమాధానం",
        "Answer:",
    ),
    "th": (
        "คำตอบทีละขั้นตอน:",
        "คำตอบคือ {}",
        "เป็ดของเจเน็ตออกไข่วันละ 16 ฟอง เธอกิน 3 ฟองและใช้อบขนม 4 ฟอง จึงเหลือ "
        "16 - 3 - 4 = 9 ฟอง ขายฟองละ 2 ดอลลาร์: 9 * 2 = 18",
        "คำตอบ",
        "Answer:",
    ),
    "sw": (
        "Jibu la Hatua kwa Hatua:",
        "Jibu ni {}.",
        "Bata wa Janet hutaga mayai 16. Anakula 3 na kuoka kwa 4, kwa hiyo yanabaki "
        "16 - 3 - 4 = 9. Anauza kila moja kwa $2: 9 * 2 = 18.",
        "Jibu",
        "Answer:",
    ),
}

#: A second problem for simple-evals' MGSM rows, so the two harnesses' rows differ:
#: Roger's tennis balls, 5 + 2 * 3 = 11.
_MGSM_ROGER: dict[str, str] = {
    "en": "Roger started with 5 balls. 2 cans of 3 tennis balls each is 6 balls. 5 + 6 = 11.",
    "es": "Roger empezó con 5 pelotas. 2 latas de 3 pelotas son 6 pelotas. 5 + 6 = 11.",
    "fr": "Roger avait 5 balles. 2 boîtes de 3 balles font 6 balles. 5 + 6 = 11.",
    "de": "Roger hatte 5 Bälle. 2 Dosen mit je 3 Bällen sind 6 Bälle. 5 + 6 = 11.",
    "ru": "У Роджера было 5 мячей. 2 банки по 3 мяча — это 6 мячей. 5 + 6 = 11.",
    "zh": "罗杰一开始有5个网球。2罐每罐3个，共6个。5 + 6 = 11。",
    "ja": "ロジャーは最初に5個のボールを持っていました。3個入りの缶が2つで6個です。5 + 6 = 11。",
    "bn": "রজারের প্রথমে 5টি বল ছিল। 3টি করে বলের 2টি ক্যানে 6টি বল। 5 + 6 = 11।",
    "te": "రోజర్ వద్ద మొదట 5 బంతులు ఉన్నాయి. 3 బంతుల చొప్పున 2 డబ్బాలు అంటే 6 బంతులు. 5 + 6 = 11.",
    "th": "โรเจอร์มีลูกเทนนิส 5 ลูก ซื้อมา 2 กระป๋อง กระป๋องละ 3 ลูก เป็น 6 ลูก 5 + 6 = 11",
    "sw": "Roger alianza na mipira 5. Makopo 2 ya mipira 3 kila moja ni mipira 6. 5 + 6 = 11.",
}


def mgsm() -> list[Spec]:
    specs = []
    for lang, (cot_prompt, sentence, work, word, direct) in _MGSM.items():
        specs.append(
            Spec(
                family="MGSM",
                harness=_LME,
                task=f"mgsm_native_cot_{lang}",
                source=f"lm_eval/tasks/mgsm/native_cot/mgsm_native_cot_{lang}.yaml",
                prompt=f"{{question}}\\n{cot_prompt}",
                form=f"an integer after the exemplars' '{sentence.format('N')}'",
                scoring=(
                    f"strict: regex {sentence.format('(-?[0-9.,]+)')} take_first; "
                    "flexible: last number (-?[$0-9.,]{2,})|(-?[0-9]+)"
                ),
                answerx_task="numeric",
                say=phrase(sentence),
                right="18",
                wrong="20",
                work=work,
                wrong_work=work.replace("9 * 2 = 18", "10 * 2 = 20"),
            )
        )
        specs.append(
            Spec(
                family="MGSM",
                harness="simple-evals",
                task=f"mgsm_{lang}",
                source="simple-evals mgsm_eval.py",
                prompt=(
                    "Solve this math problem. Give the reasoning steps before giving the final "
                    f'answer on the last line by itself in the format of "{word}:". Do not add '
                    f'anything other than the integer answer after "{word}:". (translated)'
                ),
                form=f"'{word}: N' on the last line",
                scoring=f"text after the last '{word}:' ; the last number in it; exact",
                answerx_task="numeric",
                say=phrase(f"{word}: {{}}"),
                right="11",
                wrong="8",
                work=_MGSM_ROGER[lang],
                wrong_work=_MGSM_ROGER[lang].replace("6", "3").replace("11", "8"),
            )
        )
        specs.append(
            Spec(
                family="MGSM",
                harness=_LME,
                task=f"mgsm_direct_{lang}",
                source=f"lm_eval/tasks/mgsm/direct/mgsm_direct_{lang}.yaml",
                prompt=f"{{question}}\\n{direct}",
                form="the bare integer, continuing the prompt",
                scoring="remove_whitespace take_first; flexible: last number; exact_match",
                answerx_task="numeric",
                say=lambda a: a,
                right="18",
                wrong="22",
                work="",
                styles=("base-llama-2-7b", "gpt-4o", "qwen2.5-7b-instruct"),
                extra=(
                    {
                        "style": "llama-3.1-8b-instruct",
                        "output": f"{direct} 18<|eot_id|>",
                        "answer": "18",
                        "correct": True,
                    },
                ),
            )
        )
    return specs


# ---------------------------------------------------------------------------------------
# The rest of the families, row by row.
# ---------------------------------------------------------------------------------------

_MC4 = ["A", "B", "C", "D"]


def _simple_mc(
    family: str,
    task: str,
    right: str,
    wrong: str,
    work: str,
    choices: Sequence[str],
    *,
    word: str = "Answer",
    source: str = "simple-evals common.py QUERY_TEMPLATE_MULTICHOICE",
    harness: str = "simple-evals",
) -> Spec:
    return Spec(
        family=family,
        harness=harness,
        task=task,
        source=source,
        prompt=(
            "Answer the following multiple choice question. The last line of your response "
            "should be of the following format: 'Answer: $LETTER' (without quotes) where "
            "LETTER is one of ABCD. Think step by step before answering."
        ),
        form=f"'{word}: X' on the last line",
        scoring=r"(?i)Answer[ \t]*:[ \t]*\$?([A-D])\$? (multilingual: a table of answer words)",
        answerx_task="multiple_choice",
        say=phrase(f"{word}: {{}}"),
        right=right,
        wrong=wrong,
        work=work,
        choices=choices,
    )


def gpqa() -> list[Spec]:
    options = ["2.0 x 10^-8 eV", "1.0 x 10^-4 eV", "5.0 x 10^-9 eV", "3.0 x 10^-11 eV"]
    work = (
        "The energy resolution needs ΔE > ħ/τ. For τ = 10^-8 s, ħ/τ ≈ 6.6 x 10^-8 eV, and "
        "for 10^-9 s it is 6.6 x 10^-7 eV. Only 10^-4 eV is larger than both."
    )
    specs = []
    for subset in ("main", "diamond", "extended"):
        specs.append(
            Spec(
                family="GPQA",
                harness=_LME,
                task=f"gpqa_{subset}_cot_zeroshot",
                source="lm_eval/tasks/gpqa/cot_zeroshot/_gpqa_cot_zeroshot_yaml",
                prompt="What is the correct answer to this question:{Question}\\nChoices:\\n(A) ..."
                "\\nLet's think step by step: ",
                form="an option in parentheses, (A) to (D)",
                scoring=r"strict: (?<=The answer is )(.*)(?=.); flexible: (\([A-Z]\)) last",
                answerx_task="multiple_choice",
                say=phrase("The answer is ({})."),
                right="B",
                wrong="A",
                work=work,
                choices=options,
            )
        )
        specs.append(
            Spec(
                family="GPQA",
                harness=_LME,
                task=f"gpqa_{subset}_cot_n_shot",
                source="lm_eval/tasks/gpqa/cot_n_shot/_gpqa_cot_n_shot_yaml",
                prompt="Here are some example questions from experts. Answer the final question "
                "yourself, following the format of the previous questions exactly.",
                form="'The answer is (X)' as in the exemplars",
                scoring=r"strict: (?<=The answer is )(.*)(?=.); flexible: (\([A-Z]\)) last",
                answerx_task="multiple_choice",
                say=phrase("The answer is ({})"),
                right="B",
                wrong="C",
                work=work,
                choices=options,
            )
        )
        specs.append(
            Spec(
                family="GPQA",
                harness=_LME,
                task=f"gpqa_{subset}_generative_n_shot",
                source="lm_eval/tasks/gpqa/generative/_gpqa_generative_n_shot_yaml",
                prompt="Question: {Question}\\nChoices:\\n(A) ...\\nAnswer:",
                form="the option in parentheses right after 'Answer:'",
                scoring=r"strict: (?<=The answer is )(.*)(?=.); flexible: (\([A-Z]\)) last",
                answerx_task="multiple_choice",
                say=lambda a: f"({a})",
                right="B",
                wrong="D",
                work="",
                choices=options,
                styles=("base-llama-2-7b", "qwen2.5-7b-instruct", "mistral-7b-instruct"),
            )
        )
    specs.append(_simple_mc("GPQA", "gpqa_diamond", "B", "D", work, options))
    specs.append(
        _simple_mc(
            "GPQA",
            "lighteval|gpqa:diamond",
            "B",
            "A",
            work,
            options,
            harness="lighteval",
            source="lighteval tasks gpqa:diamond (instruct prompt)",
        )
    )
    return specs


_MMLU_PRO_SUBJECTS: dict[str, tuple[str, str, str, list[str]]] = {
    # subject: (reasoning, right, wrong, options)
    "biology": (
        "Mitochondria make ATP by oxidative phosphorylation.",
        "C",
        "A",
        ["ribosome", "nucleus", "mitochondrion", "lysosome", "Golgi body"],
    ),
    "business": (
        "Gross margin = (500 - 300) / 500 = 40%.",
        "B",
        "D",
        ["20%", "40%", "60%", "30%", "50%"],
    ),
    "chemistry": ("pH = -log(0.001) = 3.", "D", "B", ["1", "2", "4", "3", "11"]),
    "computer_science": (
        "A binary search on n items takes O(log n) comparisons.",
        "A",
        "E",
        ["O(log n)", "O(n)", "O(n log n)", "O(1)", "O(n^2)"],
    ),
    "economics": (
        "A price ceiling below equilibrium causes a shortage.",
        "E",
        "C",
        ["surplus", "no effect", "higher prices", "deadweight gain", "shortage"],
    ),
    "engineering": (
        "P = V^2 / R = 100^2 / 50 = 200 W.",
        "B",
        "A",
        ["100 W", "200 W", "50 W", "400 W", "2 W"],
    ),
    "health": (
        "Vitamin C deficiency causes scurvy.",
        "A",
        "D",
        ["scurvy", "rickets", "beriberi", "pellagra", "anaemia"],
    ),
    "history": (
        "The Treaty of Westphalia was signed in 1648.",
        "C",
        "B",
        ["1517", "1618", "1648", "1715", "1789"],
    ),
    "law": (
        "Hearsay is an out-of-court statement offered for its truth.",
        "D",
        "C",
        ["admissible", "privileged", "relevant only", "hearsay", "a declaration"],
    ),
    "math": (
        "The derivative of x^3 is 3x^2, which at x = 2 is 12.",
        "E",
        "A",
        ["6", "8", "4", "16", "12"],
    ),
    "other": (
        "The Great Barrier Reef lies off Queensland, Australia.",
        "B",
        "E",
        ["Fiji", "Australia", "Indonesia", "Philippines", "New Zealand"],
    ),
    "philosophy": (
        "Kant's categorical imperative is a deontological principle.",
        "A",
        "B",
        ["deontology", "utilitarianism", "virtue ethics", "egoism", "relativism"],
    ),
    "physics": (
        "v = g t = 9.8 * 3 = 29.4 m/s.",
        "C",
        "D",
        ["9.8 m/s", "19.6 m/s", "29.4 m/s", "39.2 m/s", "3.3 m/s"],
    ),
    "psychology": (
        "Classical conditioning pairs a neutral stimulus with an unconditioned one (Pavlov).",
        "D",
        "A",
        ["Skinner", "Freud", "Piaget", "Pavlov", "Maslow"],
    ),
}


def mmlu_pro() -> list[Spec]:
    specs = []
    for subject, (work, right, wrong, options) in _MMLU_PRO_SUBJECTS.items():
        specs.append(
            Spec(
                family="MMLU-Pro",
                harness=_LME,
                task=f"mmlu_pro_{subject}",
                source=f"lm_eval/tasks/mmlu_pro/mmlu_pro_{subject}.yaml",
                prompt="Question:\\n...\\nOptions:\\nA. ...\\nAnswer: Let's think step by step. "
                "(5-shot CoT exemplars end 'the answer is (X)')",
                form="'the answer is (X)', X in A-J",
                scoring=r"regex answer is \(?([ABCDEFGHIJ])\)? take_first",
                answerx_task="multiple_choice",
                say=phrase("The answer is ({})."),
                right=right,
                wrong=wrong,
                work=f"Let's think step by step. {work}",
                choices=options,
            )
        )
    return specs


_MINERVA: dict[str, tuple[str, str, str, str]] = {
    # subject: (reasoning, right, wrong, form)
    "algebra": ("Solving $2x + 3 = 11$ gives $2x = 8$, so $x = 4$.", "4", "8", "an integer"),
    "counting_and_prob": (
        "There are $\\binom{5}{2} = 10$ pairs, 4 of them favourable, so "
        "the probability is $\\frac{4}{10}$.",
        "\\frac{2}{5}",
        "\\frac{1}{2}",
        "a fraction",
    ),
    "geometry": (
        "The area of the circle of radius 3 is $\\pi r^2 = 9\\pi$.",
        "9\\pi",
        "6\\pi",
        "an expression in pi",
    ),
    "intermediate_algebra": (
        "The roots of $x^2 - 5x + 6$ are 2 and 3, so the sum of squares is $4 + 9$.",
        "13",
        "25",
        "an integer",
    ),
    "num_theory": ("$2^{10} = 1024 \\equiv 4 \\pmod{10}$.", "4", "2", "an integer"),
    "prealgebra": (
        "$\\sqrt{48} = \\sqrt{16 \\cdot 3} = 4\\sqrt{3}$.",
        "4\\sqrt{3}",
        "3\\sqrt{4}",
        "a surd",
    ),
    "precalc": (
        "$\\cos 60^\\circ = \\frac{1}{2}$, so the angle is $\\frac{\\pi}{3}$.",
        "\\frac{\\pi}{3}",
        "\\frac{\\pi}{6}",
        "an expression in pi",
    ),
}


def math_family() -> list[Spec]:
    specs = []
    minerva_say = phrase("Final Answer: The final answer is ${}$. I hope it is correct.")
    for subject, (work, right, wrong, form) in _MINERVA.items():
        specs.append(
            Spec(
                family="MATH/AIME/OlympiadBench",
                harness=_LME,
                task=f"minerva_math_{subject}",
                source=f"lm_eval/tasks/minerva_math/minerva_math_{subject}.yaml",
                prompt="Problem:\\n{problem}\\n\\nSolution: (4-shot Minerva exemplars end 'Final "
                "Answer: The final answer is $X$. I hope it is correct.')",
                form=f"{form} between $...$ in the Minerva closing sentence",
                scoring="split on 'final answer is $' ... '$. I hope'; normalize_final_answer; "
                "exact_match and math_verify",
                answerx_task="math",
                say=minerva_say,
                right=right,
                wrong=wrong,
                work=work,
            )
        )
    boxed_prompt = "Please reason step by step, and put your final answer within \\boxed{}."
    for harness, task, source, right, wrong, work in (
        (
            "lighteval",
            "lighteval|math_500",
            "lighteval tasks math_500",
            "\\frac{14}{3}",
            "\\frac{3}{14}",
            "Cross-multiplying, $3x = 14$, so $x = \\frac{14}{3}$.",
        ),
        (
            "lighteval",
            "lighteval|aime24",
            "lighteval tasks aime24",
            "204",
            "240",
            "The walk takes $\\frac{9}{s}$ hours, and solving the two equations gives $s = 2.5$, "
            "so the total is 204 minutes.",
        ),
        (
            "lighteval",
            "lighteval|aime25",
            "lighteval tasks aime25",
            "70",
            "63",
            "$17_b$ divides $97_b$ exactly when $b + 7$ divides 56, so $b = 21$ or $49$ and "
            "the sum is 70.",
        ),
        (
            "OpenCompass",
            "math_gen",
            "opencompass configs/datasets/math/math_gen.py",
            "(3, \\frac{\\pi}{2})",
            "(3, 0)",
            "Converting $(0, 3)$ to polar: $r = 3$ and $\\theta = \\frac{\\pi}{2}$.",
        ),
        (
            "OlympiadBench",
            "OE_TO_maths_en_COMP",
            "OlympiadBench prompt (English, open-ended)",
            "\\frac{1}{4}",
            "\\frac{1}{2}",
            "By AM-GM, $ab \\le \\left(\\frac{a+b}{2}\\right)^2 = \\frac{1}{4}$ with equality at "
            "$a = b = \\frac{1}{2}$.",
        ),
    ):
        closing = (
            phrase("So the final answer is $\\boxed{{{}}}$.")
            if harness == "OlympiadBench"
            else phrase("The final answer is $\\boxed{{{}}}$.")
        )
        specs.append(
            Spec(
                family="MATH/AIME/OlympiadBench",
                harness=harness,
                task=task,
                source=source,
                prompt=boxed_prompt
                if harness != "OlympiadBench"
                else (
                    '...Please end your solution with "So the final answer is '
                    '\\boxed{answer}." and give the result in LaTeX.'
                ),
                form="LaTeX in the last \\boxed{}",
                scoring="last \\boxed{} (lighteval LatexExtractionConfig; math-verify)",
                answerx_task="math",
                say=closing,
                right=right,
                wrong=wrong,
                work=work,
            )
        )
    specs.append(
        Spec(
            family="MATH/AIME/OlympiadBench",
            harness="OlympiadBench",
            task="OE_TO_maths_zh_COMP",
            source="OlympiadBench prompt (Chinese, open-ended)",
            prompt="请通过逐步推理来解答问题，并把最终答案放置于\\boxed{}中。",
            form="LaTeX in \\boxed{}, Chinese reasoning",
            scoring="last \\boxed{}; sympy equivalence",
            answerx_task="math",
            say=phrase("所以最终答案是 $\\boxed{{{}}}$。"),
            right="2\\sqrt{2}",
            wrong="\\sqrt{2}",
            work="由余弦定理，$c^2 = a^2 + b^2 - 2ab\\cos C = 8$，所以 $c = 2\\sqrt{2}$。",
        )
    )
    specs.append(
        Spec(
            family="MATH/AIME/OlympiadBench",
            harness="simple-evals",
            task="math",
            source="simple-evals math_eval.py QUERY_TEMPLATE",
            prompt="Solve the following math problem step by step. The last line of your "
            "response should be of the form Answer: $ANSWER (without quotes) where $ANSWER is "
            "the answer to the problem.",
            form="'Answer: X' on the last line",
            scoring=r"(?i)Answer\s*:\s*([^\n]+); equality checked by an LLM",
            answerx_task="math",
            say=phrase("Answer: {}"),
            right="\\frac{\\sqrt{3}}{2}",
            wrong="\\frac{1}{2}",
            work="The angle is $60^\\circ$ and $\\sin 60^\\circ = \\frac{\\sqrt{3}}{2}$.",
        )
    )
    for task, right, wrong, work in (
        ("aime24", "204", "210", "Solving for $s$ gives 2.5 km/h, so the walk takes 204 minutes."),
        ("aime25", "588", "558", "Reflecting the heptagon's points, the area is 588."),
    ):
        specs.append(
            Spec(
                family="MATH/AIME/OlympiadBench",
                harness=_LME,
                task=task,
                source=f"lm_eval/tasks/aime/{task}.yaml",
                prompt="Question: {Problem}\\nAnswer:",
                form="an integer 0-999, usually boxed by chat models",
                scoring="last \\boxed{} else the whole answer; is_equiv",
                answerx_task="numeric",
                say=phrase("\\boxed{{{}}}"),
                right=right,
                wrong=wrong,
                work=work,
            )
        )
    return specs


def gsm8k() -> list[Spec]:
    work = (
        "Natalia sold 48/2 = 24 clips in May. Altogether she sold 48 + 24 = 72 clips in "
        "April and May."
    )
    wrong_work = "Natalia sold 48/2 = 24 clips in May. So she sold 48 + 24 = 70 clips."
    rows = [
        (
            "gsm8k",
            "Question: {question}\\nAnswer:",
            "'#### N' as in the 5-shot exemplars",
            r"strict: #### (\-?[0-9\.\,]+); flexible: last number",
            # the exemplars put '#### N' on a line of its own, as models then do
            lambda a: f"\n#### {a}",
            "lm_eval/tasks/gsm8k/gsm8k.yaml",
            _LME,
        ),
        (
            "gsm8k_cot",
            "Q: {question}\\nA: (8-shot CoT exemplars end 'The answer is N.')",
            "'The answer is N.'",
            r"strict: The answer is (\-?[0-9\.\,]+).; flexible: last number",
            phrase("The answer is {}."),
            "lm_eval/tasks/gsm8k/gsm8k-cot.yaml",
            _LME,
        ),
        (
            "gsm8k_cot_zeroshot",
            "Q: {question}\\nA: Let's think step by step.",
            "'The answer is N.'",
            r"strict: The answer is (\-?[0-9\.\,]+).; flexible: last number",
            phrase("Therefore, the answer is {}."),
            "lm_eval/tasks/gsm8k/gsm8k-cot-zeroshot.yaml",
            _LME,
        ),
        (
            "gsm8k_cot_llama",
            "Given the following problem, reason and give a final answer to "
            'the problem.\\nProblem: {question}\\nYour response should end with "The final answer '
            'is [answer]" where [answer] is the response to the problem.',
            "'The final answer is N'",
            r"The final answer is ((-?[$0-9.,]{2,})|(-?[0-9]+))",
            phrase("The final answer is {}"),
            "lm_eval/tasks/gsm8k/gsm8k-cot-llama.yaml",
            _LME,
        ),
        (
            "gsm8k_platinum_cot_llama",
            "as gsm8k_cot_llama, on the relabelled test set",
            "'The final answer is $N'",
            r"The final answer is ((-?[$0-9.,]{2,})|(-?[0-9]+))",
            phrase("The final answer is ${}."),
            "lm_eval/tasks/gsm8k_platinum/gsm8k-platinum-cot-llama.yaml",
            _LME,
        ),
        (
            "lighteval|gsm8k",
            "Question: {question}\\nAnswer: (instruct: 'The final answer is')",
            "a number, last one wins",
            "ExprExtractionConfig (last number) and LaTeX boxed",
            phrase("**Final answer:** {}"),
            "lighteval tasks gsm8k",
            "lighteval",
        ),
        (
            "gsm8k_gen",
            "Question: {question}\\nLet's think step by step\\nAnswer:",
            "the last number in the output",
            "gsm8k_postprocess: the last number",
            phrase("The answer is {} clips."),
            "opencompass configs/datasets/gsm8k/gsm8k_gen.py",
            "OpenCompass",
        ),
    ]
    specs = []
    for task, prompt, form, scoring, say, source, harness in rows:
        specs.append(
            Spec(
                family="GSM8K",
                harness=harness,
                task=task,
                source=source,
                prompt=prompt,
                form=form,
                scoring=scoring,
                answerx_task="numeric",
                say=say,
                right="72",
                wrong="70",
                work=work,
                wrong_work=wrong_work,
            )
        )
    specs.append(
        Spec(
            family="GSM8K",
            harness=_LME,
            task="asdiv_cot_llama",
            source="lm_eval/tasks/asdiv/asdiv-cot-llama.yaml",
            prompt='as gsm8k_cot_llama: end with "The final answer is [answer]"',
            form="'The final answer is N'",
            scoring=r"The final answer is ((-?[$0-9.,]{2,})|(-?[0-9]+))",
            answerx_task="numeric",
            say=phrase("The final answer is {}."),
            right="1,250",
            wrong="1,200",
            gold="1250",
            read_as={"1,250": "1250", "1,200": "1200"},
            work="Each box holds 125 pencils and there are 10 boxes: 125 * 10 = 1,250.",
        )
    )
    return specs


def arc() -> list[Spec]:
    options = ["dry palms", "wet palms", "palms covered with oil", "palms covered with lotion"]
    work = "Rubbing dry hands together creates the most friction, and friction produces heat."
    return [
        Spec(
            family="ARC",
            harness=_LME,
            task="arc_challenge_chat",
            source="lm_eval/tasks/arc/arc_challenge_chat.yaml",
            prompt="Given the following question and four candidate answers (A, B, C and D), "
            'choose the best answer. ... Your response should end with "The best answer is '
            '[the_answer_letter]" where the [the_answer_letter] is one of A, B, C or D.',
            form="'The best answer is X'",
            scoring=r"regex The best answer is ([A-D]); exact_match",
            answerx_task="multiple_choice",
            say=phrase("The best answer is {}."),
            right="A",
            wrong="C",
            work=work,
            choices=options,
        ),
        Spec(
            family="ARC",
            harness=_LME,
            task="arc_challenge_llama",
            source="lm_eval/tasks/llama3/instruct/arc_challenge/arc_challenge_llama.yaml",
            prompt="as arc_challenge_chat, with gen_prefix 'The best answer is'",
            form="the letter right after the prefix",
            scoring="remove_whitespace take_first; ignore_case, punctuation",
            answerx_task="multiple_choice",
            say=phrase("The best answer is {}"),
            right="A",
            wrong="B",
            work=work,
            choices=options,
        ),
        Spec(
            family="ARC",
            harness="OpenCompass",
            task="ARC_c_gen",
            source="opencompass configs/datasets/ARC_c/ARC_c_gen.py",
            prompt="Question: {question}\\nA. ...\\nAnswer:",
            form="the option letter",
            scoring="first_option_postprocess (options ABCD)",
            answerx_task="multiple_choice",
            say=phrase("Answer: {}"),
            right="A",
            wrong="D",
            work=work,
            choices=options,
        ),
        Spec(
            family="ARC",
            harness="OpenCompass",
            task="ARC_e_gen",
            source="opencompass configs/datasets/ARC_e/ARC_e_gen.py",
            prompt="Question: {question}\\nA. ...\\nAnswer:",
            form="the option letter",
            scoring="first_option_postprocess (options ABCD)",
            answerx_task="multiple_choice",
            say=phrase("The answer is {}."),
            right="B",
            wrong="C",
            choices=["a rock", "a plant", "a cloud", "a shadow"],
            work="Of these, only a plant is a living thing that makes its own food.",
        ),
        _simple_mc(
            "ARC",
            "lighteval|arc:challenge",
            "A",
            "D",
            work,
            options,
            harness="lighteval",
            source="lighteval tasks arc (instruct, 'Answer: X')",
        ),
    ]


#: MMLU-ProX (lm-eval ``mmlu_prox/<lang>``): MMLU-Pro in other languages, each prompt
#: asking to end with the language's own answer sentence, which its regex reads:
#: language -> (the CoT opening of the prompt, the answer sentence, the reasoning)
_MMLU_PROX: dict[str, tuple[str, str, str]] = {
    "zh": ("答案：让我们一步一步地思考。", "答案是 ({})",
           "盐酸完全电离，[H+] = 0.001 M，所以 pH = -log(0.001) = 3。"),
    "ja": ("回答：一歩一歩考えていきましょう。", "答えは ({}) です",
           "塩酸は完全に電離するので [H+] = 0.001 M、pH = -log(0.001) = 3 です。"),
    "ko": ("답변: 한 단계씩 생각해 봅시다.", "답은 ({})입니다",
           "염산은 완전히 이온화되므로 [H+] = 0.001 M이고, pH = -log(0.001) = 3입니다."),
    "de": ("Antwort: Denken wir Schritt für Schritt nach.", "Die Antwort ist ({})",
           "Salzsäure dissoziiert vollständig, also [H+] = 0,001 M und pH = -log(0,001) = 3."),
    "es": ("Respuesta: Pensemos paso a paso.", "La respuesta es ({})",
           "El HCl se disocia por completo, así que [H+] = 0,001 M y pH = -log(0,001) = 3."),
    "fr": ("Réponse : Réfléchissons étape par étape.", "La réponse est ({})",
           "HCl est un acide fort : [H+] = 0,001 M, donc pH = -log(0,001) = 3."),
    "pt": ("Resposta: Vamos pensar passo a passo.", "A resposta é ({})",
           "O HCl se dissocia completamente, então [H+] = 0,001 M e pH = -log(0,001) = 3."),
    "ru": ("Ответ: Давайте подумаем шаг за шагом.", "Ответ - ({})",
           "HCl полностью диссоциирует, поэтому [H+] = 0,001 М и pH = -log(0,001) = 3."),
    "sw": ("Jibu: Hebu tufikiria hatua kwa hatua.", "Jibu ni ({})",
           "HCl huachana kabisa, kwa hiyo [H+] = 0.001 M na pH = -log(0.001) = 3."),
    "th": ("คำตอบ: มาคิดทีละขั้นตอนกัน", "คำตอบคือ ({})",
           "HCl แตกตัวสมบูรณ์ ดังนั้น [H+] = 0.001 M และ pH = -log(0.001) = 3"),
    "bn": ("উত্তর: আসুন ধাপে ধাপে চিন্তা করি।", "উত্তর হল ({})",
           "HCl সম্পূর্ণ আয়নিত হয়, তাই [H+] = 0.001 M এবং pH = -log(0.001) = 3।"),
    "te": ("సమాధానం: దశలవారీగా ఆలోచిద్దాం.", "సమాధానం ({})",
           "HCl పూర్తిగా అయనీకరణం చెందుతుంది, కాబట్టి [H+] = 0.001 M మరియు pH = -log(0.001) = 3."),
    "hi": ("उत्तर: चलिए चरण-दर-चरण सोचते हैं।", "उत्तर है ({})",
           "HCl पूरी तरह आयनित होता है, इसलिए [H+] = 0.001 M और pH = -log(0.001) = 3।"),
    "ar": ("الإجابة: دعنا نفكر خطوة بخطوة.", "الإجابة هي ({})",
           "يتأين HCl تمامًا، لذا [H+] = 0.001 M و pH = -log(0.001) = 3."),
}  # fmt: skip


def mmlu_prox() -> list[Spec]:
    specs = []
    options = ["1", "2", "4", "3", "11"]
    for lang, (opening, sentence, work) in _MMLU_PROX.items():
        specs.append(
            Spec(
                family="MMLU-Pro",
                harness=_LME,
                task=f"mmlu_prox_{lang}_chemistry",
                source=f"lm_eval/tasks/mmlu_prox/{lang}/mmlu_prox_{lang}_chemistry.yaml",
                prompt=f"(5-shot CoT in the language, asking to end with '{sentence.format('X')}')"
                f"\\n{opening}",
                form=f"'{sentence.format('X')}', X in A-J",
                scoring="regex "
                + sentence.replace("({})", "\\(?([ABCDEFGHIJ])\\)?")
                + " take_first",
                answerx_task="multiple_choice",
                say=phrase(sentence),
                right="D",
                wrong="B",
                work=work,
                choices=options,
            )
        )
    return specs


def mmlu() -> list[Spec]:
    options = ["10", "12", "14", "8"]
    work = (
        "A regular hexagon has 6 vertices; each triangle uses 3, C(6,3) = 20... the "
        "question asks for the diagonals: 6 * 3 / 2 = 9, plus 3 sides counted twice: 12."
    )
    specs = [
        _simple_mc("MMLU", "mmlu", "B", "D", work, options),
        Spec(
            family="MMLU",
            harness=_LME,
            task="mmlu_flan_cot_zeroshot_abstract_algebra",
            source="lm_eval/tasks/mmlu/flan_cot_zeroshot/_mmlu_flan_cot_zeroshot_template_yaml",
            prompt="Q: {question}\\n(A) ... (D) ...\\nA: Let's think step by step.",
            form="an option in parentheses",
            scoring=r"strict: (?<=The answer is )(.*)(?=.); "
            r"flexible: MultiChoiceRegexFilter (\([A-Z]\))",
            answerx_task="multiple_choice",
            say=phrase("The answer is ({})."),
            right="B",
            wrong="A",
            work="The group Z_4 x Z_3 is cyclic of order 12.",
            choices=["6", "12", "4", "3"],
        ),
        Spec(
            family="MMLU",
            harness=_LME,
            task="mmlu_llama_high_school_physics",
            source="lm_eval/tasks/llama3/instruct/mmlu/_continuation_template_yaml",
            prompt='... Your response should end with "The best answer is [the_answer_letter]" '
            "(gen_prefix 'The best answer is')",
            form="'The best answer is X.'",
            scoring="remove_whitespace take_first, regexes_to_ignore '\\.$'",
            answerx_task="multiple_choice",
            say=phrase("The best answer is {}."),
            right="C",
            wrong="B",
            work="Momentum is conserved: 2 * 3 = (2 + 1) v, so v = 2 m/s.",
            choices=["1 m/s", "3 m/s", "2 m/s", "6 m/s"],
        ),
        Spec(
            family="MMLU",
            harness="OpenCompass",
            task="mmlu_gen",
            source="opencompass configs/datasets/mmlu/mmlu_gen.py",
            prompt="...\\nA. ...\\nAnswer:",
            form="the option letter",
            scoring="first_option_postprocess (options ABCD)",
            answerx_task="multiple_choice",
            say=phrase("Answer: {}"),
            right="D",
            wrong="A",
            work="The Magna Carta was sealed in 1215.",
            choices=["1066", "1315", "1415", "1215"],
        ),
    ]
    # simple-evals MMMLU: the same English template, questions in each language; models
    # answer with the language's own answer word, which the multilingual regex table reads.
    for locale, word, work in (
        (
            "ES_LA",
            "Respuesta",
            "Un hexágono regular tiene 9 diagonales más sus 3 diagonales "
            "largas contadas aparte: 12.",
        ),
        (
            "FR_FR",
            "Réponse",
            "Un hexagone régulier a 9 diagonales, plus 3 grandes diagonales comptées à part : 12.",
        ),
        (
            "DE_DE",
            "Antwort",
            "Ein regelmäßiges Sechseck hat 9 Diagonalen, dazu 3 lange Diagonalen: 12.",
        ),
        ("ZH_CN", "答案", "正六边形有9条对角线，另外3条长对角线单独计算，共12。"),
        ("JA_JP", "答え", "正六角形の対角線は9本で、長い対角線3本を別に数えると12です。"),
        ("KO_KR", "정답", "정육각형의 대각선은 9개이고, 긴 대각선 3개를 따로 세면 12입니다."),
        ("SW_KE", "Jibu", "Pembesita sita ina milalo 9, pamoja na milalo mirefu 3: 12."),
    ):
        specs.append(
            _simple_mc(
                "MMLU",
                f"mmmlu_{locale}",
                "B",
                "C",
                work,
                options,
                word=word,
                source="simple-evals mmlu_eval.py (MMMLU) MULTILINGUAL_ANSWER_REGEXES",
            )
        )
    return specs


def drop() -> list[Spec]:
    work = (
        "The Bears scored touchdowns of 12 and 33 yards, and field goals of 20 and 25 yards. "
        "The longest touchdown was 33 yards."
    )
    return [
        Spec(
            family="DROP",
            harness=_LME,
            task="drop",
            source="lm_eval/tasks/drop/default.yaml",
            prompt="{passage} {question}",
            form="a span or number continuing the prompt (3-shot)",
            scoring="until '.'; DROP F1 and exact match over answer spans",
            answerx_task="short_answer",
            say=lambda a: f"{a}.",
            right="33",
            wrong="25",
            work="",
            styles=("base-llama-2-7b", "qwen2.5-7b-instruct", "gpt-4o"),
        ),
        Spec(
            family="DROP",
            harness="simple-evals",
            task="drop",
            source="simple-evals drop_eval.py",
            prompt="You will be asked to read a passage and answer a question. ... Think step "
            'by step, then write a line of the form "Answer: $ANSWER" at the end of your '
            "response.",
            form="'Answer: X' at the end",
            scoring=r"Answer\s*:\s*([^\n]+); DROP F1 >= 0.8",
            answerx_task="short_answer",
            say=phrase("Answer: {}"),
            right="Tom Brady",
            wrong="Peyton Manning",
            work="The passage says the first touchdown pass of the game was thrown by Tom "
            "Brady to Randy Moss.",
            wrong_work="The passage says the last interception was thrown by Peyton Manning.",
        ),
        Spec(
            family="DROP",
            harness="OpenCompass",
            task="drop_gen",
            source="opencompass configs/datasets/drop/drop_gen.py",
            prompt="... Answer the question based on the passage. End with 'So the answer is'",
            form="'So the answer is X.'",
            scoring="text after 'answer is', F1",
            answerx_task="short_answer",
            say=phrase("So the answer is {}."),
            right="33",
            wrong="12",
            work=work,
        ),
    ]


_AGIEVAL_EN: dict[str, tuple[str, str, str, list[str]]] = {
    "lsat-ar": (
        "If F is third, then G must be fifth, so only (C) can be true.",
        "C",
        "B",
        ["F is second", "G is fourth", "H is first", "J is sixth", "K is fifth"],
    ),
    "lsat-lr": (
        "The argument assumes the sample is representative; (D) points that out.",
        "D",
        "A",
        [
            "It ignores cost",
            "It confuses cause",
            "It is circular",
            "It generalises from a small sample",
            "It attacks a person",
        ],
    ),
    "lsat-rc": (
        "The author's main point is that the law lagged behind practice.",
        "A",
        "E",
        [
            "the law lagged behind practice",
            "practice followed the law",
            "judges were biased",
            "the statute was repealed",
            "none of these",
        ],
    ),
    "logiqa-en": (
        "If all managers are engineers and Li is not an engineer, Li is not a manager.",
        "B",
        "C",
        ["Li is a manager", "Li is not a manager", "Li is an engineer", "It cannot be determined"],
    ),
    "sat-math": ("3x - 7 = 11 gives x = 6.", "C", "A", ["4", "5", "6", "7"]),
    "sat-en": (
        "The passage presents the scientist's view as a cautious hypothesis.",
        "B",
        "D",
        ["a proven fact", "a cautious hypothesis", "a popular myth", "an outdated idea"],
    ),
    "sat-en-without-passage": (
        "'Tenuous' means weak or slight here.",
        "A",
        "B",
        ["weak", "strong", "recent", "famous"],
    ),
    "aqua-rat": ("Speed = 240 / 4 = 60 km/h.", "E", "B", ["40", "45", "50", "55", "60"]),
}

_AGIEVAL_ZH: dict[str, tuple[str, str, str, list[str]]] = {
    "logiqa-zh": (
        "所有经理都是工程师，李不是工程师，所以李不是经理。",
        "B",
        "A",
        ["李是经理", "李不是经理", "李是工程师", "无法确定"],
    ),
    "jec-qa-kd": (
        "根据刑法规定，正当防卫不负刑事责任。",
        "A",
        "C",
        ["不负刑事责任", "减轻处罚", "免除处罚", "从轻处罚"],
    ),
    "jec-qa-ca": (
        "甲的行为构成盗窃罪，因为其以非法占有为目的秘密窃取他人财物。",
        "D",
        "B",
        ["诈骗罪", "抢夺罪", "侵占罪", "盗窃罪"],
    ),
    "gaokao-chinese": (
        "文中“其”指代上文的“先生”，故选C。",
        "C",
        "A",
        ["作者", "学生", "先生", "读者"],
    ),
    "gaokao-english": (
        "根据上下文，空格处应填 however，表示转折。",
        "B",
        "D",
        ["therefore", "however", "besides", "instead"],
    ),
    "gaokao-geography": (
        "该地位于季风区，夏季高温多雨，故选A。",
        "A",
        "C",
        ["高温多雨", "寒冷干燥", "温和少雨", "炎热干燥"],
    ),
    "gaokao-history": (
        "材料反映了洋务运动“自强”“求富”的主张。",
        "D",
        "A",
        ["戊戌变法", "辛亥革命", "新文化运动", "洋务运动"],
    ),
    "gaokao-biology": (
        "有氧呼吸的主要场所是线粒体。",
        "B",
        "C",
        ["细胞核", "线粒体", "核糖体", "高尔基体"],
    ),
    "gaokao-chemistry": ("NaCl 溶液呈中性，pH = 7。", "C", "D", ["1", "5", "7", "12"]),
    "gaokao-physics": (
        "由 v = at 得 v = 2 × 5 = 10 m/s。",
        "A",
        "B",
        ["10 m/s", "5 m/s", "2.5 m/s", "20 m/s"],
    ),
    "gaokao-mathqa": ("由 f(x) = x^2 - 2x 得最小值为 f(1) = -1。", "D", "A", ["1", "0", "2", "-1"]),
}


def agieval() -> list[Spec]:
    specs = []
    for name, (work, right, wrong, options) in _AGIEVAL_EN.items():
        specs.append(
            Spec(
                family="AGIEval",
                harness="AGIEval (OpenCompass agieval_gen)",
                task=f"agieval_{name.replace('-', '_')}",
                source="opencompass configs/datasets/agieval/agieval_gen.py (CoT zero-shot)",
                prompt="Q: {question} Answer Choices: (A)... (B)...\\nA: Let's think step by step. "
                "(then 'Answer: Among A through E, the answer is')",
                form="an option letter, usually after 'the answer is'",
                scoring="first_capital_postprocess on the text after 'answer is'",
                answerx_task="multiple_choice",
                say=phrase("Therefore, among A through E, the answer is ({})."),
                right=right,
                wrong=wrong,
                work=work,
                choices=options,
            )
        )
    for name, (work, right, wrong, options) in _AGIEVAL_ZH.items():
        specs.append(
            Spec(
                family="AGIEval",
                harness="AGIEval (OpenCompass agieval_gen)",
                task=f"agieval_{name.replace('-', '_')}",
                source="opencompass configs/datasets/agieval/agieval_gen.py (CoT zero-shot)",
                prompt="问题：{question} 选项：(A)... \\n答案：让我们逐步思考。"
                "（然后“答案：从A到D, 我们应选择”）",
                form="一个选项字母，在“答案是”之后",
                scoring="first_capital_postprocess (the first capital letter A-D)",
                answerx_task="multiple_choice",
                say=phrase("综上，答案是{}。"),
                right=right,
                wrong=wrong,
                work=work,
                choices=options,
            )
        )
    specs.append(
        Spec(
            family="AGIEval",
            harness=_LME,
            task="agieval_gaokao_mathcloze",
            source="lm_eval/tasks/agieval/gaokao-mathcloze.yaml",
            prompt="{query} (ends '答案：'); max_gen_toks 32, until 'Q:'",
            form="a LaTeX value continuing '答案：'",
            scoring="process_results: strip, is_equiv on the normalised string",
            answerx_task="math",
            say=lambda a: f"${a}$",
            right="\\frac{1}{2}",
            wrong="2",
            work="",
            styles=("base-llama-2-7b", "qwen2.5-7b-instruct", "glm-4-9b-chat"),
        )
    )
    specs.append(
        Spec(
            family="AGIEval",
            harness=_LME,
            task="agieval_math",
            source="lm_eval/tasks/agieval/math.yaml",
            prompt="{query} (ends 'The answer is'); max_gen_toks 32",
            form="a LaTeX value continuing 'The answer is'",
            scoring="process_results: last boxed or the text; is_equiv",
            answerx_task="math",
            say=lambda a: f"${a}$.",
            right="\\sqrt{5}",
            wrong="5",
            work="",
            styles=("base-llama-2-7b", "mistral-7b-instruct", "gemma-2-9b-it"),
        )
    )
    return specs


_GAOKAO_MCQ: dict[str, tuple[str, str, str, list[str]]] = {
    "2010-2022_Math_I_MCQs": (
        "集合 A∩B = {2, 3}，共2个元素，所以选B。",
        "B",
        "C",
        ["1", "2", "3", "4"],
    ),
    "2010-2022_Math_II_MCQs": ("复数 (1+i)^2 = 2i，所以选D。", "D", "A", ["2", "-2", "-2i", "2i"]),
    "2010-2022_History_MCQs": (
        "材料体现了宋代商品经济的发展，故选A。",
        "A",
        "B",
        ["商品经济发展", "重农抑商加强", "海禁政策", "闭关锁国"],
    ),
    "2010-2022_Biology_MCQs": (
        "DNA 复制方式为半保留复制，故选C。",
        "C",
        "D",
        ["全保留复制", "分散复制", "半保留复制", "随机复制"],
    ),
    "2010-2022_Political_Science_MCQs": (
        "价值规律要求等价交换，故选B。",
        "B",
        "A",
        ["价格决定价值", "等价交换", "供不应求", "货币贬值"],
    ),
    "2010-2022_Chemistry_MCQs": (
        "氧化还原反应中化合价升高的物质是还原剂，所以D是正确答案。",
        "D",
        "C",
        ["氧化剂", "催化剂", "溶剂", "还原剂"],
    ),
    "2010-2022_Geography_MCQs": (
        "该城市位于地中海气候区，夏季炎热干燥，故选A。",
        "A",
        "D",
        ["夏季炎热干燥", "全年高温多雨", "冬季寒冷干燥", "全年温和湿润"],
    ),
    "2010-2013_English_MCQs": (
        "句意为“我昨天一整天都在做作业”，用过去进行时，故选A。",
        "A",
        "C",
        ["was doing", "would do", "had done", "do"],
    ),
    "2010-2022_Chinese_Lang_and_Usage_MCQs": (
        "B项成语使用不当，C项语序不当，只有D项正确。",
        "D",
        "B",
        ["甲", "乙", "丙", "丁"],
    ),
}


def gaokao() -> list[Spec]:
    specs = []
    for name, (work, right, wrong, options) in _GAOKAO_MCQ.items():
        specs.append(
            Spec(
                family="GAOKAO-Bench",
                harness="GAOKAO-Bench (OpenCompass GaokaoBench_gen)",
                task=name,
                source="opencompass configs/datasets/GaokaoBench/GaokaoBench_gen.py",
                prompt="请你一步一步思考并将思考过程写在【解析】和<eoe>之间。你将从A，B，C，D中选出正确的"
                "答案，并写在【答案】和<eoa>之间。例如：【答案】: A <eoa>",
                form="【答案】 X <eoa>",
                scoring="the text between 【答案】 and <eoa>; the capital letters A-D in it",
                answerx_task="multiple_choice",
                say=phrase("【答案】 {} <eoa>"),
                right=right,
                wrong=wrong,
                work=f"【解析】 {work} <eoe>",
                # a wrong answer's reasoning names the same wrong option it concludes with
                wrong_work="【解析】 "
                + work.replace(f"选{right}", f"选{wrong}")
                .replace(f"{right}是正确答案", f"{wrong}是正确答案")
                .replace(f"{right}项正确", f"{wrong}项正确")
                + " <eoe>",
                choices=options,
            )
        )
    specs.append(
        Spec(
            family="GAOKAO-Bench",
            harness="GAOKAO-Bench (OpenCompass GaokaoBench_gen)",
            task="2010-2022_Physics_MCQs",
            source="opencompass configs/datasets/GaokaoBench/GaokaoBench_gen.py",
            prompt="...你将从A，B，C，D中选出所有符合题意的答案，并写在【答案】和<eoa>之间。"
            "例如：【答案】 AB <eoa>",
            form="【答案】 one or more letters <eoa>",
            scoring="the capital letters between 【答案】 and <eoa>; partial credit",
            answerx_task="multiple_choice",
            say=phrase("【答案】 {} <eoa>"),
            right="B",
            wrong="C",
            work="【解析】 由动量守恒，碰后速度减小，所以B正确。<eoe>",
            choices=["动能守恒", "动量守恒", "机械能守恒", "速度不变"],
            extra=(
                {
                    "style": "chatglm2-6b",
                    "output": "【解析】 B、C两项都与动量守恒相符。<eoe>\n【答案】: B, C <eoa>",
                    "answer": "B, C",
                    "correct": False,
                    "note": "two letters hedged against one gold: several, never the first",
                },
            ),
        )
    )
    for name, right, wrong, work in (
        (
            "2010-2022_Math_I_Fill-in-the-Blank",
            "240",
            "120",
            "从6人中选4人排列，A(6,4) = 360，减去甲在首位的 A(5,3) = 60 种... 共240种。",
        ),
        (
            "2010-2022_Math_II_Fill-in-the-Blank",
            "\\frac{\\sqrt{2}}{2}",
            "\\sqrt{2}",
            "由题意 sin 45° = \\frac{\\sqrt{2}}{2}。",
        ),
    ):
        specs.append(
            Spec(
                family="GAOKAO-Bench",
                harness="GAOKAO-Bench (OpenCompass GaokaoBench_gen)",
                task=name,
                source="opencompass configs/datasets/GaokaoBench/GaokaoBench_gen.py",
                prompt="请你做一道数学填空题\\n请你一步一步思考并将思考过程写在【解析】和<eoe>之间。"
                "请把你的答案写在【答案】和<eoa>之间。",
                form="【答案】value<eoa>",
                scoring="the text between 【答案】 and <eoa>; rated by a judge",
                answerx_task="math",
                say=phrase("【答案】{}<eoa>"),
                right=right,
                wrong=wrong,
                work=f"【解析】 {work} <eoe>",
            )
        )
    return specs


def chinese_exams() -> list[Spec]:
    options = ["细胞核", "线粒体", "核糖体", "高尔基体"]
    return [
        Spec(
            family="C-Eval/CMMLU",
            harness="C-Eval (official prompt)",
            task="ceval_answer_only",
            source="C-Eval README, answer-only prompt",
            prompt="以下是中国关于{科目}考试的单项选择题，请选出其中的正确答案。\\n...\\n答案：",
            form="the letter after 答案：",
            scoring="regex for A-D; next-token probability",
            answerx_task="multiple_choice",
            say=phrase("答案：{}"),
            right="B",
            wrong="C",
            work="线粒体是有氧呼吸的主要场所。",
            choices=options,
        ),
        Spec(
            family="C-Eval/CMMLU",
            harness="C-Eval (official prompt)",
            task="ceval_cot",
            source="C-Eval README, chain-of-thought prompt",
            prompt="...\\n答案：让我们一步一步思考，\\n1. ... (exemplars end '所以答案是A。')",
            form="所以答案是X。",
            scoring="regex 答案是([A-D])",
            answerx_task="multiple_choice",
            say=phrase("所以答案是{}。"),
            right="B",
            wrong="D",
            work="1. 细胞核储存遗传信息。\n2. 线粒体是有氧呼吸的主要场所。\n3. 题目问能量供应。",
            choices=options,
        ),
        Spec(
            family="C-Eval/CMMLU",
            harness="OpenCompass",
            task="ceval_gen",
            source="opencompass configs/datasets/ceval/ceval_gen.py",
            prompt="以下是中国关于{subject}考试的单项选择题，请选出其中的正确答案。\\n...\\n答案: ",
            form="the option letter",
            scoring="first_capital_postprocess",
            answerx_task="multiple_choice",
            say=phrase("选项{}正确。"),
            right="B",
            wrong="A",
            work="线粒体是细胞的“动力车间”。",
            choices=options,
        ),
        Spec(
            family="C-Eval/CMMLU",
            harness="OpenCompass",
            task="cmmlu_gen",
            source="opencompass configs/datasets/cmmlu/cmmlu_gen.py",
            prompt=(
                "以下是关于{subject}的单项选择题，请直接给出正确答案的选项。\\n题目：...\\n答案是: "
            ),
            form="the option letter",
            scoring="first_capital_postprocess",
            answerx_task="multiple_choice",
            say=phrase("故选：{}"),
            right="B",
            wrong="D",
            work="线粒体为细胞提供能量。",
            choices=options,
        ),
    ]


def livebench() -> list[Spec]:
    amc_options = ["$8$", "$9$", "$10$", "$11$", "$12$"]
    amc_prompt = (
        "... If you cannot determine the correct multiple-choice answer, take your best guess. "
        "Once you have your answer, please duplicate that letter five times in a single string. "
        "For example, if the answer is F, then write FFFFF."
    )
    amc_work = (
        "The number of lattice points on the segment is gcd(30, 18) + 1 = 7... the area "
        "by Pick's theorem gives 10."
    )
    return [
        Spec(
            family="LiveBench",
            harness="LiveBench",
            task="math_comp_amc12",
            source="LiveBench livebench/process_results/math/math_competitions/utils.py",
            prompt=amc_prompt,
            form="the letter written five times, e.g. CCCCC",
            scoring="gold letter * 4 in the output; else <solution>, \\boxed, the value",
            answerx_task="multiple_choice",
            say=lambda a: f"Therefore, my answer is: {a * 5}",
            right="C",
            wrong="B",
            work=amc_work,
            choices=amc_options,
            extra=(
                {
                    "style": "claude-3.5-sonnet",
                    "output": f"{amc_work}\n\nThe answer is (C), so as requested:\n\n**CCCCC**",
                    "answer": "C",
                    "correct": True,
                },
                {
                    "style": "gemini-1.5-pro",
                    "output": f"{amc_work}\n\nFinal answer, duplicated five times:\n\n_CCCCC_",
                    "answer": "C",
                    "correct": True,
                },
                {
                    "style": "gpt-4o",
                    "output": "Option (A) 8 is too small and (B) 9 misses the corner. "
                    + amc_work
                    + " So the answer is C, and I'll duplicate it as requested: CCCCC.",
                    "answer": "C",
                    "correct": True,
                },
            ),
        ),
        Spec(
            family="LiveBench",
            harness="LiveBench",
            task="math_comp_amc10",
            source="LiveBench livebench/process_results/math/math_competitions/utils.py",
            prompt=amc_prompt,
            form="the letter written five times",
            scoring="gold letter * 4 in the output",
            answerx_task="multiple_choice",
            say=lambda a: f"{a * 5}",
            right="E",
            wrong="D",
            work="Counting the two-digit multiples of 7 gives 13, so the sum of digits... 12.",
            choices=amc_options,
        ),
        Spec(
            family="LiveBench",
            harness="LiveBench",
            task="math_comp_aime",
            source="LiveBench livebench/process_results/math/math_competitions/utils.py",
            prompt="... The answer is an integer consisting of exactly 3 digits (including leading "
            "zeros), ranging from 000 to 999, inclusive. ... Remember to have the three digits as "
            "the last part of the response.",
            form="three digits at the very end",
            scoring="gold in the last 50 characters",
            answerx_task="numeric",
            say=phrase("The answer is {}"),
            right="073",
            wrong="037",
            gold="73",
            work="The remainder when the sum is divided by 1000 is 73.",
        ),
        Spec(
            family="LiveBench",
            harness="LiveBench",
            task="web_of_lies_v2",
            source="LiveBench livebench/process_results/reasoning/web_of_lies_v2/utils.py",
            prompt="... Think step by step, and then put your answer in **bold** as a list of "
            "three words, yes or no (for example, **yes, no, yes**).",
            form="**yes, no, yes** (three words in bold)",
            scoring="<solution>, else the last three yes/no/unknown in bold, else boxed",
            answerx_task="text",
            say=phrase("**{}**"),
            right="yes, no, yes",
            wrong="no, no, yes",
            work="The person at the cafe tells the truth, so the person at the zoo lies, and the "
            "person at the museum tells the truth.",
        ),
        Spec(
            family="LiveBench",
            harness="LiveBench",
            task="spatial",
            source="LiveBench livebench/process_results/reasoning/spatial/utils.py",
            prompt="... Think step by step, and then put your answer in **bold** as a single "
            "integer or word.",
            form="**word or number** in bold",
            scoring="the last three bold phrases",
            answerx_task="short_answer",
            say=phrase("**{}**"),
            right="triangle",
            wrong="square",
            work="Cutting the square along its diagonal leaves two pieces, each a right triangle.",
        ),
        Spec(
            family="LiveBench",
            harness="LiveBench",
            task="zebra_puzzle",
            source="LiveBench livebench/process_results/reasoning/zebra_puzzle/utils.py",
            prompt="... Return your answer in the format <solution>X, Y, Z</solution>.",
            form="<solution>a, b, c</solution>",
            scoring="the last <solution> block split on commas; per-item match",
            answerx_task="text",
            say=phrase("<solution>{}</solution>"),
            right="jazz, 3, tea",
            wrong="rock, 3, tea",
            work="The person who drinks tea is in position 3; the jazz fan keeps the cat.",
        ),
    ]


def others() -> list[Spec]:
    return [
        Spec(
            family="TheoremQA",
            harness="OpenCompass",
            task="TheoremQA_gen",
            source="opencompass configs/datasets/TheoremQA/TheoremQA_gen.py",
            prompt="... Please read a math problem, and then think step by step to derive the "
            "answer. The answer is decided by Answer Type (bool, integer, float, list).",
            form="'The answer is X'",
            scoring="TheoremQA_postprocess: the text after 'answer is'",
            answerx_task="numeric",
            say=phrase("Therefore, the answer is {}."),
            right="0.25",
            wrong="0.5",
            work="The probability of two heads is 0.5 * 0.5 = 0.25.",
        ),
        Spec(
            family="Humanity's Last Exam",
            harness="HLE",
            task="hle_exact_match",
            source="HLE run_model_predictions.py SYSTEM_EXACT_ANSWER",
            prompt="Your response should be in the following format:\\nExplanation: ...\\n"
            "Exact Answer: {your succinct, final answer}\\nConfidence: {0% to 100%}",
            form="'Exact Answer: X' followed by 'Confidence: N%'",
            scoring="an LLM judge reads the extracted final answer",
            answerx_task="numeric",
            say=lambda a: f"Exact Answer: {a}\nConfidence: 85%",
            right="42",
            wrong="24",
            work="Explanation: There are 6 choices for the first and 7 for the second, 6 * 7 = 42.",
        ),
        Spec(
            family="Humanity's Last Exam",
            harness="HLE",
            task="hle_multiple_choice",
            source="HLE run_model_predictions.py SYSTEM_MC",
            prompt="Your response should be in the following format:\\nExplanation: ...\\n"
            "Answer: {your chosen answer}\\nConfidence: {0% to 100%}",
            form="'Answer: X' followed by 'Confidence: N%'",
            scoring="an LLM judge reads the extracted final answer",
            answerx_task="multiple_choice",
            say=lambda a: f"Answer: {a}\nConfidence: 70%",
            right="C",
            wrong="A",
            choices=["1", "2", "3", "4", "5"],
            work="Explanation: The graph has exactly three connected components.",
        ),
        Spec(
            family="BrowseComp",
            harness="simple-evals",
            task="browsecomp",
            source="simple-evals browsecomp_eval.py QUERY_TEMPLATE",
            prompt="Your response should be in the following format:\\nExplanation: ...\\n"
            "Exact Answer: {your succinct, final answer}\\nConfidence: {0% to 100%}",
            form="'Exact Answer: X' then 'Confidence: N%'",
            scoring="an LLM grader compares the extracted final answer",
            answerx_task="short_answer",
            say=lambda a: f"Exact Answer: {a}\nConfidence: 60%",
            right="The Sound of Silence",
            wrong="Mrs. Robinson",
            work="Explanation: The song released in 1964 and re-released in 1965 by the duo is "
            "The Sound of Silence.",
            wrong_work="Explanation: The duo's song from the 1967 film soundtrack.",
        ),
        Spec(
            family="SimpleQA",
            harness="simple-evals",
            task="simpleqa",
            source="simple-evals simpleqa_eval.py",
            prompt="{question} (no format asked; graded CORRECT/INCORRECT/NOT_ATTEMPTED by an LLM)",
            form="a short free-text answer",
            scoring="an LLM grader",
            answerx_task="short_answer",
            say=lambda a: f"The capital of Australia is {a}.",
            right="Canberra",
            wrong="Sydney",
            work="",
            # no format is asked: the whole reply is the answer an LLM grader reads
            read_as={
                "Canberra": "The capital of Australia is Canberra",
                "Sydney": "The capital of Australia is Sydney",
            },
        ),
        Spec(
            family="TriviaQA/NQ",
            harness=_LME,
            task="triviaqa",
            source="lm_eval/tasks/triviaqa/default.yaml",
            prompt="Question: {question}?\\nAnswer:",
            form="a short span continuing 'Answer:'",
            scoring="until '\\n', '.', ','; exact_match against the aliases",
            answerx_task="short_answer",
            say=lambda a: f"{a}",
            right="Paris",
            wrong="Lyon",
            work="",
            styles=("base-llama-2-7b", "mistral-7b-instruct", "llama-3.1-8b-instruct"),
        ),
        Spec(
            family="TriviaQA/NQ",
            harness=_LME,
            task="nq_open",
            source="lm_eval/tasks/nq_open/nq_open.yaml",
            prompt="Q: {question}?\\nA:",
            form="a short span continuing 'A:'",
            scoring="until '\\n', '.', ','; exact_match (regexes_to_ignore: articles)",
            answerx_task="short_answer",
            say=lambda a: f"{a}",
            right="George Washington",
            wrong="John Adams",
            work="",
            styles=("base-llama-2-7b", "gemma-2-9b-it", "qwen2.5-7b-instruct"),
        ),
        Spec(
            family="LiveBench",
            harness="LiveBench",
            task="AMPS_Hard",
            source="LiveBench livebench/process_results/math/AMPS_Hard/utils.py",
            prompt="... Please put your final answer in a $\\boxed{}$.",
            form="LaTeX in \\boxed{}",
            scoring="last \\boxed{}; sympy equivalence",
            answerx_task="math",
            say=phrase("$\\boxed{{{}}}$"),
            right="-\\frac{3}{2}",
            wrong="\\frac{3}{2}",
            work="Differentiating $f(x) = \\ln(x^2 - 3x)$... at the given point the slope is "
            "$-\\frac{3}{2}$.",
        ),
    ]


#: Outputs beyond a row's rotation, in the phrasings that break readers: hedged letters,
#: an option named by its value, a \\text answer in another case, a sign in words, symbol
#: answers ending the output. Keyed by row id.
EXTRAS: dict[str, tuple[dict[str, Any], ...]] = {
    "lm-eval:bbh_cot_fewshot_date_understanding": (
        {
            "style": "base-mistral-7b",
            "output": "Today is 12/24/1937, so one week ago could be several of these dates. "
            "So the answer is (A), (B), (C), or (D).",
            "answer": "A, B, C, D",
            "correct": False,
            "note": "a hedge over four options is four answers, never (A)",
        },
    ),
    "lm-eval:bbh_cot_fewshot_tracking_shuffled_objects_three_objects": (
        {
            "style": "gemma-2-9b-it",
            "output": "After the three swaps Claire holds either the yellow or the white "
            "present.\n\nSo the answer is (A) or (C).<end_of_turn>",
            "answer": "A, C",
            "correct": False,
        },
    ),
    # Larger MGSM answers written with the language's own thousands separator.
    "lm-eval:mgsm_native_cot_de": (
        {
            "style": "gpt-4o",
            "output": "Er verdient 24 Euro pro Woche, im Jahr also 52 * 24 = 1.248 Euro. "
            "Die Antwort lautet 1.248.",
            "answer": "1248",
            "gold": "1248",
            "correct": True,
            "note": "a thousands separator as the language writes it (1.248, 1 248)",
        },
    ),
    "lm-eval:mgsm_native_cot_es": (
        {
            "style": "qwen2.5-7b-instruct",
            "output": "Gana 24 $ por semana, así que en un año gana 52 * 24 = 1.248 $. "
            "La respuesta es 1.248.<|im_end|>",
            "answer": "1248",
            "gold": "1248",
            "correct": True,
            "note": "a thousands separator as the language writes it (1.248, 1 248)",
        },
    ),
    "lm-eval:mgsm_native_cot_fr": (
        {
            "style": "mistral-7b-instruct",
            "output": "Il gagne 24 $ par semaine, donc 52 * 24 = 1 248 $ par an. "
            "La réponse est 1 248.</s>",
            "answer": "1248",
            "gold": "1248",
            "correct": True,
            "note": "a thousands separator as the language writes it (1.248, 1 248)",
        },
    ),
    "lm-eval:mgsm_native_cot_ru": (
        {
            "style": "gemma-2-9b-it",
            "output": "Он зарабатывает 24 доллара в неделю, то есть 52 * 24 = 1 248 долларов в "
            "год. Ответ — 1 248.<end_of_turn>",
            "answer": "1248",
            "gold": "1248",
            "correct": True,
            "note": "a thousands separator as the language writes it (1.248, 1 248)",
        },
    ),
    "lm-eval:mgsm_native_cot_ja": (
        {
            "style": "qwen2.5-7b-instruct",
            "output": "残りは９個で、１個２ドルなので ９ × ２ ＝ １８ドルです。"
            "答えは１８です。<|im_end|>",
            "answer": "18",
            "correct": True,
            "note": "full-width digits (１８) are the number",
        },
    ),
    "lm-eval:mgsm_native_cot_zh": (
        {
            "style": "glm-4-9b-chat",
            "output": "剩下 16 - 3 - 4 = 9 个鸡蛋，每个 2 美元，9 × 2 = 18（美元）。\n"
            "答案是 18 美元。<|user|>",
            "answer": "18",
            "correct": True,
        },
    ),
    "lm-eval:mmlu_prox_zh_chemistry": (
        {
            "style": "yi-1.5-9b-chat",
            "output": "盐酸是强酸，完全电离，pH = -log(0.001) = 3。\n答案是 (Ｄ)<|im_end|>",
            "answer": "D",
            "correct": True,
        },
    ),
    "lm-eval:gsm8k_cot_llama": (
        {
            "style": "llama-3.1-70b-instruct",
            "output": "Natalia sold 48 / 2 = 24 clips in May, so 48 + 24 = 72 clips in all.\n\n"
            "The final answer is $72.00<|eot_id|>",
            "answer": "72",
            "correct": True,
        },
    ),
    "lm-eval:minerva_math_algebra": (
        {
            "style": "deepseek-math-7b-instruct",
            "output": "Subtracting 3 and dividing by 2 gives $x = 4$.\nFinal Answer: The final "
            "answer is $\\boxed{4}$. I hope it is correct.<｜end▁of▁sentence｜>",
            "answer": "4",
            "correct": True,
        },
    ),
    "lm-eval:bbh_cot_fewshot_object_counting": (
        {
            "style": "mistral-7b-instruct",
            "output": "Piano, flute, two trombones, violin and accordion: 1 + 1 + 2 + 1 + 1 = 6.\n"
            "So the answer is 6 instruments.</s>",
            "answer": "6",
            "correct": True,
        },
    ),
    "lm-eval:bbh_cot_fewshot_snarks": (
        {
            "style": "mistral-7b-instruct-v0.1",
            "output": "Statement (A) is sarcastic: nobody enjoys standing in line for three hours. "
            "So the answer is (A). [/INST]",
            "answer": "A",
            "correct": True,
        },
    ),
    "LiveBench:math_comp_amc10": (
        {
            "style": "qwen2.5-72b-instruct",
            "output": "Counting the two-digit multiples of 7 gives 13, so the sum of digits is "
            "12, which is option E. I'll duplicate that letter five times:\n\nEEEEE<|im_end|>",
            "answer": "E",
            "correct": True,
        },
    ),
    "lm-eval:bbh_cot_fewshot_dyck_languages": (
        {
            "style": "llama-3.1-8b-instruct",
            "output": "The stack holds only {, so we close it.\n\nSo the answer is }.<|eot_id|>",
            "answer": "}",
            "gold": "}",
            "correct": True,
        },
        {
            "style": "qwen2.5-7b-instruct",
            "output": "Remaining stack: ( [ < . Closing in reverse order:\nSo the answer is > ] )",
            "answer": "> ] )",
            "gold": "> ] )",
            "correct": True,
            "note": "the output ends right after the answer: finished",
        },
    ),
    "ceval:ceval_cot": (
        {
            "style": "yi-1.5-9b-chat",
            "output": "线粒体是有氧呼吸的主要场所，为细胞提供能量。\n因此，答案为 B<|im_end|>",
            "answer": "B",
            "correct": True,
        },
    ),
    "lm-eval:mmlu_pro_physics": (
        {
            "style": "mistral-7b-instruct",
            "output": "The ball falls freely, so after 3 s its speed is 29.4 m/s.</s>",
            "answer": "C",
            "correct": True,
            "note": "a short reply naming an option by its value",
        },
    ),
    "agieval:agieval_gaokao_physics": (
        {
            "style": "llama-3.1-8b-instruct",
            "output": "Using v = at, the speed at the end of 5 s is 10 meters per second."
            "<|eot_id|>",
            "answer": "A",
            "correct": True,
            "note": "a short reply naming an option by its value, in another script's unit",
        },
        {
            "style": "qwen2.5-7b-instruct",
            "output": "由 v = at 得，物体5秒末的速度为 10 m/s。<|im_end|>",
            "answer": "A",
            "correct": True,
            "note": "a short reply naming an option by its value",
        },
    ),
    "lighteval:lighteval|math_500": (
        {
            "style": "qwen2.5-math-7b-instruct",
            "output": "Since $f(-x) = -f(x)$ for every $x$, the function is odd.\n\n"
            "The final answer is $\\boxed{\\text{odd}}$.<|im_end|>",
            "answer": "odd",
            "gold": "\\text{Odd}",
            "correct": True,
            "note": "\\text answers compare without case",
        },
    ),
    "OpenCompass:TheoremQA_gen": (
        {
            "style": "llama-3.1-8b-instruct",
            "output": "Differentiating twice, the curvature at the origin is -1/2.\n"
            "Therefore, the answer is negative 0.5.<|eot_id|>",
            "answer": "-0.5",
            "gold": "-0.5",
            "correct": True,
            "note": "a sign written in words keeps its sign",
        },
    ),
    "HLE:hle_exact_match": (
        {
            "style": "deepseek-r1",
            "output": "<think>\nThe index drops by three.\n</think>\n\nExplanation: Each step "
            "lowers the index by one, three times.\nExact Answer: minus 3\n"
            "Confidence: 75%<｜end▁of▁sentence｜>",
            "answer": "-3",
            "gold": "-3",
            "correct": True,
            "note": "a sign written in words keeps its sign",
        },
    ),
}


def _with_extras(specs: list[Spec]) -> list[Spec]:
    ids = {f"{_SHORT.get(spec.harness, spec.harness)}:{spec.task}" for spec in specs}
    assert set(EXTRAS) <= ids, set(EXTRAS) - ids
    return [
        replace(
            spec,
            extra=spec.extra
            + EXTRAS.get(f"{_SHORT.get(spec.harness, spec.harness)}:{spec.task}", ()),
        )
        for spec in specs
    ]


def build_specs() -> list[Spec]:
    """Every task of the table, family by family."""
    return _with_extras(
        [
            *bbh(),
            *mgsm(),
            *gpqa(),
            *mmlu_pro(),
            *mmlu_prox(),
            *mmlu(),
            *math_family(),
            *gsm8k(),
            *arc(),
            *drop(),
            *agieval(),
            *gaokao(),
            *chinese_exams(),
            *livebench(),
            *others(),
        ]
    )


def build_rows() -> list[dict[str, Any]]:
    """The table as plain data, in the order it is written."""
    return [_row(spec, i) for i, spec in enumerate(build_specs())]


# ---------------------------------------------------------------------------------------
# Writing and reading the data file, rendering the doc.
# ---------------------------------------------------------------------------------------


class _Dumper(yaml.SafeDumper):
    """Block style for multi-line strings, so an output reads as it was written."""


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)

_HEADER = (
    "# The formats table of issue 37: written by `python bench/formats_table.py build`\n"
    "# (edit the script, not this file). Read by tests/extraction/test_formats_table.py;\n"
    "# docs/FORMATS.md is rendered from it.\n"
)


def render_yaml(rows: list[dict[str, Any]]) -> str:
    """The data file's text."""
    body = yaml.dump(rows, Dumper=_Dumper, allow_unicode=True, sort_keys=False, width=100)
    return _HEADER + body


def load_rows(path: Path = DATA) -> list[dict[str, Any]]:
    """The rows of the data file."""
    rows: list[dict[str, Any]] = yaml.safe_load(path.read_text(encoding="utf-8"))
    return rows


def _cell(text: str) -> str:
    # a table cell: no pipes or line breaks, and tags such as <eoa> or <solution> shown as
    # written rather than taken for HTML
    return text.replace("|", "\\|").replace("<", "\\<").replace("\n", " ").strip()


def render_doc(
    rows: list[dict[str, Any]],
    xfails: dict[str, str] | None = None,
    rules: dict[str, list[str]] | None = None,
) -> str:
    """``docs/FORMATS.md`` from the rows, the rules that read them and the mechanisms the
    cases answerx cannot read yet wait for."""
    xfails = xfails or {}
    rules = rules or {}
    families = sorted({row["family"] for row in rows})
    outputs = sum(len(row["outputs"]) for row in rows)
    lines = [
        "# Answer formats of the public benchmarks",
        "",
        "Rendered from `tests/data/formats/formats.yaml` by `python bench/formats_table.py build`;",
        "`tests/extraction/test_formats_table.py` fails when this page and the data disagree, and",
        "runs every output below through `answerx.extract` and `answerx.verify`, with",
        '`task="auto"` and with the task the benchmark implies.',
        "",
        f"{len(rows)} tasks from {len(families)} benchmark families, {outputs} outputs in the",
        "styles of several model families (GPT-4o, Claude, Llama 2 and 3, Qwen and Qwen2.5,",
        "DeepSeek-R1, Gemma 2, Mistral, GLM-4, InternLM, Phi-3, Command R, base models), right",
        "and wrong answers, with the end",
        "tokens of their chat templates left in as saved outputs have them.",
        "",
        "Columns: the benchmark family and harness; the task as the harness names it; how its",
        "prompt asks for the answer; the expected form; the harness's own scoring; the answerx",
        "task; the rules (`Extraction.method`) that read its outputs today, or what is missing;",
        "the ids of its cases in `test_answerx_reads_the_stated_answer_and_grades_it`",
        "(`<row id>#<output>@<task>`).",
        "",
    ]
    for family in families:
        lines += [f"## {family}", ""]
        lines.append(
            "| harness | task | prompt asks | expected form | harness scoring | answerx task "
            "| answerx rule | tests |"
        )
        lines.append("|---|---|---|---|---|---|---|---|")
        for row in rows:
            if row["family"] != family:
                continue
            methods = rules.get(row["id"], [])
            missing = sorted({xfails[key] for key in _keys(row) if key in xfails})
            rule = ", ".join(f"`{m}`" for m in methods)
            if missing:
                # A reason that says the reading is right as it is is no missing mechanism.
                prefix = "" if all(m.startswith(BY_DESIGN) for m in missing) else "not yet: "
                rule = (rule + "; " if rule else "") + prefix + "; ".join(missing)
            lines.append(
                f"| {_cell(row['harness'])} | `{_cell(row['task'])}` | {_cell(row['prompt'])} "
                f"| {_cell(row['form'])} | {_cell(row['scoring'])} | `{row['answerx_task']}` "
                f"| {_cell(rule)} | `{_cell(row['id'])}#0`…`#{len(row['outputs']) - 1}` |"
            )
        lines.append("")
    return "\n".join(lines)


def _keys(row: dict[str, Any]) -> list[str]:
    return [
        f"{row['id']}#{i}@{task}/{check}"
        for i in range(len(row["outputs"]))
        for task in ("auto", row["answerx_task"])
        for check in ("extract", "verify")
    ]


# ---------------------------------------------------------------------------------------
# Checking an output, and the outputs answerx cannot read yet.
# ---------------------------------------------------------------------------------------

KNOWN = _ROOT / "tests" / "data" / "formats" / "known_failures.yaml"
#: How a known failure that is right as it is starts its reason (not a missing mechanism).
BY_DESIGN = "by design:"
RULES = _ROOT / "tests" / "data" / "formats" / "rules.yaml"

_YES = {"true": "yes", "yes": "yes", "false": "no", "no": "no"}


def expected_answer(stated: str, task: str) -> str:
    """What answerx returns for a stated answer: a boolean task answers ``yes``/``no``."""
    if task == "boolean":
        return _YES.get(stated.lower(), stated)
    return stated


def read(row: dict[str, Any], output: dict[str, Any], task: str) -> tuple[dict[str, str], str]:
    """How answerx's reading of one output differs from the row (``{check: what}``, empty
    when it agrees) and the rule (``Extraction.method``) that read it."""
    from answerx import extract, verify  # the builder itself runs without answerx

    choices = row.get("choices")
    found = extract(output["output"], task, choices=choices)
    verdict = verify(output["output"], output["gold"], task, choices=choices)
    wrong: dict[str, str] = {}
    want = expected_answer(output["answer"], found.task)
    if found.answer != want:
        wrong["extract"] = f"read {found.answer!r} ({found.method}), not {want!r}"
    if verdict.correct is not output["correct"]:
        wrong["verify"] = f"{verdict.reason}, not correct={output['correct']}"
    return wrong, found.method


def check(row: dict[str, Any], output: dict[str, Any], task: str) -> dict[str, str]:
    """The ways answerx's reading of one output differs from the row: ``{check: what}``."""
    return read(row, output, task)[0]


def cases(rows: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any], dict[str, Any], str]]:
    """Every (case id, row, output, task): each output with ``auto`` and the row's task."""
    out = []
    for row in rows:
        for i, output in enumerate(row["outputs"]):
            for task in ("auto", row["answerx_task"]):
                out.append((f"{row['id']}#{i}@{task}", row, output, task))
    return out


def load_rules(path: Path = RULES) -> dict[str, list[str]]:
    """``{row id: the rules that read its outputs}``, as ``record`` last saw them."""
    rules: dict[str, list[str]] = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    return rules


def find_rules(rows: list[dict[str, Any]]) -> dict[str, list[str]]:
    """``{row id: the rules that read the cases answerx reads right}``."""
    rules: dict[str, set[str]] = {row["id"]: set() for row in rows}
    for _case, row, output, task in cases(rows):
        wrong, method = read(row, output, task)
        if not wrong:
            rules[row["id"]].add(method)
    return {key: sorted(value) for key, value in rules.items()}


def load_known(path: Path = KNOWN) -> dict[str, str]:
    """``{case id/check: the missing mechanism}`` for the cases answerx cannot read yet."""
    known: dict[str, str] = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    return known


#: End-of-turn and special tokens of the chat templates the styles use.
END_TOKENS = (
    "<|eot_id|>",
    "<|im_end|>",
    "<｜end▁of▁sentence｜>",
    "<end_of_turn>",
    "</s>",
    "<|user|>",
    "<|end|>",
    "<|END_OF_TURN_TOKEN|>",
    "<eoa>",
    "<eoe>",
    "<|endoftext|>",
    "</s><s>[INST]",
)


def _mechanism(row: dict[str, Any], output: dict[str, Any], task: str, what: str) -> str:
    """Which missing mechanism a failing case waits for (a first sorting, reviewed by hand)."""
    text = output["output"]
    answer = output["answer"]
    if output.get("note"):
        # an extra output was written for one mechanism; its note names it
        return str(output["note"]) + (", under auto" if task == "auto" else "")
    if "【答案】" in text:
        return "bracket marker 【答案】 (and the <eoe>/<eoa> tokens)"
    if "dyck" in row["task"]:
        return "answers made of symbols (Dyck brackets)"
    if any(letter * 4 in text for letter in "ABCDEFGHIJ"):
        return "a repeated letter (CCCCC) is that letter"
    if ", " in answer and row["answerx_task"] == "multiple_choice":
        return "several letters are several, never the first"
    if any(token in text for token in END_TOKENS):
        stripped = dict(output, output=_strip_tokens(text))
        if not check(row, stripped, task):
            return "end-of-turn token left in the output"
    if "<solution>" in text:
        return "a <solution> block is a marker"
    if re.search(r"\d \w+\.", output["output"]) and " clips" in text:
        return "under auto, a unit after the stated number stays in the answer"
    if "**" in text and row["family"] == "LiveBench":
        return "a bold answer with no marker (LiveBench)"
    if "**" in text:
        return (
            "a marker line in bold (**답은 (B)입니다**); an option's value in the reasoning is read"
        )
    if "Mrs." in text:
        return "an abbreviation's full stop (Mrs.) ends the stated answer"
    for lang, word in (("bn", "উত্তর"), ("te", "సమాధానం"), ("th", "คำตอบ")):
        if word in text:
            return f"the answer word of MGSM's {lang} ({word})"
    for lang, word in (("ar", "الإجابة هي"), ("hi", "उत्तर है")):
        if word in text:
            return (
                f"the answer sentence of MMLU-ProX {lang} ({word}); an option's value in the "
                "reasoning is read instead"
            )
    if row["answerx_task"] == "short_answer" and task == "auto":
        # Kept on purpose: under auto an unmarked one-sentence reply cannot be told from
        # a reasoning step ("Let me check the capital of Australia."), and a one-word
        # gold such as "Canberra" makes verify's auto task `text` (exact), not
        # `short_answer`; the benchmark's own task, short_answer, reads both outputs.
        return (
            f"{BY_DESIGN} under auto an unmarked sentence is not an answer and a word gold "
            "means text; task short_answer reads it"
        )
    if row["answerx_task"] == "multiple_choice" and re.search(r"[\u4e00-\u9fff]", text):
        return "a Chinese choice statement (选项B正确, 故选：B, 答案为 B)"
    return f"other: {what}"


def _strip_tokens(text: str) -> str:
    for token in sorted(END_TOKENS, key=len, reverse=True):
        text = text.replace(token, "")
    return text


def find_failures(rows: list[dict[str, Any]]) -> dict[str, str]:
    """``{case id/check: mechanism}`` for every case answerx reads wrong today."""
    failures = {}
    for case, row, output, task in cases(rows):
        for name, what in check(row, output, task).items():
            failures[f"{case}/{name}"] = _mechanism(row, output, task, what)
    return failures


def main(argv: list[str]) -> int:
    if argv[1:] == ["build"]:
        rows = build_rows()
        DATA.parent.mkdir(parents=True, exist_ok=True)
        DATA.write_text(render_yaml(rows), encoding="utf-8")
        known = load_known() if KNOWN.exists() else {}
        DOC.write_text(
            render_doc(rows, known, load_rules() if RULES.exists() else {}), encoding="utf-8"
        )
        print(f"wrote {DATA} ({len(rows)} tasks) and {DOC}")
        return 0
    if argv[1:] == ["record"]:
        # Records what answerx reads wrong today as the strict xfails of the test; run
        # after a fix, it drops the cases that now pass.
        failures = find_failures(load_rows())
        header = (
            "# Cases of the formats table answerx cannot read yet, each with the mechanism it\n"
            "# waits for (strict xfails of tests/extraction/test_formats_table.py). Written by\n"
            "# `python bench/formats_table.py record`, reviewed by hand.\n"
        )
        body = yaml.dump(failures, Dumper=_Dumper, allow_unicode=True, sort_keys=True, width=100)
        KNOWN.write_text(header + body, encoding="utf-8")
        rules = find_rules(load_rows())
        RULES.write_text(
            "# The rules (Extraction.method) that read each row's outputs today. Written by\n"
            "# `python bench/formats_table.py record`.\n"
            + yaml.dump(rules, Dumper=_Dumper, allow_unicode=True, sort_keys=True, width=100),
            encoding="utf-8",
        )
        DOC.write_text(render_doc(load_rows(), failures, rules), encoding="utf-8")
        print(f"{len(failures)} failing checks written to {KNOWN}")
        return 0
    print("usage: python bench/formats_table.py build|record", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
