"""The cyclic garbage collector over a run's start-up.

Start-up (modules, the pin, its rules) makes tens of thousands of objects that live for the whole
run; the collector would scan them over and over, a tenth of a cold check. It is paused from the
first import of the program (`python -m flaglint`, the `flaglint` command) until they are loaded,
and they are then frozen out of later collections (until the command ends: a caller that runs
commands in its own process gets its collector back as it was).

The work that follows keeps most of what it makes (a script's paths and states live until its
findings are reported), so the collector's youngest generation is collected after WORK_THRESHOLD
new objects, not Python's 700: at 700 a large recipe spends a tenth of its time re-scanning
objects that are still in use (0.63 s of the repeated-keys recipe of 256 switches, nested; 0.25 s
at this threshold), for at most some 15 MiB more held between collections.
"""

from __future__ import annotations

import gc

WORK_THRESHOLD = 20_000
_startup: dict = {"paused": False, "frozen": False, "thresholds": None}


def pause_collector() -> None:
    """Pauses the collector, if it runs, until end_of_startup()."""
    if gc.isenabled():
        _startup["paused"] = True
        gc.disable()


def end_of_startup() -> None:
    if _startup["paused"]:
        _startup.update(paused=False, frozen=True, thresholds=gc.get_threshold())
        gc.freeze()
        gc.set_threshold(WORK_THRESHOLD, *gc.get_threshold()[1:])
        gc.enable()


def restore_collector() -> None:
    if _startup["frozen"]:
        gc.unfreeze()
    if _startup["paused"]:
        gc.enable()
    if _startup["thresholds"] is not None:
        gc.set_threshold(*_startup["thresholds"])
    _startup.update(paused=False, frozen=False, thresholds=None)


def end_of_process() -> None:
    """The process exits next. Everything start-up loaded goes back into the frozen generation: the
    collector's full pass at interpreter exit would scan it all (a sixth of a fixing check) and
    free nothing the exit itself does not."""
    gc.freeze()
