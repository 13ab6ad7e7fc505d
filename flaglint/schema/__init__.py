"""Typed key schemas: the models, the files they live in, and the pins layered on them."""
