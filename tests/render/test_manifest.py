"""Manifest scalars read back with a position per character, and the kubelet's $(VAR) references."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from flaglint.core.findings import InputError
from flaglint.core.location import Location
from flaglint.render.manifest import (
    ManifestText,
    Scalar,
    expand_references,
    load_documents,
    read_manifest,
    scalar,
)

STYLES = [None, '"', "'", "|", ">"]


def _scalars(text: str) -> dict[str, Scalar]:
    """The scalars under the top key, by key; a nested mapping gives its innermost scalar."""
    source = ManifestText(text, "m.yaml")
    document = yaml.compose(text, Loader=yaml.SafeLoader)
    out = {}
    for key, value in document.value[0][1].value:
        while isinstance(value, yaml.MappingNode):
            value = value.value[0][1]
        out[key.value] = scalar(value, source)
    return out


def _at(text: str, position: Location) -> str:
    return text.split("\n")[position.line - 1][position.column - 1]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc", "Zl", "Zp")) | st.sampled_from(" \n\t\"'\\:#-"), max_size=60),
       st.sampled_from(STYLES), st.integers(0, 6))
def test_every_written_character_is_placed_where_it_is_written(value, style, depth):
    """The property: each value character that stands for itself sits at its position in the manifest."""
    nested = value
    for level in range(depth):
        nested = {f"k{level}": nested}
    text = yaml.dump({"outer": {"v": value, "n": nested}}, default_style=style, allow_unicode=True, width=40)
    assume(style is None or f"{style}" in text or not value)
    for placed in _scalars(text).values():
        assert placed.text == value
        assert len(placed.positions) == len(value)
        if len(set(placed.positions)) <= 1:
            continue  # the fallback: every character at the scalar's start
        for char, position in zip(value, placed.positions):
            if char not in " \n\t\\\"'":
                assert _at(text, position) in (char, "\\"), (text, value)


def test_the_usual_styles_never_need_the_fallback():
    for style in STYLES:
        text = yaml.dump({"outer": {"v": "x=1 y='2' \\\n  z=3\n", "n": {"k": "a b"}}}, default_style=style, width=12)
        for placed in _scalars(text).values():
            assert len(set(placed.positions)) == len(placed.positions) or style in (None, ">"), (style, text)


def test_a_literal_block_places_each_character_exactly():
    text = 'a:\n  b: |\n    echo hi\n      X="1 2" \\\n    run  -m z\n'
    placed = _scalars(text)["b"]
    assert placed.text == 'echo hi\n  X="1 2" \\\nrun  -m z\n'
    assert placed.positions[placed.text.index("X")] == Location("m.yaml", 4, 7)
    assert placed.positions[placed.text.index("run")] == Location("m.yaml", 5, 5)


def test_double_quoted_escapes_point_at_their_backslash():
    text = 'a:\n  b: "x\\ty\\n  z"\n'
    placed = _scalars(text)["b"]
    assert placed.text == "x\ty\n  z"
    assert placed.positions[1] == Location("m.yaml", 2, 8) and placed.positions[2] == Location("m.yaml", 2, 10)


def test_kubelet_references_are_expanded_with_their_origins():
    arg = Scalar("a=$(HEAD):1 $$(hostname) $(UNSET)", tuple(Location("m.yaml", 1, c) for c in range(1, 34)))
    head = Scalar("h0", (Location("m.yaml", 9, 3), Location("m.yaml", 9, 4)))
    expanded = expand_references(arg, {"HEAD": head})
    assert expanded.text == "a=h0:1 $(hostname) $(UNSET)"
    assert expanded.positions[2:4] == head.positions
    assert len(expanded.positions) == len(expanded.text)


@pytest.mark.parametrize("text, line", [("a: [\n", 2), ("a: b\n c: d\n", 2), ("- a\nb: c\n", 2), ("a: 'x\n", 2)])
def test_broken_yaml_is_one_line_with_file_and_line(text, line):
    with pytest.raises(InputError) as err:
        load_documents(text, "m.yaml")
    message = str(err.value)
    assert message.startswith(f"m.yaml:{line}: not valid YAML") and "\n" not in message


def test_objects_that_run_no_container_are_skipped_with_a_note():
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n---\napiVersion: jobset.x-k8s.io/v1alpha1\nkind: JobSet\nmetadata: {name: old}\n---\nx\n"
    manifest = read_manifest(text, "m.yaml")
    assert manifest.containers == [] and manifest.unread == []  # a v1alpha1 JobSet is read: this one has no replicated job
    assert manifest.notes == ["m.yaml:1: skipped ConfigMap c (v1): it runs no container", "m.yaml:9: skipped document 3: not a Kubernetes object"]


def test_the_slice_comes_from_the_tpu_job_and_points_at_the_topology():
    text = (Path(__file__).parents[2] / "examples/jobsets/trainer-256-bad.yaml").read_text(encoding="utf-8")
    manifest = read_manifest(text, "t.yaml")
    main = next(c for c in manifest.containers if c.name == "main")
    assert main.tpu_slice.text == "tpu7x:4x8x8"
    line = next(n for n, row in enumerate(text.split("\n"), 1) if "gke-tpu-topology: 4x8x8" in row)
    assert main.tpu_slice.start == Location("t.yaml", line, text.split("\n")[line - 1].index("4x8x8") + 1)
    assert [c.name for c in manifest.containers] == ["pathways-rm", "pathways-proxy", "main", "pathways-worker"]
