"""The `flaglint` command group (click): commands loaded when they run, errors as one line and exit 2."""

from __future__ import annotations

import difflib
import sys
from importlib import import_module

import click

from flaglint.cli.console import end_on, fail, undecodable_argument
from flaglint.core.startup import pause_collector, restore_collector


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
        problem = undecodable_argument(args)
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
        except SystemExit:
            raise
        except Exception as err:  # noqa: BLE001 - a bug must still not show users a traceback
            end_on(err)
        finally:
            restore_collector()
        sys.exit(code if isinstance(code, int) else 0)
