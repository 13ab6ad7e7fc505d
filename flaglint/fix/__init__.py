"""Fixes written as edits of what the user wrote (flag strings, files, YAML configs, command lines)."""
