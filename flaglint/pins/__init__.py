"""Pins: which MaxText a recipe runs, the bundled releases and the pin store, and the diff of two pins."""
