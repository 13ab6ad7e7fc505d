"""`flaglint lint`: recipe scripts on every branch, never run."""
