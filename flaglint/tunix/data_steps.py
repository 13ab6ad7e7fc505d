"""`max_steps` against the steps the data gives, where the pinned Tunix holds it to them once the
dataset is loaded (0.1.7's grpo_main, `compute_params`; the facts are the importer's `data_steps`):

    allowed = int(num_batches × num_train_epochs × train_fraction)

each factor its fallback where it is not set (0 or empty), and num_batches, where it is not set,
the dataset's length // batch_size. That length is known before the download only for the public
datasets and splits of schemas/datasets.yml; for any other the check is named as not judged.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from flaglint.core.data import data_dir
from flaglint.core.findings import Finding
from flaglint.core.reading import RULE_FILE, read_text
from flaglint.rules.ruleset import built_in
from flaglint.tunix.merge import AFTER_DOWNLOADS, Merged, staged
from flaglint.tunix.pins import TunixPin

DATASETS_FILE = "datasets.yml"
FACTORS = ("num_batches", "num_train_epochs", "train_fraction", "batch_size")


@lru_cache(maxsize=1)
def known_datasets() -> dict[tuple[str, str, str], int]:
    """(data source, dataset name, split) -> its number of records (schemas/datasets.yml)."""
    import yaml  # noqa: PLC0415 yaml: only when a Tunix command line reaches this check

    entries = yaml.safe_load(read_text(data_dir("schemas") / DATASETS_FILE, RULE_FILE))["datasets"]
    return {(e["source"], e["name"], split): size for e in entries for split, size in e["splits"].items()}


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def check_data_steps(pin: TunixPin, merged: Merged, entry: str) -> tuple[list[Finding], list[str]]:
    """The finding where max_steps is more than the data gives, or a note where that cannot be told."""
    facts = (pin.data_steps or {}).get(entry)
    if not facts:
        return [], []
    section = facts["section"]
    key = f"{section}.max_steps"
    config = merged.config
    if {section, *FACTORS, "data_module", "data_source", "data_directory", "dataset_name"} & merged.unknown:
        return [], []
    try:
        max_steps = merged.value(key)
    except KeyError:
        return [], []
    if not max_steps or not _number(max_steps):
        return [], []  # Tunix computes max_steps itself; a value of another type is the typing checks'
    fallbacks = facts["fallbacks"]
    epochs = config.get("num_train_epochs") or fallbacks["num_train_epochs"]
    fraction = config.get("train_fraction") or fallbacks["train_fraction"]
    num_batches = config.get("num_batches")
    if not all(_number(v) for v in (epochs, fraction)) or num_batches and not _number(num_batches):
        return [], []
    where = facts["site"].split(" ", 1)[0]
    if num_batches:
        batches = f"num_batches {num_batches}"
        related = ["num_batches"]
    else:
        dataset, length = _dataset_length(config)
        if length is None:
            return [], [f"{key}={max_steps!r} is not judged against the data: Tunix {pin.version} holds it to num_batches × "
                        f"num_train_epochs × train_fraction once the dataset is loaded ({where}), and with num_batches not set "
                        f"that is {dataset}'s length // batch_size, not known before the download (schemas/datasets.yml "
                        "lists the datasets whose length flaglint knows)"]
        batch_size = config.get("batch_size", fallbacks["batch_size"])
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            return [], []
        num_batches = length // batch_size
        batches = f"{dataset}'s {length} records // batch_size {batch_size} = {num_batches} batches"
        related = ["batch_size"]
    try:
        allowed = int(num_batches * epochs * fraction)
    except (OverflowError, ValueError):  # past a float's range, or not a number (nan): Tunix's own product is no step count
        return [], [f"{key}={max_steps!r} is not judged against the data: num_batches × num_train_epochs × train_fraction "
                    f"({num_batches!r} × {epochs!r} × {fraction!r}) gives no number of steps ({where})"]
    if max_steps <= allowed:
        return [], []
    origin = merged.origin(key)
    others = tuple(o.location for name in [*related, "num_train_epochs", "train_fraction"]
                   if (o := merged.origin(name)) is not None and o.kind != "base" and o.location is not None)
    finding = built_in("FL216", (key, *related), origin.location if origin else None, others, key=key, value=max_steps,
                       allowed=allowed, batches=batches, epochs=epochs, fraction=fraction, version=pin.version, site=where)
    return [staged(finding, AFTER_DOWNLOADS)], []


def _dataset_length(config: dict[str, Any]) -> tuple[str, int | None]:
    """The dataset grpo_main loads, described, and its length where schemas/datasets.yml knows it."""
    if config.get("data_module"):
        return f"the data module {config['data_module']!r}", None
    source = config.get("data_source")
    if source == "local":
        return f"the local data {config.get('data_directory')!r}", None
    name = config.get("dataset_name")
    split = config.get("train_split", config.get("split", "train"))
    described = f"{source} {name!r} (split {split!r})"
    if not all(isinstance(v, str) for v in (source, name, split)):
        return described, None
    return described, known_datasets().get((source, name, split))
