"""flaglint's version, for `--version`, SARIF's tool record and the data cache's keys."""

__version__ = "0.1.0"
