"""A mesh string Tunix cannot read as a literal is described the same way on every run."""

import pytest

from flaglint.tunix.merge import literal


@pytest.mark.parametrize("text", ["--model", "-x", "f(1)", "(2, 4) + (1,)"])
def test_a_refused_literal_names_the_node_not_its_address(text):
    with pytest.raises(ValueError) as first:
        literal(text)
    with pytest.raises(ValueError) as second:
        literal(text)
    assert str(first.value) == str(second.value)
    assert " at 0x" not in str(first.value)
