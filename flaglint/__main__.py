from flaglint.cli import run

run()
