"""A launch lint cannot verify: FL011, never passed."""

from __future__ import annotations

import re

from flaglint.render.bash.state import input_label

_OPTION = re.compile(r"\$\d+@\d+/\d+")  # state.option_input


class Unverified(Exception):
    """What the launch's parts set cannot be decided (FL011 says why); the reason names it, and
    `origin` where the script writes the first part it concerns (None: not known)."""

    def __init__(self, reason: str, origin=None):
        reason = _OPTION.sub(lambda m: input_label(m[0]), reason)
        super().__init__(reason)
        self.reason = reason
        self.origin = origin
