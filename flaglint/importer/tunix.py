"""`flaglint schema import` of a Tunix source tree: its configuration as a Tunix pin.

Read with `ast` and a YAML parser, never imported or run:
- the base YAMLs of `tunix/cli/` (`base_config.yaml`, `base_agentic_config.yaml`), every key at
  every depth with its default, its type and its line;
- how `HyperParameters` (tunix/cli/config.py) merges the command line into them: the prefix of
  its environment variables, how argv[1] is found, the override file's word and how it writes a
  null, the sections an override replaces, the roles that inherit `model_config`, the types it
  parses a value into, whether a null becomes '' for a string key;
- its start-up validators (the methods `__init__` calls after the merge), each raise a rule;
- the builders each entry point (`tunix/cli/*_main.py`) hands a section to (`GRPOConfig(**...)`):
  their fields, required or with a default, and the raises of their `__post_init__` as rules;
- which mesh parser the release has.

Each rule has an id (`TX` and five characters, the same for the same check at every release:
docs/rule-ids.md), the stage at which Tunix refuses it (start-up: before any
download; after downloads: the builders, once the tokenizer, data and model are fetched) and
the file and line it comes from. Messages are flaglint's own words, never Tunix's.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flaglint.core.findings import InputError
from flaglint.core.gitrefs import checkout_commit
from flaglint.core.omegaconf_yaml import load_document
from flaglint.core.reading import SOURCE_FILE, read_file, read_text
from flaglint.importer.symbolic import conj, neg
from flaglint.importer.tunix_checks import (
    Argv,
    Config,
    Function,
    Instance,
    Module,
    Site,
    SourceTree,
    Walker,
)
from flaglint.importer.tunix_maxtext import maxtext_model
from flaglint.importer.validators import stable_rule_id
from flaglint.rules.expr import ExprError, parse
from flaglint.tunix.pins import value_kind

CONFIG = "tunix/cli/config.py"
CLI = "tunix/cli"
MESH_LIBRARY = "tunix/utils/mesh.py"
HYPERPARAMETERS = "HyperParameters"
# HyperParameters' own merge, which flaglint models in code (flaglint/tunix/merge.py): its raises
# are the merge's findings, not rules.
MERGE_METHODS = {"_load_config_from_yaml", "_validate_env_variable", "_update_from_env_and_command_line", "update_dict"}
STARTUP = "start-up"
AFTER_DOWNLOADS = "after downloads"
NEVER_CHECKED = "never checked"
STAGES = (STARTUP, AFTER_DOWNLOADS, NEVER_CHECKED)
TUNIX_ID_PREFIX = "TX"
_PARSER_KINDS = {"str": "str", "int": "int", "float": "float", "bool": "bool", "DictConfig": "dict", "ListConfig": "list"}


class TreeFiles:
    """The files of a Tunix source tree, by posix path relative to its root (the folder holding
    `tunix/`); a module outside `tunix/` (orbax's `CheckpointManagerOptions`, which Tunix hands a
    section to) is looked for in the DEPENDENCIES folders too (a site-packages of the releases the
    Tunix release installs with)."""

    def __init__(self, path: str | Path, dependencies: tuple[Path, ...] = ()):
        self.dependencies = dependencies
        given = Path(path)
        if (given / CONFIG).is_file():
            self.root = given
        elif (given / "cli" / "config.py").is_file() and given.name == "tunix":
            self.root = given.parent
        else:
            raise InputError(f"{path}: not a Tunix source tree with {CONFIG} (Tunix before 0.1.0 has no tunix.cli; "
                             "give the folder that holds tunix/)")
        self.origin = given

    def _root_of(self, relpath: str) -> Path:
        if (self.root / relpath).is_file() or relpath.startswith("tunix/"):
            return self.root
        return next((folder for folder in self.dependencies if (folder / relpath).is_file()), self.root)

    def exists(self, relpath: str) -> bool:
        return (self._root_of(relpath) / relpath).is_file()

    def read(self, relpath: str) -> str:
        root = self._root_of(relpath)
        return read_text(root / relpath, SOURCE_FILE, within=root)

    def parse(self, relpath: str) -> ast.Module:
        try:
            return ast.parse(self.read(relpath), filename=relpath)
        except SyntaxError as err:
            raise InputError(f"{self.origin}: {relpath}:{err.lineno}: cannot parse: {err.msg}") from None

    def glob(self, folder: str, pattern: str) -> list[str]:
        return sorted(str(p.relative_to(self.root).as_posix()) for p in (self.root / folder).glob(pattern) if p.is_file())


@dataclass
class TunixImport:
    """What `import_tunix` read: the pin's data (schemas/tunix-<version>.json) and its rules
    (rules/tunix/<version>/rules.yml)."""

    data: dict[str, Any]
    rules: list[dict[str, Any]]
    unexpressible: list[dict[str, Any]]

    @property
    def version(self) -> str:
        return self.data["version"]


def import_tunix(path: str | Path, commit: str | None = None, dependencies: tuple[Path, ...] = ()) -> TunixImport:
    """The Tunix pin of the source tree at PATH (a checkout of google/tunix at a tag or commit);
    DEPENDENCIES: folders holding the packages it hands sections to (orbax), else their classes'
    fields are not known."""
    files = TreeFiles(path, dependencies)
    tree = SourceTree(files)
    config = tree.module(CONFIG)
    if HYPERPARAMETERS not in config.classes:
        raise InputError(f"{files.origin}: {CONFIG} defines no class {HYPERPARAMETERS}")
    version = _version(files)
    commit = commit or checkout_commit(files.root / "tunix")
    bases = {Path(relpath).name: _base_keys(files, relpath) for relpath in files.glob(CLI, "base*.yaml")}
    if not bases:
        raise InputError(f"{files.origin}: no base YAML in {CLI}/ (base_config.yaml); the wheels ship none: import a source tree")
    entries = {Path(relpath).stem: _entry(tree, relpath) for relpath in files.glob(CLI, "*_main.py")}
    data = {
        "version": version,
        "source": f"tunix {version}" + (f" at {commit[:9]}" if commit else ""),
        "commit": commit,
        "bases": bases,
        "merge": _merge_facts(config),
        "entries": entries,
        "mesh": _mesh_facts(tree, config),
        "optimizer": _optimizer_facts(config),
        "read_keys": _read_keys(files),
    }
    maxtext = maxtext_model(tree, sorted(entries))
    if maxtext is not None:
        data["maxtext_model"] = maxtext
    sites = _startup_sites(config) + _builder_sites(tree, entries)
    rules, unexpressible = _rules(sites, version)
    return TunixImport(data, rules, unexpressible)


def write_tunix(imported: TunixImport, schema_path: str | Path | None, rules_dir: str | Path | None) -> None:
    """The pin's data as stable JSON and its rules as YAML (rules.yml, unexpressible.yml); either may be left out (None)."""
    import yaml  # noqa: PLC0415 yaml: only when writing rules

    header = f"# Generated by `flaglint schema import` from tunix {imported.version}; do not edit.\n"
    try:
        if schema_path is not None:
            Path(schema_path).parent.mkdir(parents=True, exist_ok=True)
            Path(schema_path).write_text(json.dumps(imported.data, indent=1) + "\n", encoding="utf-8")
        if rules_dir is None:
            return
        rules_dir = Path(rules_dir)
        rules_dir.mkdir(parents=True, exist_ok=True)
        (rules_dir / "rules.yml").write_text(
            header + yaml.safe_dump({"rules": imported.rules}, sort_keys=False, width=120, allow_unicode=True), encoding="utf-8")
        (rules_dir / "unexpressible.yml").write_text(
            header + yaml.safe_dump({"rules": [], "unexpressible": imported.unexpressible}, sort_keys=False, width=120,
                                    allow_unicode=True), encoding="utf-8")
    except OSError as err:
        raise InputError(f"cannot write the Tunix pin: {err.strerror or err}") from None


def tunix_summary(imported: TunixImport) -> str:
    data = imported.data
    lines = []
    for name, keys in data["bases"].items():
        top = sum(1 for key in keys if "." not in key)
        lines.append(f"tunix {imported.version}: {name}: {top} top-level keys (+{len(keys) - top} nested)")
    stages = {stage: sum(1 for r in imported.rules if r["stage"] == stage) for stage in STAGES}
    lines.append(f"  rules: {len(imported.rules)} ({', '.join(f'{n} {s}' for s, n in stages.items() if n)}), "
                 f"{len(imported.unexpressible)} raises not expressible")
    for entry, facts in data["entries"].items():
        builders = ", ".join(f"{b['section']} -> {b['class']}" for b in facts["builders"])
        lines.append(f"  {entry}: {builders or 'no builder read'}")
    return "\n".join(lines)


def is_tunix_tree(path: str | Path) -> bool:
    given = Path(path)
    return (given / CONFIG).is_file() or (given.name == "tunix" and (given / "cli" / "config.py").is_file())


# ---- the base YAMLs ----


def _base_keys(files: TreeFiles, relpath: str) -> dict[str, dict[str, Any]]:
    """Every key of a base YAML, nested ones as `a.b.c`, in file order: its type, its default (a
    scalar's, a list's; a mapping's keys are listed after it) and its line."""
    import yaml  # noqa: PLC0415 yaml: only when a base YAML is imported

    node, data = load_document(files.read(relpath), relpath, "Tunix")
    if not isinstance(data, dict):
        raise InputError(f"{files.origin}: {relpath}: a base config must be a mapping of keys, not {type(data).__name__}")
    keys: dict[str, dict[str, Any]] = {}

    def walk(mapping: yaml.MappingNode, values: dict, prefix: str) -> None:
        for key_node, _ in _flattened(mapping):
            key = str(key_node.value)
            value = values[key_node.value] if key_node.value in values else values.get(key)
            name = prefix + key
            entry: dict[str, Any] = {"type": value_kind(value), "line": key_node.start_mark.line + 1}
            if not isinstance(value, dict):
                entry["default"] = value
            keys[name] = entry
            child = dict(_flattened(mapping)).get(key_node)
            if isinstance(value, dict) and isinstance(child, yaml.MappingNode):
                walk(child, value, f"{name}.")

    walk(node, data, "")
    return keys


def _flattened(mapping: Any) -> list:
    """The (key, value) node pairs of a mapping, `<<` merges resolved as YAML does (the mapping's
    own keys win; merged keys keep the lines they were written on)."""
    own = [(k, v) for k, v in mapping.value if k.tag != "tag:yaml.org,2002:merge"]
    merged = []
    for key, value in mapping.value:
        if key.tag == "tag:yaml.org,2002:merge":
            sources = value.value if value.id == "sequence" else [value]
            for source in sources:
                merged.extend(_flattened(source))
    names = {k.value for k, _ in own}
    seen: set = set()
    out = []
    for key, value in merged:
        if key.value not in names and key.value not in seen:
            seen.add(key.value)
            out.append((key, value))
    return out + own


def _version(files: TreeFiles) -> str:
    pyproject = files.root / "pyproject.toml"
    if pyproject.is_file():
        match = re.search(r'^version\s*=\s*"([^"]+)"', read_file(pyproject, SOURCE_FILE, within=files.root).decode("utf-8", "replace"), re.M)
        if match:
            return match.group(1)
    return "unknown"


# ---- the merge ----


def _merge_facts(config: Module) -> dict[str, Any]:
    cls = config.classes[HYPERPARAMETERS]
    init = _method(cls, "__init__")
    if init is None or _method(cls, "_update_from_env_and_command_line") is None:
        raise InputError(f"{config.tree.files.origin}: {CONFIG}: {HYPERPARAMETERS} has no merge flaglint can read "
                         "(__init__, _update_from_env_and_command_line)")
    init_text = ast.unparse(init)
    facts: dict[str, Any] = {
        "env_prefix": _env_prefix(config),
        "argv_check": "len(argv) < 2" in init_text,
        "base_in_package": _compared_with(init, "argv[1]"),
        "base_relative_to_package": "pathlib.Path(__file__).parent" in ast.unparse(_method(cls, "_load_config_from_yaml") or init),
        "override_file": _override_word(init),
        "flattened_none": _flattened_none(config),
        "replaced_sections": _replace_keys(init),
        "parsed_types": _parsed_types(config),
        "null_string_kept_empty": "_normalize_cli_override" in config.functions,
        "null_string_nested": _recursive(config.functions.get("_normalize_cli_override")),
        "nullable_accepts": _nullable_kinds(config),
    }
    facts.update(_inheritance(init))
    return facts


def _recursive(function: ast.FunctionDef | None) -> bool:
    """Whether a function calls itself (0.1.7's `_normalize_cli_override` keeps an empty string
    for a string key at every depth of a section, not only at the top)."""
    return function is not None and any(isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                                        and node.func.id == function.name for node in ast.walk(function))


def _method(cls: ast.ClassDef, name: str) -> ast.FunctionDef | None:
    return next((s for s in cls.body if isinstance(s, ast.FunctionDef) and s.name == name), None)


def _env_prefix(config: Module) -> str:
    function = config.functions.get("yaml_key_to_env_key")
    for node in ast.walk(function) if function else ():
        if isinstance(node, ast.BinOp) and isinstance(node.left, ast.Name) and node.left.id in config.constants:
            prefix = config.constants[node.left.id]
            if isinstance(prefix, ast.Constant) and isinstance(prefix.value, str):
                return prefix.value
    raise InputError(f"{config.tree.files.origin}: {CONFIG}: no prefix of the environment variables (yaml_key_to_env_key)")


def _compared_with(function: ast.FunctionDef, subject: str) -> str | None:
    for node in ast.walk(function):
        if (isinstance(node, ast.Compare) and ast.unparse(node.left) == subject and isinstance(node.ops[0], ast.Eq)
                and isinstance(node.comparators[0], ast.Constant)):
            return node.comparators[0].value
    return None


def _override_word(init: ast.FunctionDef) -> str | None:
    for node in ast.walk(init):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "startswith"
                and node.args and isinstance(node.args[0], ast.Constant) and str(node.args[0].value).endswith("=")):
            return str(node.args[0].value)[:-1]
    return None


def _flattened_none(config: Module) -> str | None:
    """How the override file's flattening writes a null: `null`, or Python's `None` (a string to
    OmegaConf); None when the release has no override file."""
    function = config.functions.get("_dict_to_cli_args")
    if function is None:
        return None
    for node in ast.walk(function):
        if isinstance(node, ast.If) and ast.unparse(node.test).endswith(" is None"):
            for inner in ast.walk(ast.Module(node.body, [])):
                if isinstance(inner, ast.JoinedStr) and isinstance(inner.values[-1], ast.Constant):
                    return str(inner.values[-1].value).removeprefix("=")
    return "None"


def _replace_keys(init: ast.FunctionDef) -> list[str]:
    for node in ast.walk(init):
        if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "self.replace_keys" and isinstance(node.value, ast.Set):
            return [e.value for e in node.value.elts if isinstance(e, ast.Constant)]
    return []


def _parsed_types(config: Module) -> list[str]:
    table = config.constants.get("_yaml_types_to_parser")
    if not isinstance(table, ast.Dict):
        raise InputError(f"{config.tree.files.origin}: {CONFIG}: no table of the types a value is parsed into")
    return [_PARSER_KINDS[ast.unparse(k).rsplit(".", 1)[-1]] for k in table.keys if k is not None]


def _nullable_kinds(config: Module) -> list[str] | None:
    function = config.functions.get("_can_override_nullable_schema")
    if function is None:
        return None
    kinds = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Call) and ast.unparse(node.func) == "isinstance" and isinstance(node.args[1], ast.Tuple):
            for element in node.args[1].elts:
                name = ast.unparse(element).rsplit(".", 1)[-1]
                kinds.add({"Mapping": "dict", "DictConfig": "dict", "ListConfig": "list"}.get(name, name))
    return sorted(kinds)


def _inheritance(init: ast.FunctionDef) -> dict[str, Any]:
    """The roles that take `model_config`'s values (where theirs is missing or still the base's)."""
    sources = {}
    for node in ast.walk(init):
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name) and isinstance(node.value, ast.Call):
            call = node.value
            if (isinstance(call.func, ast.Attribute) and call.func.attr == "get" and ast.unparse(call.func.value) == "self.config"
                    and call.args and isinstance(call.args[0], ast.Constant)):
                sources[node.targets[0].id] = call.args[0].value
        if isinstance(node, ast.For) and isinstance(node.iter, ast.List) and "self.config" in ast.unparse(node):
            roles = [e.value for e in node.iter.elts if isinstance(e, ast.Constant)]
            inner = next((n for n in ast.walk(node) if isinstance(n, ast.For) and n is not node), None)
            source = inner is not None and isinstance(inner.iter, ast.Call) and ast.unparse(inner.iter.func.value) if inner else None
            if roles and source in sources:
                return {"inherited_roles": roles, "inherit_from": sources[source]}
    return {"inherited_roles": [], "inherit_from": None}


def _mesh_facts(tree: SourceTree, config: Module) -> dict[str, Any]:
    """Which mesh parser HyperParameters has; whether the mesh is held to the devices JAX finds (in
    the parser, or from 0.1.7 in `tunix/utils/mesh.py`'s create_mesh, which the entry points call with
    the parsed shape); and the allocation policies the release's mesh module accepts (0.1.7)."""
    cls = config.classes[HYPERPARAMETERS]
    for name in ("parse_mesh_config", "create_mesh"):
        method = _method(cls, name)
        if method is not None:
            library = tree.module(MESH_LIBRARY) if tree.files.exists(MESH_LIBRARY) else None
            creator = library.functions.get("create_mesh") if library is not None else None
            counted = "device_count()" in ast.unparse(method) or creator is not None and "device_count()" in ast.unparse(creator)
            facts: dict[str, Any] = {"parser": name, "line": method.lineno, "checks_device_count": counted,
                                     "allocation_policy": _method(cls, "_parse_mesh_allocation_policy") is not None}
            policies = _string_set(library, "_SUPPORTED_ALLOCATION_POLICIES") if library is not None else None
            if policies:
                facts["allocation_policies"] = policies
            return facts
    return {"parser": None}


def _string_set(module: Module, name: str) -> list[str] | None:
    """A module constant that is a set, tuple or list of strings (or of constants naming strings), sorted."""
    node = module.constants.get(name)
    if not isinstance(node, (ast.Set, ast.Tuple, ast.List)):
        return None
    values = []
    for element in node.elts:
        if isinstance(element, ast.Name):
            element = module.constants.get(element.id)
        if not (isinstance(element, ast.Constant) and isinstance(element.value, str)):
            return None
        values.append(element.value)
    return sorted(values)


def _read_keys(files: TreeFiles) -> list[str]:
    """The keys tunix/cli's code reads by name (`cfg.get("same_mesh_as")`, `config["data_config"]`):
    a nested key among them is read even where the base file does not define it."""
    found = set()
    for relpath in files.glob(CLI, "**/*.py"):
        for node in ast.walk(files.parse(relpath)):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("get", "pop")
                    and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
                found.add(node.args[0].value)
            elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
                found.add(node.slice.value)
    return sorted(found)


# ---- the entry points and their builders ----


def _entry(tree: SourceTree, relpath: str) -> dict[str, Any]:
    module = tree.module(relpath)
    builders: dict[str, dict[str, Any]] = {}
    for function, cls in _functions(module):
        local = _local_sections(function)
        for node in ast.walk(function):
            if not (isinstance(node, ast.Call) and len(node.keywords) == 1 and node.keywords[0].arg is None):
                continue
            section, via, added = _section_of(node.keywords[0].value, local)
            if section is None or section in builders:
                continue
            target = module.base_class(node.func)
            if target is None:
                continue
            builder = _builder(tree, target[0], target[1], section, via, added)
            if builder is not None:
                builders[section] = builder
    owners_only = any(isinstance(s, ast.FunctionDef) and s.name == "_resolve_mesh_owners"
                      for cls in module.classes.values() for s in cls.body)
    filtered = {section: fields for function, _ in _functions(module) for section, fields in _filtered(module, function).items()}
    facts = {"builders": list(builders.values()), "flags": _absl_flags(module),
             "meshes": "roles with a mesh" if owners_only else "every role", "filtered": filtered}
    steps = _data_steps(module)
    if steps is not None:
        facts["data_steps"] = steps
    optimizers = _optimizer_calls(module)
    if optimizers:
        facts["optimizers"] = optimizers
    roles = _mesh_roles(module) if owners_only else None
    if roles:
        facts["mesh_roles"] = roles
    return facts


def _mesh_roles(module: Module) -> dict[str, str] | None:
    """The role names `same_mesh_as` takes (0.1.7's `_SPLIT_ROLE_ALIASES`), each with the model
    section of its role (`_ROLE_TO_MODEL_KEY`), in the order the entry point resolves them."""
    for cls in module.classes.values():
        tables = {stmt.targets[0].id: stmt.value for stmt in cls.body if isinstance(stmt, ast.Assign)
                  and isinstance(stmt.targets[0], ast.Name) and isinstance(stmt.value, ast.Dict)}
        sections, aliases = tables.get("_ROLE_TO_MODEL_KEY"), tables.get("_SPLIT_ROLE_ALIASES")
        if sections is None or aliases is None:
            continue
        section_of = {ast.unparse(k): v.value for k, v in zip(sections.keys, sections.values) if isinstance(v, ast.Constant)}
        alias_of = {ast.unparse(v): k.value for k, v in zip(aliases.keys, aliases.values) if isinstance(k, ast.Constant)}
        return {alias_of[role]: section for role, section in section_of.items() if role in alias_of}
    return None


def _optimizer_facts(config: Module) -> dict[str, Any] | None:
    """How HyperParameters.create_optimizer builds an optimizer from a section: `opt_type` required
    (`if not opt_type: raise`), then looked up in optax (from 0.1.1 `getattr(optax,
    opt_type.lower())`: any name optax exports; 0.1.0 a fixed `_OPTIMIZER_MAP` of names to optax
    functions, the name as written); a `schedule_type` from optax.schedules (from 0.1.1 any of its
    functions; 0.1.0 only `warmup_cosine`), its required arguments from the section; without one,
    `learning_rate` a number. `map`: name -> the optax function it stands for; None: optax's own
    names. None where the release builds it otherwise."""
    cls = config.classes[HYPERPARAMETERS]
    create, rate = _method(cls, "create_optimizer"), _method(cls, "_create_learning_rate")
    if create is None or rate is None:
        return None
    text, rate_text = ast.unparse(create), ast.unparse(rate)
    if "if not opt_type:" not in text or "isinstance(learning_rate, (float, int))" not in rate_text:
        return None
    schedule = _method(cls, "_get_schedule_fn")
    if "getattr(optax, opt_type.lower())" in text:
        names: dict[str, Any] = {"lower": True, "map": None}
    else:
        table = config.constants.get("_OPTIMIZER_MAP")
        if "_OPTIMIZER_MAP" not in text or not isinstance(table, ast.Dict):
            return None
        names = {"lower": False, "map": {k.value: ast.unparse(v).removeprefix("optax.") for k, v in zip(table.keys, table.values)
                                         if isinstance(k, ast.Constant)}}
    if schedule is not None and "getattr(optax.schedules, schedule_type)" in ast.unparse(schedule):
        schedules: dict[str, Any] = {"map": None}
    else:
        schedules = {"map": {node.test.comparators[0].value: ast.unparse(inner.value).removeprefix("optax.schedules.")
                             for node in ast.walk(rate) if isinstance(node, ast.If) and isinstance(node.test, ast.Compare)
                             and ast.unparse(node.test.left) == "schedule_type" and isinstance(node.test.comparators[0], ast.Constant)
                             for inner in node.body if isinstance(inner, ast.Assign)
                             and ast.unparse(inner.value).startswith("optax.schedules.")}}
    return {"site": f"{CONFIG}:{create.lineno} HyperParameters.create_optimizer", "optimizers": names, "schedules": schedules}


def _optimizer_calls(module: Module) -> list[dict[str, Any]]:
    """The sections an entry point builds an optimizer from (`self.create_optimizer(base_key,
    "actor_optimizer_config")`), each with whether it is built only when the section is set."""
    found = []
    for function, _ in _functions(module):
        strings = {n.targets[0].id: n.value.value for n in ast.walk(function) if isinstance(n, ast.Assign)
                   and isinstance(n.targets[0], ast.Name) and isinstance(n.value, ast.Constant) and isinstance(n.value.value, str)}
        guarded = {id(inner) for node in ast.walk(function) if isinstance(node, ast.If) and ".get(" in ast.unparse(node.test)
                   for stmt in node.body for inner in ast.walk(stmt)}
        for node in ast.walk(function):
            if not (isinstance(node, ast.Call) and ast.unparse(node.func) == "self.create_optimizer" and node.args):
                continue
            keys = [a.value if isinstance(a, ast.Constant) else strings.get(getattr(a, "id", "")) for a in node.args]
            if all(isinstance(k, str) for k in keys):
                found.append({"keys": keys, "when_set": id(node) in guarded})
    return sorted(found, key=lambda f: f["keys"])


def _data_steps(module: Module) -> dict[str, Any] | None:
    """Where the entry point holds `max_steps` to the steps its data gives once the dataset is
    loaded (0.1.7 grpo_main's compute_params: `if max_steps > allowed_max_steps: raise`): the site,
    the section max_steps is read from, and the value each factor of the product falls back to
    when it is not set (`if not train_fraction: train_fraction = 0.8`; the batch size's default of
    `config.get("batch_size", 1)`). None where it holds it to none."""
    for function, _ in _functions(module):
        raises = [node for node in ast.walk(function) if isinstance(node, ast.If) and isinstance(node.test, ast.Compare)
                  and ast.unparse(node.test.left) == "max_steps" and isinstance(node.test.ops[0], ast.Gt)
                  and any(isinstance(inner, ast.Raise) for inner in node.body)]
        if not raises:
            continue
        section = next((call.args[0].value for call in ast.walk(function) if isinstance(call, ast.Call)
                        and ast.unparse(call.func) in ("self._mutable_config_mapping", "self._config_mapping")
                        and call.args and isinstance(call.args[0], ast.Constant)), None)
        fallbacks = {}
        for node in ast.walk(function):
            if (isinstance(node, ast.If) and isinstance(node.test, ast.UnaryOp) and isinstance(node.test.op, ast.Not)
                    and isinstance(node.test.operand, ast.Name) and len(node.body) == 1 and isinstance(node.body[0], ast.Assign)
                    and isinstance(node.body[0].value, ast.Constant) and ast.unparse(node.body[0].targets[0]) == node.test.operand.id):
                fallbacks[node.test.operand.id] = node.body[0].value.value
            elif (isinstance(node, ast.Call) and ast.unparse(node.func) == "self.config.get" and len(node.args) == 2
                  and all(isinstance(a, ast.Constant) for a in node.args) and node.args[0].value == "batch_size"):
                fallbacks["batch_size"] = node.args[1].value
        if section is None or not {"num_train_epochs", "train_fraction", "batch_size"} <= fallbacks.keys():
            return None
        filled = sorted({target.slice.value for node in ast.walk(function) if isinstance(node, ast.Assign)
                         for target in node.targets if isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant)
                         and ast.unparse(target.value) == "actor_opt"})
        optimizer = next((call.args[0].value for call in ast.walk(function) if isinstance(call, ast.Call)
                          and ast.unparse(call.func) == f"{section}.get" and call.args and isinstance(call.args[0], ast.Constant)
                          and str(call.args[0].value).endswith("optimizer_config")), None)
        facts = {"site": f"{module.relpath}:{raises[0].lineno} {function.name}", "section": section,
                 "fallbacks": dict(sorted(fallbacks.items()))}
        if optimizer and filled:
            facts["fills"] = {f"{section}.{optimizer}": filled}  # keys it sets where the section leaves them out
        return facts
    return None


def _filtered(module: Module, function: ast.FunctionDef) -> dict[str, list[str]]:
    """Sections handed to a class through a filter of its fields (`{k: v for k, v in
    cfg.items() if k in valid_fields}`, valid_fields the dataclass's field names): a key that is
    not a field is dropped without a word. Section -> the fields."""
    sections, classes = {}, {}
    for node in ast.walk(function):
        if not (isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)):
            continue
        value = node.value
        if (isinstance(value, ast.Call) and ast.unparse(value.func) in ("self._config_mapping", "self.config.get")
                and value.args and isinstance(value.args[0], ast.Constant)):
            sections[node.targets[0].id] = value.args[0].value
        elif isinstance(value, ast.SetComp) and "dataclasses.fields" in ast.unparse(value):
            call = next(c for c in ast.walk(value) if isinstance(c, ast.Call) and ast.unparse(c.func) == "dataclasses.fields")
            target = module.base_class(call.args[0]) if call.args else None
            fields = _dataclass_fields(*target) if target is not None else None
            if fields is not None:
                classes[node.targets[0].id] = sorted(fields)
    found = {}
    for node in ast.walk(function):
        if isinstance(node, ast.DictComp) and node.generators:
            generator = node.generators[0]
            source = generator.iter.func.value if isinstance(generator.iter, ast.Call) and isinstance(generator.iter.func, ast.Attribute) else None
            tests = [t for t in generator.ifs if isinstance(t, ast.Compare) and isinstance(t.ops[0], ast.In)]
            if isinstance(source, ast.Name) and source.id in sections and tests and isinstance(tests[0].comparators[0], ast.Name):
                fields = classes.get(tests[0].comparators[0].id)
                if fields is not None:
                    found[sections[source.id]] = fields
    return found


def _absl_flags(module: Module) -> dict[str, bool]:
    """The program's own absl flags (`flags.DEFINE_string("pathways_bns", …)`), name -> whether it takes a value."""
    found = {}
    for node in ast.walk(module.ast):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr.startswith("DEFINE_")
                and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            found[node.args[0].value] = node.func.attr not in ("DEFINE_boolean", "DEFINE_bool")
    return found


def _functions(module: Module):
    for function in module.functions.values():
        yield function, None
    for cls in module.classes.values():
        for stmt in cls.body:
            if isinstance(stmt, ast.FunctionDef):
                yield stmt, cls


def _local_sections(function: ast.FunctionDef) -> dict[str, tuple[str, list[str]]]:
    """Locals a section is read into (`x = self.obtain_training_config_dict(base_key)`), with the
    keys the function sets on them (`x["actor_optimizer"] = ...`), each with the key of the section
    that must be set for it (`if base_config.get("actor_optimizer_config"):`), or None."""
    strings = {n.targets[0].id: n.value.value for n in ast.walk(function)
               if isinstance(n, ast.Assign) and isinstance(n.targets[0], ast.Name) and isinstance(n.value, ast.Constant)}
    found: dict[str, tuple[str, list[str]]] = {}
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name) and isinstance(node.value, ast.Call):
            call = node.value
            if ast.unparse(call.func) == "self.obtain_training_config_dict" and call.args:
                arg = call.args[0]
                section = arg.value if isinstance(arg, ast.Constant) else strings.get(getattr(arg, "id", ""))
                if isinstance(section, str):
                    found[node.targets[0].id] = (section, [])

    def visit(stmts: list[ast.stmt], condition: str | None) -> None:
        for node in stmts:
            if isinstance(node, ast.If):
                test = node.test
                key = (test.args[0].value if isinstance(test, ast.Call) and isinstance(test.func, ast.Attribute)
                       and test.func.attr == "get" and test.args and isinstance(test.args[0], ast.Constant) else None)
                visit(node.body, key or condition)
                visit(node.orelse, condition)
            elif isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Subscript):
                target = node.targets[0]
                if isinstance(target.value, ast.Name) and target.value.id in found and isinstance(target.slice, ast.Constant):
                    found[target.value.id][1].append((target.slice.value, condition))

    visit(function.body, None)
    return found


def _section_of(node: ast.expr, local: dict) -> tuple[str | None, str, list[str]]:
    """The section a `**` argument hands over, how (config: as written; training: through
    obtain_training_config_dict), and the keys the code adds to it."""
    if isinstance(node, ast.Subscript) and ast.unparse(node.value) == "self.config" and isinstance(node.slice, ast.Constant):
        return node.slice.value, "config", []
    if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
        called = ast.unparse(node.func)
        if called == "self._config_mapping":
            return node.args[0].value, "config", []
        if called == "self.obtain_training_config_dict":
            return node.args[0].value, "training", []
    if isinstance(node, ast.Name) and node.id in local:
        section, added = local[node.id]
        return section, "training", [{"key": key, "when_set": when} for key, when in sorted(set(added), key=str)]
    return None, "", []


def _builder(tree: SourceTree, module: Module, name: str, section: str, via: str, added: list[str]) -> dict[str, Any] | None:
    fields = _dataclass_fields(module, name)
    if fields is None:
        return None
    builder: dict[str, Any] = {"section": section, "class": name, "module": module.relpath, "via": via, "fields": fields,
                               "added": added, "line": module.classes[name].lineno}
    if via == "training":
        builder.update(_training_dict(tree))
    return builder


def _dataclass_fields(module: Module, name: str) -> dict[str, dict[str, Any]] | None:
    cls = module.classes[name]
    if not any("dataclass" in ast.unparse(d) for d in cls.decorator_list):
        return None
    fields: dict[str, dict[str, Any]] = {}
    for base in cls.bases:
        found = module.base_class(base)
        if found is not None:
            inherited = _dataclass_fields(found[0], found[1])
            fields.update(inherited or {})
    for stmt in cls.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and "ClassVar" not in ast.unparse(stmt.annotation):
            entry: dict[str, Any] = {"type": ast.unparse(stmt.annotation), "line": stmt.lineno}
            if stmt.value is None:
                entry["required"] = True
            elif isinstance(stmt.value, ast.Constant):
                entry["default"] = stmt.value.value
            fields[stmt.target.id] = entry
    return fields


def _training_dict(tree: SourceTree) -> dict[str, Any]:
    """What obtain_training_config_dict does to a section: the keys it builds an options class
    from (key -> class), and the text a key's name holds for it to be left out."""
    config = tree.module(CONFIG)
    method = _method(config.classes[HYPERPARAMETERS], "obtain_training_config_dict")
    built: dict[str, dict[str, Any]] = {}
    dropped: list[str] = []
    for node in ast.walk(method) if method else ():
        if isinstance(node, ast.If):
            test = node.test
            compares = [c for c in ast.walk(test) if isinstance(c, ast.Compare)]
            for compare in compares:
                if isinstance(compare.ops[0], ast.Eq) and isinstance(compare.comparators[0], ast.Constant):
                    key = compare.comparators[0].value
                    call = next((c for c in ast.walk(ast.Module(node.body, [])) if isinstance(c, ast.Call) and c.keywords
                                 and c.keywords[0].arg is None), None)
                    target = config.base_class(call.func) if call is not None else None
                    if key not in built:
                        fields = _dataclass_fields(*target) if target is not None else None
                        built[key] = {"class": ast.unparse(call.func) if call is not None else None, "fields": fields}
                        if target is not None and not target[0].relpath.startswith("tunix/"):
                            built[key]["module"] = target[0].relpath  # read from a dependency's release
                elif isinstance(compare.ops[0], ast.In) and isinstance(compare.left, ast.Constant):
                    if any(isinstance(s, ast.Continue) for s in node.body):
                        dropped.append(compare.left.value)
    return {"options": built, "dropped_containing": dropped}


# ---- the rules ----


def _startup_sites(config: Module) -> list[tuple[Site, str]]:
    """The raises of the validators `__init__` calls after the merge."""
    cls = config.classes[HYPERPARAMETERS]
    init = _method(cls, "__init__")
    walker = Walker()
    instance = Instance(HYPERPARAMETERS)
    for node in init.body:
        for call in ast.walk(node):
            if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and ast.unparse(call.func.value) == "self"):
                continue
            name = call.func.attr
            method = _method(cls, name)
            if method is None or name in MERGE_METHODS:
                continue
            args = {}
            params = [a.arg for a in method.args.args][1:]
            for param, arg in zip(params, call.args):
                args[param] = _argument(walker, arg, config, instance)
            for keyword in call.keywords:
                if keyword.arg:
                    args[keyword.arg] = _argument(walker, keyword.value, config, instance)
            walker.walk(Function(method, config, instance), args, f"{HYPERPARAMETERS}.{name}")
    return [(site, STARTUP) for site in walker.sites.values()]


def _argument(walker: Walker, node: ast.expr, config: Module, instance: Instance) -> Any:
    """What `__init__` hands a validator: the merged config (`self.config`, or `raw_keys`, the
    mapping it becomes), the program's path (`argv[0]`), argv, a constant."""
    scope = {"raw_keys": Config(()), "argv": Argv()}
    return walker.value_or_opaque(node, scope, config, instance)


def _builder_sites(tree: SourceTree, entries: dict[str, dict[str, Any]]) -> list[tuple[Site, str]]:
    """The raises of each builder's `__post_init__` (its bases' included), on its section."""
    walker = Walker()
    seen = set()
    for facts in entries.values():
        for builder in facts["builders"]:
            key = (builder["module"], builder["class"], builder["section"])
            if key in seen:
                continue
            seen.add(key)
            module = tree.module(builder["module"])
            hit = module.method(builder["class"], "__post_init__")
            if hit is None:
                continue
            instance = Instance(builder["class"], (builder["section"],))
            walker.walk(Function(hit[0], hit[1], instance), {}, f"{builder['class']}.__post_init__")
    return [(site, AFTER_DOWNLOADS) for site in walker.sites.values()]


def check_identity(site: Site) -> str:
    """What SITE checks and where Tunix defines it, equal at two releases exactly when the check
    is: the function that raises (not its file or line, which move), the exception, the path's
    conditions over the keys, and why no rule can state it."""
    return "\n".join([site.function, site.exception, *(ast.unparse(c) for c in site.condition), site.reason or ""])


def _rules(sites: list[tuple[Site, str]], version: str) -> tuple[list[dict], list[dict]]:
    rules, unexpressible = [], []
    taken: set[str] = set()
    for site, stage in sites:
        rule_id = stable_rule_id(check_identity(site), taken, TUNIX_ID_PREFIX)
        taken.add(rule_id)
        where = f"{site.file}:{site.line} {site.function}"
        if site.reason is not None or not site.condition:
            entry = {"id": rule_id, "site": where, "stage": stage, "reason": site.reason or "raised on every path (not a check of a value)"}
            reached = ast.unparse(conj(site.condition)) if site.condition else None
            if reached is not None and _parses(reached):
                entry["when"] = reached  # what the known part of its path needs: where it may be reached
            unexpressible.append(entry)
            continue
        when = conj(site.condition[:-1]) if len(site.condition) > 1 else None
        require = neg(site.condition[-1])
        texts = {"when": ast.unparse(when) if when is not None else None, "require": ast.unparse(require)}
        try:
            for text in texts.values():
                if text is not None:
                    parse(text)
        except ExprError as err:
            unexpressible.append({"id": rule_id, "site": where, "stage": stage, "reason": f"not in the rule language: {err}"})
            continue
        refused = ast.unparse(site.condition[-1])
        rule: dict[str, Any] = {
            "id": rule_id,
            "title": _shortened(f"{site.function.split(' -> ')[-1]}: refused when {refused}"),
            "severity": "error",
            "stage": stage,
            "pins": [f"tunix-{version}"],
        }
        if texts["when"] is not None:
            rule["when"] = texts["when"]
        rule["require"] = texts["require"]
        rule["message"] = f"Tunix {version} stops {_stage_words(stage)}: {refused}"
        rule["rationale"] = f"Tunix {version} raises {site.exception} here {_stage_words(stage)} ({site.function})"
        rule["source"] = f"tunix/{site.file.removeprefix('tunix/')}:{site.line} {site.function}"
        rules.append(rule)
    return rules, unexpressible


def _parses(text: str) -> bool:
    try:
        parse(text)
    except ExprError:
        return False
    return True


def _shortened(text: str, width: int = 100) -> str:
    return text if len(text) <= width else text[:width].rsplit(" ", 1)[0] + " …"


def _stage_words(stage: str) -> str:
    return {STARTUP: "at start-up, before any download", AFTER_DOWNLOADS: "after the tokenizer, data and model are downloaded",
            NEVER_CHECKED: "never"}[stage]
