"""Will it fit: the train step of a launch compiled ahead of time for its TPU topology by the pinned
MaxText's own compile, in a Python 3.12 environment with jax and libtpu (a subprocess: flaglint
never imports them), and the compiler's answer read as a verdict per chip."""
