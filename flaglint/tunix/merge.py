"""What `HyperParameters(argv)` of a pinned Tunix makes of a command line, modelled from the facts
the importer read (schemas/tunix-<version>.json `merge`), every value with where it was set.

The steps, in Tunix's order: argv[1] names the base YAML (found in the package or on disk as the
release finds it); every `T_<KEY>` variable must name a top-level key, in upper case; one
`override_config_file=` word (from 0.1.6) is flattened into `a.b.c=v` words, placed before the
command line's; the words become one OmegaConf dotlist (the last of a key wins, values typed as
YAML, `${oc.env:NAME}` read from the environment); every top-level key of the dotlist must be in
the base file; each top-level value set is typed as the base value is (`1.5` becomes the int 1,
`abc` for an int is refused) and a mapping merges into the base's (a section the release replaces
is taken whole, and a replaced section left out of a merged one is dropped); last, the roles take
`model_config`'s values where theirs are missing or still the base's.

Tunix stops at the first problem; flaglint reports every one, each at the word, override-file line
or base line that set the value, with its stage: start-up (before any download) or never checked
(a nested key Tunix ignores, a value it retypes).
"""

from __future__ import annotations

import ast
import copy
import os
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import Any, Callable

from flaglint.core.findings import Finding, InputError
from flaglint.core.location import Location
from flaglint.core.omegaconf_yaml import cli_loader, load_document
from flaglint.core.reading import CONFIG_FILE, TooLarge, Unreadable, read_text
from flaglint.rules.ruleset import built_in
from flaglint.tunix.pins import BaseKey, TunixPin, nested_defaults, value_kind

STARTUP = "start-up"
AFTER_DOWNLOADS = "after downloads"
NEVER_CHECKED = "never checked"
_INTERPOLATION = re.compile(r"\$\{oc\.env:([A-Za-z_][A-Za-z0-9_]*)(?:,([^}]*))?\}")


@dataclass(frozen=True)
class Origin:
    """Where a value was set: an argv word, a line of the override file or of the base YAML, a
    `T_` variable, or `model_config` (a role's inherited value)."""

    kind: str  # word | override | base | env | inherited
    label: str
    location: Location | None = None


@dataclass
class Merged:
    """The merged config, the origin of each value (dotted key -> Origin), and what the merge found."""

    config: dict[str, Any] = field(default_factory=dict)
    origins: dict[str, Origin] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    base: dict[str, BaseKey] | None = None
    base_values: dict[str, Any] = field(default_factory=dict)
    unknown: set[str] = field(default_factory=set)  # dotted keys whose value cannot be known
    notes: list[str] = field(default_factory=list)
    stopped: bool = False  # Tunix cannot get as far as a merged config (no base file)
    # the user's files values were read from (a base YAML on disk, not the package's; the override
    # file), as the findings' locations name them: a fix may edit them
    files: set[str] = field(default_factory=set)

    def value(self, key: str) -> Any:
        """The value at a dotted key; KeyError when it is not set."""
        node: Any = self.config
        for part in key.split("."):
            if not isinstance(node, dict) or part not in node:
                raise KeyError(key)
            node = node[part]
        return node

    def origin(self, key: str) -> Origin | None:
        """The origin of a key, else of its nearest section that has one."""
        parts = key.split(".")
        for end in range(len(parts), 0, -1):
            found = self.origins.get(".".join(parts[:end]))
            if found is not None:
                return found
        return None


@dataclass(frozen=True)
class TunixArgv:
    """A Tunix command line: the program's path (argv[0], None: not known), its words after it, each
    word's location, and its environment."""

    program: str | None
    words: tuple[str, ...]
    locations: tuple[Location | None, ...]
    env: dict[str, str]
    search: tuple[Path, ...] = ()  # folders a relative path is looked for in (the working directory first)
    unknown_words: frozenset[int] = frozenset()  # indices of words whose text is not known (an input's "anything else")
    devices: tuple[int, str] | None = None  # the devices it runs on and where that count came from (None: not known)


def staged(finding: Finding, stage: str) -> Finding:
    """A finding of a Tunix check with the stage at which Tunix makes it."""
    finding.stage = stage
    return finding


def merge(pin: TunixPin, argv: TunixArgv) -> Merged:
    """The merged config of the command line, with what the merge found (rules/tunix.yml)."""
    facts = pin.merge
    merged = Merged()
    words = list(argv.words)
    report = merged.findings.append

    # argv[1]: the base YAML
    if not words or "=" in words[0]:
        report(staged(built_in('FL202', (), argv.locations[0] if words else None, variant='argument', word=words[0] if words else ''), STARTUP))
        merged.stopped = True
        return merged
    base_name, base_text, base_label = _find_base(pin, words[0], argv.search)
    if base_text is None and base_name is None:
        report(staged(built_in('FL202', (), argv.locations[0], variant='missing', path=words[0], where=base_label), STARTUP))
        merged.stopped = True
        return merged
    try:
        base_values, base_keys = _base(pin, base_name, base_text, base_label)
    except InputError as err:
        report(staged(built_in('FL202', (), argv.locations[0], variant='unreadable', path=words[0], reason=str(err)), STARTUP))
        merged.stopped = True
        return merged
    merged.base, merged.base_values = base_keys, base_values
    base_file = words[0] if base_text is not None else f"{words[0]} (tunix {pin.version})"
    if base_text is not None and not words[0].endswith(f"tunix/cli/{PurePosixPath(words[0]).name}"):
        merged.files.add(words[0])  # a checkout's tunix/cli/ file is Tunix's own: never edited, as MaxText's are not

    prefix = facts["env_prefix"]
    env = dict(argv.env)
    for name in env:
        if name.startswith(prefix):
            key = name[len(prefix):].lower()
            if key not in base_values:
                report(staged(built_in('FL205', (name,), None, variant='unknown', variable=name, close=', '.join(close_keys(key, base_values))), STARTUP))
            elif not name[len(prefix):].isupper():
                report(staged(built_in('FL205', (name,), None, variant='case', variable=name), STARTUP))

    # the override file, then the command line's words: one dotlist
    dotlist: list[tuple[str, Origin, bool]] = []
    override_word = facts.get("override_file")
    override_at = [i for i, w in enumerate(words[1:], 1) if override_word and w.startswith(f"{override_word}=")]
    if len(override_at) > 1:
        for at in override_at[1:]:
            report(staged(built_in('FL203', (), argv.locations[at], variant='twice', word=override_word), STARTUP))
    if override_at:
        at = override_at[0]
        path = words[at].split("=", 1)[1]
        if path and at not in argv.unknown_words:
            read = _override_words(pin, path, argv, at, report)
            merged.files.update(origin.location.file for _, origin, _ in read if origin.location is not None)
            dotlist.extend(read)
    for at, word in enumerate(words[1:], 1):
        if at in override_at:
            continue
        dotlist.append((word, Origin("word", f"argv word {at + 1}", argv.locations[at]), at in argv.unknown_words))

    cli, cli_origins = _dotlist(dotlist, env, merged, report)

    for key in cli:
        if key and key not in base_values:
            report(staged(built_in('FL204', (key,), cli_origins[key].location, key=key, close=', '.join(close_keys(key, base_values)), base=base_file), STARTUP))

    replaced = set(facts["replaced_sections"])
    for key, base_value in base_values.items():
        variable = f"{prefix}{key.upper()}"
        from_env = variable in env
        origin = cli_origins.get(key)
        if key in cli and from_env:
            report(staged(built_in('FL205', (key, variable), origin.location if origin else None, variant='both', variable=variable, key=key), STARTUP))
        if key not in cli and not from_env:
            merged.config[key] = copy.deepcopy(base_value)
            _origins_of(merged, key, base_value, lambda name: _base_origin(base_keys, name, base_file, pin))
            continue
        if key in cli:
            proposal, origin_of = cli[key], lambda name: cli_origins.get(name) or cli_origins[key]
        else:
            proposal, origin_of = env[variable], lambda name, variable=variable: Origin("env", variable)
        if key in merged.unknown:
            merged.config[key] = proposal
            continue
        value = _typed(facts, key, base_value, proposal, origin_of(key), report, from_env=key not in cli)
        if value is _REFUSED:
            merged.config[key] = copy.deepcopy(base_value)
            _origins_of(merged, key, base_value, lambda name: _base_origin(base_keys, name, base_file, pin))
            continue
        if isinstance(value, dict) and isinstance(base_value, dict):
            if key in replaced:
                merged.config[key] = value
                _report_replaced(key, base_value, value, origin_of(key), report)
            else:
                merged.config[key] = _update_dict(base_value, value, replaced, key, origin_of, report)
            _origins_of(merged, key, merged.config[key],
                        lambda name: (origin_of(name) if _has(cli, name) else _base_origin(base_keys, name, base_file, pin)))
        else:
            merged.config[key] = value
            merged.origins[key] = origin_of(key)
    _inherit(facts, merged, base_values)
    return merged


_REFUSED = object()


def _find_base(pin: TunixPin, argument: str, search: tuple[Path, ...]) -> tuple[str | None, str | None, str]:
    """The base YAML argv[1] names: (the pin's base file name, or None; the text of a file on disk,
    or None; where it was looked for)."""
    facts = pin.merge
    name = PurePosixPath(argument).name
    if facts.get("base_relative_to_package"):
        # Before 0.1.6 argv[1] is a path under tunix/cli/ (an absolute path stays itself).
        if PurePosixPath(argument).is_absolute():
            text = _read(Path(argument))
            return None, text, argument
        bundled = argument if argument in pin.bases else None
        return bundled, None, f"tunix/cli/{argument} of the installed package"
    if argument == facts.get("base_in_package"):
        return argument, None, "the installed package"
    for folder in search:
        text = _read(folder / argument)
        if text is not None:
            return None, text, str(folder / argument)
    if name in pin.bases and argument.endswith(f"tunix/cli/{name}"):
        return name, None, argument  # a checkout of Tunix: the working directory's copy is the release's
    return None, None, " or ".join(str(folder / argument) for folder in search) or argument


def _read(path: Path) -> str | None:
    """The file's text; None where there is none to read (a file too large to read is refused)."""
    if not os.path.isfile(path):
        return None
    try:
        return read_text(path, CONFIG_FILE)
    except TooLarge:
        raise
    except Unreadable:  # not UTF-8, or gone since the look: Tunix cannot read it either
        return None


def _base(pin: TunixPin, bundled: str | None, text: str | None, label: str) -> tuple[dict[str, Any], dict[str, BaseKey]]:
    """The base values (nested) and keys (dotted, with lines)."""
    if bundled is not None:
        keys = pin.bases[bundled]
        return nested_defaults(keys), keys
    node, data = load_document(text or "", label, "Tunix")
    if not isinstance(data, dict):
        raise InputError(f"{label}: a Tunix base config must be a mapping of keys, not {type(data).__name__}")
    return data, _keys_with_lines(node, data)


def _keys_with_lines(node: Any, data: dict[str, Any]) -> dict[str, BaseKey]:
    """Each key of a YAML document at every depth, with its line (merged `<<` keys at the lines
    they were written on)."""
    keys: dict[str, BaseKey] = {}

    def walk(mapping: Any, values: dict, prefix: str) -> None:
        pairs = {}
        for key_node, value_node in mapping.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                for source in (value_node.value if value_node.id == "sequence" else [value_node]):
                    for inner_key, inner_value in source.value:
                        pairs.setdefault(inner_key.value, (inner_key, inner_value))
        for key_node, value_node in mapping.value:
            if key_node.tag != "tag:yaml.org,2002:merge":
                pairs[key_node.value] = (key_node, value_node)
        for name, (key_node, value_node) in pairs.items():
            value = values.get(name)
            dotted = prefix + str(name)
            keys[dotted] = BaseKey(dotted, value_kind(value), key_node.start_mark.line + 1, None if isinstance(value, dict) else value)
            if isinstance(value, dict) and value_node.id == "mapping":
                walk(value_node, value, f"{dotted}.")

    walk(node, data, "")
    return keys


def _base_origin(keys: dict[str, BaseKey], name: str, file: str, pin: TunixPin) -> Origin:
    """A base value's line: in the file argv[1] names (the pin's copy of the release's file when
    that is where it was found, at the same line)."""
    key = keys.get(name)
    line = key.line if key is not None else 1
    path = file.split(" (", 1)[0]
    return Origin("base", f"{file}:{line}", Location(path, line, 1, end_column=2))


def _origins_of(merged: Merged, key: str, value: Any, origin_of: Callable[[str], Origin]) -> None:
    merged.origins[key] = origin_of(key)
    if isinstance(value, dict):
        for name, inner in value.items():
            _origins_of(merged, f"{key}.{name}", inner, origin_of)


def _has(tree: dict, dotted: str) -> bool:
    node: Any = tree
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True


# ---- the override file ----


def _override_words(pin: TunixPin, path: str, argv: TunixArgv, at: int, report) -> list[tuple[str, Origin, bool]]:
    """The override file flattened as the release flattens it: `a.b.c=<str(value)>`, an empty
    mapping as `{}`, a null as the release writes it; each word at the file's line of its key."""
    text, shown = None, path
    for folder in argv.search or (Path("."),):
        text = _read(folder / path)
        if text is not None:
            shown = str(folder / path) if not Path(path).is_absolute() else path
            break
    if text is None:
        report(staged(built_in('FL203', (), argv.locations[at], variant='unreadable', path=path), STARTUP))
        return []
    try:
        node, data = load_document(text, shown, "Tunix")
    except InputError as err:
        report(staged(built_in('FL203', (), argv.locations[at], variant='invalid', path=path, reason=str(err)), STARTUP))
        return []
    if data is None:
        return []
    if not isinstance(data, dict):
        report(staged(built_in('FL203', (), argv.locations[at], variant='invalid', path=path, reason=f'a mapping of keys is expected, not {type(data).__name__}'), STARTUP))
        return []
    lines = _keys_with_lines(node, data)
    null = pin.merge.get("flattened_none") or "None"
    out = []

    def flatten(mapping: dict, parent: str) -> None:
        for key, value in mapping.items():
            name = f"{parent}.{key}" if parent else str(key)
            if isinstance(value, dict) and value:
                flatten(value, name)
                continue
            text = "{}" if isinstance(value, dict) else null if value is None else str(value)
            line = lines[name].line if name in lines else 1
            out.append((f"{name}={text}", Origin("override", f"{path}:{line}", Location(shown, line, 1, end_column=2)), False))

    flatten(data, "")
    return out


# ---- the dotlist ----


def _dotlist(words: list[tuple[str, Origin, bool]], env: dict[str, str], merged: Merged, report) -> tuple[dict, dict[str, Origin]]:
    """OmegaConf.from_cli(words) as a container: nested keys, the last of a key wins (mappings
    merge), each value typed as YAML; and the origin of every dotted key it sets."""
    tree: dict[str, Any] = {}
    origins: dict[str, Origin] = {}
    for word, origin, unknown in words:
        key, equals, raw = word.partition("=")
        if unknown and not equals:
            continue
        if unknown:
            merged.unknown.add(key)
            merged.unknown.add(key.split(".")[0])
            value: Any = raw
        elif not equals:
            value = None
        else:
            try:
                value = _yaml_value(raw)
            except ValueError as err:
                report(staged(built_in('FL206', (key,), origin.location, variant='yaml', key=key, text=raw, reason=str(err)), STARTUP))
                continue
            value = _interpolated(value, env, key, origin, merged, report)
        parts = key.split(".")
        node = tree
        for part in parts[:-1]:
            if not isinstance(node.get(part), dict):
                node[part] = {}
            node = node[part]
        if isinstance(value, dict) and isinstance(node.get(parts[-1]), dict):
            node[parts[-1]] = _merged_dicts(node[parts[-1]], value)
        else:
            node[parts[-1]] = value
        for end in range(1, len(parts) + 1):
            origins[".".join(parts[:end])] = origin
        _set_inner_origins(origins, key, value, origin)
    return tree, origins


def _set_inner_origins(origins: dict[str, Origin], key: str, value: Any, origin: Origin) -> None:
    if isinstance(value, dict):
        for name, inner in value.items():
            origins[f"{key}.{name}"] = origin
            _set_inner_origins(origins, f"{key}.{name}", inner, origin)


def _merged_dicts(old: dict, new: dict) -> dict:
    out = dict(old)
    for key, value in new.items():
        out[key] = _merged_dicts(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def _yaml_value(raw: str) -> Any:
    """A dotlist value as OmegaConf types it (YAML); ValueError with the reason when it is not YAML."""
    loaded, problem = _loaded(raw)
    if problem is not None:
        raise ValueError(problem)
    return copy.deepcopy(loaded) if isinstance(loaded, (dict, list)) else loaded


# A script's paths repeat the same words: each is read once (a copy of a mapping or list is handed
# out, since the merge builds on it).
@lru_cache(maxsize=4096)
def _loaded(raw: str) -> tuple[Any, str | None]:
    import yaml  # noqa: PLC0415 yaml: only when a Tunix command line is checked

    try:
        return yaml.load(raw, Loader=cli_loader()), None  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as err:
        return None, getattr(err, "problem", None) or str(err).splitlines()[0]


def _interpolated(value: Any, env: dict[str, str], key: str, origin: Origin, merged: Merged, report) -> Any:
    """`${oc.env:NAME}` (and `${oc.env:NAME,default}`) read from the environment, as OmegaConf
    resolves the container; another interpolation is not followed (its key is not judged)."""
    if not isinstance(value, str) or "${" not in value:
        return value
    missing = []

    def read(match: re.Match) -> str:
        name, default = match.group(1), match.group(2)
        if name in env:
            return env[name]
        if default is not None:
            return default.strip().strip("'\"")
        missing.append(name)
        return match.group(0)

    resolved = _INTERPOLATION.sub(read, value)
    if missing:
        report(staged(built_in('FL206', (key,), origin.location, variant='env', key=key, variable=missing[0]), STARTUP))
        return value
    if "${" in resolved:
        merged.unknown.update({key, key.split(".")[0]})
        merged.notes.append(f"{key}: the interpolation {value!r} is not followed: {key} is not judged")
        return value
    return _yaml_value(resolved) if resolved != value else value


# ---- typing a top-level value ----


def _typed(facts: dict, key: str, base: Any, proposal: Any, origin: Origin, report, from_env: bool) -> Any:
    """The value `_update_from_env_and_command_line` keeps for a top-level key: the proposal typed
    as the base value is, or _REFUSED (reported) where Tunix raises."""
    parsed = facts["parsed_types"]
    where = origin.location
    kind = value_kind(base)
    if facts.get("null_string_kept_empty"):
        proposal = _kept_empty(base, proposal, facts.get("null_string_nested", False))
    if kind == "null":
        accepts = facts.get("nullable_accepts")
        if proposal is None or (accepts is not None and value_kind(proposal) in accepts):
            return proposal
        report(staged(built_in('FL206', (key,), where, variant='nullable', key=key, value=proposal, kind=value_kind(proposal)), STARTUP))
        return _REFUSED
    if kind not in parsed:
        if _same_type(proposal, base):
            return proposal
        report(staged(built_in('FL206', (key,), where, variant='unparsed', key=key, value=proposal, kind=kind), STARTUP))
        return _REFUSED
    if proposal is None:
        return None
    if _same_type(proposal, base):
        return proposal
    try:
        value = _PARSERS[kind](proposal)
    except (ValueError, TypeError, AttributeError, OverflowError) as err:  # int(inf), float() of a huge int: Tunix stops
        report(staged(built_in('FL206', (key,), where, key=key, value=proposal, kind=kind, reason=_reason(err)), STARTUP))
        return _REFUSED
    if not _equal_value(value, proposal):
        report(staged(built_in('FL207', (key,), where, variant='typed', key=key, value=proposal, typed=value, kind=kind), NEVER_CHECKED))
    return value


def _kept_empty(base: Any, proposal: Any, nested: bool) -> Any:
    """An empty override (`key=`, which the dotlist reads as null) of a string key kept as '' (from
    0.1.6's `_normalize_cli_override`; in a section, key by key, where the release recurses)."""
    if proposal is None and isinstance(base, str):
        return ""
    if nested and isinstance(base, dict) and isinstance(proposal, dict):
        return {key: _kept_empty(base.get(key), value, nested) for key, value in proposal.items()}
    return proposal


def _same_type(value: Any, base: Any) -> bool:
    """isinstance(value, type(base)), the base's mapping and list as OmegaConf's containers: a dict
    or a list from the command line is never one of those."""
    if isinstance(base, (dict, list)):
        return False
    return isinstance(value, type(base))


def _string_to_bool(value: Any) -> bool:
    lowered = value.lower()
    if lowered == "true":
        return True
    if lowered == "false":
        return False
    raise ValueError(f"{value!r} is neither true nor false")


_PARSERS: dict[str, Callable[[Any], Any]] = {"str": str, "int": int, "float": float, "bool": _string_to_bool, "dict": dict, "list": list}


def _equal_value(typed: Any, given: Any) -> bool:
    return type(typed) is type(given) and typed == given or (isinstance(given, str) and str(typed) == given)


def _reason(err: Exception) -> str:
    text = str(err).splitlines()[0] if str(err) else type(err).__name__
    return text


# ---- merging a section ----


def _update_dict(base: dict, source: dict, replaced: set[str], prefix: str, origin_of, report) -> dict:
    """Tunix's update_dict: mappings merge, a replaced section's value is taken whole, and a
    replaced section of the base that the source leaves out is dropped."""
    output = copy.deepcopy(base)
    for key, value in source.items():
        if key in replaced:
            output[key] = copy.deepcopy(value)
            if isinstance(base.get(key), dict) and isinstance(value, dict):
                _report_replaced(f"{prefix}.{key}", base[key], value, origin_of(f"{prefix}.{key}"), report)
        elif isinstance(value, dict) and isinstance(output.get(key), dict):
            output[key] = _update_dict(output[key], value, replaced, f"{prefix}.{key}", origin_of, report)
        else:
            output[key] = copy.deepcopy(value)
    for key in sorted(replaced):
        if key in output and key not in source:
            if output[key]:
                report(staged(built_in('FL211', (f'{prefix}.{key}',), origin_of(prefix).location, variant='dropped', key=f'{prefix}.{key}', section=prefix), NEVER_CHECKED))
            del output[key]
    return output


def _report_replaced(key: str, base: dict, value: dict, origin: Origin, report) -> None:
    lost = sorted(k for k in base if k not in value)
    if lost:
        report(staged(built_in('FL211', (key,), origin.location, key=key, lost=', '.join(lost[:6]) + (' …' if len(lost) > 6 else '')), NEVER_CHECKED))
def _inherit(facts: dict, merged: Merged, base_values: dict) -> None:
    source = facts.get("inherit_from")
    if not source:
        return
    current = merged.config.get(source)
    base_source = base_values.get(source) or {}
    if not isinstance(current, dict):
        return
    for role in facts.get("inherited_roles", ()):
        section = merged.config.get(role)
        if not isinstance(section, dict):
            continue
        for key, value in current.items():
            if key not in section or section[key] == base_source.get(key):
                if key in section and section[key] == value:
                    continue  # the same value: it keeps its own origin
                section[key] = copy.deepcopy(value)
                _origins_of(merged, f"{role}.{key}", value, lambda name, role=role: _inherited(merged, source + name[len(role):]))


def _inherited(merged: Merged, name: str) -> Origin:
    """A role's value taken from model_config: where model_config's was set."""
    origin = merged.origins.get(name)
    return Origin("inherited", f"{name}" + (f" ({origin.label})" if origin else ""), origin.location if origin else None)


def close_keys(key: str, known: dict | list) -> list[str]:
    """The keys of `known` a misspelt `key` may mean, nearest first (at most three)."""
    import difflib  # noqa: PLC0415 difflib: only for a did-you-mean

    return difflib.get_close_matches(key, list(known), n=3, cutoff=0.75)


def literal(text: Any) -> Any:
    """A mesh string as Python's ast.literal_eval reads it (a literal only: nothing is run);
    ValueError when it is not one."""
    if not isinstance(text, str):
        raise ValueError(f"{text!r} is not a string")
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError) as err:
        message = str(err).splitlines()[0] if str(err) else type(err).__name__
        # Python names the node it refused by its address: the same input must give the same text
        raise ValueError(re.sub(r"<ast\.(\w+) object at 0x[0-9a-fA-F]+>", r"\1", message)) from None
