"""A launch lint cannot verify: FL011, never passed."""

from __future__ import annotations


class Unverified(Exception):
    """What the launch's parts set cannot be decided (FL011 says why); the reason names it, and
    `origin` where the script writes the first part it concerns (None: not known)."""

    def __init__(self, reason: str, origin=None):
        super().__init__(reason)
        self.reason = reason
        self.origin = origin
