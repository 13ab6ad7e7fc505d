"""What Tunix 0.1.7 refuses once the run is past start-up, class by class, against the real release
(tests/tunix_env.py): each case runs HyperParameters and then the one step of the release that
refuses it (the pipeline's own methods, the optimizer, the options classes, the meshes), and
flaglint must report the class's rule at that stage exactly where Tunix raises there. Each class
has a case Tunix refuses and one it takes.

grpo_main's pipeline class is compiled from the release's own grpo_main.py and run with the
HyperParameters' state (tunix_differential.PIPELINE: it imports qwix, which the oracle does not
install). The meshes' owners are resolved by the release's create_role_to_mesh; the CPU devices
have no TPU coordinates for its allocator to carve boxes from, so each owner takes the next
devices in order (the allocator's shapes within a slice are not modelled by flaglint either)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest
from tunix_env import CPU_DEVICES, run_in_tunix, tunix_python, unavailable

from flaglint.frontends.tunix_commands import check_tunix_words
from flaglint.resolve.topology import DeviceCount
from flaglint.tunix.data_steps import known_datasets
from flaglint.tunix.launch import TunixCommand
from flaglint.tunix.merge import AFTER_DOWNLOADS, STARTUP
from flaglint.tunix.pins import load_tunix_pin
from oracle.tunix_differential import PIPELINE

pytestmark = pytest.mark.oracle

VERSION = "0.1.7"
PROGRAM = "/usr/lib/python3/site-packages/tunix/cli/{entry}.py"
LOCAL_TOKENIZER = "tokenizer_config.tokenizer_path=/tmp/tokenizer"
GSM8K_TRAIN = known_datasets()[("tfds", "gsm8k", "train")]


@dataclass
class Case:
    name: str
    entry: str
    step: str  # what runs after HyperParameters (ORACLE below)
    argv: list[str]
    rule: str  # the rule flaglint reports where Tunix refuses
    stage: str = AFTER_DOWNLOADS
    env: dict[str, str] = field(default_factory=dict)
    records: int = 0  # the dataset's length, for compute_params
    keys: list[str] = field(default_factory=list)  # the optimizer's section

    def words(self) -> list[str]:
        return ["base_config.yaml", LOCAL_TOKENIZER, *self.argv]


_OPT = ["optimizer_config.opt_type=adamw"]
CASES = [
    # max_steps beyond the data: num_batches given (Tunix's own verl_compatible gsm8k example at v0.1.7)
    Case("steps over num_batches", "grpo_main", "steps", ["batch_size=12", "num_batches=8192", "train_fraction=1.0",
                                                          "rl_training_config.max_steps=98304"], "FL216", records=GSM8K_TRAIN),
    Case("steps within num_batches", "grpo_main", "steps", ["batch_size=12", "num_batches=8192", "train_fraction=1.0",
                                                            "rl_training_config.max_steps=8192"], "FL216", records=GSM8K_TRAIN),
    Case("steps over gsm8k", "grpo_main", "steps", ["batch_size=12", "data_source=tfds", "dataset_name=gsm8k",
                                                    f"rl_training_config.max_steps={GSM8K_TRAIN // 12 + 1}"], "FL216", records=GSM8K_TRAIN),
    Case("steps within gsm8k", "grpo_main", "steps", ["batch_size=12", "data_source=tfds", "dataset_name=gsm8k", "train_fraction=0.5",
                                                      f"rl_training_config.max_steps={GSM8K_TRAIN // 12 // 2}"], "FL216", records=GSM8K_TRAIN),
    # the PEFT mesh against the devices
    Case("peft mesh over the devices", "peft_main", "peft_mesh", ["model_config.mesh.shape=(16,16,2)",
                                                                  "model_config.mesh.axis_names=('a','b','c')"], "FL214"),
    Case("peft mesh on the devices", "peft_main", "peft_mesh", ["model_config.mesh.shape=(16,16,1)",
                                                                "model_config.mesh.axis_names=('a','b','c')"], "FL214"),
    # nested sections handed whole to a constructor
    Case("checkpointing options key", "peft_main", "training", ["training_config.eval_every_n_steps=3",
                                                                "training_config.checkpointing_options.max_to_kep=3"], "FL210"),
    Case("checkpointing options field", "peft_main", "training", ["training_config.eval_every_n_steps=3",
                                                                  "training_config.checkpointing_options.max_to_keep=3"], "FL210"),
    Case("grpo_config type", "grpo_main", "grpo", ["grpo_config.num_generations=two"], "FL217"),
    Case("grpo_config number", "grpo_main", "grpo", ["grpo_config.num_generations=3"], "FL217"),
    Case("learning rate not a number", "peft_main", "optimizer", [*_OPT, "optimizer_config.learning_rate=fast"], "FL218",
         keys=["optimizer_config"]),
    Case("learning rate a number", "peft_main", "optimizer", [*_OPT, "optimizer_config.learning_rate=1e-5"], "FL218",
         keys=["optimizer_config"]),
    Case("optax has no adamz", "peft_main", "optimizer", ["optimizer_config.opt_type=adamz", "optimizer_config.learning_rate=1e-5"],
         "FL218", keys=["optimizer_config"]),
    Case("optax has AdamW in any case", "peft_main", "optimizer", ["optimizer_config.opt_type=AdamW",
                                                                   "optimizer_config.learning_rate=1e-5"], "FL218", keys=["optimizer_config"]),
    Case("schedule argument left out", "peft_main", "optimizer", [*_OPT, "optimizer_config.schedule_type=warmup_cosine_decay_schedule",
                                                                  "optimizer_config.peak_value=1e-5"], "FL218", keys=["optimizer_config"]),
    Case("schedule not in optax", "peft_main", "optimizer", [*_OPT, "optimizer_config.learning_rate=1e-5",
                                                             "optimizer_config.schedule_type=cosine"], "FL218", keys=["optimizer_config"]),
    # a section an override replaces, without the field the builder requires
    Case("replaced section without opt_type", "grpo_main", "optimizer", ["rl_training_config.eval_every_n_steps=3",
                                                                         "rl_training_config.actor_optimizer_config.learning_rate=1e-5"],
         "FL218", keys=["rl_training_config", "actor_optimizer_config"]),
    Case("replaced section with opt_type", "grpo_main", "optimizer", ["rl_training_config.eval_every_n_steps=3",
                                                                      "rl_training_config.actor_optimizer_config.opt_type=sgd",
                                                                      "rl_training_config.actor_optimizer_config.learning_rate=1e-5"],
         "FL218", keys=["rl_training_config", "actor_optimizer_config"]),
    # the smaller cases
    Case("empty tokenizer path", "peft_main", "none", ["tokenizer_config.tokenizer_path="], "TXT3NBV", STARTUP, {"HF_TOKEN": "hf_x"}),
    Case("tokenizer path given", "peft_main", "none", ["tokenizer_config.tokenizer_path=google/gemma-2b"], "TXT3NBV", STARTUP,
         {"HF_TOKEN": "hf_x"}),
    Case("mesh beside same_mesh_as", "grpo_main", "owners", ["reference_model_config.mesh.shape=(2,2)",
                                                             "reference_model_config.mesh.axis_names=('a','b')",
                                                             "reference_model_config.same_mesh_as=actor"], "FL212"),
    Case("same_mesh_as alone", "grpo_main", "owners", ["reference_model_config.mesh=null", "reference_model_config.same_mesh_as=Actor"],
         "FL212"),
    Case("allocation policy unknown", "grpo_main", "owners", ["actor_model_config.mesh.allocation_policy=fast"], "FL212"),
    Case("allocation policy in lower case", "grpo_main", "owners", ["actor_model_config.mesh.allocation_policy=compact"], "FL212"),
]

ORACLE = PIPELINE + r'''
import os
from tunix.cli import config
from tunix.utils import mesh as mesh_lib

Pipeline = pipeline_class()
mesh_lib.allocate_named_mesh_device_slices = in_order

def step(hp, case):
    kind = case["step"]
    pipeline = as_pipeline(Pipeline, hp)
    if kind == "steps":
        pipeline.compute_params(list(range(case["records"])))
    elif kind == "owners":
        pipeline.create_role_to_mesh()  # with the allocator below
    elif kind == "peft_mesh":
        shape, names = hp.parse_mesh_config("model_config")
        mesh_lib.create_mesh(shape, names)
    elif kind == "optimizer":
        hp.create_optimizer(*case["keys"])
    elif kind == "training":
        from tunix.sft import peft_trainer
        peft_trainer.TrainingConfig(**hp.obtain_training_config_dict("training_config"))
    elif kind == "grpo":
        from tunix.rl.grpo import grpo_learner
        grpo_learner.GrpoConfig(**hp.config["grpo_config"])

OUTPUT = []
for case in INPUT:
    for name in [k for k in os.environ if k.startswith("T_") or k == "HF_TOKEN"]:
        del os.environ[name]
    os.environ.update(case["env"])
    verdict = {"startup": None, "after": None}
    try:
        hp = config.HyperParameters([case["program"], *case["argv"]])
    except BaseException as err:
        verdict["startup"] = f"{type(err).__name__}: {str(err)[:200]}"
    else:
        try:
            step(hp, case)
        except BaseException as err:
            verdict["after"] = f"{type(err).__name__}: {str(err)[:200]}"
    OUTPUT.append(verdict)
'''


@pytest.fixture(scope="module")
def verdicts():
    if tunix_python(VERSION) is None:
        pytest.skip(unavailable(VERSION))
    given = [{"program": PROGRAM.format(entry=c.entry), "argv": c.words(), "env": c.env, "step": c.step, "records": c.records,
              "keys": c.keys} for c in CASES]
    return dict(zip((c.name for c in CASES), run_in_tunix(VERSION, ORACLE, given)))


def _ours(case: Case) -> list:
    pin = load_tunix_pin(f"tunix-{VERSION}")
    checked = check_tunix_words(pin, TunixCommand(case.entry, PROGRAM.format(entry=case.entry), 0), case.words(), dict(case.env),
                                (Path("/nonexistent"),), devices=DeviceCount(CPU_DEVICES, 1, "the oracle's CPU devices"))
    return [f for f in checked.findings if f.severity == "error" and f.rule == case.rule and f.stage == case.stage]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_flaglint_reports_the_class_where_tunix_refuses(case, verdicts):
    theirs = verdicts[case.name]
    refused = theirs["startup"] if case.stage == STARTUP else theirs["after"]
    if case.stage == AFTER_DOWNLOADS:
        assert theirs["startup"] is None, theirs  # the case must get past start-up to test its step
    assert bool(_ours(case)) == (refused is not None), (theirs, [f.message for f in _ours(case)])


def test_each_class_has_a_case_tunix_refuses_and_one_it_takes(verdicts):
    by_class: dict[tuple[str, str], set[bool]] = {}
    for case in CASES:
        theirs = verdicts[case.name]
        by_class.setdefault((case.rule, case.step), set()).add((theirs["startup"] or theirs["after"]) is not None)
    assert all(outcomes == {True, False} for outcomes in by_class.values()), by_class
