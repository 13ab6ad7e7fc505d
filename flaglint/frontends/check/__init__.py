"""`flaglint check` and `flaglint show`: flag strings, MaxText's argv and its configs."""
