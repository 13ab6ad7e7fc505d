"""The editor's reading of a Tunix config: the section a line is in, from its indentation, against
the nesting PyYAML writes and reads; and the keys, hover and pins of a Tunix key."""

from __future__ import annotations

import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st

from flaglint.server.knowledge import (
    on_tunix_command_line,
    tunix_key_hover,
    tunix_keys,
    tunix_keys_under,
    tunix_pins_defining,
    yaml_section,
)
from flaglint.tunix.pins import load_tunix_pin

PIN = load_tunix_pin("tunix-0.1.7")
NAMES = st.from_regex(r"[a-z_][a-z0-9_]{0,6}", fullmatch=True)
TREES = st.recursive(st.integers(0, 9) | st.booleans(), lambda inner: st.dictionaries(NAMES, inner, min_size=1, max_size=4),
                     max_leaves=12)


@settings(max_examples=50)
@given(st.dictionaries(NAMES, TREES, min_size=1, max_size=4), st.sampled_from([2, 4]))
@example({"model_config": {"mesh": {"shape": 1}, "rng_seed": 3}, "batch_size": 8}, 2)
@example({"on": {"null": {"a": 1}}}, 4)  # keys YAML would read as a bool or null are written quoted
def test_each_key_line_is_in_the_section_yaml_reads_it_in(tree, indent):
    text = yaml.safe_dump(tree, indent=indent, sort_keys=False, default_flow_style=False)
    lines = text.splitlines()
    expected = []

    def walk(node: dict, parents: list[str]) -> None:
        for key, value in node.items():
            expected.append((".".join(parents), key))
            if isinstance(value, dict):
                walk(value, [*parents, key])

    walk(tree, [])
    assert [(yaml_section(lines, i), line.strip().split(":")[0].strip("'")) for i, line in enumerate(lines)] == expected


def test_a_comment_or_blank_line_above_does_not_end_the_section():
    lines = ["model_config:", "  # the mesh", "", "  mesh:", "    shape: (2,2)"]
    assert yaml_section(lines, 4) == "model_config.mesh" and yaml_section(lines, 3) == "model_config"


def test_a_list_item_above_is_no_section_flaglint_guesses():
    assert yaml_section(["reward_functions:", "  - name: a", "    path: b.py"], 2) == ""


def test_a_command_line_is_tunix_through_its_continued_lines():
    lines = ["python -m tunix.cli.peft_main base.yaml \\", "  batch_size=8 \\", "  max_target_length=8", "echo batch_size=1"]
    assert [on_tunix_command_line(lines, i) for i in range(4)] == [True, True, True, False]


def test_a_tunix_key_is_shown_with_its_type_default_pins_and_checks():
    assert tunix_key_hover("nonexistent_key", PIN) is None
    shown = tunix_key_hover("rl_training_config.gradient_accumulation_steps", PIN)
    assert "- type: `int`" in shown and "- default: `1`" in shown
    assert "- checks that read it: TX11FSE, TXDE4BM, TXR8MXC" in shown  # RLTrainingConfig refuses the base's own 1
    # a key of the agentic base only: named with its file, and defined only where that file is
    assert tunix_keys(PIN)["agentic_grpo_config"][0] == "base_agentic_config.yaml"
    assert tunix_pins_defining("agentic_grpo_config") == ["tunix-0.1.7"]
    assert tunix_pins_defining("vllm_config") == ["tunix-0.1.7"] and tunix_pins_defining("batch_size")[0] == "tunix-0.1.0"
    assert "- a field of: GRPOConfig (grpo_main)" in tunix_key_hover("grpo_config.num_generations", PIN)
    assert "a field of" not in tunix_key_hover("batch_size", PIN)
    assert tunix_keys_under("model_config.mesh", "", PIN) == [("allocation_policy", "str"), ("axis_names", "str"), ("shape", "str")]
