"""The project's settings: `[tool.flaglint]` in pyproject.toml or a flaglint.toml."""
