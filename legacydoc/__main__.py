from legacydoc.cli import run

run()
