"""The real programs' verdicts on the launches flaglint reports (launches.py): MaxText's pyconfig of
the pin's release (tests/maxtext_env.py's oracle, through flaglint's own runner, confirm.verdicts)
and Tunix's HyperParameters with the entry point's builders (tests/tunix_env.py's oracle, the
Tunix differential tests' driver). Run from the tree's root while it is written out: a config the
launch names there is read from it; one the script writes is written to a temporary file.

A word whose value only an input decides (an input's "anything else") is left out of the argv
the program gets; flaglint leaves its key unjudged too.
"""

from __future__ import annotations

import posixpath
import tempfile
from pathlib import Path

from launches import OVERRIDE
from maxtext_env import oracle_python
from maxtext_env import unavailable as maxtext_unavailable
from oracle.tunix_differential import Case, tunix_verdicts
from tunix_env import tunix_python
from tunix_env import unavailable as tunix_unavailable

from flaglint.frontends.check.confirm import PyconfigInput, verdicts
from flaglint.render.bash.explorer import OTHER
from flaglint.tunix.pins import load_tunix_pin


def _known(words: list[str]) -> tuple[str, ...]:
    return tuple(word for word in words if OTHER not in word)


def maxtext_verdicts(version: str, root: Path, found: list[dict]) -> list[str | None] | str:
    """Per MaxText launch, MaxText's error ("Type: message") or None where it accepts; a string
    (why) when the oracle cannot be had."""
    python = oracle_python(version)
    if python is None:
        return maxtext_unavailable("oracle", version)
    with tempfile.TemporaryDirectory(prefix="judged-config-") as tmp:
        inputs = []
        for at, launch in enumerate(found):
            config = launch["config"]
            if launch["config_text"] is not None:
                written = Path(tmp, str(at), posixpath.basename(config))
                written.parent.mkdir()
                written.write_text(launch["config_text"])
                config = str(written)
            elif (root / config).is_file():
                config = str((root / config).resolve())
            inputs.append(PyconfigInput(_known(launch["argv"]), config, launch["env"], launch.get("config_class")))
        answers = verdicts(python, inputs) if inputs else []
    return [None if answer.ok else f"{answer.error}: {answer.message}" for answer in answers]


def _tunix_case(launch: dict, root: Path, bases: set[str]) -> Case:
    """The launch as the Tunix oracle runs it: its base YAML (the tree's own where the launch names
    one there, else the release's) and its override files given as files of its working directory."""
    argv, files = list(_known(launch["argv"])), {}
    for at, word in enumerate(argv):
        if word.startswith(OVERRIDE) and word[len(OVERRIDE):] in launch["files"]:
            path = word[len(OVERRIDE):]
            files[posixpath.basename(path)] = launch["files"][path]
            argv[at] = OVERRIDE + posixpath.basename(path)
    if argv:
        name = posixpath.basename(argv[0])
        on_disk = next((p for p in (root / argv[0], root / Path(launch["file"]).parent / argv[0]) if p.is_file()), None)
        if on_disk is not None:
            files[name] = on_disk.read_text()
        if on_disk is not None or name in bases:
            argv[0] = name
    return Case(launch["entry"], argv, dict(launch["env"]), files)


def tunix_verdicts_of(version: str, root: Path, found: list[dict]) -> list[str | None] | str:
    """Per Tunix launch, what stops it (at start-up or after downloads, with the stage) or None; a
    string (why) when the oracle cannot be had."""
    if tunix_python(version) is None:
        return tunix_unavailable(version)
    bases = set(load_tunix_pin(f"tunix-{version}").bases)
    answers = tunix_verdicts(version, [_tunix_case(launch, root, bases) for launch in found]) if found else []
    return [f"start-up: {a.startup}" if a.startup else f"after downloads: {a.after}" if a.after else None for a in answers]
