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

from tunix_env import CPU_DEVICES, run_in_tunix

from flaglint.frontends.tunix_commands import check_tunix_words
from flaglint.resolve.topology import DeviceCount
from flaglint.tunix.data_steps import known_datasets
from flaglint.tunix.launch import TunixCommand
from flaglint.tunix.merge import AFTER_DOWNLOADS, STARTUP
from flaglint.tunix.pins import TunixPin, load_tunix_pin

PROGRAM = "/usr/lib/python3/site-packages/tunix/cli/{entry}.py"  # sys.argv[0] under `python -m tunix.cli.<entry>`
DEVICES = DeviceCount(CPU_DEVICES, 1, "the oracle's CPU devices")  # the meshes are judged on what the oracle runs on

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
    optimizer = "rl_training_config.actor_optimizer_config" if case.entry == "grpo_main" else "optimizer_config"
    training = "rl_training_config" if case.entry == "grpo_main" else "training_config"
    out += [
        _with(case, f"{optimizer}.opt_type={rng.choice(['adamz', 'AdamW', 'sgd', 'lion', 'adam_w'])}", mutation="optimizer name"),
        _with(case, f"{optimizer}.learning_rate={rng.choice(['fast', '1e-4', 'true'])}", mutation="learning rate type"),
        _with(case, f"{optimizer}.schedule_type={rng.choice(['warmup_cosine_decay_schedule', 'cosine', 'constant_schedule'])}",
              mutation="schedule"),
        _with(case, f"{training}.eval_every_n_steps=5", drop=f"{optimizer}.opt_type", mutation="replaced section without opt_type"),
        _with(case, f"{training}.checkpointing_options.{rng.choice(['max_to_kep', 'max_to_keep', 'save_interval_step'])}=3",
              mutation="checkpointing options key"),
        _with(case, "tokenizer_config.tokenizer_type=huggingface", "tokenizer_config.tokenizer_path=", env={"HF_TOKEN": "hf_x"},
              mutation="empty tokenizer path"),
        _with(case, *rng.choice([[f"{role}.mesh.shape=(16,16,2)", f"{role}.mesh.axis_names=('a','b','c')"],
                                 [f"{role}.mesh.shape=(16,16,1)", f"{role}.mesh.axis_names=('a','b','c')"],
                                 [f"{role}.mesh.shape=(8,8)", f"{role}.mesh.axis_names=('a','b')"]]), mutation="mesh on the devices"),
    ]
    if case.entry == "grpo_main":
        out += [
            _with(case, f"grpo_config.num_generations={rng.choice(['two', '2.5', 'None'])}", mutation="num_generations type"),
            _with(case, "num_batches=8192", "train_fraction=1.0", f"rl_training_config.max_steps={rng.choice([98304, 8192, 6554])}",
                  mutation="max_steps beyond num_batches"),
            _with(case, "data_source=tfds", "dataset_name=gsm8k", "batch_size=12", "num_batches=0",
                  f"rl_training_config.max_steps={rng.choice([622, 623, 700, 100])}", mutation="max_steps beyond the data"),
            _with(case, "reference_model_config.mesh.shape=(2,2)", "reference_model_config.mesh.axis_names=('a','b')",
                  f"reference_model_config.same_mesh_as={rng.choice(['actor', 'rollout'])}", mutation="same_mesh_as beside a mesh"),
            _with(case, f"reference_model_config.same_mesh_as={rng.choice(['actor', 'Rollout', 'critic', 'nobody'])}",
                  mutation="same_mesh_as"),
            _with(case, f"actor_model_config.mesh.allocation_policy={rng.choice(['fast', 'compact', 'COMPACT'])}",
                  mutation="allocation policy"),
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
            Case(case.entry, [rest[0], f"{word}=override.yaml", *rest[1:]], dict(case.env), {**case.files, "override.yaml": text},
                 "override file"),
            Case(case.entry, [rest[0], f"{word}=override.yaml", f"{word}=override.yaml", *rest[1:]], dict(case.env),
                 {**case.files, "override.yaml": text}, "two override files"),
            Case(case.entry, [rest[0], f"{word}=missing.yaml", *rest[1:]], dict(case.env), dict(case.files), "missing override file"),
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


def draw_cases(version: str, count: int, seed: int = 0, clean: list[Case] | None = None) -> list[Case]:
    """COUNT cases for the release: every clean launch (CLEAN's, or those given: the release's own
    examples, tests/oracle/tunix_examples.py), then mutations of them (one, or two at once), each
    case once."""
    pin = load_tunix_pin(f"tunix-{version}")
    rng = random.Random(f"{seed}-{version}")
    clean = clean or [Case(entry, ["base_config.yaml", *argv]) for entry, argvs in CLEAN.items() for argv in argvs]
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


# grpo_main.py imports qwix, which the oracle does not install: its pipeline class (0.1.7's
# compute_params holds max_steps to the data) is compiled from the release's own grpo_main.py,
# each import that fails left out, and run with the HyperParameters' state.
PIPELINE = r'''
import ast, importlib.util
from pathlib import Path

def pipeline_class():
    """The class of grpo_main that has compute_params; None where the release has none."""
    source = Path(importlib.util.find_spec("tunix.cli.grpo_main").origin).read_text()
    tree = ast.parse(source)
    namespace = {"__name__": "grpo_main_oracle"}
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            try:
                exec(compile(ast.Module([node], []), "grpo_main.py", "exec"), namespace)
            except ImportError:
                pass
    found = [n for n in tree.body if isinstance(n, ast.ClassDef) and any(
        isinstance(f, ast.FunctionDef) and f.name == "compute_params" for f in n.body)]
    if not found:
        return None
    exec(compile(ast.Module(found, []), "grpo_main.py", "exec"), namespace)
    return namespace[found[0].name]

def as_pipeline(cls, hp):
    pipeline = object.__new__(cls)
    pipeline.__dict__.update(hp.__dict__)
    return pipeline

def in_order(requirements, devices, allocation_policy):
    """0.1.7's allocator carves each owner's mesh out of the TPU devices by their coordinates, which
    the CPU devices lack: here each owner takes the next devices, and the pool must hold them all."""
    out, start = {}, 0
    for key, count in requirements:
        if start + count > len(devices):
            raise ValueError(f"Mesh allocation requires {count} devices for {key}, {len(devices) - start} are left")
        out[key], start = devices[start:start + count], start + count
    return out
'''

ORACLE = PIPELINE + r'''
import os
from pathlib import Path
from tunix.cli import config

Pipeline = pipeline_class()

def data_steps(hp, datasets):
    """compute_params with a dataset of the length the public dataset has; not run where neither
    num_batches is set nor the dataset's length is known (flaglint says it is not judged there)."""
    split = hp.config.get("train_split", hp.config.get("split", "train"))
    known = datasets.get(f"{hp.config.get('data_source')} {hp.config.get('dataset_name')} {split}")
    if hp.config.get("data_module") or not (hp.config.get("num_batches") or known):
        return
    as_pipeline(Pipeline, hp).compute_params(list(range(known or 0)))

def builders(hp, entry, datasets):
    roles = ["model_config"]
    if entry == "grpo_main":
        if Pipeline is not None:
            data_steps(hp, datasets)
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
    if entry == "grpo_main" and Pipeline is not None and hasattr(Pipeline, "create_role_to_mesh"):
        from tunix.utils import mesh as mesh_lib
        mesh_lib.allocate_named_mesh_device_slices = in_order
        as_pipeline(Pipeline, hp).create_role_to_mesh()
        return
    for at, role in enumerate(roles):
        if role not in hp.config:
            continue
        if hasattr(hp, "parse_mesh_config"):
            if at == 0 or hp.config[role].get("mesh"):
                shape, names = hp.parse_mesh_config(role)
                if entry == "peft_main":
                    from tunix.utils import mesh as mesh_lib
                    mesh_lib.create_mesh(shape, names)
        else:
            hp.create_mesh(role)

OUTPUT = []
for case in INPUT:
    for name in [k for k in os.environ if k.startswith("T_") or k == "HF_TOKEN"]:
        del os.environ[name]
    os.environ.update(case["env"])
    for name, text in case["files"].items():
        Path(name).parent.mkdir(parents=True, exist_ok=True)
        Path(name).write_text(text)
    verdict = {"startup": None, "after": None}
    try:
        hp = config.HyperParameters([case["program"], *case["argv"]])
    except BaseException as err:
        verdict["startup"] = f"{type(err).__name__}: {str(err)[:200]}"
    else:
        try:
            builders(hp, case["entry"], case["datasets"])
        except BaseException as err:
            verdict["after"] = f"{type(err).__name__}: {str(err)[:200]}"
    for name in case["files"]:
        Path(name).unlink()
    OUTPUT.append(verdict)
'''


def tunix_verdicts(version: str, cases: list[Case]) -> list[Verdict]:
    datasets = {" ".join(key): size for key, size in known_datasets().items()}
    given = [{"entry": c.entry, "program": PROGRAM.format(entry=c.entry), "argv": c.argv, "env": c.env, "files": c.files,
              "datasets": datasets} for c in cases]
    return [Verdict(v["startup"], v["after"]) for v in run_in_tunix(version, ORACLE, given)]


def flaglint_verdicts(version: str, cases: list[Case]) -> list[Verdict]:
    pin = load_tunix_pin(f"tunix-{version}")
    out = []
    for case in cases:
        with tempfile.TemporaryDirectory() as tmp:
            for name, text in case.files.items():
                Path(tmp, name).parent.mkdir(parents=True, exist_ok=True)
                Path(tmp, name).write_text(text)
            command = TunixCommand(case.entry, PROGRAM.format(entry=case.entry), 0)
            checked = check_tunix_words(pin, command, list(case.argv), dict(case.env), (Path(tmp),), devices=DEVICES)
        errors = [f for f in checked.findings if f.severity == "error"]
        startup = [f"{f.rule} {f.message}" for f in errors if f.stage == STARTUP]
        after = [f"{f.rule} {f.message}" for f in errors if f.stage == AFTER_DOWNLOADS]
        out.append(Verdict(startup[0] if startup else None, after[0] if after else None,
                           any(f.rule == "FL011" for f in checked.findings)))
    return out


# Where flaglint and Tunix may part, each with its cause. A disagreement outside these is a bug.
EXPLAINED = {
    "unverified": "a raise the importer could not state as a rule (rules/tunix/<version>/unexpressible.yml) may be "
                  "reached, and flaglint says so (FL011)",
}


def classify(case: Case, ours: Verdict, theirs: Verdict) -> str | None:
    """The class of a disagreement (a key of EXPLAINED), or None when it has none."""
    if ours.unverified and theirs.stage is not None and ours.stage is None:
        return "unverified"
    return None
