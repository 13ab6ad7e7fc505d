"""Build the key schema of a MaxText version from its sources: `MaxTextConfig`'s fields read from
`configs/types.py` (and the enums of `common/common_types.py`) with `ast`, the defaults of
`configs/base.yml`, the keys each `configs/models/*.yml` sets, and the compile topology names of
`utils/accelerator_to_spec_map.py` as compile_topology's choices."""

from __future__ import annotations

import ast
import json
from collections import Counter
from pathlib import Path
from typing import Any

from flaglint.core.findings import InputError
from flaglint.core.omegaconf_yaml import load_document
from flaglint.importer.configs import entry_points
from flaglint.importer.fieldtypes import (
    BOUNDS,
    FieldType,
    ModuleScope,
    NotUnderstood,
    tighter,
)
from flaglint.importer.source_text import raise_message, raises_in, source_message
from flaglint.importer.sources import (
    BASE_YML,
    COMMON_TYPES,
    PYCONFIG,
    TYPES,
    PackageFiles,
    open_package,
    package_version,
)
from flaglint.importer.topologies import TOPOLOGY_KEY, topology_table
from flaglint.schema.model import (
    ConfigClassKeys,
    KeySchema,
    MaxTextSchemaFile,
    ModelConfig,
)

ROOT_MODEL = "MaxTextConfig"
GLOBALS = "utils/globals.py"
HF_IDS = "HF_IDS"  # model name -> its tokenizer's Hugging Face id


def import_schema(path: str | Path) -> MaxTextSchemaFile:
    """The schema of the MaxText at PATH: a source tree, a wheel (zipped or unpacked) or an
    installed package directory."""
    with open_package(path) as files:
        if files.old_layout:
            return _old_layout_schema(files, path)
        scope = ModuleScope()
        for relpath in (COMMON_TYPES, TYPES):
            if files.exists(relpath):
                tree = _parse(files, relpath)
                try:
                    scope.add_module(tree)
                except InputError as err:
                    raise InputError(f"{files.origin}: {relpath} {err}") from None
        if ROOT_MODEL not in scope.classes:
            raise InputError(f"{files.origin}: {TYPES} defines no class {ROOT_MODEL}")
        try:
            keys = _model_keys(scope, ROOT_MODEL)
        except InputError as err:
            raise InputError(f"{files.origin}: {TYPES} {err}") from None
        topologies = topology_table(files)
        if topologies is not None and TOPOLOGY_KEY in keys and keys[TOPOLOGY_KEY].kind == "str":
            # A free string in types.py, but the config pass looks it up in this table.
            keys[TOPOLOGY_KEY] = keys[TOPOLOGY_KEY].model_copy(update={"choices": list(topologies.names)})
        refused = _pyconfig_messages(files)
        for name in _coerced_to_lists(files) & set(keys):
            keys[name] = keys[name].model_copy(update={"list_when_string": True})
        return MaxTextSchemaFile(
            config_classes=_other_config_classes(files, scope, keys),
            version=package_version(files),
            source=Path(path).name,
            refuses_model_and_argv=any("overridden by both model config and CLI" in m for m in refused),
            refuses_model_and_env=any("overridden by both model config and environment" in m for m in refused),
            keys=keys,
            base_defaults=_yaml_mapping(files, "configs/base.yml"),
            models={
                Path(relpath).stem: ModelConfig(name=Path(relpath).stem, keys=_yaml_mapping(files, relpath))
                for relpath in files.glob("configs/models", ".yml")
            },
        )


# pyconfig before 0.2.0 types a command-line or M_<KEY> value like base.yml's value
# (`_yaml_types_to_parser`): these kinds; a key whose base.yml value is of another type takes only
# that type.
_OLD_LAYOUT_KINDS = {bool: "bool", int: "int", float: "float", str: "str", list: "list", dict: "dict"}


def _other_config_classes(files: PackageFiles, scope: ModuleScope, keys: dict[str, KeySchema]) -> dict[str, ConfigClassKeys]:
    """The keys of each other class an entry point validates its config with (train_rl's RLConfig),
    against MaxTextConfig's."""
    named = {entry.config_class for entry in entry_points(files).values()} - {ROOT_MODEL}
    found = {}
    for name in sorted(named & set(scope.classes)):
        try:
            declared = _model_keys(scope, ROOT_MODEL)
            own = _model_keys(scope, name)
            mro = class_mro(scope, name)
        except InputError as err:
            raise InputError(f"{files.origin}: {TYPES} {err}") from None
        # a key it declares again counts where its type or bounds differ from MaxTextConfig's
        # declaration (RLConfig's num_epoch >= 1), not where only the class that declares it does
        differs = {n for n, k in own.items() if n not in keys or _typing(k) != _typing(declared[n])}
        found[name] = ConfigClassKeys(keys={n: own[n] for n in sorted(differs)}, lacks=sorted(set(keys) - set(own)),
                                      validated_by=[*mro, *_functions_called(scope, name, files)],
                                      tokenizer_models=_tokenizer_models(scope, name, files))
    return found


def _tokenizer_models(scope: ModuleScope, name: str, files: PackageFiles) -> list[str]:
    """The models whose tokenizer the class finds by name where no tokenizer_path is given: the keys
    of utils/globals.py's HF_IDS, when the class's own methods read it."""
    if not any(isinstance(node, ast.Name) and node.id == HF_IDS for node in ast.walk(scope.classes[name])):
        return []
    for node in _parse(files, GLOBALS).body:
        if (isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == HF_IDS for t in node.targets)
                and isinstance(node.value, ast.Dict)):
            return [key.value for key in node.value.keys if isinstance(key, ast.Constant) and isinstance(key.value, str)]
    raise InputError(f"{files.origin}: {GLOBALS} defines no {HF_IDS} mapping, which {name} reads")


def _typing(key: KeySchema) -> dict[str, Any]:
    return key.model_dump(exclude={"group", "line"})


def _functions_called(scope: ModuleScope, name: str, files: PackageFiles) -> list[str]:
    """The functions of types.py that the class's own methods call by name (get_individual_scales)."""
    module = {node.name for node in _parse(files, TYPES).body if isinstance(node, ast.FunctionDef)}
    called = {node.func.id for node in ast.walk(scope.classes[name]) if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}
    return sorted(called & module)


def _old_layout_schema(files: PackageFiles, path: str | Path) -> MaxTextSchemaFile:
    """The MaxText/ package (before 0.2.0) declares no types: its keys are base.yml's, each typed
    as its value there (as pyconfig types an override), and its checks are pyconfig.py's."""
    defaults = _yaml_mapping(files, BASE_YML)
    keys = {}
    for name, value in defaults.items():
        kind = _OLD_LAYOUT_KINDS.get(type(value), "any")
        keys[name] = KeySchema(name=name, kind=kind, nullable=value is None, default=value, group="base.yml",
                               source=BASE_YML, item="any" if kind == "list" else None, typed_as_default=True)
    topologies = topology_table(files)
    if topologies is not None and keys.get(TOPOLOGY_KEY) is not None and keys[TOPOLOGY_KEY].kind == "str":
        keys[TOPOLOGY_KEY] = keys[TOPOLOGY_KEY].model_copy(update={"choices": list(topologies.names)})
    refused = _pyconfig_messages(files)
    return MaxTextSchemaFile(
        version=package_version(files),
        source=Path(path).name,
        refuses_model_and_argv=any("overwritten from both the model" in m for m in refused),
        refuses_model_and_env=any("overwritten from both the model" in m for m in refused),
        refuses_model_key_at_its_value=any("overwritten from both the model" in m for m in refused),
        refuses_stray_key_variables=any("doesn't match a key" in m for m in refused),
        keys=keys,
        base_defaults=defaults,
        models={
            Path(relpath).stem: ModelConfig(name=Path(relpath).stem, keys=_yaml_mapping(files, relpath))
            for relpath in files.glob("configs/models", ".yml")
        },
    )


def write_schema(schema: MaxTextSchemaFile, out_path: str | Path) -> None:
    """Write SCHEMA as stable, diff-friendly JSON: sorted and indented, fields at their default left out."""
    out = Path(out_path)
    data = schema.model_dump(mode="json", exclude_defaults=True)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(data, sort_keys=True, indent=1) + "\n", encoding="utf-8")
    except OSError as err:
        raise InputError(f"{out}: cannot write the schema: {err.strerror or err}") from None


def schema_summary(schema: MaxTextSchemaFile) -> str:
    """A few lines for the terminal: how many keys of each kind, and how many nullable."""
    top = [k for k in schema.keys.values() if "." not in k.name]
    nested = len(schema.keys) - len(top)
    kinds = Counter(k.kind for k in top)
    nullable = Counter(k.kind for k in top if k.nullable)
    bounded = sum(1 for k in top if any(getattr(k, b) is not None for b in BOUNDS))
    lines = [
        f"maxtext {schema.version} ({schema.source}): {len(top)} keys (+{nested} nested), "
        f"{bounded} bounded, {len(schema.base_defaults)} base.yml defaults, {len(schema.models)} model configs"
    ]
    for kind, count in sorted(kinds.items(), key=lambda item: (-item[1], item[0])):
        lines.append(f"  {kind:8} {count:4}  ({nullable[kind]} nullable)")
    for label, attribute in (("defaults computed at run time", "default_at_runtime"),
                             ("annotations not read (typed as any)", "unread_type")):
        found = [f"{k.name} = {getattr(k, attribute)}" for k in schema.keys.values() if getattr(k, attribute)]
        if found:
            lines.append(f"  {label}: {len(found)}: {'; '.join(found)}")
    return "\n".join(lines)


def _parse(files: PackageFiles, relpath: str) -> ast.Module:
    return files.parse(relpath)


def _pyconfig_messages(files: PackageFiles) -> list[str]:
    """The messages of pyconfig.py's raises, as written."""
    if not files.exists(PYCONFIG):
        return []
    return [source_message(raise_message(r)) for r in raises_in(files.parse(PYCONFIG).body)]


def _coerced_to_lists(files: PackageFiles) -> set[str]:
    """The keys pyconfig passes through `_coerce_to_list` (`if key in ("adamw_mask", ...)`)."""
    if not files.exists(PYCONFIG):
        return set()
    found: set[str] = set()
    for node in ast.walk(files.parse(PYCONFIG)):
        if (isinstance(node, ast.If) and isinstance(node.test, ast.Compare) and isinstance(node.test.ops[0], ast.In)
                and isinstance(node.test.comparators[0], (ast.Tuple, ast.List, ast.Set))
                and any(isinstance(c, ast.Call) and ast.unparse(c.func).endswith("coerce_to_list")
                        for stmt in node.body for c in ast.walk(stmt))):
            found |= {e.value for e in node.test.comparators[0].elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
    return found


def _yaml_mapping(files: PackageFiles, relpath: str) -> dict[str, Any]:
    """A config file's keys, typed as OmegaConf types them (safe YAML, `1e-5` is a float)."""
    _, data = load_document(files.read(relpath), f"{files.origin}: {relpath}", "MaxText")
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise InputError(f"{files.origin}: {relpath}: expected a mapping of keys, got {type(data).__name__}")
    return data


def class_mro(scope: ModuleScope, name: str) -> list[str]:
    """C3 linearisation of the BaseModel classes in scope (pydantic's own bases left out)."""
    bases = [ast.unparse(b) for b in scope.classes[name].bases]
    bases = [b for b in bases if b in scope.classes]
    sequences = [class_mro(scope, b) for b in bases] + [bases]
    order = [name]
    while any(sequences):
        for seq in sequences:
            head = seq[0] if seq else None
            if head is not None and not any(head in other[1:] for other in sequences):
                break
        else:
            raise InputError(f"line {scope.classes[name].lineno}: inconsistent bases for class {name}")
        order.append(head)
        sequences = [seq[1:] if seq and seq[0] == head else seq for seq in sequences]
    return order


def _model_keys(scope: ModuleScope, model: str, prefix: str = "", group: str = "") -> dict[str, KeySchema]:
    """The keys of a pydantic model: the most derived declaration of each field wins, as in pydantic.
    A field holding a nested model also gives one key per nested field, named `field.nested`."""
    keys: dict[str, KeySchema] = {}
    nested: dict[str, KeySchema] = {}
    for cls in class_mro(scope, model):
        # within one class body the last declaration stands, as for any name bound there
        declared = {stmt.target.id: stmt for stmt in scope.classes[cls].body if _is_field(stmt)}
        for field_name, stmt in declared.items():
            name = prefix + field_name
            if name in keys:
                continue
            try:
                field_type = scope.field_type(stmt.annotation)
            except NotUnderstood as unread:
                # Any value passes where the type is unknown: the key stays defined, the text kept.
                field_type = FieldType("any", nullable=True, unread=unread.text)
            if field_type.model is not None:
                nested.update(_model_keys(scope, field_type.model, prefix=f"{name}.", group=name))
            keys[name] = _key_schema(scope, name, stmt, field_type, group or cls)
    return keys | nested


def _is_field(stmt: ast.stmt) -> bool:
    return (
        isinstance(stmt, ast.AnnAssign)
        and isinstance(stmt.target, ast.Name)
        and not stmt.target.id.startswith("_")
        and stmt.target.id != "model_config"
        and "ClassVar" not in ast.unparse(stmt.annotation)
    )


def _key_schema(scope: ModuleScope, name: str, stmt: ast.AnnAssign, field_type: FieldType, group: str) -> KeySchema:
    bounds = dict(field_type.bounds)
    value = stmt.value
    default_node, factory = value, None
    if isinstance(value, ast.Call) and ast.unparse(value.func) in ("Field", "pydantic.Field"):
        kwargs = {kw.arg: kw.value for kw in value.keywords if kw.arg}
        for bound in BOUNDS:
            if bound in kwargs:
                bounds[bound] = tighter(bound, bounds.get(bound), _bound(scope, kwargs[bound]))
        factory = kwargs.get("default_factory")
        default_node = value.args[0] if value.args else kwargs.get("default")
    default_at_runtime = None
    try:
        if factory is not None:
            default = _factory_default(scope, factory)
        else:
            default = None if default_node is None else scope.value(default_node)
    except NotUnderstood:
        # Computed when MaxText runs (`os.path.expanduser('~')`): recorded as the expression.
        default, default_at_runtime = None, ast.unparse(factory or default_node)
    return KeySchema(
        name=name,
        kind=field_type.kind,
        nullable=field_type.nullable,
        choices=field_type.choices,
        enum=field_type.enum,
        int_enum=field_type.int_enum,
        item=field_type.item,
        members=field_type.members,
        default=default,
        default_at_runtime=default_at_runtime,
        unread_type=field_type.unread,
        group=group,
        line=stmt.lineno,
        **bounds,
    )


def _bound(scope: ModuleScope, node: ast.expr) -> float | None:
    """A bound's value; one computed at run time is not checked (None)."""
    try:
        return scope.value(node)
    except NotUnderstood:
        return None


def _factory_default(scope: ModuleScope, factory: ast.expr) -> Any:
    if isinstance(factory, ast.Name) and factory.id in scope.classes:
        return {name: key.default for name, key in _model_keys(scope, factory.id).items()}
    return scope.factory_value(factory)
