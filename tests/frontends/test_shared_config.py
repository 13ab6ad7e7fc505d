"""A checker keeps the config of each flag string and Tunix variables it resolves for a launch
(shared_config): a recipe's launches, and a language server's checks after each edit, read the
same few again. What is kept is what resolving gives; past SHARED_CONFIGS the one read longest
ago is resolved again."""

from flaglint.frontends import checker as checker_module
from flaglint.frontends.checker import Checker
from flaglint.read.flags import FlagSource

CHECKER = Checker("bbd0f6f10")


def test_a_flag_string_is_resolved_once_for_its_tunix_variables():
    source = FlagSource("steps=10 per_device_batch_size=2")
    first = CHECKER.shared_config(source, {"TRAINER_MESH_FSDP": "4"})
    assert CHECKER.shared_config(FlagSource("steps=10 per_device_batch_size=2"), {"TRAINER_MESH_FSDP": "4"}) is first
    other = CHECKER.shared_config(source, {"TRAINER_MESH_FSDP": "8"})
    assert other is not first
    assert (first.lookup("TRAINER_MESH_FSDP"), other.lookup("TRAINER_MESH_FSDP")) == (4, 8)


def test_a_kept_config_is_the_one_resolving_gives():
    source, env = FlagSource("steps=10 steps=20 ici_fsdp_parallelism=-1 bogus_key=1"), {"TRAINER_MESH_EXPERT": "2"}
    kept = CHECKER.shared_config(source, env)
    fresh = CHECKER.config(source, env)[0]
    assert {k: a.value for k, a in kept.explicit.items()} == {k: a.value for k, a in fresh.explicit.items()}
    assert [t.text for t in kept.rejected] == [t.text for t in fresh.rejected] == ["bogus_key=1"]
    assert (kept.tunix, kept.devices) == (fresh.tunix, fresh.devices)


def test_the_config_read_longest_ago_goes_first(monkeypatch):
    monkeypatch.setattr(checker_module, "SHARED_CONFIGS", 3)
    checker = Checker("bbd0f6f10")
    configs = {steps: checker.shared_config(FlagSource(f"steps={steps}"), {}) for steps in (1, 2, 3)}
    assert checker.shared_config(FlagSource("steps=1"), {}) is configs[1]  # read again: now the newest
    checker.shared_config(FlagSource("steps=4"), {})  # steps=2 goes
    assert checker.shared_config(FlagSource("steps=1"), {}) is configs[1]
    assert checker.shared_config(FlagSource("steps=3"), {}) is configs[3]
    assert checker.shared_config(FlagSource("steps=2"), {}) is not configs[2]
