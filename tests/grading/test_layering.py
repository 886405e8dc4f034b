"""Grading sits on extraction only; the reward modules import without their frameworks."""

from __future__ import annotations

import subprocess
import sys

_BLOCKED = """
import importlib.abc, sys
BLOCKED = {"trl", "verl", "verifiers", "openrlhf", "torch", "ray", "math_verify", "sympy",
           "openai", "anthropic", "cohere", "instructor", "fastapi"}
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ImportError(f"{name} is blocked")
        return None
sys.meta_path.insert(0, Block())
import answerx.grading
import answerx.integrations.trl, answerx.integrations.verl
import answerx.integrations.verifiers, answerx.integrations.openrlhf
from answerx.integrations.trl import answerx_reward
print(answerx_reward(["The answer is 4."], solution=["4"]))
"""


def test_grading_and_the_reward_modules_import_without_frameworks_or_sympy() -> None:
    done = subprocess.run([sys.executable, "-c", _BLOCKED], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[1.0]"  # decided without math-verify: no sympy needed
