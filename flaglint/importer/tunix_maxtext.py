"""How a Tunix release builds a MaxText model (`model_source: maxtext`), read with `ast` from its
source: the argv `AutoModel.from_pretrained` hands MaxText's `pyconfig.initialize`, and which
values of a model section reach it.

From tunix/models/automodel.py, the branch of `from_pretrained` taken for `ModelSource.MAXTEXT`:
- the argv it starts with (`['', 'base.yml', f'model_name={naming_info.model_name}']`) and the
  words it appends (`load_parameters_path=…` when `model_path is not None`);
- the keyword arguments it sets unless given (`skip_jax_distributed_system`) or from the
  environment (`hf_access_token` from HF_TOKEN);
- that every other keyword argument that is not None and is a field of MaxText's config becomes
  a `key=value` word (a bool written in lower case), the rest dropped without a word.
From tunix/cli/utils/model.py: the keyword arguments `create_model` gives `from_pretrained`, each
read from the model section (`model_config.get('rng_seed', 0)`). From the entry points: the
section each hands `create_model`. From tunix/models/naming.py: the model families `ModelNaming`
knows, which the name it derives from model_id must start with.

A value whose expression is not one of the forms below is written `{"unknown": SOURCE}`: the
check cannot know the word, and says so (FL011) where the model section asks for MaxText.
"""

from __future__ import annotations

import ast
from typing import Any

from flaglint.importer.tunix_checks import SourceTree

AUTOMODEL = "tunix/models/automodel.py"
NAMING = "tunix/models/naming.py"
# naming.py's tables of family prefixes: for a Hugging Face name (`llama-3.1-`), for a config id (`llama3p1_`)
FAMILY_TABLES = {"hub": "_HF_MODEL_FAMILY_INFO_MAPPING", "config_id": "_CONFIG_ID_MODEL_FAMILY_INFO_MAPPING"}
CLI_MODEL = "tunix/cli/utils/model.py"
MAXTEXT_SOURCE = "MAXTEXT"
# from_pretrained's own parameters: every other keyword of create_model's call is one of its **kwargs
_NAMED = ("model_id", "mesh", "model_source", "model_path", "model_download_path")
# `for k, v in kwargs.items(): if v is not None and k in valid_keys: argv.append(f'{k}={val_str}')`,
# valid_keys the fields of MaxText's config
KWARGS_TEST = "v is not None and k in valid_keys"
KWARGS_WORDS = "each not None that MaxText's config defines"


def maxtext_model(tree: SourceTree, entries: list[str]) -> dict[str, Any] | None:
    """The facts of the release's MaxText models, or None when it builds none (before 0.1.7)."""
    if not tree.files.exists(AUTOMODEL) or not tree.files.exists(CLI_MODEL):
        return None
    automodel = tree.parse(AUTOMODEL)
    function = next((n for n in ast.walk(automodel) if isinstance(n, ast.FunctionDef) and n.name == "from_pretrained"), None)
    branch = function and next((n for n in ast.walk(function) if isinstance(n, ast.If) and _tests_maxtext(n.test)), None)
    if function is None or branch is None or "pyconfig.initialize" not in ast.unparse(branch):
        return None
    facts: dict[str, Any] = {"source": MAXTEXT_SOURCE.lower(), "site": f"{AUTOMODEL}:{branch.lineno}",
                             "words": [], "set_unless_given": {}, "from_env": {}}
    meanings = _meanings(function, automodel)
    for node in ast.walk(branch):
        if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "argv" and isinstance(node.value, ast.List):
            constants = [e.value for e in node.value.elts if isinstance(e, ast.Constant)]
            facts["base"] = constants[1] if len(constants) > 1 else None
            facts["words"] += [_word(e, None, meanings) for e in node.value.elts if isinstance(e, ast.JoinedStr)]
        elif isinstance(node, ast.If):
            for inner in node.body:
                _conditional(node.test, inner, facts, meanings)
    if any("model_name_of" in word["value"] for word in facts["words"]):
        facts["model_families"] = _model_families(tree)
    facts["kwargs"], facts["reads"] = _create_model_kwargs(tree.parse(CLI_MODEL))
    facts["sections"] = {entry: sections for entry in entries if (sections := _model_sections(tree, f"tunix/cli/{entry}.py"))}
    return facts


def _model_families(tree: SourceTree) -> dict[str, Any]:
    """Each table of FAMILY_TABLES as its prefixes, in the order naming.py writes them; what
    cannot be read so is `{"unknown": WHY}`."""
    if not tree.files.exists(NAMING):
        return {"unknown": f"{NAMING} is not in the tree"}
    families: dict[str, Any] = {}
    for node in tree.parse(NAMING).body:
        if not (isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)):
            continue
        kind = next((k for k, name in FAMILY_TABLES.items() if name == node.targets[0].id), None)
        table = next((n for n in ast.walk(node.value) if isinstance(n, ast.Dict)), None) if kind else None
        if table is not None and all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in table.keys):
            families[kind] = [k.value for k in table.keys]
    missing = [name for kind, name in FAMILY_TABLES.items() if kind not in families]
    return {"unknown": f"{NAMING}: {', '.join(missing)} not read as a mapping of strings"} if missing else families


def _tests_maxtext(test: ast.expr) -> bool:
    return (isinstance(test, ast.Compare) and isinstance(test.ops[0], ast.Eq)
            and ast.unparse(test.comparators[0]).endswith(f"ModelSource.{MAXTEXT_SOURCE}"))


def _conditional(test: ast.expr, node: ast.stmt, facts: dict[str, Any], meanings: dict[str, dict]) -> None:
    """`if model_path is not None: argv.append(f'k={v}')`, `if 'k' not in kwargs: kwargs['k'] = C`,
    `if 'k' not in kwargs and 'HF_TOKEN' in os.environ: kwargs['k'] = os.environ['HF_TOKEN']`."""
    if (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and ast.unparse(node.value.func) == "argv.append"
            and node.value.args and isinstance(node.value.args[0], ast.JoinedStr)):
        if not isinstance(node.value.args[0].values[0], ast.Constant):  # f'{k}={val_str}': the keyword arguments' words
            facts["kwargs_words"] = KWARGS_WORDS if ast.unparse(test) == KWARGS_TEST else {"unknown": ast.unparse(test)}
            return
        when = (test.left.id if isinstance(test, ast.Compare) and isinstance(test.ops[0], ast.IsNot)
                and isinstance(test.left, ast.Name) and ast.unparse(test.comparators[0]) == "None" else ast.unparse(test))
        facts["words"].append(_word(node.value.args[0], when, meanings))
    elif isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Subscript) and ast.unparse(node.targets[0].value) == "kwargs":
        key = node.targets[0].slice
        if not isinstance(key, ast.Constant):
            return
        if isinstance(node.value, ast.Constant):
            facts["set_unless_given"][key.value] = node.value.value
        elif (isinstance(node.value, ast.Subscript) and ast.unparse(node.value.value) == "os.environ"
              and isinstance(node.value.slice, ast.Constant)):
            facts["from_env"][key.value] = node.value.slice.value


def _word(node: ast.JoinedStr, when: str | None, meanings: dict[str, dict]) -> dict[str, Any]:
    """`f'model_name={naming_info.model_name}'` -> the key and where its value comes from."""
    parts = node.values
    key = parts[0].value.removesuffix("=") if parts and isinstance(parts[0], ast.Constant) else None
    value = parts[1].value if len(parts) == 2 and isinstance(parts[1], ast.FormattedValue) else None
    source = ast.unparse(value) if value is not None else ast.unparse(node)
    word = {"key": key, "value": meanings.get(source, {"unknown": source})}
    if when is not None:
        word["when_not_none" if when.isidentifier() else "when"] = when
    return word


def _meanings(function: ast.FunctionDef, module: ast.Module) -> dict[str, dict]:
    """What the expressions of the argv's words are for a MaxText model, as far as the release
    shows it: `naming_info.model_name` where `naming_info = naming.ModelNaming(model_id=model_id)`
    (the name Tunix derives from model_id), and the path `download_model` gives back, which for
    MAXTEXT is the model_id_or_path it was given (model_id where the branch that takes model_path
    does not name MAXTEXT)."""
    meanings: dict[str, dict] = {}
    for node in ast.walk(function):
        if not (isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)):
            continue
        value = node.value
        if (isinstance(value, ast.Call) and ast.unparse(value.func).endswith("ModelNaming") and len(value.keywords) == 1
                and value.keywords[0].arg == "model_id" and isinstance(value.keywords[0].value, ast.Name)):
            meanings[f"{node.targets[0].id}.model_name"] = {"model_name_of": value.keywords[0].value.id}
        if (isinstance(value, ast.Call) and ast.unparse(value.func) == "download_model" and value.args
                and _returns_argument(module) and isinstance(value.args[0], ast.Name)):
            given = _maxtext_assignment(function, value.args[0].id)
            if given is not None:
                meanings[node.targets[0].id] = {"key": given}
    return meanings


def _returns_argument(module: ast.Module) -> bool:
    """Whether download_model returns its first argument for MAXTEXT."""
    function = next((n for n in module.body if isinstance(n, ast.FunctionDef) and n.name == "download_model"), None)
    if function is None or not function.args.args:
        return False
    first = function.args.args[0].arg
    for node in ast.walk(function):
        if isinstance(node, ast.If) and f"ModelSource.{MAXTEXT_SOURCE}" in ast.unparse(node.test):
            return any(isinstance(s, ast.Return) and ast.unparse(s.value) == first for s in node.body)
    return False


def _maxtext_assignment(function: ast.FunctionDef, name: str) -> str | None:
    """The parameter `name` is set from when the model source is MAXTEXT: an `if` whose test names
    the sources that take one value, MAXTEXT among them or not."""
    for node in ast.walk(function):
        if not (isinstance(node, ast.If) and "ModelSource." in ast.unparse(node.test)):
            continue
        branch = node.body if f"ModelSource.{MAXTEXT_SOURCE}" in ast.unparse(node.test) else node.orelse
        for stmt in branch:
            if isinstance(stmt, ast.Assign) and ast.unparse(stmt.targets[0]) == name and isinstance(stmt.value, ast.Name):
                return stmt.value.id
    return None


def _create_model_kwargs(module: ast.Module) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """The keyword arguments create_model gives from_pretrained beyond its own parameters: each
    from a key of the model section, with the default `.get` gives it; and every key of the
    section create_model reads."""
    function = next((n for n in module.body if isinstance(n, ast.FunctionDef) and n.name == "create_model"), None)
    call = function and next((n for n in ast.walk(function) if isinstance(n, ast.Call)
                              and ast.unparse(n.func).endswith("from_pretrained")), None)
    if call is None:
        return {}, []
    section = function.args.args[0].arg if function.args.args else None
    found: dict[str, dict[str, Any]] = {}
    reads = sorted({node.slice.value for node in ast.walk(function) if isinstance(node, ast.Subscript)
                    and ast.unparse(node.value) == section and isinstance(node.slice, ast.Constant)}
                   | {node.args[0].value for node in ast.walk(function) if isinstance(node, ast.Call)
                      and ast.unparse(node.func) == f"{section}.get" and node.args and isinstance(node.args[0], ast.Constant)})
    for keyword in call.keywords:
        if keyword.arg is None or keyword.arg in _NAMED:
            continue
        value = keyword.value
        if (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "get"
                and ast.unparse(value.func.value) == section and value.args and isinstance(value.args[0], ast.Constant)):
            entry: dict[str, Any] = {"key": value.args[0].value}
            if len(value.args) > 1 and isinstance(value.args[1], ast.Constant):
                entry["default"] = value.args[1].value
            found[keyword.arg] = entry
        elif isinstance(value, ast.Subscript) and ast.unparse(value.value) == section and isinstance(value.slice, ast.Constant):
            found[keyword.arg] = {"key": value.slice.value}
        else:
            found[keyword.arg] = {"unknown": ast.unparse(value)}
    return found, reads


def _model_sections(tree: SourceTree, relpath: str) -> list[str]:
    """The config sections an entry point hands `create_model`: `self.config['model_config']`,
    or a local read with `self._mutable_config_mapping("reference_model_config")`."""
    module = tree.parse(relpath)
    sections = []
    for function in (n for n in ast.walk(module) if isinstance(n, ast.FunctionDef)):
        local = {n.targets[0].id: n.value.args[0].value for n in ast.walk(function)
                 if isinstance(n, ast.Assign) and isinstance(n.targets[0], ast.Name) and isinstance(n.value, ast.Call)
                 and ast.unparse(n.value.func) in ("self._mutable_config_mapping", "self._config_mapping")
                 and n.value.args and isinstance(n.value.args[0], ast.Constant)}
        for node in ast.walk(function):
            if not (isinstance(node, ast.Call) and ast.unparse(node.func).endswith("create_model") and node.args):
                continue
            argument = node.args[0]
            if isinstance(argument, ast.Call) and ast.unparse(argument.func) == "dict" and argument.args:
                argument = argument.args[0]
            if (isinstance(argument, ast.Subscript) and ast.unparse(argument.value) == "self.config"
                    and isinstance(argument.slice, ast.Constant)):
                sections.append(argument.slice.value)
            elif isinstance(argument, ast.Name) and argument.id in local:
                sections.append(local[argument.id])
    return sorted(set(sections))
