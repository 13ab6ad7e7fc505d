"""The trainer code that the recipe's head and packing flags switch on, bundled for smoke runs.

Importing this package does not import jax or numpy: `settings` is pure Python, and the jax
modules (`head`, `packing`, `smoke`) are imported by name where they are used.
"""

from __future__ import annotations

from flaglint.trainer.settings import (
    assembler_refusals,
    check_assembler_settings,
    check_pad_settings,
    parse_head_mode,
    scoring_mode,
)

__all__ = [
    "assembler_refusals",
    "check_assembler_settings",
    "check_pad_settings",
    "parse_head_mode",
    "scoring_mode",
]
