"""The cyclic garbage collector over a run's start-up.

Start-up (modules, the pin, its rules) makes tens of thousands of objects that live for the whole
run; the collector would scan them over and over, a tenth of a cold check. It is paused from the
first import of the program (`python -m flaglint`, the `flaglint` command) until they are loaded,
and they are then frozen out of later collections (until the command ends: a caller that runs
commands in its own process gets its collector back as it was).
"""

from __future__ import annotations

import gc

_startup = {"paused": False, "frozen": False}


def pause_collector() -> None:
    """Pauses the collector, if it runs, until end_of_startup()."""
    if gc.isenabled():
        _startup["paused"] = True
        gc.disable()


def end_of_startup() -> None:
    if _startup["paused"]:
        _startup.update(paused=False, frozen=True)
        gc.freeze()
        gc.enable()


def restore_collector() -> None:
    if _startup["frozen"]:
        gc.unfreeze()
    if _startup["paused"]:
        gc.enable()
    _startup.update(paused=False, frozen=False)


def end_of_process() -> None:
    """The process exits next. Everything start-up loaded goes back into the frozen generation: the
    collector's full pass at interpreter exit would scan it all (a sixth of a fixing check) and
    free nothing the exit itself does not."""
    gc.freeze()
