"""Print the closing table of ``make test-integrations``: one line per framework, answerx's
score on the scripted replies beside the framework's built-in scorer's.

    python tests/integrations/scores.py .venv-integrations/scores.jsonl
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main(path: str) -> int:
    file = Path(path)
    lines = [json.loads(line) for line in file.read_text().splitlines()] if file.exists() else []
    if not lines:
        print("no framework recorded a score (were the end-to-end tests skipped?)")
        return 1
    print("\nscores on the scripted replies (answerx | the framework's built-in):")
    for line in lines:
        builtin = "n/a" if line["builtin"] is None else f"{line['builtin']:.2f}"
        print(
            f"  {line['framework']:<34} answerx {line['answerx']:.2f}   "
            f"built-in {builtin} ({line['builtin_name']})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
