"""What flaglint knows of MaxText: how it types a value, how its launches are recognised."""
