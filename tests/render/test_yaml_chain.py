"""YAML config files as pyconfig reads them: the base_config chain, values typed as MaxText types
them, findings at the line of the file that set the key, bad files as one line and exit code 2."""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flaglint.core.findings import InputError
from flaglint.frontends.check.inputs import config_source
from flaglint.frontends.checker import Checker
from flaglint.render.yaml_chain import config_node, load_chain
from flaglint.schema.config_index import load_index

INDEX = load_index("0.2.5")


def _check(path, *words, env=None):
    return Checker().check(config_source(str(path), words, "0.2.5"), env or {}, fix=False)


def _errors(result):
    return [(f.rule, f.location.file if f.location else None, f.location.line if f.location else None) for f in result.findings
            if f.severity == "error"]


def test_values_are_typed_as_maxtext_types_them_and_found_at_their_line(tmp_path):
    config = tmp_path / "run.yml"
    config.write_text('base_config: "base.yml"\n# metrics on\ngcs_metrics: yes\nlog_period: 1.5\nsteps: 10\n')
    result = _check(config)
    assert _errors(result) == [("FL005", str(config), 4)]
    config.write_text('base_config: "base.yml"\ngcs_metrics: yes\n')
    checker = Checker()
    built, _ = checker.config(config_source(str(config), (), "0.2.5"))
    assert built.lookup("gcs_metrics") is True and built.location("gcs_metrics").line == 2


def test_the_child_wins_and_each_finding_names_the_file_that_set_the_key(tmp_path):
    (tmp_path / "parent.yml").write_text('base_config: "base.yml"\nsteps: 5\nlog_period: 1.5\nbogus_key: 1\n')
    child = tmp_path / "child.yml"
    child.write_text('base_config: "parent.yml"\nlog_period: 20\n')
    result = _check(child)
    assert _errors(result) == [("FL004", str(tmp_path / "parent.yml"), 4)]
    built, _ = Checker().config(config_source(str(child), (), "0.2.5"))
    assert built.lookup("log_period") == 20 and built.lookup("steps") == 5


def test_argv_wins_over_the_files_and_a_parent_in_maxtexts_configs_is_found(tmp_path):
    # inference/inference_jetstream.yml is MaxText's own; its base_config base.yml resolves in the pin's configs.
    child = tmp_path / "serve.yml"
    child.write_text('base_config: "inference/inference_jetstream.yml"\nlog_period: 1.5\n')
    chain = load_chain(config_node(str(child), INDEX), INDEX)
    assert chain.files == [str(child), "maxtext/configs/inference/inference_jetstream.yml", "maxtext/configs/base.yml"]
    assert not _errors(_check(child, "log_period=7"))


def test_a_model_file_replaces_a_files_value_and_flaglint_says_so(tmp_path):
    config = tmp_path / "m.yml"
    config.write_text('base_config: "base.yml"\nmodel_name: llama2-7b\nbase_emb_dim: 1024\n')
    (warning,) = [f for f in _check(config).findings if f.rule == "FL043"]
    assert warning.location.line == 3 and "4096" in warning.message
    # On the command line the same difference is an error (FL006), unless override_model_config.
    assert "FL006" in {f.rule for f in _check(config, "base_emb_dim=2048").findings}


def test_a_file_without_base_yml_in_its_chain_has_typesdotpys_defaults(tmp_path):
    config = tmp_path / "alone.yml"
    config.write_text("steps: 3\n")
    built, _ = Checker().config(config_source(str(config), (), "0.2.5"))
    # base.yml says 10 for log_period... types.py's default is what MaxText uses when no file sets it.
    assert built.lookup("log_period") == built.pin.keys["log_period"].default


def test_m_variables_read_the_type_of_the_files_value(tmp_path):
    config = tmp_path / "f.yml"
    config.write_text('base_config: "base.yml"\nlearning_rate: 1\n')  # an int in the file: int('0.5') fails
    assert "FL042" in {f.rule for f in _check(config, env={"M_LEARNING_RATE": "0.5"}).findings}
    assert "FL042" not in {f.rule for f in _check(config, env={"M_LEARNING_RATE": "2"}).findings}


@settings(max_examples=25, deadline=None)
@given(st.dictionaries(st.sampled_from(["steps", "log_period", "eval_interval"]), st.integers(1, 99), max_size=3),
       st.dictionaries(st.sampled_from(["steps", "log_period", "eval_interval"]), st.integers(1, 99), max_size=3))
def test_the_child_overrides_the_parent_key_by_key(tmp_path_factory, parent, child):
    folder = tmp_path_factory.mktemp("chain")
    (folder / "p.yml").write_text('base_config: "base.yml"\n' + "".join(f"{k}: {v}\n" for k, v in parent.items()))
    (folder / "c.yml").write_text('base_config: "p.yml"\n' + "".join(f"{k}: {v}\n" for k, v in child.items()))
    built, _ = Checker().config(config_source(str(folder / "c.yml"), (), "0.2.5"))
    for key in ("steps", "log_period", "eval_interval"):
        expected = child.get(key, parent.get(key, built.pin.default(key)))
        assert built.lookup(key) == expected


BAD = {
    "a list": ("- a\n- b\n", "must be a mapping"),
    "a scalar": ("just text\n", "must be a mapping"),
    "a duplicate key": ("steps: 1\nsteps: 2\n", "duplicate key steps"),
    "an alias bomb": ("a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
                      "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
                      "e: [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n", "past 10000 nodes"),
    "a missing parent": ('base_config: "nowhere.yml"\n', "no such file"),
    "a self loop": ('base_config: "bad.yml"\n', "base_config loop"),
    "bad YAML": ("steps: [1, 2\n", "not valid YAML"),
    "a base_config that is not a name": ("base_config: [a]\n", "must be a file name"),
}


@pytest.mark.parametrize("name", BAD)
def test_a_bad_config_file_is_one_line_and_exit_code_2(tmp_path, name, flaglint_cli):
    text, words = BAD[name]
    (tmp_path / "bad.yml").write_text(text)
    proc = flaglint_cli("check", str(tmp_path / "bad.yml"), "steps=3")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert words in proc.stderr and len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr


def test_a_two_file_loop_and_an_unreadable_file_are_one_line(tmp_path, flaglint_cli):
    (tmp_path / "a.yml").write_text('base_config: "b.yml"\n')
    (tmp_path / "b.yml").write_text('base_config: "a.yml"\n')
    with pytest.raises(InputError, match=r"a\.yml -> .*b\.yml -> .*a\.yml"):
        load_chain(config_node(str(tmp_path / "a.yml"), INDEX), INDEX)
    secret = tmp_path / "secret.yml"
    secret.write_text("steps: 1\n")
    secret.chmod(0)
    if os.access(secret, os.R_OK):  # root reads anything
        pytest.skip("running as root: every file is readable")
    proc = flaglint_cli("check", str(secret))
    assert proc.returncode == 2 and "cannot read" in proc.stderr


def test_check_reads_a_yml_as_a_config_file_not_as_a_flag_string(tmp_path, flaglint_cli):
    config = tmp_path / "my_config.yml"
    config.write_text('base_config: "base.yml"\nrun_name: demo\nsteps: 100\n')
    proc = flaglint_cli("check", str(config))
    assert proc.returncode == 0 and "FL001" not in proc.stdout, proc.stdout
    named = tmp_path / "my_config.yaml"
    named.write_text("steps: 100\n")
    refused = flaglint_cli("check", str(named))  # MaxText takes argv[1] as the config only if it ends in .yml
    assert refused.returncode == 2 and ".yml" in refused.stderr
    shipped = flaglint_cli("check", "src/maxtext/configs/post_train/rl.yml")  # MaxText refuses its own rl.yml as a MaxTextConfig
    assert shipped.returncode == 1 and "trainer_devices_fraction" in shipped.stdout
