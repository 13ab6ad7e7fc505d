"""The model name Tunix 0.1.7 derives from a model id, and whether its `ModelNaming` takes it
(tunix/models/naming.py, run in the oracle of tests/tunix_env.py), against flaglint's reading of
it (flaglint/tunix/maxtext_model.py): with `model_source: maxtext` that name is MaxText's
model_name, and a name Tunix refuses never reaches MaxText (FL215)."""

from __future__ import annotations

import random

import pytest
from tunix_env import run_in_tunix, tunix_python, unavailable

from flaglint.tunix.maxtext_model import model_name_from_id, naming_refusal
from flaglint.tunix.pins import load_tunix_pin

pytestmark = pytest.mark.oracle

VERSION = "0.1.7"
CASES = 300
# naming.py imports immutabledict, which the oracle does not install: a dict is what it holds.
_NAMING = """
import sys, types
class immutabledict(dict):
    pass
sys.modules["immutabledict"] = types.SimpleNamespace(immutabledict=immutabledict)
from tunix.models import naming
OUTPUT = []
for model_id in INPUT:
    try:
        OUTPUT.append(naming.ModelNaming(model_id=model_id).model_name)
    except ValueError:
        OUTPUT.append(None)
"""


def _draw(families: dict[str, list[str]], count: int) -> list[str]:
    """Model ids around the families' edges: an owner or none, a family prefix (its case changed,
    cut short) or MaxText's own names, and a version of letters, digits and separators."""
    rng = random.Random(0)
    maxtext_names = ["llama3.1-8b", "gemma2-2b", "qwen3-8b", "gemma-2b", "qwen2.5-7b", "deepseek3-671b", "mistral-7b"]
    prefixes = [*families["hub"], *families["config_id"]]
    ids = []
    for _ in range(count):
        owner = rng.choice(["", "", "Org/", "meta-llama/", "a/b/"])
        head = rng.choice([rng.choice(prefixes), rng.choice(prefixes).upper(), rng.choice(prefixes)[:-1], rng.choice(maxtext_names), ""])
        version = "".join(rng.choice("ab0189-_.") for _ in range(rng.randint(0, 4)))
        ids.append(f"{owner}{head}{version}")
    return ids


def test_flaglint_names_a_model_id_as_tunix_does():
    if tunix_python(VERSION) is None:
        pytest.skip(unavailable(VERSION))
    families = load_tunix_pin(VERSION).maxtext_model["model_families"]
    ids = _draw(families, CASES)
    theirs = run_in_tunix(VERSION, _NAMING, ids)
    ours = [None if naming_refusal(name := model_name_from_id(model_id), families) else name for model_id in ids]
    apart = [(model_id, o, t) for model_id, o, t in zip(ids, ours, theirs) if o != t]
    assert not apart, apart[:10]
    assert 0.2 * CASES < sum(name is None for name in theirs) < 0.8 * CASES  # both outcomes drawn


# A MaxText checkpoint path as the model id (reference_model_config.model_id=gs://…/0/items):
# AutoModel.from_pretrained names the model from it before it reads model_path, so a path whose
# last part is no model name is refused when the model is built, as FL215 says.
CHECKPOINT_IDS = ["/tmp/maxtext/llama3.1-8b/0/items", "gs://bucket/qwen3-8b/checkpoints/0/items", "gs://bucket/ckpt/Qwen3-8B",
                  "gs://bucket/ckpt/", "/ckpt/llama3.1-8b", "/ckpt/llama-3.1-8b"]


def test_a_checkpoint_path_as_model_id_is_named_as_tunix_names_it():
    if tunix_python(VERSION) is None:
        pytest.skip(unavailable(VERSION))
    families = load_tunix_pin(VERSION).maxtext_model["model_families"]
    theirs = run_in_tunix(VERSION, _NAMING, CHECKPOINT_IDS)
    ours = [None if naming_refusal(name := model_name_from_id(model_id), families) else name for model_id in CHECKPOINT_IDS]
    assert ours == theirs
    assert theirs.count(None) == 4
