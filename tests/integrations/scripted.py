"""The scripted replies every end-to-end plug-in test feeds its framework, and the score
lines ``make test-integrations`` prints.

One reply per bundled local item (``answerx.integrations.local_data``): in each set two
right and two wrong, phrased the ways models phrase them ("$9.00 left", "**4** boxes",
"the answer is Mars", a right number only inside ``<think>``), so answerx scores 0.50 on
each set and the frameworks' built-in scorers miss some right answers or credit wrong ones.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from answerx.integrations.local_data import LOCAL_SETS, TASK_OF, local_rows

#: Reply to each local item, by item id.
REPLIES: dict[str, str] = {
    # GSM8K-style (gold 4, 9, 150, 39)
    "gsm-1": "24 muffins / 6 per box = 4 boxes.\nThe answer is **4** boxes.",
    "gsm-2": "The books cost 3 x $12 = $36, so Tom has $45 - $36 = $9.00 left.",
    "gsm-3": "60 km/h for 2.5 hours gives 60 x 2.5 = 140 km.\n#### 140",
    "gsm-4": "<think>18 girls, 21 boys, 18 + 21 = 39</think>\nI am not sure about this one.",
    # MATH-style (gold \frac{3}{4}, 15, 6, 9\pi)
    "math-1": "Dividing both by 2 gives $\\frac{3}{4}$, so the final answer is $0.75$.",
    "math-2": "$\\sqrt{49} = 7$ and $2^3 = 8$, so the sum is $\\boxed{15}$.",
    "math-3": "Adding 7 gives $3x = 18$, so $x = \\boxed{5}$.",
    "math-4": "The area is $\\pi r^2$.\n"
    "Final Answer: The final answer is $6\\pi$. I hope it is correct.",
    # multiple choice (gold B, C, C, B)
    "mc-1": "Iron oxide makes its surface red. The answer is Mars.",
    "mc-2": "The symbol comes from the Latin natrium. The answer is (C).",
    "mc-3": "21 = 3 x 7 and 27 = 3 x 9 are not prime, 33 = 3 x 11 either... Answer: D",
    "mc-4": "At sea level water boils at 100 degrees. The answer is (A).",
}

#: answerx's score on each set's scripted replies: two right of four.
EXPECTED = 0.5


def items() -> list[dict[str, Any]]:
    """Every local item with its set's name (``set``), answerx task and scripted reply."""
    return [
        {**row, "set": name, "task": TASK_OF[name], "reply": REPLIES[row["id"]]}
        for name in LOCAL_SETS
        for row in local_rows(name)
    ]


def prompt_text(item: dict[str, Any]) -> str:
    """The question text of an item (``question`` or ``problem``)."""
    return str(item.get("question") or item["problem"])


def gold(item: dict[str, Any]) -> str:
    """The gold answer of an item (GSM8K's number after ``####``)."""
    return str(item["answer"]).split("####")[-1].strip()


def reply_to(text: str) -> str:
    """The scripted reply to a prompt: the reply of the item whose question it contains."""
    for item in items():
        if prompt_text(item) in text or prompt_text(item).replace("$", "") in text:
            return REPLIES[item["id"]]
    raise KeyError(f"no scripted reply for a prompt: {text[:200]!r}")


def record(framework: str, answerx: float, builtin: float | None, builtin_name: str) -> None:
    """Note one framework's scores for the closing table of ``make test-integrations``
    (a line in ``$ANSWERX_INTEGRATION_SCORES``; nothing when it is unset)."""
    path = os.environ.get("ANSWERX_INTEGRATION_SCORES")
    if not path:
        return
    line = {"framework": framework, "answerx": answerx, "builtin": builtin,
            "builtin_name": builtin_name}  # fmt: skip
    with Path(path).open("a", encoding="utf-8") as out:
        out.write(json.dumps(line) + "\n")
