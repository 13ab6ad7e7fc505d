"""The listing commands as people read them: `rules`, `pins`, `show` and `explain` as aligned tables
(or sections), each with `--format json`; `explain --pin`; pin titles and rule sources whole."""

from __future__ import annotations

import json
import re

import pytest
import yaml
from commandline import REPO, run_flaglint
from hypothesis import given
from hypothesis import strategies as st

from flaglint.pins.pins import bundled_pins, load_pin
from flaglint.report.rule_docs import rule_catalogue
from flaglint.report.tables import WIDEST_PADDED, table

RING = "MXCQ1N5"  # num_moe_token_chunks > 1 requires use_ring_of_experts=True: maxtext-0.2.4 and 0.2.5
SCALE = "MXWDD40"  # global parameter scale cannot be zero: every release


def _columns(header: str) -> list[int]:
    return [match.start() for match in re.finditer(r"\S+", header)]


def test_a_table_aligns_its_columns_and_lets_a_long_cell_push_only_its_own_row():
    assert table(("id", "title"), [("FL1", "a"), ("FL10", "b")], indent="  ") == ["  id    title", "  FL1   a", "  FL10  b"]
    long = "x" * (WIDEST_PADDED + 5)
    lines = table(("id", "title"), [("FL1", "a"), (long, "c")])
    assert lines == [f"{'id':{WIDEST_PADDED}}  title", f"{'FL1':{WIDEST_PADDED}}  a", f"{long}  c"]


_CELL = st.text(st.characters(min_codepoint=33, max_codepoint=126), min_size=1, max_size=WIDEST_PADDED)


@given(st.integers(1, 5).flatmap(lambda n: st.tuples(st.lists(_CELL, min_size=n, max_size=n),
                                                     st.lists(st.lists(_CELL, min_size=n, max_size=n), max_size=6))))
def test_every_cell_of_a_column_starts_where_its_header_does(headers_rows):
    headers, rows = headers_rows
    lines = table(headers, rows)
    assert len(lines) == len(rows) + 1
    starts = None
    for line, cells in zip(lines, [headers, *rows]):
        found, at = [], 0
        for cell in cells:
            at = line.index(cell, at)
            found.append(at)
            at += len(cell)
        assert starts is None or found == starts, lines
        starts = found
        assert line == line.rstrip()


def test_rules_is_a_sorted_table_with_every_pin_of_each_rule():
    done = run_flaglint("rules")
    assert done.returncode == 0
    header, *rows = done.stdout.splitlines()
    assert header.split() == ["id", "severity", "pins", "title"]
    ids = [row.split()[0] for row in rows]
    assert ids == sorted(ids) and len(ids) == len(set(ids))
    starts = _columns(header)
    for row in rows:
        assert row[starts[1] - 2: starts[1]] == "  " and row[starts[1]] != " ", row
    by_id = {row.split()[0]: row for row in rows}
    assert by_id[RING].split()[2] == "maxtext-0.2.4,0.2.5"
    assert by_id[SCALE].split()[2] == "maxtext-0.2.0,0.2.3,0.2.4,0.2.5"
    assert by_id["FL001"].split()[2] == "all" and by_id["FL101"].split()[2] == "e93800779"


def test_rules_at_a_pin_and_as_json():
    at_020 = json.loads(run_flaglint("rules", "--pin", "maxtext-0.2.0", "--format", "json").stdout)
    ids = [rule["id"] for rule in at_020["rules"]]
    assert at_020["pin"] == "maxtext-0.2.0" and SCALE in ids and RING not in ids and "FL101" not in ids
    assert ids == sorted(ids)
    fork = json.loads(run_flaglint("rules", "--pin", "bbd0f6f10", "--format", "json").stdout)
    ring = next(rule for rule in fork["rules"] if rule["id"] == RING)
    assert ring == {"id": RING, "severity": "error", "pins": ["maxtext-0.2.4", "maxtext-0.2.5"],
                    "title": "num_moe_token_chunks > 1 requires use_ring_of_experts=True"}
    assert "FL101" in [rule["id"] for rule in fork["rules"]]


def test_explain_takes_a_pin_and_says_where_a_rule_is_not():
    at_024 = run_flaglint("explain", RING, "--pin", "maxtext-0.2.4")
    assert at_024.returncode == 0 and "MaxText 0.2.4 raises this" in at_024.stdout
    assert "Pins:    maxtext-0.2.4, maxtext-0.2.5 and the pins that extend them" in at_024.stdout
    assert "MaxText 0.2.5 raises this" in run_flaglint("explain", RING).stdout  # the newest wording
    missing = run_flaglint("explain", RING, "--pin", "maxtext-0.2.0")
    assert missing.returncode == 2
    assert missing.stderr.strip() == (f"flaglint: error: {RING} is not a rule at maxtext-0.2.0: it is at maxtext-0.2.4,0.2.5; "
                                      "`flaglint rules --pin maxtext-0.2.0` lists the rules there")


@pytest.mark.parametrize("pin, old, new", [("maxtext-0.2.0", "MX0001", SCALE), ("maxtext-0.2.5", "MX0001", RING)])
def test_explain_reads_an_old_number_at_the_pin_and_names_its_id(pin, old, new):
    done = run_flaglint("explain", old, "--pin", pin)
    assert done.returncode == 0 and done.stdout.startswith(f"{new}: ")
    assert f"{old} is the old number of {new} at {pin}" in done.stderr and f"write {new}" in done.stderr


def test_explain_defines_the_values_maxtext_derives_that_a_condition_names():
    # the micro-batch check reads the pipeline's microbatches as MaxText computes them
    (rule_id,) = [i for i, e in rule_catalogue().items() if e.rule.message.startswith("The batch size for a single forward pass")
                  and "effective_num_pipeline_microbatches_4" in (e.rule.require_text or "")]
    text = run_flaglint("explain", rule_id).stdout
    where = text.split("Where:", 1)[1].split("Pins:", 1)[0]
    for name in ("effective_num_pipeline_microbatches_4", "effective_num_pipeline_microbatches_2",
                 "effective_num_pipeline_microbatches", "effective_using_pipeline_parallelism"):
        assert re.search(rf"^ *{name} = \S", where, re.M), name
    data = json.loads(run_flaglint("explain", rule_id, "--format", "json").stdout)
    assert data["where"]["effective_num_pipeline_microbatches"] == "ici_pipeline_parallelism * dcn_pipeline_parallelism // 1"


def test_pins_is_a_table_and_json_with_whole_titles():
    done = run_flaglint("pins")
    header, *rows = done.stdout.splitlines()
    assert header.split() == ["pin", "program", "version", "kind", "extends", "about"]
    assert re.search(r"^22fa0c559 +MaxText +0\.2\.5 +fork overlay +d66a82096 +AI-Hypercomputer/maxtext#5721 at 22fa0c559 "
                     r"\(completes the port of AI-Hypercomputer/maxtext#5698\)$", done.stdout, re.M)
    listed = {p["pin"]: p for p in json.loads(run_flaglint("pins", "--format", "json").stdout)["pins"]}
    assert set(bundled_pins()) <= set(listed) and listed["maxtext-0.2.5"]["kind"] == "release"
    for name in bundled_pins():
        about = listed[name]["about"]
        assert about.count("(") == about.count(")"), about


def test_no_bundled_title_or_source_is_cut_by_an_unquoted_hash():
    """` #` starts a YAML comment: a title or source that cites an issue that way loses the rest."""
    for path in [*REPO.glob("rules/*.yml"), *REPO.glob("schemas/pins/*.yml")]:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            assert not re.match(r"\s*-?\s*[A-Za-z_]\w*: [^\"'|>\[{#].* #", line), f"{path.name}:{number}: {line}"
    for name in bundled_pins():
        assert load_pin(name).origin.count("(") == load_pin(name).origin.count(")"), name
    source = yaml.safe_load((REPO / "rules" / "core.yml").read_text())
    fl004 = next(rule for rule in source["rules"] if rule["id"] == "FL004")
    assert fl004["source"].endswith("AI-Hypercomputer/maxtext#5758); MaxText pyconfig")
    assert "AI-Hypercomputer/maxtext#5758); MaxText pyconfig" in run_flaglint("explain", "FL004").stdout


def test_show_is_a_table_of_key_value_origin_and_where():
    done = run_flaglint("show", "steps", "per_device_batch_size", "--flags", "steps=10")
    assert done.stdout.splitlines() == [
        "key                    value  origin   where",
        "steps                  10     flags    MAXTEXT_EXTRA_FLAGS token 'steps=10' at column 1",
        "per_device_batch_size  12     default  maxtext/configs/base.yml:840 (MaxText 0.2.5)",
    ]
    data = json.loads(run_flaglint("show", "steps", "--flags", "steps=10", "--format", "json").stdout)
    assert data["values"]["steps"]["value"] == 10


def test_explain_shows_a_check_no_rule_states_by_the_id_fl016_names():
    found = json.loads(run_flaglint("check", "--format", "json", "log_period=10 chat_template=template.jinja").stdout)["findings"]
    (message,) = [f["message"] for f in found if f["rule"] == "FL016"]
    rule_id = re.search(r"check (MX[0-9A-Z]{5}) ", message)[1]
    done = run_flaglint("explain", rule_id)
    assert done.returncode == 0 and done.stdout.startswith(f"{rule_id}: a check of MaxText's that no rule states (jinja parse ")
    assert "Keys:    chat_template" in done.stdout and "FL016 says so" in done.stdout
    data = json.loads(run_flaglint("explain", rule_id, "--format", "json").stdout)
    assert data["keys"] == ["chat_template"] and "maxtext-0.2.5" in data["pins"]


def test_no_title_shows_a_placeholder_of_the_message_it_comes_from():
    rows = json.loads(run_flaglint("rules", "--format", "json").stdout)["rules"]
    assert [row["id"] for row in rows if "{" in row["title"] or "}" in row["title"]] == []
    titles = {row["id"]: row["title"] for row in rows}
    assert titles["MX03X44"] == "distill_alpha_end must be in [0, 1], got <distill_alpha_end>"
    assert titles["MX1KWG3"] == "Delayed activation forwarding requires at least 2 * num_stages microbatches, but..."
    explained = run_flaglint("explain", "MX03X44").stdout
    assert explained.startswith("MX03X44: distill_alpha_end must be in [0, 1], got <distill_alpha_end> (error)")


def test_an_unknown_rule_id_of_an_option_is_named_by_the_option_once():
    done = run_flaglint("check", "--select", "FOO", "steps=1")
    assert (done.returncode, done.stderr) == (2, "flaglint: error: --select: no rule 'FOO' (an id or a prefix of one); `flaglint rules` lists them\n")
