"""`check CONFIG.yml --fix`: the fix is written where each value was set, the config file keeping
its comments and layout; argv keeps the rest; a second run has nothing to fix."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from flaglint.fix.config_files import REMOVE, yaml_edits

CONFIG = """\
# My pre-training run: keep this comment
base_config: "base.yml"
run_name: demo   # the name
log_period: 1.5
steps: 10
ici_fsdp_parallelism: 8   # fsdp over the slice
"""


def test_the_fix_edits_the_file_that_set_each_value_and_keeps_its_comments(tmp_path, flaglint_cli):
    config = tmp_path / "run.yml"
    config.write_text(CONFIG)
    proc = flaglint_cli("check", str(config), "--topology", "v5p-8", "scan_layers=true", "--fix", "--unsafe-fixes")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    text = config.read_text()
    # log_period: 1.5 is refused, so it goes (base.yml's value comes back); the mesh fits 4 devices.
    assert text == CONFIG.replace("log_period: 1.5\n", "").replace("ici_fsdp_parallelism: 8 ", "ici_fsdp_parallelism: 4 ")
    assert proc.stdout.strip() == "scan_layers=true"
    again = flaglint_cli("check", str(config), "--topology", "v5p-8", "scan_layers=true", "--fix", "--unsafe-fixes")
    assert again.returncode == 0 and config.read_text() == text


def test_with_diff_the_fix_is_a_diff_of_the_file(tmp_path, flaglint_cli):
    config = tmp_path / "run.yml"
    config.write_text(CONFIG)
    proc = flaglint_cli("check", str(config), "--topology", "v5p-8", "--diff", "--unsafe-fixes")
    assert "-log_period: 1.5" in proc.stdout and "+ici_fsdp_parallelism: 4   # fsdp over the slice" in proc.stdout
    assert config.read_text() == CONFIG


def test_a_config_file_fix_is_applied_and_reported_as_byte_edits_like_every_other_fix(tmp_path, flaglint_cli):
    config = tmp_path / "run.yml"
    config.write_bytes(b"\xef\xbb\xbf" + CONFIG.encode("utf-8"))
    diff = flaglint_cli("check", str(config), "--topology", "v5p-8", "--diff", "--unsafe-fixes")
    assert diff.returncode == 1 and "+ici_fsdp_parallelism: 4   # fsdp over the slice" in diff.stdout
    proc = flaglint_cli("check", str(config), "--topology", "v5p-8", "--fix", "--unsafe-fixes", "--format", "json")
    (applied,) = json.loads(proc.stdout)["applied"]
    assert not applied["safe"] and [c["key"] for c in applied["changes"]] == ["ici_fsdp_parallelism", "log_period"]
    assert [(e["line"], e["old"], e["new"]) for e in applied["edits"]] == [(4, "log_period: 1.5", ""), (6, "8", "4")]
    text = CONFIG.replace("log_period: 1.5\n", "").replace("ici_fsdp_parallelism: 8 ", "ici_fsdp_parallelism: 4 ")
    assert config.read_bytes() == b"\xef\xbb\xbf" + text.encode("utf-8")  # the BOM is kept


def test_a_crlf_config_without_a_final_newline_keeps_both(tmp_path, flaglint_cli):
    config = tmp_path / "run.yml"
    crlf = CONFIG.replace("\n", "\r\n").removesuffix("\r\n")
    config.write_bytes(crlf.encode("utf-8"))
    proc = flaglint_cli("check", str(config), "--topology", "v5p-8", "--fix", "--unsafe-fixes")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    fixed = crlf.replace("log_period: 1.5\r\n", "").replace("ici_fsdp_parallelism: 8 ", "ici_fsdp_parallelism: 4 ")
    assert config.read_bytes() == fixed.encode("utf-8")


def _edited(text: str, changes: dict) -> tuple[str, list]:
    edits = sorted(yaml_edits(text, changes, "t.yml"), key=lambda e: e.start)
    for edit in reversed(edits):
        text = text[:edit.start] + edit.new + text[edit.end:]
    return text, edits


_KEY = st.sampled_from(["steps", "log_period", "run_name", "eval_interval"])


@settings(max_examples=40, deadline=None)
@given(st.dictionaries(_KEY, st.integers(0, 999), min_size=1, max_size=4), st.dictionaries(_KEY, st.integers(0, 999) | st.just(REMOVE)))
def test_an_edit_changes_only_its_keys_and_keeps_every_comment(written, changes):
    import yaml

    text = "# head\n" + "".join(f"{k}: {v}  # about {k}\n" for k, v in written.items())
    edited, _ = _edited(text, changes)
    expected = {k: v for k, v in {**written, **changes}.items() if v is not REMOVE and (k in written or k in changes)}
    assert (yaml.safe_load(edited) or {}) == expected
    for key in written:
        if changes.get(key, written[key]) is not REMOVE:
            assert f"# about {key}" in edited
    assert edited.startswith("# head\n")


# One top-level entry of a config, as lines (without their breaks), in the shapes configs write.
_VALUE = st.sampled_from(["10", "'a b'", '"x"', "true", "", "null", "&anchor 3", "[1, 2]", "{a: 1}", "1.5e-3"])
_ENTRY = st.one_of(
    st.tuples(_KEY, _VALUE, st.sampled_from(["", "  # why", " #x"])).map(lambda t: [f"{t[0]}:{' ' if t[1] else ''}{t[1]}{t[2]}"]),
    st.tuples(_KEY, st.lists(st.sampled_from(["- a", "- 'b c'", "# inside", ""]), min_size=1, max_size=3))
    .filter(lambda t: any(line.startswith("-") for line in t[1])).map(lambda t: [f"{t[0]}:", *("  " + line if line else "" for line in t[1])]),
    st.tuples(_KEY, st.sampled_from(["|", ">-"])).map(lambda t: [f"{t[0]}: {t[1]}", "  one", "  two"]),
)
_OTHER = st.sampled_from([["# a comment"], [""], ["other_key: 7   # kept as written"], ["quoted_key: 'kept'  "]])


@settings(max_examples=200, deadline=None)
@given(st.lists(_ENTRY | _OTHER, min_size=1, max_size=8), st.sampled_from(["\n", "\r\n"]), st.booleans(), st.data())
def test_an_edit_keeps_every_byte_outside_its_entry_crlf_and_the_final_newline(parts, newline, final, data):
    import yaml

    seen: set[str] = set()
    blocks = []
    for lines in parts:  # each key once: MaxText refuses a config that sets one twice
        key = lines[0].split(":")[0]
        if key in seen:
            continue
        seen.add(key)
        blocks.append(lines)
    text = newline.join(line for lines in blocks for line in lines) + (newline if final else "")
    try:
        before = yaml.safe_load(text) or {}
    except yaml.YAMLError:
        return
    if not isinstance(before, dict):
        return
    keys = sorted(k for k in before if k in ("steps", "log_period", "run_name", "eval_interval"))
    changes = data.draw(st.dictionaries(st.sampled_from(keys), st.integers(0, 99) | st.just(REMOVE) | st.just("a: b"))) if keys else {}
    edited, edits = _edited(text, changes)
    after = yaml.safe_load(edited) or {}
    assert after == {k: v for k, v in {**before, **changes}.items() if v is not REMOVE}
    # Every edit lies within the lines of the entry it changes, so every other byte is kept.
    entry_lines = {}
    at = 0
    for lines in blocks:
        length = sum(len(line) + len(newline) for line in lines)
        entry_lines[lines[0].split(":")[0]] = (at, at + length)
        at += length
    spans = [span for key, span in entry_lines.items() if key in changes]
    for edit in edits:
        # Blanks aside (a removed last entry of a file without a final newline takes the breaks before it).
        assert all(text[at].isspace() or any(start <= at < end for start, end in spans) for at in range(edit.start, edit.end)), (edit, text)
    # The final newline stays, or its absence; but a block scalar keeps the break that ends its value.
    kept = [lines for lines in blocks if changes.get(lines[0].split(":")[0]) is not REMOVE and lines != [""]]
    after_block = bool(kept) and kept[-1][0].endswith(("|", ">-")) and changes.get(blocks[-1][0].split(":")[0]) is REMOVE
    if edited and not after_block:
        assert edited.endswith(newline) == text.endswith(newline)
    assert ("\r\n" in edited) <= (newline == "\r\n")
    assert edited.count("\n") == edited.count("\r\n") if newline == "\r\n" else "\r" not in edited


def test_a_config_written_as_one_flow_mapping_is_left_to_a_person(tmp_path, flaglint_cli):
    config = tmp_path / "run.yml"
    config.write_text('{base_config: "base.yml", log_period: 1.5, steps: 10}\n')
    proc = flaglint_cli("check", str(config), "--fix", "--unsafe-fixes", "--format", "json")
    (fix,) = json.loads(proc.stdout)["fixes"]
    assert proc.returncode == 1 and [e["new"] for e in fix["edits"]] == [f"in {config}, remove log_period"]
    assert config.read_text() == '{base_config: "base.yml", log_period: 1.5, steps: 10}\n'


def test_a_config_gets_the_fixes_a_flag_string_gets(tmp_path, flaglint_cli):
    # a choice in another case is corrected (safe), a misspelled key is dropped (safe) or renamed
    # to what "did you mean" names (unsafe), as `check context=Offload remat_polcy=full` offers
    config = tmp_path / "run.yml"
    written = 'base_config: "base.yml"\ncontext: Offload  # offload the activations\nremat_polcy: full\nsteps: 10\n'
    config.write_text(written)
    report = json.loads(flaglint_cli("check", str(config), "--format", "json").stdout)
    offered = [(fix["safe"], sorted((c["key"], c["from"], c["to"]) for c in fix["changes"])) for fix in report["fixes"]]
    assert offered == [
        (True, [("context", "Offload", "offload"), ("remat_polcy", "full", None)]),
        (False, [("context", "Offload", "offload"), ("remat_polcy", "full", None), ("remat_policy", None, "full")]),
    ], offered
    assert flaglint_cli("check", str(config), "--fix").returncode == 0
    assert config.read_text() == 'base_config: "base.yml"\ncontext: offload  # offload the activations\nsteps: 10\n'
    renamed = [(edit["line"], edit["old"], edit["new"]) for edit in report["fixes"][1]["edits"]]
    assert renamed == [(2, "Offload", "offload"), (3, "remat_polcy", "remat_policy")]
