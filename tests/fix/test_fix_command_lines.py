"""`lint --fix` on MaxText command lines in recipe scripts (`python3 -m maxtext.trainers.pre_train.train
CONFIG.yml key=value …`): the fix edits the word the script wrote, in its quoting, on continued
lines and on branches; safe and unsafe as for flags; idempotent; nothing else in the script changes."""

from __future__ import annotations

import json
import os

from commandline import run_flaglint as invoke
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

TRAIN = "python3 -m maxtext.trainers.pre_train.train src/maxtext/configs/base.yml"


def _write(tmp_path, text: str, name: str = "run.sh"):
    script = tmp_path / name
    script.write_text(text)
    return script


def _findings(script, *args) -> list[dict]:
    return json.loads(invoke("lint", "--format", "json", *args, str(script)).stdout)["findings"]


def test_a_bad_value_on_a_continued_command_line_is_dropped_and_the_backslashes_stay(tmp_path):
    text = f"#!/bin/bash\n{TRAIN} \\\n  run_name=demo \\\n  log_period=1.5 \\\n  steps=20\necho done\n"
    script = _write(tmp_path, text)
    held = invoke("lint", "--fix", str(script))  # dropping it gives the default period: unsafe
    assert held.returncode == 1 and script.read_text() == text and "--unsafe-fixes" in held.stderr
    ran = invoke("lint", "--fix", "--unsafe-fixes", str(script))
    assert ran.returncode == 0, ran.stdout
    assert script.read_text() == f"#!/bin/bash\n{TRAIN} \\\n  run_name=demo \\\n  \\\n  steps=20\necho done\n"
    assert _findings(script) == []
    again = invoke("lint", "--fix", "--unsafe-fixes", str(script))
    assert again.returncode == 0 and script.read_text().count("steps=20") == 1  # idempotent


def test_two_neighbouring_words_are_dropped_in_one_round(tmp_path):
    # As in MaxText 0.2.5's gpu/a3/llama_3.1_405b/128vm.sh: a key written YAML-style is two words
    # MaxText does not define; both go, with the blank between them, and the next line stays joined.
    text = f"#!/bin/bash\n{TRAIN} \\\n    steps=10 \\\n    enable_checkpointing: False \\\n    attention=dot_product\n"
    script = _write(tmp_path, text)
    diff = invoke("lint", "--diff", str(script))
    assert "-    enable_checkpointing: False \\\n+     \\\n" in diff.stdout
    assert invoke("lint", "--fix", str(script)).returncode == 0
    assert script.read_text() == text.replace("    enable_checkpointing: False \\", "     \\")


def test_a_quoted_word_keeps_its_quoting_and_a_safe_fix_needs_no_flag(tmp_path):
    text = f"#!/bin/bash\n{TRAIN} 'context=Offload' decoder_block=\"Llama2\" steps=5\n"
    script = _write(tmp_path, text)
    ran = invoke("lint", "--fix", str(script))  # a choice's case corrected is safe
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert script.read_text() == f"#!/bin/bash\n{TRAIN} 'context=offload' decoder_block=\"llama2\" steps=5\n"


def test_a_word_on_one_branch_is_fixed_where_that_branch_wrote_it(tmp_path):
    text = (f'#!/bin/bash\nif [[ "${{SIZE:-small}}" == large ]]; then\n  {TRAIN} steps=10 bogus_key=1\n'
            f"else\n  {TRAIN} steps=20\nfi\n")
    script = _write(tmp_path, text)
    (finding,) = _findings(script)
    assert finding["rule"] == "FL004" and finding["witness"]["env"] == {"SIZE": "large"}
    diff = invoke("lint", "--diff", str(script))
    assert diff.returncode == 1 and script.read_text() == text  # --diff writes nothing
    assert f"-  {TRAIN} steps=10 bogus_key=1\n+  {TRAIN} steps=10\n" in diff.stdout
    assert invoke("lint", "--fix", str(script)).returncode == 0
    assert script.read_text() == text.replace(" bogus_key=1", "")


def test_the_report_gives_the_edit_at_the_word_in_the_script(tmp_path):
    script = _write(tmp_path, f"#!/bin/bash\n{TRAIN} steps=5 \\\n    'log_period=1.5'\n")
    (fix,) = json.loads(invoke("lint", "--format", "json", str(script)).stdout)["fixes"]
    (edit,) = fix["edits"]
    line = script.read_text().splitlines()[edit["line"] - 1]
    assert (edit["line"], edit["old"], edit["new"]) == (3, "'log_period=1.5'", "")
    assert line[edit["column"] - 1:edit["end_column"] - 1] == edit["old"] and not fix["safe"]


def test_a_value_the_config_file_sets_is_overridden_by_a_word_after_the_last_one(tmp_path):
    # The command line's own config turns the Pallas kernel on without mHC lite: the fix turns it
    # off with a word the command line gives last (argv wins over the file), on its own line.
    (tmp_path / "mhc.yml").write_text("base_config: base.yml\nuse_mhc_pallas_kernel: true\n")
    text = "#!/bin/bash\npython3 -m maxtext.trainers.pre_train.train mhc.yml \\\n  steps=5 # five steps\necho ok\n"
    script = _write(tmp_path, text)
    assert invoke("lint", "--fix", str(script)).returncode == 0
    assert script.read_text() == text.replace("steps=5 #", "steps=5 use_mhc_pallas_kernel=false #")
    assert (tmp_path / "mhc.yml").read_text() == "base_config: base.yml\nuse_mhc_pallas_kernel: true\n"


def test_a_word_inside_an_xpk_command_string_is_edited_there(tmp_path):
    text = ('#!/bin/bash\nxpk workload create --cluster c --workload w1 --tpu-type=v5p-8 \\\n'
            '  --command "python3 -m maxtext.trainers.pre_train.train run_name=w1 context=Offload log_period=1.5 && echo done"\n')
    script = _write(tmp_path, text)
    assert invoke("lint", "--fix", str(script)).returncode == 1  # one fix of both words, unsafe: it waits
    assert script.read_text() == text
    assert invoke("lint", "--fix", "--unsafe-fixes", str(script)).returncode == 0
    assert script.read_text() == text.replace("context=Offload log_period=1.5", "context=offload")


def test_a_word_the_script_does_not_write_as_one_literal_is_not_edited(tmp_path):
    # The value comes from a variable set elsewhere: editing the word would drop the variable.
    text = f"#!/bin/bash\nPERIOD=1.5\n{TRAIN} steps=5 log_period=$PERIOD\n"
    script = _write(tmp_path, text)
    ran = invoke("lint", "--fix", "--unsafe-fixes", str(script))
    assert ran.returncode == 1 and script.read_text() == text
    assert [f["rule"] for f in _findings(script)] == ["FL005"]


_GOOD = st.sampled_from(["steps=20", "run_name=demo", "per_device_batch_size=2", "enable_checkpointing=false"])
_BAD = st.sampled_from([("log_period=1.5", "FL005"), ("bogus_key=1", "FL004"), ("context=Offload", "FL005"),
                        ("decoder_block=Llama2", "FL005")])


def _written(word: str, style: str) -> str:
    key, _, value = word.partition("=")
    return {"bare": word, "single": f"'{word}'", "double": f'"{word}"', "value": f'{key}="{value}"'}[style]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(good=st.lists(_GOOD, unique=True, max_size=4), split=st.integers(0, 4), bad=_BAD,
       style=st.sampled_from(["bare", "single", "double", "value"]), continued=st.booleans(), branch=st.booleans(),
       indent=st.sampled_from(["", "  ", "\t"]), xpk=st.booleans())
def test_a_fixed_script_lints_without_the_finding_and_keeps_every_byte_outside_the_word(
        tmp_path_factory, good, split, bad, style, continued, branch, indent, xpk):
    word, rule = bad
    before, after = good[:split], good[split:]
    joiner = f" \\\n{indent}    " if continued else " "
    style = "bare" if xpk else style  # inside XPK's --command "…" the words are plain
    written = _written(word, style)
    command = indent + joiner.join([TRAIN, *before, written, *after])
    if xpk:
        command = f'{indent}xpk workload create --cluster c --workload w --tpu-type=v5p-8 --command "{command.strip()} && echo ok"'
    body = f'if [[ "${{MODE:-a}}" == b ]]; then\n{command}\nelse\n{indent}echo skipped\nfi\n' if branch else command + "\n"
    text = f"#!/bin/bash\nset -e\n{body}echo done # {word}\n"
    script = _write(tmp_path_factory.mktemp("fix"), text)
    assert [f["rule"] for f in _findings(script)] == [rule]
    ran = invoke("lint", "--fix", "--unsafe-fixes", str(script))
    assert "Traceback" not in ran.stderr and ran.returncode == 0, ran.stdout + ran.stderr
    new = script.read_text()
    assert _findings(script) == []
    # Every byte before and after the word (less one blank beside it) is as it was.
    start = text.index(written)
    end = start + len(written)
    assert new.startswith(text[:start - 1]) and new.endswith(text[end + 1:]), (text, new)
    fixed = new[start - 1:len(new) - len(text[end + 1:])].strip()
    assert fixed in ("", _written("context=offload", style), _written("decoder_block=llama2", style))
    assert os.system(f"bash -n {script}") == 0  # the script still parses
    assert invoke("lint", "--fix", "--unsafe-fixes", str(script)).returncode == 0 and script.read_text() == new
