"""The `flaglint` command group, and the one way a run ends on bad input: one line on stderr, exit 2."""

from __future__ import annotations

import difflib
import errno
import os
import re
import sys
from importlib import import_module
from typing import NoReturn

import click

from flaglint.core.findings import InputError
from flaglint.core.startup import pause_collector, restore_collector


def fail(message: str) -> NoReturn:
    one_line = re.sub(r"\s*\n\s*", "; ", message.strip())  # a parser's message may run over lines
    click.echo(f"flaglint: error: {one_line}", err=True)
    sys.exit(2)


def _drop_stdout() -> None:
    """Standard output can take no more: what is left in its buffer goes nowhere, so the
    interpreter's last flush does not fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def _end_on_closed_pipe() -> NoReturn:
    """The reader went away (`flaglint rules | head`): stop quietly, with the status Python gives EPIPE."""
    _drop_stdout()
    sys.exit(1)


# What writing the report to standard output (a file, a full disk, /dev/full) can meet: the
# reports flaglint writes to files it names say which file instead.
_FULL = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)


def _end_on_full_output(err: OSError) -> NoReturn:
    _drop_stdout()
    fail(f"standard output: cannot write ({err.strerror})")


def _internal_error(err: Exception) -> NoReturn:
    if os.environ.get("FLAGLINT_DEBUG"):
        raise err
    fail(f"internal error ({type(err).__name__}: {err}); rerun with FLAGLINT_DEBUG=1 and report it")


def _undecodable_argument(args: list[str]) -> str | None:
    """Arguments that were not UTF-8 reach Python with lone surrogates in them."""
    for number, arg in enumerate(args, 1):
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError as err:
            if "\udc80" <= arg[err.start] <= "\udcff":
                raw = arg[err.start].encode("utf-8", "surrogateescape")
                return f"argument {number} is not UTF-8 ({raw!r} at character {err.start + 1})"
            return f"argument {number} is not valid Unicode (a lone surrogate at character {err.start + 1})"
    return None


def _command_name(ctx: click.Context | None) -> str:
    """`flaglint lint`, however the program was started (`python -m flaglint`, a console script)."""
    names = []
    while ctx is not None and ctx.parent is not None:
        names.append(ctx.info_name)
        ctx = ctx.parent
    return " ".join(["flaglint", *reversed(names)])


def whole_sentence(command: click.Command) -> str:
    """A command's line in its group's help: its short help, else the first sentence of its help,
    whole (click would cut it at 45 characters, mid-sentence)."""
    if command.short_help:
        return command.short_help
    paragraph = " ".join((command.help or "").split("\n\n", 1)[0].split())
    end = paragraph.find(". ")
    return paragraph if end < 0 else paragraph[:end + 1]


class WholeSentenceGroup(click.Group):
    """A group whose help lists each command with a whole sentence."""

    def help_line(self, ctx: click.Context, name: str) -> str:
        return whole_sentence(self.get_command(ctx, name))

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        with formatter.section("Commands"):
            formatter.write_dl([(name, self.help_line(ctx, name)) for name in self.list_commands(ctx)])


def _is_group(ctx: click.Context | None) -> bool:
    return ctx is not None and isinstance(ctx.command, click.Group)


class FlaglintGroup(WholeSentenceGroup):
    """Every way a run can go wrong ends in one line and exit code 2, never a traceback. Commands
    are named as (module, attribute, one line of help) and imported when they are first looked up:
    the help lists them from their lines without importing any."""

    def __init__(self, *args, commands: dict[str, tuple[str, str, str]] | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.lazy_commands = dict(commands or {})

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [*self.lazy_commands, *sorted(set(self.commands) - set(self.lazy_commands))]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in self.lazy_commands:
            module, attribute, _ = self.lazy_commands[cmd_name]
            self.add_command(getattr(import_module(f"{__package__}.{module}"), attribute), cmd_name)
        return self.commands.get(cmd_name)

    def resolve_command(self, ctx: click.Context, args: list[str]):
        name = args[0]
        if self.get_command(ctx, name) is None and not name.startswith("-"):
            close = difflib.get_close_matches(name, self.list_commands(ctx), n=1)
            hint = f"; did you mean `{_command_name(ctx)} {close[0]}`?" if close else ""
            ctx.fail(f"no command {name!r}{hint}")
        return super().resolve_command(ctx, args)

    def help_line(self, ctx: click.Context, name: str) -> str:
        return self.lazy_commands[name][2] if name in self.lazy_commands else super().help_line(ctx, name)

    def main(self, args=None, prog_name=None, **extra):  # type: ignore[override]
        args = list(sys.argv[1:] if args is None else args)
        extra.pop("standalone_mode", None)
        problem = _undecodable_argument(args)
        if problem:
            fail(problem)
        pause_collector()
        try:
            code = super().main(args, prog_name, standalone_mode=False, **extra)
        except click.exceptions.NoArgsIsHelpError as err:
            click.echo(err.ctx.get_help() if err.ctx else err.format_message())
            sys.exit(2)
        except click.exceptions.UsageError as err:
            fail(f"{err.format_message()} (`{_command_name(err.ctx)} --help` lists {'the commands' if _is_group(err.ctx) else 'the options'})")
        except click.ClickException as err:
            fail(err.format_message())
        except click.exceptions.Abort:
            fail("aborted")
        except InputError as err:
            fail(str(err))
        except BrokenPipeError:
            _end_on_closed_pipe()
        except OSError as err:
            if err.errno not in _FULL:
                _internal_error(err)
            _end_on_full_output(err)
        except RecursionError:
            fail("input too deeply nested")
        except SystemExit:
            raise
        except Exception as err:  # noqa: BLE001 - a bug must still not show users a traceback
            _internal_error(err)
        finally:
            restore_collector()
        sys.exit(code if isinstance(code, int) else 0)
