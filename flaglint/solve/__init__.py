"""Solving: every cross-key rule on a resolved config, and the smallest fixes (Z3)."""
