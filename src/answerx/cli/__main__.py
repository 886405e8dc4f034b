"""``python -m answerx.cli``: the ``answerx`` command."""

from answerx.cli import main

main()
