"""flaglint's Tunix checks against the real Tunix: drawn command lines (clean ones of the shape of
Tunix's example scripts, and mutations of them), each judged by both on what Tunix refuses at
start-up (HyperParameters) and after downloads (the builders that need no data: the entry point's
config dataclasses, the optimizer, the meshes), per bundled release.

Drawing is seeded (the same cases every run). The real side runs in the release's oracle
(tests/tunix_env.py), with the case's override files written into its working directory.
"""

from __future__ import annotations

import random
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from tunix_env import run_in_tunix

from flaglint.frontends.tunix_commands import check_tunix_words
from flaglint.tunix.launch import TunixCommand
from flaglint.tunix.merge import AFTER_DOWNLOADS, STARTUP
from flaglint.tunix.pins import TunixPin, load_tunix_pin

PROGRAM = "/usr/lib/python3/site-packages/tunix/cli/{entry}.py"  # sys.argv[0] under `python -m tunix.cli.<entry>`

# Two clean launches per entry point, written as Tunix's example scripts write theirs.
_MODEL = ["model_config.model_name=gemma2-2b-it", "model_config.model_source=kaggle",
          "model_config.model_id=google/gemma-2/flax/gemma2-2b-it", "model_config.intermediate_ckpt_dir=/tmp/ckpt",
          "tokenizer_config.tokenizer_path=/tmp/tokenizer.model", "tokenizer_config.tokenizer_type=sentencepiece"]
_RL_TRAINING = ["rl_training_config.eval_every_n_steps=10", "rl_training_config.max_steps=100",
                "rl_training_config.actor_optimizer_config.opt_type=adamw",
                "rl_training_config.actor_optimizer_config.learning_rate=3e-6",
                "rl_training_config.actor_optimizer_config.b1=0.9", "rl_training_config.actor_optimizer_config.b2=0.99",
                "rl_training_config.actor_optimizer_config.weight_decay=0.1"]
_TRAINING = ["training_config.eval_every_n_steps=20", "training_config.max_steps=100",
             "training_config.metrics_logging_options.log_dir=/tmp/tensorboard",
             "training_config.metrics_logging_options.flush_every_n_steps=20"]
CLEAN = {
    "grpo_main": [
        [*_MODEL, "batch_size=1", "num_batches=3738", "grpo_config.num_generations=2", "grpo_config.beta=0.08",
         "rollout_config.total_generation_steps=768", *_RL_TRAINING],
        [*_MODEL[:2], "model_config.model_name=llama3.2-1b", "model_config.model_source=huggingface",
         "tokenizer_config.tokenizer_path=meta-llama/Llama-3.2-1B", "tokenizer_config.tokenizer_type=huggingface",
         "actor_model_config.mesh.shape=(2,2)", "actor_model_config.mesh.axis_names=('fsdp','tp')",
         "grpo_config.num_generations=4", *_RL_TRAINING],
    ],
    "peft_main": [
        [*_MODEL, "dataset_name=mtnt/en-fr", "batch_size=8", "optimizer_config.opt_type=adamw",
         "optimizer_config.learning_rate=1e-5", "max_target_length=1024", *_TRAINING],
        [*_MODEL, "model_config.mesh.shape=(4,1)", "model_config.mesh.axis_names=('fsdp','tp')", *_TRAINING],
    ],
}


@dataclass
class Case:
    entry: str
    argv: list[str]  # after the program: the base YAML first
    env: dict[str, str] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)  # override files, by name, in the working directory
    mutation: str = "clean"


@dataclass
class Verdict:
    """What stops the run: at start-up, after downloads, or nothing (both None)."""

    startup: str | None
    after: str | None
    unverified: bool = False  # flaglint: FL011, a raise it cannot state may be reached

    @property
    def stage(self) -> str | None:
        return STARTUP if self.startup else AFTER_DOWNLOADS if self.after else None


def _top_keys(pin: TunixPin, kind: str) -> list[str]:
    return [k for k, v in pin.bases["base_config.yaml"].items() if "." not in k and v.type == kind]


def _with(case: Case, *words: str, mutation: str, env: dict | None = None, drop: str | None = None) -> Case:
    argv = [w for w in case.argv if drop is None or not w.startswith(drop)] + list(words)
    return Case(case.entry, argv, {**case.env, **(env or {})}, dict(case.files), mutation)


def _mutations(pin: TunixPin, case: Case, rng: random.Random) -> list[Case]:
    ints, bools, strs = _top_keys(pin, "int"), _top_keys(pin, "bool"), _top_keys(pin, "str")
    role = "actor_model_config" if case.entry == "grpo_main" else "model_config"
    out = [
        _with(case, f"{rng.choice(ints)[:-1]}q=1", mutation="unknown top-level key"),
        _with(case, f"model_config.{rng.choice(['use_flash_attn', 'dtype_x', 'rng_sed'])}=true", mutation="unknown nested key"),
        _with(case, f"{rng.choice(ints)}=abc", mutation="int refused"),
        _with(case, f"{rng.choice(ints)}=1.5", mutation="int truncated"),
        _with(case, f"{rng.choice(bools)}=maybe", mutation="bool refused"),
        _with(case, f"{rng.choice(bools)}=1", mutation="bool from a number"),
        _with(case, f"{rng.choice(bools)}=yes", mutation="bool yes"),
        _with(case, f"{rng.choice(strs)}=5", mutation="str from a number"),
        _with(case, "model_config.model_source=hf", mutation="model_source choice"),
        _with(case, "tokenizer_config.tokenizer_type=bpe", mutation="tokenizer choice"),
        _with(case, "tokenizer_config.tokenizer_type=huggingface", "tokenizer_config.tokenizer_path=meta-llama/Llama-3.2-1B",
              mutation="hub tokenizer without HF_TOKEN"),
        _with(case, "tokenizer_config.tokenizer_type=huggingface", "tokenizer_config.tokenizer_path=meta-llama/Llama-3.2-1B",
              mutation="hub tokenizer with HF_TOKEN", env={"HF_TOKEN": "hf_x"}),
        _with(case, "tokenizer_config.tokenizer_type=huggingface", "tokenizer_config.tokenizer_path=/models/tokenizer",
              mutation="local tokenizer without HF_TOKEN"),
        _with(case, "model_config.model_name=gemma3-1b", "model_config.model_source=huggingface", mutation="family source"),
        _with(case, "model_config.model_name=qwen3-1b", "model_config.model_source=kaggle", mutation="family source"),
        _with(case, "batch_size=2", mutation="T_ and argv", env={"T_BATCH_SIZE": "4"}),
        _with(case, mutation="T_ unknown", env={"T_BATCH_SISE": "4"}),
        _with(case, mutation="T_ lower case", env={"T_Batch_size": "4"}),
        _with(case, mutation="T_ not an int", env={"T_BATCH_SIZE": "1.5"}),
        _with(case, mutation="T_ int", env={"T_BATCH_SIZE": "4"}, drop="batch_size="),
        _with(case, f"{role}.mesh.shape={rng.choice(['(2,2,1)', '(4,)', '(2,2)', '(1,1)'])}",
              f"{role}.mesh.axis_names={rng.choice(['(fsdp,tp)', 'fsdp', '(fsdp,)'])}".replace("fsdp", "'fsdp'").replace("tp", "'tp'"),
              mutation="mesh lengths"),
        _with(case, f"{role}.mesh.shape=[2,2]", f"{role}.mesh.axis_names=('fsdp','tp')", mutation="mesh shape a list"),
        _with(case, f"{role}.mesh.axis_names=fsdp", mutation="mesh names not a literal"),
        _with(case, "model_config=5", mutation="section from a scalar"),
        _with(case, "reward_functions=abc", mutation="list from a string"),
        _with(case, "=3", mutation="empty key"),
        _with(case, "batch_size=${oc.env:NOT_SET_ANYWHERE}", mutation="unset interpolation"),
    ]
    if case.entry == "grpo_main":
        out += [
            _with(case, f"grpo_config.num_generations={rng.choice([0, 1, 2, 3, -1])}", mutation="num_generations"),
            _with(case, "grpo_config.loss_algo=ppo", mutation="loss_algo"),
            _with(case, "grpo_config.num_generation=4", mutation="builder keyword"),
            _with(case, f"rl_training_config.mini_batch_size={rng.choice([0, -2, 4])}", mutation="micro batch size"),
            _with(case, f"rl_training_config.mini_batch_size={rng.choice([4, 8, 6])}",
                  f"rl_training_config.train_micro_batch_size={rng.choice([2, 3, 4])}", mutation="micro batch divides"),
            _with(case, f"rl_training_config.rollout_micro_batch_size={rng.choice([1, 0, 2])}", mutation="rollout micro batch"),
            _with(case, "rl_training_config.gradient_accumulation_steps=2", mutation="gradient accumulation"),
            _with(case, drop="rl_training_config.eval_every_n_steps", mutation="required field"),
            _with(case, drop="rl_training_config.actor_optimizer", mutation="optimizer left out"),
        ]
    else:
        out += [
            _with(case, "training_config.eval_every_n_step=3", mutation="builder keyword"),
            _with(case, drop="training_config.eval_every_n_steps", mutation="required field"),
            _with(case, "training_config.gradient_accumulation_steps=2", mutation="gradient accumulation"),
        ]
    if pin.merge.get("override_file"):
        moved = [w for w in case.argv[1:] if w.startswith(("model_config.", "tokenizer_config."))]
        text = "".join(_yaml_lines(moved))
        rest = [w for w in case.argv if w not in moved]
        word = pin.merge["override_file"]
        out += [
            Case(case.entry, [rest[0], f"{word}=override.yaml", *rest[1:]], dict(case.env), {"override.yaml": text}, "override file"),
            Case(case.entry, [rest[0], f"{word}=override.yaml", f"{word}=override.yaml", *rest[1:]], dict(case.env),
                 {"override.yaml": text}, "two override files"),
            Case(case.entry, [rest[0], f"{word}=missing.yaml", *rest[1:]], dict(case.env), {}, "missing override file"),
        ]
    return out


def _yaml_lines(words: list[str]) -> list[str]:
    """dotted=value words as a nested YAML mapping (values quoted as YAML strings where they are)."""
    tree: dict = {}
    for word in words:
        key, _, value = word.partition("=")
        *parents, last = key.split(".")
        node = tree
        for part in parents:
            node = node.setdefault(part, {})
        node[last] = value
    lines: list[str] = []

    def emit(node: dict, indent: int) -> None:
        for key, value in node.items():
            if isinstance(value, dict):
                lines.append(f"{' ' * indent}{key}:\n")
                emit(value, indent + 2)
            else:
                lines.append(f"{' ' * indent}{key}: {value!s}\n" if not value.startswith(("(", "[", "{", "'")) else
                             f"{' ' * indent}{key}: \"{value}\"\n")

    emit(tree, 0)
    return lines


def _combined(first: Case, second: Case, clean: Case) -> Case:
    """Both mutations of one clean launch at once: the words each adds, the words each drops."""
    kept = [w for w in first.argv if w in second.argv or w not in clean.argv]
    added = [w for w in second.argv if w not in clean.argv and w not in kept]
    files = {**first.files, **second.files}
    return Case(clean.entry, kept + added, {**first.env, **second.env}, files, f"{first.mutation} + {second.mutation}")


def draw_cases(version: str, count: int, seed: int = 0) -> list[Case]:
    """COUNT cases for the release: every clean launch, then mutations of them (one, or two at
    once), each case once."""
    pin = load_tunix_pin(f"tunix-{version}")
    rng = random.Random(f"{seed}-{version}")
    clean = [Case(entry, ["base_config.yaml", *argv]) for entry, argvs in CLEAN.items() for argv in argvs]
    cases, seen = list(clean), {_key(c) for c in clean}
    for _ in range(count * 20):
        if len(cases) >= count:
            break
        base = rng.choice(clean)
        options = _mutations(pin, base, rng)
        drawn = rng.choice(options)
        if rng.random() < 0.4 and not drawn.files:
            other = rng.choice(options)
            drawn = _combined(drawn, other, base) if not other.files else drawn
        if _key(drawn) not in seen:
            seen.add(_key(drawn))
            cases.append(drawn)
    return cases


def _key(case: Case) -> tuple:
    return case.entry, tuple(case.argv), tuple(sorted(case.env.items())), tuple(sorted(case.files.items()))


ORACLE = r'''
import os
from pathlib import Path
from tunix.cli import config

def builders(hp, entry):
    roles = ["model_config"]
    if entry == "grpo_main":
        from tunix.rl.grpo import grpo_learner
        from tunix.rl import rl_cluster
        grpo_learner.GrpoConfig(**hp.config["grpo_config"])
        section = hp.config["rl_training_config"]
        built = hp.obtain_training_config_dict("rl_training_config")
        if section.get("actor_optimizer_config"):
            built["actor_optimizer"] = hp.create_optimizer("rl_training_config", "actor_optimizer_config")
        if section.get("critic_optimizer_config"):
            built["critic_optimizer"] = hp.create_optimizer("rl_training_config", "critic_optimizer_config")
        rl_cluster.RLTrainingConfig(**built)
        roles = ["actor_model_config", "reference_model_config", "rollout_model_config"]
    else:
        from tunix.sft import peft_trainer
        hp.create_optimizer("optimizer_config")
        peft_trainer.TrainingConfig(**hp.obtain_training_config_dict("training_config"))
    for at, role in enumerate(roles):
        if role not in hp.config:
            continue
        if hasattr(hp, "parse_mesh_config"):
            if at == 0 or hp.config[role].get("mesh"):
                hp.parse_mesh_config(role)
        else:
            hp.create_mesh(role)

OUTPUT = []
for case in INPUT:
    for name in [k for k in os.environ if k.startswith("T_") or k == "HF_TOKEN"]:
        del os.environ[name]
    os.environ.update(case["env"])
    for name, text in case["files"].items():
        Path(name).write_text(text)
    verdict = {"startup": None, "after": None}
    try:
        hp = config.HyperParameters([case["program"], *case["argv"]])
    except BaseException as err:
        verdict["startup"] = f"{type(err).__name__}: {str(err)[:200]}"
    else:
        try:
            builders(hp, case["entry"])
        except BaseException as err:
            verdict["after"] = f"{type(err).__name__}: {str(err)[:200]}"
    for name in case["files"]:
        Path(name).unlink()
    OUTPUT.append(verdict)
'''


def tunix_verdicts(version: str, cases: list[Case]) -> list[Verdict]:
    given = [{"entry": c.entry, "program": PROGRAM.format(entry=c.entry), "argv": c.argv, "env": c.env, "files": c.files}
             for c in cases]
    return [Verdict(v["startup"], v["after"]) for v in run_in_tunix(version, ORACLE, given)]


def flaglint_verdicts(version: str, cases: list[Case]) -> list[Verdict]:
    pin = load_tunix_pin(f"tunix-{version}")
    out = []
    for case in cases:
        with tempfile.TemporaryDirectory() as tmp:
            for name, text in case.files.items():
                Path(tmp, name).write_text(text)
            command = TunixCommand(case.entry, PROGRAM.format(entry=case.entry), 0)
            checked = check_tunix_words(pin, command, list(case.argv), dict(case.env), (Path(tmp),))
        errors = [f for f in checked.findings if f.severity == "error"]
        startup = [f"{f.rule} {f.message}" for f in errors if f.stage == STARTUP]
        after = [f"{f.rule} {f.message}" for f in errors if f.stage == AFTER_DOWNLOADS]
        out.append(Verdict(startup[0] if startup else None, after[0] if after else None,
                           any(f.rule == "FL011" for f in checked.findings)))
    return out


# Where flaglint and Tunix may part, each with its cause. A disagreement outside these is a bug.
EXPLAINED = {
    "optimizer": "create_optimizer checks the optimizer and schedule against optax (names, required arguments): "
                 "flaglint does not model optax",
    "unverified": "a raise the importer could not state as a rule (rules/tunix/<version>/unexpressible.yml) may be "
                  "reached, and flaglint says so (FL011): 0.1.0 and 0.1.1 compute RLTrainingConfig's micro batch sizes "
                  "in a helper whose return value the walker does not follow",
}


def classify(case: Case, ours: Verdict, theirs: Verdict) -> str | None:
    """The class of a disagreement (a key of EXPLAINED), or None when it has none."""
    if theirs.after and ("optax" in theirs.after or "Optimizer" in theirs.after or "learning_rate" in theirs.after):
        return "optimizer"
    if ours.unverified and theirs.stage is not None and ours.stage is None:
        return "unverified"
    return None
