"""`python -m flaglint` and the `flaglint` command: the collector is paused before the program's
modules are imported (core/startup.py)."""

from flaglint.core.startup import pause_collector


def main() -> None:
    pause_collector()
    from flaglint.cli import run  # noqa: PLC0415 imported with the collector paused

    run()


if __name__ == "__main__":
    main()
