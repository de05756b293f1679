"""The `newsroom` program: its console script and `python -m newsroom`."""

import gc


def program() -> None:
    """Load the command line, with no garbage collection meanwhile (see newsroom.cli.imports), and run it."""
    gc.disable()
    from newsroom.cli import run
    gc.enable()
    run()


if __name__ == "__main__":
    program()
