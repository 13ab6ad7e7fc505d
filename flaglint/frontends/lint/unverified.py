"""A launch lint cannot verify: FL011, never passed."""

from __future__ import annotations

from flaglint.render.bash.state import OPTION_INPUT, input_label


class Unverified(Exception):
    """What the launch's parts set cannot be decided (FL011 says why); the reason names it, and
    `origin` where the script writes the first part it concerns (None: not known)."""

    def __init__(self, reason: str, origin=None):
        reason = OPTION_INPUT.sub(lambda m: input_label(m[0]), reason)
        super().__init__(reason)
        self.reason = reason
        self.origin = origin
