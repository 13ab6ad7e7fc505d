"""The `flaglint` command. Exit codes: 0 clean, 1 findings at or above --fail-on, 2 bad usage or input.

`run()` is the program: a plain `check` or `--version` runs before click is loaded (cli/fast.py);
everything else goes to the click group `main` (cli/commands.py), for callers that run commands
in their own process.
"""

from __future__ import annotations

from flaglint.core.startup import end_of_process


def run() -> None:
    """The program, `flaglint …` or `python -m flaglint …`."""
    from flaglint.cli.fast import run_without_click  # noqa: PLC0415 the fast path first: click only where it is needed

    try:
        if not run_without_click():
            from flaglint.cli.commands import main  # noqa: PLC0415 click: for every command line the fast path leaves

            main()
    finally:
        end_of_process()


def __getattr__(name: str):
    if name == "main":
        from flaglint.cli.commands import main  # noqa: PLC0415 click: loaded when the group is asked for

        return main
    raise AttributeError(name)
