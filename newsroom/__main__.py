from newsroom.cli import run

run()
