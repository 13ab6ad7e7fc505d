"""Each channel against the real MaxText 0.2.5: the same settings as argv words, as one YAML file,
and split over a base_config chain, with M_ variables; and every config YAML the release ships.
flaglint's verdict (any error) must be MaxText's on every one."""

from __future__ import annotations

import pytest
from maxtext_env import oracle_python, unavailable

from flaglint.frontends.check.confirm import PyconfigInput, verdicts
from flaglint.frontends.check.inputs import config_source
from flaglint.frontends.checker import Checker
from flaglint.read.argv import argv_source
from flaglint.schema.config_index import load_index

pytestmark = pytest.mark.oracle

# key=value settings, each written the same way as an argv word and as a YAML line
SETTINGS = [
    ["gcs_metrics=yes", "log_period=10"],
    ["log_period=1.5"],
    ["enable_checkpointing=False", "steps=1e3"],
    ["steps=1000.0", "per_device_batch_size=0.5"],
    ["scan_layers="],
    ["run_name=123"],
    ["run_name=demo", "base_output_directory=gs://bucket/x"],
    ["model_name=llama2-7b", "base_emb_dim=1024"],
    ["model_name=llama2-7b", "base_emb_dim=4096", "steps=5"],
    ["model_name=llama2-7b", "base_emb_dim=1024", "override_model_config=true"],
    ["model_name=llama2-7b-Instruct"],
    ["bogus_key=1"],
    ["num_moe_token_chunks=2"],
    ["num_moe_token_chunks=2", "use_ring_of_experts=true", "ici_expert_parallelism=2"],
    ["remat_policy=full", "context=Offload"],
    ["decoder_block=llama2", "quantization=int8"],
    ["logical_axis_rules=[[exp,expert]]"],
    ["dpo.beta=0.1"],
    ["learning_rate=none"],
    ["hf_access_token=", "tokenizer_path="],
    ["compile_topology=v5e-255"],
    ["attention=dot_product", "sliding_window_size=0"],
    ["base_output_directory=", "steps=3"],  # pyconfig infers ./maxtext_output for an empty one
    ["base_output_directory=none"],
    ["base_output_directory=0"],
]
ENVS = [
    {"M_STEPS": "3"},
    {"M_LOG_PERIOD": "1.5"},
    {"M_ENABLE_CHECKPOINTING": "No"},
    {"M_ENABLE_CHECKPOINTING": "on"},
    {"M_LOGICAL_AXIS_RULES": "[]"},
    {"M_BOGUS": "1"},
    {"M_PER_DEVICE_BATCH_SIZE": "x"},
    {"M_RUN_NAME": "none"},
]


def _yaml(words: list[str], base: str = "base.yml") -> str:
    lines = [f'base_config: "{base}"'] + [f"{w.split('=', 1)[0]}: {w.split('=', 1)[1]}" for w in words]
    return "\n".join(lines) + "\n"


def _forms(tmp_path, index: int, words: list[str]):
    """(label, Launch for MaxText, flaglint source) for argv, one file, and a two-file chain."""
    one = tmp_path / f"one{index}.yml"
    one.write_text(_yaml(words))
    half = len(words) // 2
    parent, child = tmp_path / f"parent{index}.yml", tmp_path / f"child{index}.yml"
    parent.write_text(_yaml(words[:half]))
    child.write_text(_yaml(words[half:], parent.name))
    return [
        ("argv", PyconfigInput(tuple(words)), lambda: argv_source(words)),
        ("file", PyconfigInput((), str(one)), lambda: config_source(str(one), (), "0.2.5")),
        ("chain", PyconfigInput((), str(child)), lambda: config_source(str(child), (), "0.2.5")),
        ("file+argv", PyconfigInput(tuple(words[half:]), str(parent)), lambda: config_source(str(parent), words[half:], "0.2.5")),
    ]


def _findings(checker, source, env):
    return checker.check(source(), env, fix=False).findings


def _compare(cases, findings=_findings):
    """Each case's verdict, flaglint's (any error) against MaxText's."""
    python = oracle_python()
    if python is None:
        pytest.skip(unavailable("oracle"))
    answers = verdicts(python, [launch for _, launch, _, _ in cases])
    checker = Checker("maxtext-0.2.5")
    wrong = []
    for (label, launch, source, env), answer in zip(cases, answers):
        errors = [f.rule for f in findings(checker, source, env) if f.severity == "error"]
        if bool(errors) == answer.ok:
            wrong.append(f"{label} {launch}: flaglint {errors or 'accepts'}, MaxText {answer.describe()[:200]}")
    assert not wrong, "\n".join(wrong)


def test_each_setting_as_argv_as_a_file_and_as_a_chain(tmp_path):
    cases = []
    for index, words in enumerate(SETTINGS):
        cases += [(label, launch, source, {}) for label, launch, source in _forms(tmp_path, index, words)]
    _compare(cases)


def test_m_variables_over_argv_and_over_a_file(tmp_path):
    cases = []
    for index, env in enumerate(ENVS):
        for label, launch, source in _forms(tmp_path, 100 + index, ["steps=10", "learning_rate=1"]):
            cases.append((label, PyconfigInput(launch.argv, launch.config, env), source, env))
        cases.append(("model", PyconfigInput(("model_name=llama2-7b",), None, env), lambda: argv_source(["model_name=llama2-7b"]), env))
    cases.append(("model", PyconfigInput(("model_name=llama2-7b",), None, {"M_BASE_EMB_DIM": "1024"}),
                  lambda: argv_source(["model_name=llama2-7b"]), {"M_BASE_EMB_DIM": "1024"}))
    _compare(cases)


def test_every_config_yaml_shipped_in_the_release_checks_as_maxtext_judges_it():
    # MaxText maps src/maxtext/configs/… to its installed configs; flaglint to the bundled index.
    shipped = sorted(name for name in load_index("0.2.5").files if not name.startswith("models/"))
    assert len(shipped) == 47
    cases = [(name, PyconfigInput((), f"src/maxtext/configs/{name}"),
              (lambda name=name: config_source(f"src/maxtext/configs/{name}", (), "0.2.5")), {}) for name in shipped]
    _compare(cases)


def test_command_lines_in_scripts_get_maxtexts_verdict():
    # Every MaxText command line of every branch of the test scripts, as the script would launch it.
    # A launch whose words are symbolic gives each concrete command line it stands for.
    from pathlib import Path

    from flaglint.frontends.checker import check_command
    from flaglint.frontends.commands import (
        command_lines,
        config_path,
        not_checked,
    )
    from flaglint.frontends.lint.script_commands import concrete_commands
    from flaglint.render import evaluate

    index = load_index("0.2.5")
    rule_names = [rule.name_set for rule in Checker("maxtext-0.2.5").ruleset.rules]
    scripts = sorted((Path(__file__).parents[1] / "frontends" / "lint" / "scripts").glob("*.sh"))
    cases, seen = [], set()
    for script in scripts:
        for launch, _ in concrete_commands(evaluate(script), rule_names):
            for line in command_lines(launch, index):
                other_class = line.command.entry is not None and line.command.entry.config_class != "MaxTextConfig"  # test_rlconfig_oracle.py's
                if not_checked(line.command) or other_class or line.command.config and "missing" in line.command.config:
                    continue
                words = tuple(line.words[i].text for i in line.command.args)
                config, _ = config_path(line.command, [script.parent], index)
                key = (config, words, tuple(sorted(line.env.items())))
                if key not in seen:
                    seen.add(key)
                    cases.append((script.name, PyconfigInput(words, config, line.env),
                                  (lambda w=list(words), c=config, e=dict(line.env): (w, c, e)), line.env))
    assert len(cases) >= 6
    _compare(cases, lambda checker, source, env: check_command(checker, *source(), index=index))


def test_each_wrongly_typed_inference_key_flaglint_finds_is_one_maxtext_refuses():
    # scripts/inference_bench.sh, with no environment and no arguments: flaglint's errors name three keys; MaxText
    # refuses the command line with any one of them and accepts it with none of them.
    from pathlib import Path

    from flaglint.frontends.checker import check_command
    from flaglint.frontends.commands import command_lines, config_path
    from flaglint.frontends.lint.script_commands import concrete_commands
    from flaglint.render import evaluate

    python = oracle_python()
    if python is None:
        pytest.skip(unavailable("oracle"))
    index = load_index("0.2.5")
    checker = Checker("maxtext-0.2.5")
    script = Path(__file__).parents[1] / "frontends" / "lint" / "scripts" / "inference_bench.sh"
    evaluated = evaluate(script)
    ((config, words),) = {(config_path(line.command, [script.parent], index)[0], tuple(line.words[i].text for i in line.command.args))
                          for launch, argv in concrete_commands(evaluated, [r.name_set for r in checker.ruleset.rules])
                          if all(v is None for name, v in argv.path.env.items() if not name.startswith("$"))
                          and argv.path.env.get("$#", "0") == "0"  # and no arguments (its options loop is followed)
                          for line in command_lines(launch, index)}
    keys = sorted(k for f in check_command(checker, list(words), config, {}, index=index) if f.severity == "error" for k in f.keys)
    assert keys == ["inference_microbenchmark_prefill_lengths", "kv_quant_dtype", "quantization"]
    alone = [PyconfigInput(tuple(w for w in words if w.split("=", 1)[0] not in set(keys) - {key}), config) for key in keys]
    answers = verdicts(python, alone + [PyconfigInput(tuple(w for w in words if w.split("=", 1)[0] not in keys), config)])
    for key, answer in zip(keys, answers):
        assert not answer.ok and key in (answer.message or ""), (key, answer.describe())
    assert answers[-1].ok, answers[-1].describe()
