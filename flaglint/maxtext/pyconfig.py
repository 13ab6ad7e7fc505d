"""What MaxText's pyconfig does to a config besides typing its values (configs/pyconfig.py): the
values it infers, the raw values (YAML, before pydantic types them) it decides by, the M_<KEY>
environment variables, HF_TOKEN, the splash kernels it refuses together, and the EP-rank check
that a quoted 'false' leaves without an EP axis.

`config` is the resolved config (flaglint/resolve/resolver.py's Config), read through its lookup,
its assignments and its pin; `tokens` its flags and `last` each key's winning token.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

from flaglint.core.findings import Finding
from flaglint.maxtext.tpu import RULE_FUNCTIONS
from flaglint.maxtext.values import ValueError_, parse_cli_value
from flaglint.rules.expr import Unknown, evaluate
from flaglint.rules.ruleset import built_in

TYPE_CHECKING = False  # typing's, without importing typing: a cold check does not need it
if TYPE_CHECKING:
    from typing import Any

KEY_VARIABLE_PREFIX = "M_"  # pyconfig reads M_<KEY> of its environment as the key's value


def is_key_variable(name: str) -> bool:
    """Whether MaxText reads this variable of its environment (as a key's value)."""
    return name.startswith(KEY_VARIABLE_PREFIX)

HF_TOKEN_VARIABLE = "HF_TOKEN"  # read by MaxText's pyconfig itself, not by Tunix
# pyconfig infers these when the merged config files and argv leave them empty (any false raw value:
# unset, '', null), before it types anything: `base_output_directory=` is ./maxtext_output, not an error.
INFERRED_WHEN_EMPTY = {"base_output_directory": "maxtext_output"}
_TRUE_WORDS = ("y", "yes", "t", "true", "1")
_FALSE_WORDS = ("n", "no", "f", "false", "0")
RAW_EXCLUSIVE = ("use_tokamax_splash", "use_jax_splash")  # pyconfig refuses both set, by their raw values


def str2bool(text: str) -> bool:
    if text.lower() in _TRUE_WORDS:
        return True
    if text.lower() in _FALSE_WORDS:
        return False
    raise ValueError(text)


def raw_value(config, key: str, tokens: list, last: dict[str, int]) -> Any:
    """The value pyconfig reads before pydantic types it: the YAML value of the winning flag, else
    the typed value from the model, a Tunix binding or the default. Raises ValueError_ if unparsable."""
    if key in last:
        return parse_cli_value(tokens[last[key]].value)
    return config.lookup(key)


def raw_override(config, tokens: list, last: dict[str, int]) -> bool:
    """override_model_config as pyconfig reads it for the model check: Python truthiness of the YAML
    value, before pydantic types it (a quoted 'false' or '0' is a non-empty string, so true there)."""
    if "override_model_config" not in config.pin.keys:
        return False
    try:
        return bool(raw_value(config, "override_model_config", tokens, last))
    except ValueError_:
        return False  # MaxText cannot parse the flags at all (FL005 already says why)


def raw_before_env(config, key: str) -> tuple[bool, Any]:
    """(whether the key is in the merged config pyconfig builds, its raw value there)."""
    chain = config.chain
    if config.model and key in config.pin.models[config.model]:
        return True, config.pin.models[config.model][key]
    if chain is not None and key in chain.settings:
        return True, chain.settings[key].value
    if key in config.pin.defaults:
        return True, config.pin.defaults[key]
    return False, None


def m_variables(config, env: Mapping[str, str], last: dict[str, int], findings: list[Finding]) -> Iterator[tuple[str, str, Any]]:
    """(key, variable, parsed value) for each M_<KEY> variable pyconfig applies, as it reads them:
    only for a key already in the merged config (argv, the config files, the model, base.yml); one
    that argv also sets, or that the model sets (unless override_model_config), is an error (into
    `findings`); the text is parsed by the type of the value it replaces (bool: y/yes/t/true/1 or
    n/no/f/false/0, any case), and only scalars can be replaced. Before 0.2.0 pyconfig first
    refuses any M_ variable that names no key of the config files, or is not all upper case."""
    if config.pin.refuses_stray_key_variables:
        findings.extend(_stray_key_variables(config, env))
    for variable, text in env.items():
        if not is_key_variable(variable) or variable != variable.upper():
            continue
        key = variable[len(KEY_VARIABLE_PREFIX):].lower()
        present, original = raw_before_env(config, key)
        if not present and key not in last:
            continue
        if key in last:
            findings.append(built_in("FL040", (key, variable), config.location(key), key=key, variable=variable))
            continue
        if (config.model and key in config.pin.models[config.model] and config.pin.refuses_model_and_env
                and not raw_override(config, config.tokens, last)):
            findings.append(built_in("FL041", (key, variable, "override_model_config"), key=key, model=config.model, variable=variable))
            continue
        parser = str2bool if isinstance(original, bool) else type(original) if isinstance(original, (str, int, float)) else None
        if parser is None:
            findings.append(built_in("FL042", (key, variable), variant="not_scalar", variable=variable, key=key, type=type(original).__name__))
            continue
        try:
            parsed = parser(text)
        except ValueError:
            findings.append(built_in("FL042", (key, variable), variable=variable, text=text, type=parser.__name__, key=key, value=original))
            continue
        yield key, variable, parsed


def _stray_key_variables(config, env: Mapping[str, str]) -> Iterator[Finding]:
    """The M_ variables pyconfig before 0.2.0 refuses before it reads any: one whose key is in no
    config file of the chain (base.yml when none is given), or whose name is not all upper case."""
    in_files = config.chain.settings if config.chain is not None else config.pin.defaults
    for variable in env:
        if not is_key_variable(variable):
            continue
        key = variable[len(KEY_VARIABLE_PREFIX):].lower()
        if key not in in_files:
            yield built_in("FL044", (variable,), variable=variable, key=key)
        elif not variable[len(KEY_VARIABLE_PREFIX):].isupper():
            yield built_in("FL044", (key, variable), variant="lowercase", variable=variable, key=key)


def check_raw_splash(config, tokens: list, last: dict[str, int], findings: list[Finding]) -> None:
    """pyconfig reads these two before pydantic types them: Python truthiness of the YAML value."""
    raw: dict[str, Any] = {}
    for key in RAW_EXCLUSIVE:
        if key not in config.pin.keys:
            return
        try:
            raw[key] = raw_value(config, key, tokens, last)
        except ValueError_:
            return
    if all(raw[key] for key in RAW_EXCLUSIVE):
        shown = ", ".join(f"{key}={raw[key]!r}" for key in RAW_EXCLUSIVE)
        located = [config.location(k) for k in RAW_EXCLUSIVE if config.location(k)]
        findings.append(built_in("FL014", RAW_EXCLUSIVE, located[0] if located else None, tuple(located[1:]), values=shown))
        set_by_flags = [tokens[last[key]] for key in reversed(RAW_EXCLUSIVE) if key in last]
        if set_by_flags:
            config.rejected.append(set_by_flags[0])  # a fix drops it: its default is false


def hf_token(config, env: Mapping[str, str], tokens: list, last: dict[str, int]) -> str | None:
    """The hf_access_token pyconfig fills in from HF_TOKEN when the flags leave it empty (its raw
    value); None where it does not."""
    if not env.get(HF_TOKEN_VARIABLE) or "hf_access_token" not in config.pin.keys:
        return None
    try:
        if raw_value(config, "hf_access_token", tokens, last):
            return None
    except ValueError_:
        return None
    return env[HF_TOKEN_VARIABLE]


def axis_rules_from_flags_only(config) -> Any:
    """The override_logical_axis_rules token that makes MaxText's EP-rank check see no EP axis.

    pyconfig decides whether to replace logical_axis_rules from the raw YAML value: a value that
    is true there but that pydantic types False (a quoted 'false', '0', 'no') keeps only the flags'
    own logical_axis_rules, while the EP-rank check, which reads the typed False, still runs. With
    no rule named 'exp' among the flags' rules (and no custom mesh file, whose rules replace them
    first) MaxText then counts EP rank 1, whatever the expert parallelism.
    """
    assignment = config.explicit.get("override_logical_axis_rules")
    if assignment is None or assignment.origin != "flags" or assignment.value is not False or assignment.token is None:
        return None
    try:
        if not parse_cli_value(assignment.token.value):
            return None
    except ValueError_:
        return None
    if "custom_mesh_and_rule" in config.pin.keys and config.lookup("custom_mesh_and_rule") != config.pin.default("custom_mesh_and_rule"):
        return None
    own = config.explicit.get("logical_axis_rules")
    rules = own.value if own is not None and own.origin == "flags" and isinstance(own.value, list) else []
    if any(isinstance(rule, list) and rule and rule[0] == "exp" for rule in rules):
        return None
    return assignment.token


def ep_rank_without_axes(judged: list, broken: list, config, worded: Callable[[Any], Finding]) -> list[Finding]:
    """FL015: the rules guarded by override_logical_axis_rules (the EP-rank check), judged as MaxText
    judges them when a quoted 'false' leaves it no EP axis: the guard holds, whatever the parallelism.
    A fix drops that token (its typed value, False, is the default). `worded`: a rule's own finding."""
    token = axis_rules_from_flags_only(config)
    if token is None:
        return []
    found = []
    for rule in judged:
        if rule in broken or rule.when is None or "override_logical_axis_rules" not in rule.when.names():
            continue
        try:
            holds = bool(evaluate(rule.require, config.lookup, RULE_FUNCTIONS))
        except Unknown:
            holds = True
        if not holds:
            plain = worded(rule)
            found.append(built_in("FL015", ("override_logical_axis_rules", *plain.keys), plain.location, plain.related,
                                  rule=rule.id, message=plain.message, value=token.value))
    if found:
        config.rejected.append(token)
    return found
