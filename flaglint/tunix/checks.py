"""A Tunix command line checked at a Tunix pin: the merge (merge.py), then what Tunix checks of the
merged config and when.

- start-up: HyperParameters' validators (the pin's rules with stage `start-up`): before any
  tokenizer, data or model is downloaded;
- after downloads: the builders the entry point hands a section to (`GRPOConfig(**grpo_config)`):
  a key that is not a field, a required field left out, and their `__post_init__` rules (the
  pin's rules with stage `after downloads`); the mesh of each model role as the release parses it;
- never checked: a nested key the base file does not define in a section no builder reads, a
  nested value of another type than the base's (Tunix types only top-level values).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

from flaglint.core.findings import Finding
from flaglint.core.location import Location
from flaglint.rules.expr import Incomparable, Unknown, evaluate
from flaglint.rules.ruleset import Rule, built_in
from flaglint.tunix.data_steps import check_data_steps
from flaglint.tunix.merge import (
    AFTER_DOWNLOADS,
    NEVER_CHECKED,
    STARTUP,
    Merged,
    Origin,
    TunixArgv,
    literal,
    merge,
    staged,
)
from flaglint.tunix.mesh_owners import check_mesh_owners
from flaglint.tunix.optimizer import check_optimizers
from flaglint.tunix.pins import PROGRAM, Builder, TunixPin, takes_kind, value_kind

DEFAULT_ENTRY = "grpo_main"
STAGE_TEXT = {STARTUP: "at start-up, before any download", AFTER_DOWNLOADS: "after the tokenizer, data and model are downloaded"}
# The sub-section of a model config the base YAML names for MaxText's own keys (from 0.1.7).
PASSED_THROUGH = "kwargs"
# The model sections each entry point builds a mesh for (grpo: every role; peft: the one model).
MESH_SECTIONS = {"grpo_main": ("actor_model_config", "reference_model_config", "rollout_model_config"),
                 "peft_main": ("model_config",)}


@dataclass
class TunixCheck:
    merged: Merged
    findings: list[Finding]
    entry: str


def check_tunix(pin: TunixPin, argv: TunixArgv, entry: str | None, allow_unverified: bool = False) -> TunixCheck:
    """Every finding on the command line. `entry`: the module's last part (grpo_main); None: not
    known, checked as grpo_main. A raise of the release that may be reached and that flaglint
    cannot state as a rule is FL011 (a warning with `allow_unverified`)."""
    entry = entry or DEFAULT_ENTRY
    merged = merge(pin, argv)
    findings = list(merged.findings)
    if merged.stopped:
        return TunixCheck(merged, findings, entry)
    builders = pin.entries.get(entry, ())
    lookup = _lookup(merged, argv, builders)
    ruled, stopped = _rules(pin, merged, lookup, builders)
    optimizers = check_optimizers(pin, merged, entry)
    stopped |= {f.keys[0] for f in optimizers}
    # a nested value a check stops on is not also one Tunix "never types"
    findings += [f for f in _nested(merged, builders, pin.read_keys, pin.filtered.get(entry, {})) if not set(f.keys[:1]) & stopped]
    findings += _not_passed(pin, merged, entry)
    findings += ruled
    findings += _unverified(pin, merged, lookup, builders, allow_unverified)
    findings += _builders(merged, builders)
    findings += _meshes(pin, merged, entry, argv.devices)
    findings += check_mesh_owners(pin, merged, entry)
    findings += optimizers
    steps, notes = check_data_steps(pin, merged, entry)
    findings += steps
    merged.notes.extend(notes)
    return TunixCheck(merged, _unique(findings), entry)


def _unique(findings: list[Finding]) -> list[Finding]:
    seen, out = set(), []
    for finding in findings:
        key = (finding.rule, finding.location, finding.message)
        if key not in seen:
            seen.add(key)
            out.append(finding)
    return out


# ---- never checked: nested keys and values ----


def _nested(merged: Merged, builders: tuple[Builder, ...], read_keys: frozenset[str],
            filtered: dict[str, frozenset[str]]) -> list[Finding]:
    """Nested keys the base does not define and tunix/cli's code does not read by name, in a section
    no builder of the entry reads field by field (those are the builders' own findings); in a
    section the entry filters by a class's fields, the keys that are no field (dropped without a
    word); and nested values of another type."""
    base = merged.base or {}
    read = {b.section for b in builders}
    # every section of the base with keys under it, at any depth
    parents = {".".join(parts[:end]) for parts in (key.split(".") for key in base) for end in range(1, len(parts))}
    out = []
    for key, origin in sorted(merged.origins.items()):
        if "." not in key or origin.kind not in ("word", "override", "env") or _under_unknown(key, merged):
            continue
        parent = key.rsplit(".", 1)[0]
        section = key.split(".")[0]
        if section in filtered and parent == section:
            if key.rsplit(".", 1)[1] not in filtered[section] and key not in base:
                out.append(staged(built_in("FL208", (key,), origin.location, key=key, close=', '.join(close_siblings(key, base)), section=parent),
                                  NEVER_CHECKED))
            continue
        if key not in base:
            parent_key = base.get(parent)
            free = parent_key is None or parent_key.type != "dict" or parent not in parents
            if not free and section not in read and key.rsplit(".", 1)[1] not in read_keys and _known_parent(parent, merged):
                out.append(staged(built_in('FL208', (key,), origin.location, key=key, close=', '.join(close_siblings(key, base)), section=parent), NEVER_CHECKED))
            continue
        expected = base[key].type
        try:
            value = merged.value(key)
        except KeyError:
            continue
        actual = value_kind(value)
        if not takes_kind(expected, actual):
            out.append(staged(built_in('FL209', (key,), origin.location, key=key, value=value, kind=expected, actual=actual), NEVER_CHECKED))
    return out


def _not_passed(pin: TunixPin, merged: Merged, entry: str) -> list[Finding]:
    """Keys under a model section's `kwargs` (where MaxText keys are meant to go, the base config
    says) that the entry point's model builder never reads."""
    facts = pin.maxtext_model
    if not facts or PASSED_THROUGH in facts.get("reads", ()):
        return []
    out = []
    for section in facts.get("sections", {}).get(entry, ()):
        prefix = f"{section}.{PASSED_THROUGH}."
        for key, origin in sorted(merged.origins.items()):
            if key.startswith(prefix) and "." not in key[len(prefix):] and origin.kind in ("word", "override", "env", "inherited"):
                out.append(staged(built_in("FL208", (key,), origin.location, variant="not_passed", key=key, section=section,
                                           version=pin.version), NEVER_CHECKED))
    return out


def _known_parent(parent: str, merged: Merged) -> bool:
    try:
        return isinstance(merged.value(parent), dict)
    except KeyError:
        return False


def _under_unknown(key: str, merged: Merged) -> bool:
    parts = key.split(".")
    return any(".".join(parts[:end]) in merged.unknown for end in range(1, len(parts) + 1))


def close_siblings(key: str, base: dict) -> list[str]:
    """The keys of the same section of the base a misspelt nested `key` may mean, nearest first."""
    import difflib  # noqa: PLC0415 difflib: only for a did-you-mean

    parent, _, name = key.rpartition(".")
    siblings = [k.rsplit(".", 1)[1] for k in base if k.startswith(f"{parent}.") and k.count(".") == key.count(".")]
    return [f"{parent}.{n}" for n in difflib.get_close_matches(name, siblings, n=3, cutoff=0.6)]


# ---- the pin's rules ----


def _lookup(merged: Merged, argv: TunixArgv, builders: tuple[Builder, ...]) -> Callable[[str], Any]:
    defaults = {f"{b.section}.{name}": spec["default"] for b in builders for name, spec in b.fields.items() if "default" in spec}

    def lookup(name: str) -> Any:
        if name == PROGRAM:
            if argv.program is None:
                raise Unknown("the program's path")
            return argv.program
        if _under_unknown(name, merged):
            raise Unknown(name)
        if "." not in name and name not in merged.config:
            return argv.env.get(name)  # a variable of the environment (HF_TOKEN)
        try:
            return merged.value(name)
        except KeyError:
            return defaults.get(name)

    return lookup


def _rules(pin: TunixPin, merged: Merged, lookup: Callable[[str], Any], builders: tuple[Builder, ...]) -> tuple[list[Finding], set[str]]:
    """The pin's rules; a builder's (after downloads) only where the entry point builds its section.
    With them the keys whose value a check could not use (FL217: the run stops at the first such
    check, so a key is reported once)."""
    built = {b.section for b in builders}
    out, stopped = [], set()
    for rule in pin.rules:
        if rule.stage == AFTER_DOWNLOADS and not {n.split(".")[0] for n in rule.names} <= built:
            continue
        try:
            if rule.when is not None and not evaluate(rule.when, lookup):
                continue
            if evaluate(rule.require, lookup):
                continue
        except Incomparable as err:
            # a value of another type than the check compares (`grpo_config.num_generations=two`
            # against 1): Python raises there as flaglint's evaluation of the same test does
            raised = _raised_finding(rule, merged, lookup, err)
            if raised.keys[0] not in stopped:
                stopped.add(raised.keys[0])
                out.append(raised)
            continue
        except (Unknown, TypeError, ValueError, AttributeError):
            continue
        out.append(_rule_finding(rule, merged, lookup))
    return out, stopped


def _raised_finding(rule: Rule, merged: Merged, lookup: Callable[[str], Any], err: Incomparable) -> Finding:
    """FL217 at the value the check could not use (the first of the rule's names that holds it)."""
    names = [n for n in dict.fromkeys([*(rule.when.names() if rule.when is not None else []), *rule.require.names()])
             if n != PROGRAM]
    key = next((n for n in names if _holds(lookup, n, err.value)), names[0] if names else "")
    origin = merged.origin(key)
    finding = built_in("FL217", (key,), origin.location if origin is not None else None, key=key, value=err.value,
                       kind=value_kind(err.value), error=err.error, check=rule.id, source=rule.source,
                       stage=STAGE_TEXT.get(rule.stage, rule.stage))
    return staged(finding, rule.stage)


def _holds(lookup: Callable[[str], Any], name: str, value: Any) -> bool:
    try:
        found = lookup(name)
    except Unknown:
        return False
    return type(found) is type(value) and found == value


def _unverified(pin: TunixPin, merged: Merged, lookup: Callable[[str], Any], builders: tuple[Builder, ...],
                allow_unverified: bool) -> list[Finding]:
    """FL011 for each raise flaglint cannot state whose known conditions hold (or cannot be told)."""
    built = {b.section for b in builders}
    out = []
    for site in pin.unexpressible:
        names = site.when.names() if site.when is not None else []
        if site.stage == AFTER_DOWNLOADS and not {n.split(".")[0] for n in names} <= built:
            continue
        try:
            if site.when is not None and not evaluate(site.when, lookup):
                continue
        except (TypeError, ValueError, AttributeError):
            continue
        except Unknown:
            pass
        origin = next((o for n in names if (o := merged.origin(n)) is not None and o.location), None)
        out.append(built_in("FL011", tuple(n for n in names if n != PROGRAM), origin.location if origin else None,
                            allow_unverified=allow_unverified,
                            reason=f"Tunix {pin.version} may stop here {site.stage} in a way flaglint cannot follow "
                                   f"({site.site}: {site.reason})"))
    return out


def _rule_finding(rule: Rule, merged: Merged, lookup: Callable[[str], Any]) -> Finding:
    """At the word (or line) that set the value the rule refuses: its `require` names first."""
    required = rule.require.names() if rule.require is not None else []
    names = [n for n in dict.fromkeys([*required, *rule.names]) if n != PROGRAM]
    origins = [(n, merged.origin(n)) for n in names]
    given = [o for _, o in origins if o is not None and o.kind in ("word", "override", "env", "inherited") and o.location]
    placed = given or [o for _, o in origins if o is not None and o.location]
    values = []
    for name in rule.names:
        try:
            values.append(f"{name}={lookup(name)!r}")
        except Unknown:
            continue
    message = f"{rule.message} [{', '.join(values)}]" if values else rule.message
    location = placed[0].location if placed else None
    related = tuple(o.location for o in placed[1:] if o.location != location)
    return Finding(rule.id, rule.severity, message, tuple(names), location, related, stage=rule.stage)


# ---- after downloads: the builders ----


def _builders(merged: Merged, builders: tuple[Builder, ...]) -> list[Finding]:
    out = []
    for builder in builders:
        section = merged.config.get(builder.section)
        if not isinstance(section, dict) or _under_unknown(builder.section, merged):
            continue
        section_origin = merged.origin(builder.section)
        given = {k for k in section if builder.via != "training" or builder.passed(k)}
        for key in sorted(given - builder.fields.keys()):
            where = merged.origin(f"{builder.section}.{key}") or section_origin
            out.append(staged(built_in('FL210', (f'{builder.section}.{key}',), where.location if where else None, key=f'{builder.section}.{key}', cls=builder.cls, fields=_field_list(builder.fields)), AFTER_DOWNLOADS))
        for name, spec in builder.fields.items():
            added = name in builder.added and (builder.added[name] is None or bool(section.get(builder.added[name])))
            if spec.get("required") and name not in given and not added:
                out.append(staged(built_in('FL210', (f'{builder.section}.{name}',), section_origin.location if section_origin else None, variant='required', key=f'{builder.section}.{name}', cls=builder.cls), AFTER_DOWNLOADS))
        for key, option in builder.options.items():
            value = section.get(key)
            fields = option.get("fields")
            if not isinstance(value, dict) or not value or fields is None:
                continue
            for inner in sorted(value.keys() - fields.keys()):
                name = f"{builder.section}.{key}.{inner}"
                where = merged.origin(name) or section_origin
                out.append(staged(built_in('FL210', (name,), where.location if where else None, key=name, cls=str(option.get('class')).rsplit('.', 1)[-1], fields=_field_list(fields)), AFTER_DOWNLOADS))
    return out


def _field_list(fields: dict) -> str:
    names = sorted(fields)
    return ", ".join(names[:12]) + (" …" if len(names) > 12 else "")


# ---- after downloads: the meshes ----


def _meshes(pin: TunixPin, merged: Merged, entry: str, devices: tuple[int, str] | None) -> list[Finding]:
    """Each model role's mesh as the release parses it (mesh.shape and mesh.axis_names are Python
    literals: a tuple of ints and a tuple of strings of one length), and against the devices, when
    they are known: before 0.1.7 each mesh must fit in them; 0.1.7 carves the roles' own meshes
    out of them, so together they must fit."""
    if not pin.mesh.get("parser"):
        return []
    out = []
    sizes: list[tuple[str, int, Location | None]] = []
    sections = MESH_SECTIONS.get(entry, ())
    for section in sections:
        config = merged.config.get(section)
        if not isinstance(config, dict) or _under_unknown(f"{section}.mesh", merged):
            continue
        mesh = config.get("mesh")
        origin = merged.origin(f"{section}.mesh")
        if pin.meshes.get(entry) == "roles with a mesh" and section != sections[0] and not mesh:
            continue  # shares another role's mesh
        if not isinstance(mesh, dict) or not mesh:
            out.append(staged(built_in('FL212', (f'{section}.mesh',), _at(origin), variant='missing', section=section), AFTER_DOWNLOADS))
            continue
        parsed = {}
        for part, kind in (("shape", int), ("axis_names", str)):
            key = f"{section}.mesh.{part}"
            if _under_unknown(key, merged):
                break
            where = _at(merged.origin(key) or origin)
            text = mesh.get(part)
            if not text:
                out.append(staged(built_in('FL212', (key,), where, variant='missing_part', key=key), AFTER_DOWNLOADS))
                break
            try:
                value = literal(text)
            except ValueError as err:
                out.append(staged(built_in('FL212', (key,), where, variant='unreadable', key=key, value=text, reason=str(err)), AFTER_DOWNLOADS))
                break
            if not isinstance(value, tuple) or not all(isinstance(v, kind) and not isinstance(v, bool) or kind is str and isinstance(v, str)
                                                       for v in value):
                out.append(staged(built_in('FL212', (key,), where, variant='shape' if kind is int else 'names', key=key, value=text), AFTER_DOWNLOADS))
                break
            parsed[part] = (value, where)
        if len(parsed) == 2 and len(parsed["shape"][0]) != len(parsed["axis_names"][0]):
            out.append(staged(built_in('FL212', (f'{section}.mesh.shape', f'{section}.mesh.axis_names'), parsed['shape'][1], (parsed['axis_names'][1],) if parsed['axis_names'][1] else (), variant='lengths', section=section, shape=mesh.get('shape'), names=mesh.get('axis_names')), AFTER_DOWNLOADS))
        elif len(parsed) == 2:
            sizes.append((section, math.prod(parsed["shape"][0]), parsed["shape"][1]))
    return out + _on_devices(pin, entry, sizes, devices)


def matching_shape(shape: Any, names: Any) -> str | None:
    """A mesh shape written with as many axes as the axis names, its 1s dropped or 1s added at its
    end (the devices it takes stay the same); None where that cannot be done."""
    try:
        sizes, axes = literal(shape), literal(names)
    except ValueError:
        return None
    if not isinstance(sizes, tuple) or not isinstance(axes, tuple) or not all(type(n) is int for n in sizes):
        return None
    if len(sizes) > len(axes):
        extra = len(sizes) - len(axes)
        ones = [i for i, n in enumerate(sizes) if n == 1][-extra:] if extra <= sizes.count(1) else None
        if ones is None:
            return None
        sizes = tuple(n for i, n in enumerate(sizes) if i not in ones)
    else:
        sizes = sizes + (1,) * (len(axes) - len(sizes))
    if not sizes:
        return None
    return f"({','.join(map(str, sizes))}{',' if len(sizes) == 1 else ''})"


def _on_devices(pin: TunixPin, entry: str, sizes: list[tuple[str, int, Location | None]],
                devices: tuple[int, str] | None) -> list[Finding]:
    if devices is None or not sizes:
        return []
    count, source = devices
    if pin.meshes.get(entry) == "roles with a mesh":
        total = sum(size for _, size, _ in sizes)
        if total <= count:
            return []
        where = [at for _, _, at in sizes if at is not None]
        return [staged(built_in("FL214", tuple(f"{s}.mesh.shape" for s, _, _ in sizes), where[0] if where else None, tuple(where[1:]),
                                variant="together", meshes=", ".join(f"{s} {n}" for s, n, _ in sizes), total=total, devices=count,
                                source=source), AFTER_DOWNLOADS)]
    if not pin.mesh.get("checks_device_count"):
        return []
    return [staged(built_in("FL214", (f"{section}.mesh.shape",), at, section=section, size=size, devices=count, source=source),
                   AFTER_DOWNLOADS) for section, size, at in sizes if size > count]


def _at(origin: Origin | None) -> Location | None:
    return origin.location if origin is not None else None
