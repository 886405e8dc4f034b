"""The public names DESIGN.md promises, and the layering it describes."""

import subprocess
import sys

import answerx
import answerx.structured


def test_the_names_design_md_lists_are_importable() -> None:
    from answerx.extraction.queries import extract_query  # noqa: F401

    assert callable(answerx.extract) and answerx.Extraction
    for name in ("ReasoningExtraction", "REASONING_EXTRACTION_MODELS", "InstructorClientManager"):
        assert name in answerx.structured.__all__ and getattr(answerx.structured, name)
    assert set(answerx.__all__) >= {"extract", "Extraction", "AnswerxError", "ConfigError"}
    assert {"verify", "grade", "verify_batch", "Verdict"} <= set(answerx.__all__)
    assert answerx.verify("It is 4.", "4").correct is True


_BLOCKED = """
import importlib.abc, sys
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {"openai", "anthropic", "cohere", "instructor", "llama_cpp"}:
            raise ImportError(f"{name} is blocked")
        return None
sys.meta_path.insert(0, Block())
import answerx, answerx.extraction, answerx.grading, answerx.cli
print(answerx.extract("The answer is 4.").answer)
"""


def test_extraction_and_the_cli_import_without_any_provider_sdk() -> None:
    done = subprocess.run([sys.executable, "-c", _BLOCKED], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "4"


def test_dir_of_the_package_shows_its_public_names_and_nothing_else() -> None:
    import answerx.cli  # a submodule imported is not a name of the package

    assert dir(answerx) == sorted(answerx.__all__)
    assert not {"importlib", "Any", "_HOMES", "TYPE_CHECKING", "cli"} & set(dir(answerx))
    assert all(getattr(answerx, name) is not None for name in dir(answerx))
