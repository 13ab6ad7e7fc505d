"""Resolving a flag string: each token's key against the pin's schema, each value typed as MaxText types it.

The effective MaxText config is base.yml's defaults (or a YAML config's base_config chain), then
the model's values, then the keys Tunix derives from its variables, then MAXTEXT_EXTRA_FLAGS or
MaxText's argv (the last occurrence winning), then the M_<KEY> environment variables. What
pyconfig does besides typing (inferred values, M_<KEY>, HF_TOKEN, raw-value checks) is
flaglint/maxtext/pyconfig.py's.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from functools import lru_cache

from flaglint.core.findings import Finding, InputError
from flaglint.core.location import Location
from flaglint.core.records import Record
from flaglint.maxtext.pyconfig import (
    HF_TOKEN_VARIABLE,
    INFERRED_WHEN_EMPTY,
    check_raw_splash,
    hf_token,
    m_variables,
    raw_override,
)
from flaglint.maxtext.tpu import LIVE_SLICES
from flaglint.maxtext.values import (
    MERGED_RULE_LISTS,
    ValueError_,
    check_rule_list,
    cleaned,
    coerce,
    parse_cli_value,
    type_value,
)
from flaglint.pins.pins import (
    ROOT_CLASS,
    KeyPins,
    PinSchema,
    load_pin,
    pins_by_key,
)
from flaglint.read.argv import shell_words
from flaglint.read.config_chain import BASE_YML, PIN_LABEL, Chain, Setting
from flaglint.read.flags import FlagSource, Token, tokenize
from flaglint.rules.ruleset import built_in
from flaglint.tunix.variables import bindings, load_tunix, type_tunix

TYPE_CHECKING = False  # typing's, without importing typing: a cold check does not need it
if TYPE_CHECKING:
    from typing import Any

# Linux refuses one argument or environment string longer than this (MAX_ARG_STRLEN).
MAX_ARG_BYTES = 131072


class Assignment(Record):
    """One value given to a key, and what gave it."""

    __slots__ = field_names = ("key", "value", "token", "origin", "where")

    def __init__(self, key: str, value: Any, token: Token | None, origin: str, where: Location | None = None):
        self.key = key
        self.value = value
        self.token = token  # None: set by a Tunix binding, the model, a config file or an M_ variable
        self.origin = origin  # "flags", "tunix:<VAR>", "model:<name>", "yaml:<file>:<line>", "env:<VAR>"
        self.where = where  # the config file's line, when set by one


class Config(Record):
    """The config MaxText would see: the flags' tokens and the keys they, Tunix, a model and config files set."""

    __slots__ = field_names = ("pin", "source", "tokens", "explicit", "tunix", "model", "rejected", "chain", "devices")

    def __init__(self, pin: PinSchema, source: FlagSource, tokens: list[Token], explicit: dict[str, Assignment] | None = None,
                 tunix: dict[str, Any] | None = None, model: str | None = None, rejected: list[Token] | None = None,
                 chain: Chain | None = None, devices: dict[str, int] | None = None):
        self.pin = pin
        self.source = source
        self.tokens = tokens
        self.explicit = {} if explicit is None else explicit  # the winning assignment of each set key
        self.tunix = {} if tunix is None else tunix  # typed Tunix variables (None: unset)
        self.model = model
        self.rejected = [] if rejected is None else rejected  # tokens Tunix or MaxText refuses; a fix drops them
        self.chain = chain  # the YAML config files MaxText starts from (None: base.yml alone)
        self.devices = {} if devices is None else devices  # the device count's names (flaglint/resolve/topology.py), when known

    def lookup(self, name: str) -> Any:
        if name in self.devices:
            return self.devices[name]
        if name in self.tunix:
            return self.tunix[name]
        if name in self.explicit:
            return self.explicit[name].value
        if name == LIVE_SLICES:
            return 1
        return self.pin.default(name)

    def knows(self, name: str) -> bool:
        return name in self.tunix or name in self.pin.keys or name in self.devices or name == LIVE_SLICES

    def location(self, key: str) -> Location | None:
        assignment = self.explicit.get(key)
        if assignment and assignment.token:
            return assignment.token.location(self.source.file)
        return assignment.where if assignment else None


def resolve(
    source: FlagSource,
    pin: PinSchema,
    env: Mapping[str, str] | None = None,
    model: str | None = None,
) -> tuple[Config, list[Finding]]:
    findings: list[Finding] = []
    chain = source.chain
    size = len(source.text.encode("utf-8"))
    if size > MAX_ARG_BYTES:
        findings.append(built_in("FL009", size=size, limit=MAX_ARG_BYTES))
        config = Config(pin=pin, source=source, tokens=[], model=model)
        _resolve_tunix(config, env or {}, findings)  # the Tunix variables are still read, and checked
        return config, findings
    if chain is not None and not chain.reaches_base_yml:
        pin = pin.replace(defaults={})  # a key no file of the chain sets has types.py's default
    tokens = shell_words(source.text) if source.argv else tokenize(source.text)
    config = Config(pin=pin, source=source, tokens=tokens, model=model, chain=chain)
    if not tokens and not source.argv:
        findings.append(built_in("FL012", (), Location(source.file, 1, 1, offset=0, end_column=1, end_offset=0)))
    if not pin.starts_trainer:
        findings.append(built_in("FL007", pin=pin.pin, reason=pin.does_not_start_reason))
    _resolve_tunix(config, env or {}, findings)
    refused_in_files: dict[str, Finding] = {}
    defining: list = []  # pins_by_key(), read for the first undefined key and kept for the others
    if chain is not None:
        refused_in_files = _apply_chain(config, chain, findings, defining)
        if model is None and not any(_key(source, t) == "model_name" for t in tokens):
            named = config.explicit.get("model_name")
            model = config.model = named.value if named is not None and named.value in pin.models else None
    if model is not None:
        _apply_model(config, model, findings)
    for key, (value, variable) in bindings(load_tunix(), config.tunix).items():
        if key in pin.keys:
            typed = _type_bound(pin, key, value)
            if typed is not _INVALID:
                config.explicit[key] = Assignment(key, typed, None, f"tunix:{variable}")
    seen: dict[str, Token] = {}
    keys = [_key(source, token) for token in tokens]
    last = {key: index for index, key in enumerate(keys) if key}
    for index, (token, key) in enumerate(zip(tokens, keys)):
        raw = token.value
        if key is None:
            findings.append(built_in("FL001", (), token.location(source.file), token=token.text))
            config.rejected.append(token)
            continue
        if not key:
            findings.append(built_in("FL002", (), token.location(source.file), token=token.text))
            config.rejected.append(token)
            continue
        if key in seen:
            earlier = seen[key]
            findings.append(
                built_in("FL003", (key,), earlier.location(source.file), (token.location(source.file),), key=key, value=token.value)
            )
        seen[key] = token
        if key not in pin.keys and key.startswith("dpo.") and "dpo" in pin.keys:  # RLConfig has no dpo
            findings.append(built_in("FL013", (key,), token.location(source.file), key=key))
            continue
        if key not in pin.keys:
            findings.append(_undefined(key, pin, token.location(source.file), defining))
            config.rejected.append(token)
            continue
        try:
            # MaxText types only the value that wins; an overridden one must still parse as YAML.
            if last[key] == index and key in INFERRED_WHEN_EMPTY and not parse_cli_value(raw):
                value = INFERRED_WHEN_EMPTY[key]
            else:
                value = _typed(pin, key, raw) if last[key] == index else parse_cli_value(raw)
        except ValueError_ as err:
            findings.append(built_in("FL005", (key,), token.location(source.file), key=key, reason=err))
            config.explicit.pop(key, None)
            config.rejected.append(token)
            continue
        if last[key] == index:
            config.explicit[key] = Assignment(key, value, token, "flags")
    check_raw_splash(config, tokens, last, findings)
    if (filled := hf_token(config, env or {}, tokens, last)) is not None:
        config.explicit["hf_access_token"] = Assignment("hf_access_token", filled, None, f"env:{HF_TOKEN_VARIABLE}")
    if model is None and "model_name" in config.explicit and config.explicit["model_name"].origin == "flags":
        # A model_name flag makes MaxText load that model's yml, as --model does.
        model = config.model = config.explicit["model_name"].value
        if model in pin.models:
            _apply_model(config, model, findings, keep_flags=True)
        else:
            model = config.model = None
    if model is not None:
        _check_model_conflicts(config, model, raw_override(config, tokens, last), findings)
    _apply_m_variables(config, env or {}, last, findings, defining)
    # A file's value MaxText refuses matters only if it is still in force after the merge.
    findings += [f for key, f in refused_in_files.items() if key not in last and key not in config.explicit]
    return config, findings


def _key(source: FlagSource, token: Token) -> str | None:
    """A token's key. In MaxText's argv a word without '=' is a key whose value is None; Tunix refuses
    such a token in MAXTEXT_EXTRA_FLAGS (FL001)."""
    return token.text if source.argv and token.key is None else token.key


def _setting_location(setting: Setting) -> Location:
    return Location(setting.file, setting.line, setting.column, end_column=setting.column + len(setting.key))


# Of each chain resolved (by id, the chain kept alive), its settings that are not MaxText's own
# base.yml's: a launch resolved once per path reads its files' few, not base.yml's hundreds.
_OWN_SETTINGS: dict[int, tuple[Chain, list[tuple[str, Setting]]]] = {}


def _own_settings(chain: Chain) -> list[tuple[str, Setting]]:
    found = _OWN_SETTINGS.get(id(chain))
    if found is None or found[0] is not chain:
        if len(_OWN_SETTINGS) > 64:
            _OWN_SETTINGS.clear()
        base = f"{PIN_LABEL}/{BASE_YML}"
        found = _OWN_SETTINGS[id(chain)] = (chain, [(key, s) for key, s in chain.settings.items() if s.file != base])
    return found[1]


def _apply_chain(config: Config, chain: Chain, findings: list[Finding], defining: list) -> dict[str, Finding]:
    """The config files' values over base.yml's, each typed as MaxText types it, at its file's line.
    The values of MaxText's own base.yml are the pin's defaults, so they are not set again.
    Returns the findings on values MaxText refuses, by key: they count only if nothing replaces them."""
    pin = config.pin
    refused: dict[str, Finding] = {}
    for key, setting in _own_settings(chain):
        where = _setting_location(setting)
        if key not in pin.keys:
            # In a file, `dpo.beta:` is a key of its own (MaxText refuses it); the nested settings are `dpo: {beta: …}`.
            if not (isinstance(setting.value, dict) and any(k.startswith(f"{key}.") for k in pin.keys)):
                findings.append(_undefined(key, pin, where, defining))
            continue
        try:
            if key in MERGED_RULE_LISTS:
                check_rule_list(setting.value)
            empty = key in INFERRED_WHEN_EMPTY and not setting.value
            if pin.keys[key].typed_as_default:  # pyconfig before 0.2.0 types the command line's values, not the files'
                typed = setting.value
            else:
                typed = INFERRED_WHEN_EMPTY[key] if empty else coerce(pin.keys[key], cleaned(pin.keys[key], setting.value))
        except ValueError_ as err:
            refused[key] = built_in("FL005", (key,), where, key=key, reason=err)
            continue
        config.explicit[key] = Assignment(key, typed, None, f"yaml:{setting.file}:{setting.line}", where)
    return refused


def _apply_m_variables(config: Config, env: Mapping[str, str], last: dict[str, int], findings: list[Finding], defining: list) -> None:
    """The M_<KEY> variables pyconfig applies (maxtext/pyconfig.py says which), typed as the key is."""
    for key, variable, parsed in m_variables(config, env, last, findings):
        if key not in config.pin.keys:
            findings.append(_undefined(key, config.pin, None, defining))
            continue
        try:
            typed = coerce(config.pin.keys[key], cleaned(config.pin.keys[key], parsed))
        except ValueError_ as err:
            findings.append(built_in("FL005", (key, variable), variant="env", key=key, variable=variable, reason=err))
            continue
        config.explicit[key] = Assignment(key, typed, None, f"env:{variable}")


_INVALID = object()


_TYPED: dict[tuple[str, str, str, str], Any] = {}


def _typed(pin: PinSchema, key: str, raw: str) -> Any:
    """type_value, remembered per pin and config class (RLConfig bounds num_epoch): a --batch run
    sees the same values on every line."""
    memo = (pin.pin, pin.config_class, key, raw)
    if len(_TYPED) > 100_000:
        _TYPED.clear()
    if memo not in _TYPED:
        try:
            _TYPED[memo] = type_value(pin.keys[key], raw)
        except ValueError_ as err:
            _TYPED[memo] = err
    typed = _TYPED[memo]
    if isinstance(typed, ValueError_):
        raise typed
    return copy.deepcopy(typed) if isinstance(typed, (list, dict)) else typed


def _type_bound(pin: PinSchema, key: str, value: Any) -> Any:
    try:
        return _typed(pin, key, value) if isinstance(value, str) else coerce(pin.keys[key], value)
    except ValueError_:
        return _INVALID


def _resolve_tunix(config: Config, env: Mapping[str, str], findings: list[Finding]) -> None:
    schema = load_tunix()
    for name, var in schema.variables.items():
        raw = env.get(name, var.default)
        config.tunix[name] = None
        if raw is None:
            continue
        try:
            config.tunix[name] = type_tunix(name, var, raw)
        except ValueError as err:
            findings.append(built_in("FL008", (name,), reason=err))


def _apply_model(config: Config, model: str, findings: list[Finding], keep_flags: bool = False) -> None:
    import difflib  # noqa: PLC0415 difflib: only for a did-you-mean

    if model not in config.pin.models:
        close = difflib.get_close_matches(model, config.pin.models, n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise InputError(f"--model {model!r}: no such model config at {config.pin.pin}{hint}")
    for key, value in config.pin.models[model].items():
        if keep_flags and key in config.explicit and config.explicit[key].origin == "flags":
            continue
        if key in config.pin.keys:
            typed = _type_bound(config.pin, key, value)
            if typed is not _INVALID:
                _note_file_overridden(config, key, typed, model, findings)
                config.explicit[key] = Assignment(key, typed, None, f"model:{model}")


def _note_file_overridden(config: Config, key: str, model_value: Any, model: str, findings: list[Finding]) -> None:
    """pyconfig merges the model file over the config files: a value a file sets for a key the
    model also sets is silently replaced (only argv may not differ)."""
    earlier = config.explicit.get(key)
    if key in MERGED_RULE_LISTS:
        return  # pyconfig merges the model's rules into the files' by name
    if earlier is not None and earlier.origin.startswith("yaml:") and earlier.value != model_value:
        findings.append(built_in("FL043", (key, "model_name"), earlier.where, key=key, value=earlier.value, model_value=model_value, model=model))


def _check_model_conflicts(config: Config, model: str, overridden: bool, findings: list[Finding]) -> None:
    if overridden or not config.pin.refuses_model_and_argv:
        return
    model_keys = config.pin.models[model]
    for key, assignment in config.explicit.items():
        if assignment.origin != "flags" or key not in model_keys:
            continue
        # pyconfig compares the YAML values before pydantic types them: `beta_fast='32'` is the
        # string '32', not the model's 32 (while 32.0 and 0x20 are equal to it).
        try:
            value = parse_cli_value(assignment.token.value) if assignment.token is not None else assignment.value
        except ValueError_:
            continue  # MaxText cannot parse the flag at all (FL005 says why)
        if value != model_keys[key] or config.pin.refuses_model_key_at_its_value:
            findings.append(
                built_in("FL006", (key, "override_model_config"), config.location(key), key=key, value=value,
                         model_value=model_keys[key], model=model, variant=None if value != model_keys[key] else "same_value")
            )
            config.rejected.append(assignment.token)


@lru_cache(maxsize=4096)
def close_keys(key: str, pin: str) -> list[str]:
    import difflib  # noqa: PLC0415 difflib: only for a did-you-mean

    return difflib.get_close_matches(key, load_pin(pin).keys, n=3, cutoff=0.75)


def _close_keys_elsewhere(key: str, pin: str, defining: KeyPins) -> list[tuple[str, tuple[str, ...]]]:
    """Near names that only other pins define, with those pins (a key the fork adds, misspelled);
    found once for the pins of each key as `defining` has them."""
    if (key, pin) not in defining.near:
        import difflib  # noqa: PLC0415 difflib: only for a did-you-mean

        here = load_pin(pin).keys
        others = [name for name in defining if name not in here]
        defining.near[key, pin] = [(name, defining[name]) for name in difflib.get_close_matches(key, others, n=3, cutoff=0.75)]
    return defining.near[key, pin]


def _undefined(key: str, pin: PinSchema, where: Location, defining: list) -> Finding:
    """FL004 for KEY. `defining`: empty, or pins_by_key() as read for an earlier key of the same config."""
    finding = _undefined_key(key, pin, where, defining)
    head = key.split(".", 1)[0]
    if head != key and not any(name.startswith(f"{head}.") for name in pin.keys):
        # `debug.rl=x`: OmegaConf makes debug a mapping, and MaxText refuses debug (its value, or
        # the key itself where it defines none: RLConfig's `dpo`)
        return finding.replace(keys=(key, head))
    return finding


def _undefined_key(key: str, pin: PinSchema, where: Location, defining: list) -> Finding:
    if pin.config_class != ROOT_CLASS:  # train_rl's RLConfig: the key may be MaxTextConfig's, which it lacks
        import difflib  # noqa: PLC0415 difflib: only for a did-you-mean

        close = ", ".join(difflib.get_close_matches(key, pin.keys, n=3, cutoff=0.75))
        return built_in("FL004", (key,), where, key=key, pin=f"{_release(pin.pin)}'s {pin.config_class}", close=close, pins="")
    if not defining:
        defining.append(pins_by_key())
    elsewhere = ", ".join(_release(p) for p in defining[0].get(key, ()) if p != pin.pin)
    # A key other pins define is not misspelled: its own pins say more than a near name would.
    close = ", ".join(close_keys(key, pin.pin)) or ("" if elsewhere else ", ".join(
        f"{name} (a key at {', '.join(map(_release, pins))})" for name, pins in _close_keys_elsewhere(key, pin.pin, defining[0])))
    return built_in("FL004", (key,), where, key=key, pin=_release(pin.pin), close=close, pins=elsewhere)


def _release(pin: str) -> str:
    """A pin as a message names it after "MaxText": `0.2.5` for maxtext-0.2.5, a commit as it is."""
    return pin.removeprefix("maxtext-")
