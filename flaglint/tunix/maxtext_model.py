"""The MaxText argv a Tunix release builds for a model section with `model_source: maxtext`, each
word with the Tunix value that wrote it, from the facts the importer read (schemas/tunix-<version>.json
`maxtext_model`, importer/tunix_maxtext.py).

At 0.1.7 `AutoModel.from_pretrained` calls MaxText's `pyconfig.initialize` with
`['', 'base.yml', 'model_name=<the name Tunix derives from model_id>']`, then
`load_parameters_path=<model_id>` unless model_path is null, then each keyword argument
`create_model` gives it (intermediate_ckpt_dir, rng_seed, …, from the model section) and
`skip_jax_distributed_system=true`, `hf_access_token=$HF_TOKEN`, where the value is not None and
MaxText's config defines the key (a bool written `true`/`false`). Nothing of the section's
`kwargs` reaches it: create_model does not read it. Before any of that, `ModelNaming` refuses a
model name of a family it does not know (tunix/models/naming.py): then MaxText never sees the argv.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from flaglint.tunix.merge import Merged, Origin


@dataclass(frozen=True)
class NamingRefused:
    """The model id whose derived name ModelNaming refuses: its key, value and origin, and why."""

    key: str
    model_id: str
    name: str
    reason: str
    origin: Origin | None


@dataclass
class MaxTextArgv:
    """The words after the program (the base config first), the origin of each (None: Tunix's own),
    and what cannot be known of them (each naming the expression)."""

    section: str
    words: list[str] = field(default_factory=list)
    origins: list[Origin | None] = field(default_factory=list)
    keys: list[str | None] = field(default_factory=list)  # the Tunix key (or variable) each word comes from
    unknown: list[str] = field(default_factory=list)
    naming: NamingRefused | None = None  # Tunix refuses the model name before it builds the argv

    def add(self, word: str, origin: Origin | None, key: str | None) -> None:
        self.words.append(word)
        self.origins.append(origin)
        # a role's value inherited from model_config: the key the user set (its origin's label names it)
        self.keys.append(origin.label.split(" (", 1)[0] if origin is not None and origin.kind == "inherited" else key)


def maxtext_model_keys(facts: dict[str, Any] | None, inherit_from: str | None) -> frozenset[str]:
    """The Tunix keys the MaxText argv of any model section is built from (and model_config's, which
    the roles inherit)."""
    if not facts:
        return frozenset()
    read = {"model_source", *(w.get("when_not_none") for w in facts["words"]),
            *(v for w in facts["words"] for v in w["value"].values()), *(k["key"] for k in facts["kwargs"].values() if "key" in k)}
    sections = {s for listed in facts.get("sections", {}).values() for s in listed} | ({inherit_from} if inherit_from else set())
    return frozenset(f"{section}.{key}" for section in sections for key in read if key)


def maxtext_argvs(facts: dict[str, Any] | None, merged: Merged, entry: str, env: dict[str, str],
                  defines: Callable[[str], bool]) -> list[MaxTextArgv]:
    """The MaxText argv of each model section the entry point builds with `model_source: maxtext`.
    `defines`: whether MaxText's config (at the MaxText pin) has a key."""
    if not facts:
        return []
    built = []
    for section in facts.get("sections", {}).get(entry, ()):
        config = merged.config.get(section)
        if not isinstance(config, dict) or config.get("model_source") != facts["source"]:
            continue
        argv = MaxTextArgv(section)
        argv.add(facts.get("base") or "", None, None)
        for word in facts["words"]:
            condition = word.get("when_not_none")
            if "when" in word or (condition is not None and condition not in config):
                argv.unknown.append(f"the word {word['key']}= is added when {word.get('when') or condition + ' is not None'}")
                continue
            if condition is not None and config.get(condition) is None:
                continue
            value, origin, key = _value(word["value"], config, merged, section)
            if "model_name_of" in word["value"] and value is not None:
                families = facts.get("model_families") or {"unknown": "the model families were not read"}
                if "unknown" in families:
                    argv.unknown.append(f"whether Tunix names the model ({families['unknown']})")
                    continue
                reason = naming_refusal(value, families)
                if reason is not None:
                    model_id = str(config.get(word["value"]["model_name_of"], ""))
                    argv.naming = NamingRefused(key, model_id, value, reason, origin)
                    break
            if value is None:
                argv.unknown.append(f"the value of {word['key']}= ({word['value'].get('unknown', word['value'])})")
                continue
            argv.add(f"{word['key']}={value}", origin, key)
        if argv.naming is not None:
            built.append(argv)
            continue
        kwargs = _keyword_arguments(facts, config, merged, section, env)
        if kwargs and facts.get("kwargs_words") != "each not None that MaxText's config defines":
            argv.unknown.append(f"the keyword arguments' words ({facts.get('kwargs_words')})")
        else:
            for name, (value, origin, key) in kwargs.items():
                if value is not None and defines(name):
                    argv.add(f"{name}={str(value).lower() if isinstance(value, bool) else value}", origin, key)
        built.append(argv)
    return built


def _keyword_arguments(facts: dict[str, Any], config: dict, merged: Merged, section: str,
                       env: dict[str, str]) -> dict[str, tuple[Any, Origin | None, str | None]]:
    """from_pretrained's **kwargs, in the order it adds them to the argv: create_model's, then
    the ones set unless given, then the ones from the environment; each with where it was set and
    the Tunix key or variable it comes from."""
    kwargs: dict[str, tuple[Any, Origin | None, str | None]] = {}
    for name, spec in facts.get("kwargs", {}).items():
        if "unknown" in spec:
            kwargs[name] = (f"<{spec['unknown']}>", None, None)
        elif spec["key"] in config:
            key = f"{section}.{spec['key']}"
            kwargs[name] = (config[spec["key"]], merged.origin(key), key)
        else:
            kwargs[name] = (spec.get("default"), None, None)
    for name, value in facts.get("set_unless_given", {}).items():
        kwargs.setdefault(name, (value, None, None))
    for name, variable in facts.get("from_env", {}).items():
        if name not in kwargs and variable in env:
            kwargs[name] = (env[variable], Origin("env", variable), variable)
    return kwargs


def _value(spec: dict[str, Any], config: dict, merged: Merged, section: str) -> tuple[Any, Origin | None, str | None]:
    """A word's value, where it was set and its Tunix key; None for each when it cannot be known."""
    if "model_name_of" in spec:
        key = spec["model_name_of"]
        model_id = config.get(key)
        return model_name_from_id(str(model_id)) if model_id else "", merged.origin(f"{section}.{key}"), f"{section}.{key}"
    if "key" in spec:
        return config.get(spec["key"]), merged.origin(f"{section}.{spec['key']}"), f"{section}.{spec['key']}"
    return None, None, None


def naming_refusal(name: str, families: dict[str, list[str]]) -> str | None:
    """Why ModelNaming (tunix/models/naming.py) refuses a model name, None when it takes it: a
    Hugging Face name (with `-` or `.`) or a config id (with `_`) must start with a family of its
    table, and the version after the family must start with a letter or digit."""
    if not name:
        return "the name is empty"
    if "-" in name or "." in name:
        table = families["hub"]
    elif "_" in name:
        table = families["config_id"]
    else:
        return "it is neither a Hugging Face model name (with '-' or '.') nor a config id (with '_')"
    family = max((prefix for prefix in table if name.startswith(prefix)), key=len, default=None)
    if family is None:
        return f"it starts with none of the model families Tunix knows ({', '.join(table)})"
    version = name[len(family):].lstrip("-").replace("-", "_").replace(".", "p")
    if len(version) > 1 and not version[0].isalnum():
        return f"its version {version!r} does not start with a letter or digit"
    return None


def model_name_from_id(model_id: str) -> str:
    """The model name Tunix derives from a model id (tunix/models/naming.py
    get_model_name_from_model_id): a Hugging Face id's last part, lower case, `meta-llama-` read as
    `llama-`; a config id lower case."""
    if "-" in model_id or "." in model_id or "/" in model_id:
        name = model_id.split("/")[-1].lower()
        return name.replace("meta-llama-", "llama-", 1) if name.startswith("meta-llama-") else name
    return model_id.lower()
