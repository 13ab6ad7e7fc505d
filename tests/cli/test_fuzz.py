"""Whatever a user or CI hands flaglint (flag strings, flag files, --env, config files, recipe
scripts, manifests; text that is not UTF-8, lone surrogates, huge numbers, alias bombs, files of
megabytes), it ends in exit 0, 1 or 2, never an internal error, and exit 2 is one line."""

from __future__ import annotations

import json
import string
from pathlib import Path

import pytest
from commandline import run_flaglint
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

REPO = Path(__file__).resolve().parents[2]
FUZZ = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

HUGE = "9" * 5000
KEYS = ["log_period", "num_moe_token_chunks", "context", "custom_mesh_and_rule", "moe_chunk_pipeline",
        "override_logical_axis_rules", "run_name", "logical_axis_rules", "dpo.dpo_beta", "bogus_key"]
VALUES = ["true", "false", "1", "-1", "1.5", "1e3", HUGE, "'false'", '"\\ud800"', "[a, [b]]", "{a: 1}", "none",
          "Offload", "&a [*a]", "!!python/object:os.system", "\x00", "\udcff", "é", ""]
VARIABLES = ["TRAINER_TPU_SLICE", "TRAINER_MESH_FSDP", "TRAINER_MESH_EXPERT", "PACK_PAD_POSITION", "TUNIX_LOGPS_SHARDED_HEAD", "X"]

token = st.one_of(
    st.builds(lambda k, v: f"{k}={v}", st.sampled_from(KEYS), st.sampled_from(VALUES)),
    st.text(string.printable, max_size=12),
    st.text(max_size=8),  # any code point, a lone surrogate too
)
flag_strings = st.lists(token, max_size=6).map(" ".join)
env_items = st.lists(st.builds(lambda k, v: f"{k}={v}", st.sampled_from(VARIABLES), st.sampled_from(VALUES)), max_size=3)


def _ends_well(ran) -> None:
    assert ran.returncode in (0, 1, 2), (ran.returncode, ran.stderr)
    assert "internal error" not in ran.stderr and "Traceback" not in ran.stderr, ran.stderr
    if ran.returncode == 2:
        assert len(ran.stderr.strip().splitlines()) == 1, ran.stderr


@FUZZ
@given(flags=flag_strings, env=env_items, output_format=st.sampled_from(["text", "json", "sarif", "github", "junit"]))
def test_flag_strings_and_env(flags, env, output_format):
    args = [arg for item in env for arg in ("--env", item)]
    _ends_well(run_flaglint("check", "--format", output_format, *args, flags))


@FUZZ
@given(data=st.one_of(st.binary(max_size=200), flag_strings.map(lambda s: s.encode("utf-8", "surrogatepass")),
                      flag_strings.map(lambda s: b"\xef\xbb\xbf" + s.encode("utf-8", "replace") + b"\r\n")),
       fix=st.booleans())
def test_flag_files_and_stdin(tmp_path, data, fix):
    path = tmp_path / "run.flags"
    path.write_bytes(data)
    extra = ["--fix", "--unsafe-fixes"] if fix else []
    _ends_well(run_flaglint("check", *extra, "--files", str(path)))
    _ends_well(run_flaglint("check", *extra, "-", stdin=data))


config_lines = st.lists(st.one_of(
    st.builds(lambda k, v: f"{k} = {v}", st.sampled_from(["pin", "requirements", "model", "select", "ignore", "fail-on", "path-cap",
                                                            "extra-rules", "colour"]),
              st.sampled_from(['"error"', '"warn"', "1", "0", HUGE, '["FL004"]', '["FL4X"]', '"FL004"', "true", '"\\ud800"', "[", "{}"])),
    st.sampled_from(["[severity]", 'FL004 = "warn"', "[per-file-ignores]", '"a/*" = "FL004"', '"a/*" = ["FL105"]', "[tool]"]),
    st.text(max_size=20),
), max_size=5).map("\n".join)


@FUZZ
@given(config=config_lines)
def test_config_files(tmp_path, config):
    (tmp_path / "flaglint.toml").write_bytes(config.encode("utf-8", "surrogatepass"))
    _ends_well(run_flaglint("check", "log_period=10 bogus_key=1", cwd=tmp_path))


script_lines = st.lists(st.one_of(
    st.builds(lambda t: f'export MAXTEXT_EXTRA_FLAGS="${{MAXTEXT_EXTRA_FLAGS}} {t}"', token),
    st.builds(lambda v, x: f'export {v}="${{{v}:-{x}}}"', st.sampled_from(VARIABLES), st.sampled_from(VALUES)),
    st.sampled_from(['if [[ "${TRAINER_TPU_SLICE}" == "tpu7x:4x8x8" ]]; then', "fi", "else", 'case "$X" in a) ;; esac',
                     "source ./missing.sh", "exec python -m train", "$(rm -rf /)", "f() { f; }; f", "while true; do :; done",
                     '# flaglint: disable=FL105 reason="r"', "x=$((2**64))", "echo ${!X}", "<<EOF"]),
    st.text(max_size=20),
), max_size=8).map("\n".join)


@FUZZ
@given(script=script_lines)
def test_recipe_scripts(tmp_path, script):
    path = tmp_path / "recipe.sh"
    path.write_bytes(("#!/usr/bin/env bash\n" + script + "\n").encode("utf-8", "surrogatepass"))
    _ends_well(run_flaglint("lint", "--path-cap", "64", "--format", "json", str(path), cwd=tmp_path))


JOBSET = (REPO / "examples" / "jobsets" / "trainer-128.yaml").read_text(encoding="utf-8")
manifests = st.one_of(
    st.builds(lambda t: JOBSET.replace("num_moe_token_chunks=2", t.replace("\\", "\\\\").replace('"', '\\"')), token),
    st.sampled_from([
        "a: &a [x, x]\nb: &b [*a, *a]\nc: &c [*b, *b]\nd: &d [*c, *c]\ne: &e [*d, *d]\nf: [*e, *e]\n",
        f"kind: JobSet\nspec: {{replicas: {HUGE}}}\n",
        'kind: JobSet\nmetadata: {name: "\\ud800"}\n',
        "--- !!python/object/apply:os.system ['true']\n",
        "{kind: JobSet, " * 200,
        "\t- x\n", "", "---\n---\n", "kind: [JobSet]\n",
    ]),
    st.text(max_size=60),
)


@FUZZ
@given(manifest=manifests, fix=st.booleans())
def test_manifests(tmp_path, manifest, fix):
    path = tmp_path / "jobset.yaml"
    path.write_bytes(manifest.encode("utf-8", "surrogatepass"))
    extra = ["--fix"] if fix else []
    _ends_well(run_flaglint("gate", *extra, str(path)))
    _ends_well(run_flaglint("gate", "-", stdin=manifest.encode("utf-8", "surrogatepass")))


def test_files_of_ten_megabytes_end_in_a_verdict(tmp_path):
    flags = tmp_path / "big.flags"
    flags.write_text("log_period=10 " * 750_000)
    ran = run_flaglint("check", "--format", "json", "-f", str(flags))
    assert ran.returncode == 1 and '"FL009"' in ran.stdout
    script = tmp_path / "big.sh"
    script.write_text("".join(f'export GENERATED_{i:06d}="value-{i:06d}-padding-padding-padding"\n' for i in range(158_000)))
    assert script.stat().st_size > 9_000_000
    ran = run_flaglint("lint", str(script))
    assert ran.returncode == 2 and "over the 512 KiB flaglint reads of a recipe script" in ran.stderr


@pytest.mark.parametrize("config, shown", [("steps: !!binary aGVsbG8=\n", "b'hello'"), ("steps: !!binary ###\n", "b''"),
                                           ("run_name: !!set {b, a}\n", "['a', 'b']")])
@pytest.mark.parametrize("output_format", ["json", "sarif", "junit", "github"])
def test_a_config_value_json_has_no_type_for_is_reported_in_every_format(tmp_path, config, shown, output_format):
    # A YAML !!binary (bytes) or !!set in a config: MaxText refuses it (FL005), and the fix that drops it
    # names the value as the text report shows it.
    (tmp_path / "c.yml").write_text(config)
    ran = run_flaglint("check", "--format", output_format, "c.yml", cwd=tmp_path)
    _ends_well(ran)
    assert ran.returncode == 1
    if output_format == "json":
        (fix,) = json.loads(ran.stdout)["fixes"]
        assert [change["from"] for change in fix["changes"]] == [shown]
