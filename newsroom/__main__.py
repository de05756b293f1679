"""The `newsroom` program: its console script and `python -m newsroom`."""

from newsroom.startup import imports


def program() -> None:
    """Load the command line (see newsroom.startup.imports) and run it."""
    with imports():
        from newsroom.cli import run
    run()


if __name__ == "__main__":
    program()
