"""The `flaglint` command group, and the one way a command ends on bad input: one line, exit 2."""

from __future__ import annotations

import os
import sys
from typing import Any, NoReturn

import click

from ..findings import InputError


def fail(message: str) -> NoReturn:
    click.echo(f"flaglint: error: {message}", err=True)
    sys.exit(2)


class FlaglintGroup(click.Group):
    """Turns bad input anywhere into one line and exit code 2, never a traceback."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except InputError as err:
            fail(str(err))
        except (click.exceptions.Exit, click.ClickException, click.exceptions.Abort, SystemExit):
            raise
        except RecursionError:
            fail("input too deeply nested")
        except Exception as err:  # noqa: BLE001 - a bug must still not show users a traceback
            if os.environ.get("FLAGLINT_DEBUG"):
                raise
            fail(f"internal error ({type(err).__name__}: {err}); rerun with FLAGLINT_DEBUG=1 and report it")
