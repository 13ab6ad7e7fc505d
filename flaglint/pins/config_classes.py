"""The checks of the config class an entry point validates with (MaxTextConfig, or train_rl's
RLConfig): which rules and not-judged checks of a pin are that class's.

pyconfig hands the merged config to the class the entry point names (`config_class=types.RLConfig`
in train_rl and grpo_trainer). RLConfig is made of most of MaxTextConfig's mixins but not of
MaxTextConfig itself: it runs its mixins' validators and its own `set_derived_values_and_validate`,
never MaxTextConfig's. A check is placed by the validator its `source` (a rule) or `site` (a
not-judged check) names, `configs/types.py:LINE Owner.method` (or a function of types.py):
- a builtin rule (keys, values, files, variables: pyconfig's reading) and a check of pyconfig.py
  hold for every class;
- a check of types.py holds for the classes that run its owner (ConfigClass.validated_by);
- any other rule (the mesh MaxText builds when pre-training starts, Tunix's recipes) is the
  pre-training trainer's: not another class's.
"""

from __future__ import annotations

import re

from flaglint.core.findings import Finding
from flaglint.pins.pins import ROOT_CLASS, NotJudged, PinSchema
from flaglint.rules.ruleset import RuleSet, built_in

# `configs/types.py:5862 RLConfig.set_derived_values_and_validate`, `types.py:3636 get_individual_scales`
_OWNER = r"types\.py(?::\d+)? ([A-Za-z_]\w*)"
_PYCONFIG = r"pyconfig\.py"
TOKENIZER, MODEL = "tokenizer_path", "model_name"


def owner(source: str) -> str | None:
    """The class (or function) of types.py whose check SOURCE names, or None."""
    found = re.search(_OWNER, source)
    return found[1] if found else None


def _runs(pin: PinSchema, source: str, builtin: bool = False) -> bool:
    """Whether the pin's config class (not MaxTextConfig) makes the check SOURCE names (a rule's
    source, a not-judged check's site)."""
    checked_by = owner(source)
    if builtin or re.search(_PYCONFIG, source) and checked_by is None:
        return True
    return checked_by in pin.config_classes[pin.config_class].validated_by


def class_rules(ruleset: RuleSet, pin: PinSchema) -> RuleSet:
    """The rules of RULESET that the pin's config class makes. MaxTextConfig makes them all: the
    rules another class makes alone name that class in their pins (`maxtext-0.2.5/RLConfig`), which
    only that class's view of a pin has in its chain (PinSchema.validated_with)."""
    if pin.config_class == ROOT_CLASS:
        return ruleset
    return ruleset.replace(rules=[rule for rule in ruleset.rules if _runs(pin, rule.source, rule.builtin)])


def class_checks(checks: tuple[NotJudged, ...], pin: PinSchema) -> tuple[NotJudged, ...]:
    """The not-judged checks that the pin's config class makes."""
    if pin.config_class == ROOT_CLASS:
        return checks
    return tuple(check for check in checks if _runs(pin, check.site))



def tokenizer_not_found(config, unknown: frozenset[str]) -> list[Finding]:
    """FL157: a class that finds the tokenizer by model name (RLConfig) where no config file, model
    file or argument names tokenizer_path (pyconfig fills a named but empty one; a config that does
    not reach base.yml leaves it unset) and the model has no tokenizer it knows. CONFIG: a resolved
    config (resolve.resolver.Config)."""
    pin = config.pin
    other = pin.config_classes.get(pin.config_class)
    if other is None or not other.tokenizer_models or {TOKENIZER, MODEL}.intersection(unknown):
        return []
    if TOKENIZER in config.explicit or TOKENIZER in pin.defaults:
        return []
    model = config.lookup(MODEL)
    if model in other.tokenizer_models:
        return []
    return [built_in("FL157", (MODEL,), config.location(MODEL), model=model, config_class=pin.config_class)]
