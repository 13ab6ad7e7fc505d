"""OmegaConf's YAML on hostile scalars: a tag that names a type whose PyYAML constructor raises a
Python error on other content (`!!int` on nothing, `!!timestamp x`, an integer of over 4,300
digits) is a YAML error at the scalar's line, as it is for every other malformed document."""

from __future__ import annotations

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from flaglint.core.findings import InputError
from flaglint.core.omegaconf_yaml import cli_loader, load_document

TAGS = ["!!int", "!!float", "!!bool", "!!timestamp", "!!binary", "!!str", "!!null", ""]
CONTENT = st.one_of(st.sampled_from(["", "x", "0x", "0b2", "1_000", "1e400", "--1", "2001-13-45", "yes", "~", "9" * 4400]),
                    st.text(alphabet="0123456789abcdefx_.:-+e ", max_size=12))


@settings(max_examples=200, deadline=None)
@given(tag=st.sampled_from(TAGS), content=CONTENT)
def test_a_tagged_scalar_is_a_value_or_a_yaml_error(tag, content):
    try:
        yaml.load(f"{tag} {content}".strip() or "''", Loader=cli_loader())  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError:
        pass


@pytest.mark.parametrize("text, shown", [
    ("a: 1\nsteps: !!int\n", "config.yml:2: not valid YAML (!!int '': no value of that tag)"),
    ("when: !!timestamp later\n", "config.yml:1: not valid YAML (!!timestamp 'later': no value of that tag)"),
    (f"steps: {'9' * 4400}\n", "Exceeds the limit (4300 digits) for integer string conversion"),
])
def test_a_config_file_names_the_line(text, shown):
    with pytest.raises(InputError) as raised:
        load_document(text, "config.yml", "MaxText")
    assert shown in str(raised.value)
