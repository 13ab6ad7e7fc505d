"""Models of the few MaxText helpers whose meaning the validator walker cannot read from their text.

Some helpers the validators call ask the runtime (the device count, the number of slices, the
accelerator's characteristics), read a package file (custom_mesh_and_rule/<name>.yml), or return
values the rules can only name (the exponents of get_individual_scales). Each model stands in for
one such helper: it records the helper's own raise sites with the conditions MaxText checks, and
returns what the rules can state of its value. `MODELS` maps the called name to its model, a
method of the `Walker` mixin `HelperModels`.
"""

from __future__ import annotations

import ast
from typing import Any, Callable

from flaglint.importer.source_text import exception_name, raise_message, raises_in
from flaglint.importer.sources import PYCONFIG, SPEC_MAP, TYPES
from flaglint.importer.symbolic import (
    Const,
    MeshFile,
    ScaleExp,
    Text,
    Tup,
    Unexpressible,
    const_node,
    key_node,
    key_of,
    make_choice,
    neg,
)
from flaglint.importer.topologies import LOOKUP
from flaglint.importer.walker_state import Frame, State
from flaglint.maxtext.tpu import LIVE_SLICES, NUM_DEVICES

POWERS_OF_TWO = tuple(2**k for k in range(31))
MESH_DIR_NAME = "custom_mesh_and_rule"  # the folder of the custom mesh files, beside types.py
MESH_SUFFIX = ".yml"
SCALE_KINDS = ("emb_scale", "num_head_scale", "mlp_dim_scale", "layer_scale")  # get_individual_scales's, in order


class HelperModels:
    """The models, as methods of `Walker` (validator_walker.py): they use its `keys`, `mesh_files`
    and `topologies`, how it walks (`inline`, `expr`, `truth`, `render`, `path_and`) and where it
    records raise sites (`site_at`, `record`)."""

    def model_num_target_devices(self, fnode: ast.FunctionDef | None, args: list, st: State, frame: Frame) -> Any:
        """Walk it for its own checks; its value is the device count: `num_devices`, unless
        internal_compile supplies it (a key from 0.2.0 on; the MaxText/ package's pyconfig asks JAX)."""
        if fnode is not None:
            self.inline(fnode, PYCONFIG if self.files.old_layout else TYPES, args, {}, {}, st, frame)
        devices = ast.Name(NUM_DEVICES, ast.Load())
        if "internal_compile" not in self.keys:
            return devices
        internal = st.fields.get("internal_compile", key_node("internal_compile"))
        count = st.fields.get("internal_compile_num_devices", key_node("internal_compile_num_devices"))
        return make_choice([(self.truth(internal), count), (None, devices)])

    def model_num_slices(self, fnode: ast.FunctionDef | None, args: list, st: State, frame: Frame) -> Any:
        """max_utils.get_num_slices: the user's num_slices, else compile_topology_num_slices when
        positive, else the slices the runtime finds (`live_slices`)."""
        num_slices = st.fields.get("num_slices", key_node("num_slices"))
        topo = st.fields.get("compile_topology_num_slices", key_node("compile_topology_num_slices"))
        return make_choice([
            (ast.Compare(num_slices, [ast.NotEq()], [ast.Constant(-1)]), num_slices),
            (ast.Compare(topo, [ast.Gt()], [ast.Constant(0)]), topo),
            (None, ast.Name(LIVE_SLICES, ast.Load())),
        ])

    def model_individual_scales(self, fnode: ast.FunctionDef | None, args: list, st: State, frame: Frame) -> Any:
        """get_individual_scales(scale): raises unless scale is a power of two; returns exponents
        that the pass only uses as `2**e`, which become the derived `<kind>_factor` values."""
        scale = self.expr(args[0]) if args else Unexpressible("no argument")
        raises = raises_in([fnode]) if fnode is not None else []
        not_a_power = ast.Compare(scale, [ast.NotIn()], [const_node(POWERS_OF_TWO)])
        # 0.2.0 and later refuse 0 first; before, math.log2 fails on it and one raise refuses the rest
        shapes = {2: [ast.Compare(scale, [ast.Eq()], [ast.Constant(0)]), not_a_power], 1: [not_a_power]}
        if len(raises) in shapes and not isinstance(scale, Unexpressible):
            for raise_node, cond in zip(raises, shapes[len(raises)]):
                owner = fnode.name
                site = self.site_at(raise_node, Frame(owner, frame.file), "raise", exception_name(raise_node),
                                    self.render(raise_message(raise_node), st, frame))
                site.conditions.append(self.path_and(st, cond))
        else:
            for raise_node in raises:
                self.site_at(raise_node, Frame(fnode.name, frame.file), "raise").conditions.append(Unexpressible("model out of date"))
        return Tup([ScaleExp(k) for k in SCALE_KINDS])

    def model_mesh_yaml(self, fnode: ast.FunctionDef | None, args: list, st: State, frame: Frame) -> Any:
        """_load_mesh_config_from_yaml(value): the package's custom_mesh_and_rule/<value>.yml."""
        value = args[0] if args else Unexpressible("no argument")
        if fnode is not None:
            for raise_node in raises_in([fnode]):
                site = self.site_at(raise_node, Frame(f"MaxTextConfig.{fnode.name}", TYPES), "raise",
                                    exception_name(raise_node), self.render(raise_message(raise_node), st, frame))
                missing = self.mesh_file_missing(value)
                site.conditions.append(missing if isinstance(missing, Unexpressible) else self.path_and(st, missing))
        return self.mesh_file_data(value)

    def mesh_file_missing(self, value: Any) -> Any:
        """The condition that the package has no custom_mesh_and_rule/<value>.yml: VALUE is one of
        its key's choices that names no file."""
        key = key_of(value)
        if key is None:
            return Unexpressible("file existence")
        choices = self.keys[key].choices if key in self.keys and self.keys[key].choices else []
        missing = tuple(c for c in choices if c not in self.mesh_files)
        return ast.Compare(value, [ast.In()], [const_node(missing)])

    def mesh_file_data(self, value: Any) -> Any:
        """What yaml.safe_load makes of custom_mesh_and_rule/<value>.yml, by the value ({} for none)."""
        if isinstance(value, Const):
            return Const(self.mesh_files.get(value.value, {}))
        expr = self.expr(value)
        if isinstance(expr, Unexpressible):
            return expr
        options = [(ast.Compare(expr, [ast.Eq()], [ast.Constant(name)]), Const(data)) for name, data in sorted(self.mesh_files.items())]
        return make_choice(options + [(None, Const({}))])

    # The primitives of the inline read (0.2.2, 0.2.3: set_derived_and_validate_values opens the
    # file itself): os.path.join(<package dir>, "custom_mesh_and_rule", f"{value}.yml") is the
    # file's path, os.path.exists, open and yaml.safe_load of it are modelled as the helper is.

    def model_path_join(self, fnode: ast.FunctionDef | None, args: list, st: State, frame: Frame) -> Any:
        names = [a.value if isinstance(a, Const) else None for a in args]
        if MESH_DIR_NAME in names and names.index(MESH_DIR_NAME) == len(args) - 2:
            stem = _yml_stem(args[-1])
            if stem is not None:
                return MeshFile(stem)
        return Unexpressible("file system: os.path.join")

    def model_path_exists(self, fnode: ast.FunctionDef | None, args: list, st: State, frame: Frame) -> Any:
        if args and isinstance(args[0], MeshFile):
            missing = self.mesh_file_missing(args[0].name)
            return missing if isinstance(missing, Unexpressible) else neg(missing)
        return Unexpressible("file system: os.path.exists")

    def model_open(self, fnode: ast.FunctionDef | None, args: list, st: State, frame: Frame) -> Any:
        return args[0] if args and isinstance(args[0], MeshFile) else Unexpressible("file system: open")

    def model_yaml_load(self, fnode: ast.FunctionDef | None, args: list, st: State, frame: Frame) -> Any:
        if args and isinstance(args[0], MeshFile):
            return self.mesh_file_data(args[0].name)
        return Unexpressible("a YAML file read at run time (yaml.safe_load)")

    def model_system_characteristics(self, fnode: ast.FunctionDef | None, args: list, st: State, frame: Frame) -> Any:
        """accelerator_to_spec_map.get_system_characteristics(name): raises unless `name` is one of
        the table's names (read from the package); its value, the hardware's characteristics, is not modelled."""
        table = self.topologies
        if table is None:
            return Unexpressible("runtime state (accelerator topology): no topology table found")
        name = args[0] if args else Unexpressible("no argument")
        expr = self.expr(name)
        cond = expr if isinstance(expr, Unexpressible) else ast.Compare(expr, [ast.NotIn()], [const_node(table.names)])
        params = [a.arg for a in table.lookup.args.args]
        inner = State(dict(st.fields), dict(zip(params, [name])), list(st.path))
        key = key_of(name)
        for raise_node in raises_in([table.lookup]):
            message = self.render(raise_message(raise_node), inner, frame)
            if key is not None and params:
                message = message.replace("{" + params[0] + "}", "{" + key + "}")
            message = message.replace("{" + table.table + ".keys()}", f"the {len(table.names)} names of {table.table} (see {key or 'the key'}'s choices)")
            self.record(raise_node, Frame(LOOKUP, SPEC_MAP), "raise", exception_name(raise_node), message,
                        self.path_and(st, cond), raise_message(raise_node))
        return Unexpressible("runtime state (accelerator topology): the hardware's characteristics")


MODELS: dict[str, Callable[..., Any]] = {
    "get_num_target_devices": HelperModels.model_num_target_devices,
    "max_utils.get_num_slices": HelperModels.model_num_slices,
    "get_individual_scales": HelperModels.model_individual_scales,
    "_load_mesh_config_from_yaml": HelperModels.model_mesh_yaml,
    "os.path.join": HelperModels.model_path_join,
    "os.path.exists": HelperModels.model_path_exists,
    "open": HelperModels.model_open,
    "yaml.safe_load": HelperModels.model_yaml_load,
    f"accelerator_to_spec_map.{LOOKUP}": HelperModels.model_system_characteristics,
}


def _yml_stem(name: Any) -> Any:
    """The value before `.yml` in f"{value}.yml" (or "name.yml"), else None."""
    if isinstance(name, Const) and isinstance(name.value, str) and name.value.endswith(MESH_SUFFIX):
        return Const(name.value[: -len(MESH_SUFFIX)])
    if isinstance(name, Text) and len(name.parts) == 2 and name.parts[1] == MESH_SUFFIX and not isinstance(name.parts[0], str):
        return name.parts[0][0]
    return None


def scale_factors(kind: str) -> str:
    """`2**<kind>` as a chain over the powers of two MaxText accepts for global_parameter_scale."""
    index = SCALE_KINDS.index(kind)
    pieces = []
    for log2 in range(len(POWERS_OF_TWO)):
        base, rem = divmod(log2, 3)
        exps = (base + int(rem > 1), base + int(rem > 0), base + int(rem > 0), base)
        pieces.append((2**log2, 2 ** exps[index]))
    groups: dict[int, list[int]] = {}
    for scale, factor in pieces:
        groups.setdefault(factor, []).append(scale)
    text = "1"
    for factor, scales in reversed(list(groups.items())):
        if factor == 1:
            continue
        text = f"{factor} if global_parameter_scale in {tuple(scales)} else {text}"
    return text
