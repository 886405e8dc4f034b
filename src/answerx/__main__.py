"""``python -m answerx`` and the ``answerx`` console script."""

from answerx.support import earlysignals


def main() -> None:
    """Run the ``answerx`` command, holding a SIGTERM that comes while it loads."""
    earlysignals.hold()  # before the command's imports: see answerx.support.earlysignals
    try:
        from answerx.cli import main as cli_main

        cli_main()
    finally:
        earlysignals.release()


if __name__ == "__main__":
    main()
