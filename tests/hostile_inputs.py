"""Hostile inputs of every kind flaglint reads, each made from a seed (random.Random), so a run is the
same on every machine: the hypothesis tests draw seeds (tests/cli/test_fuzz_inputs.py), and
bench/fuzz_campaign.py runs thousands of them. A maker writes what it needs under FOLDER and gives
the command line to run there; nothing it writes is ever executed."""

from __future__ import annotations

import json
import os
import random
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
HUGE = "9" * 4400


@dataclass
class Case:
    args: list[str]
    stdin: bytes | None = None
    env: dict[str, str] = field(default_factory=dict)  # the process environment (XDG_CACHE_HOME for a store)
    must_fail: bool = False  # the input holds what MaxText or Tunix refuses: exit 0 would pass it (fail-open)


KEYS = ["steps", "log_period", "per_device_batch_size", "num_moe_token_chunks", "custom_mesh_and_rule", "run_name",
        "logical_axis_rules", "ici_fsdp_parallelism", "dcn_data_parallelism", "model_name", "dpo.dpo_beta", "bogus_key",
        "compile_topology", "num_slices", "enable_checkpointing", "base_config"]
VALUES = ["1", "-1", "0", "1.5", "1e3", "1e400", "0x10", "0o7", "1_000", HUGE, "-" + HUGE, "true", "False", "yes", "none", "~",
          "''", '""', "'x", "[1, [2]]", "[a, b", "{a: 1}", "{a: {b: {c: [1]}}}", "&a [*a]", "*a", "!!int", "!!int abc", "!!float",
          "!!bool", "!!bool maybe", "!!timestamp", "!!timestamp 2001-13-45", "!!binary ###", "!!python/object:os.system",
          "!!set {a}", "!!omap [a: 1]", "!!str", "é", "\x00", "\udcff", "\u2028", "a=b", "=", "$(nproc)", "${X}", "`id`",
          "v5p-8", "tpu7x:4x8x8", "default", "llama2-7b", "[[a, [b]], [c]]", "- x", ": x", "#x", "%x", "@x", "|", ">"]
TUNIX_VARIABLES = ["TRAINER_TPU_SLICE", "TRAINER_MESH_FSDP", "TRAINER_MESH_EXPERT", "PACK_PAD_POSITION",
                   "TUNIX_LOGPS_SHARDED_HEAD", "MAXTEXT_EXTRA_FLAGS", "HF_TOKEN"]
ARITHMETIC = ["1", "x", "=", "+", "-", "*", "/", "%", "**", "(", ")", "0x", "0xffffffffffffffffffffffffff", "16#zz", "64#_",
              "2#102", "[", "]", "?", ":", ",", "==", "<<", "99999999999999999999999", "-", "1e400", "$X", "${a[1]}"]


def _value(rng: random.Random) -> str:
    return rng.choice(VALUES) if rng.random() < 0.85 else "".join(rng.choice("!&*[]{}:,#'\"-=x1\\ ") for _ in range(rng.randint(0, 8)))


def _token(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.75:
        return f"{rng.choice(KEYS)}={_value(rng)}"
    if roll < 0.9:
        return rng.choice(KEYS)
    return "".join(chr(rng.randint(1, 0x2FFF)) for _ in range(rng.randint(1, 6)))


def flag_string(rng: random.Random) -> str:
    return " ".join(_token(rng) for _ in range(rng.randint(0, 6)))


def _env_items(rng: random.Random) -> list[str]:
    items = []
    for _ in range(rng.randint(0, 3)):
        name = rng.choice(TUNIX_VARIABLES + [f"M_{rng.choice(KEYS).upper()}", f"T_{rng.choice(['MODEL_CONFIG', 'BATCH_SIZE', 'X'])}"])
        items += ["--env", f"{name}={_value(rng)}"]
    return items


def _write(path: Path, text: str) -> None:
    path.write_bytes(text.encode("utf-8", "surrogatepass"))


# values that keep a YAML document well-formed (a tag may still be one PyYAML cannot construct)
PLAIN = ["1", "-1", "0", "1.5", "1e3", "0x10", HUGE, "true", "no", "null", "''", "[1, [2]]", "{a: 1}", "!!int", "!!int abc",
         "!!float", "!!timestamp 2001-13-45", "!!bool maybe", "!!binary ###", "é", "v5p-8", "default", "'a: b'", "[[a, [b]], [c]]"]


def _yaml_document(rng: random.Random, base: str | None) -> str:
    lines = [f"base_config: {base}"] if base is not None else []
    well_formed = rng.random() < 0.5
    for _ in range(rng.randint(0, 6)):
        roll = rng.random()
        if well_formed:
            lines.append(f"{rng.choice(KEYS)}: {rng.choice(PLAIN)}")
            continue
        if roll < 0.7:
            lines.append(f"{rng.choice(KEYS)}: {_value(rng)}")
        elif roll < 0.8:
            lines.append(rng.choice(["a: &a [x, x]\nb: &b [*a, *a, *a, *a]\nc: &c [*b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c]",
                                     "steps: 1\nsteps: 2", "<<: {steps: 1}", "? [a]\n: b", "x: !!python/name:os.system", "\t- x"]))
        else:
            lines.append("".join(rng.choice("ab:-[]{}&*!| \n\t'\"#") for _ in range(rng.randint(0, 12))))
    return "\n".join(lines) + rng.choice(["\n", "", "\r\n"])


def _config(rng: random.Random) -> str:
    """A config MaxText loads: each key once, values it types."""
    keys = rng.sample([k for k in KEYS if k != "base_config"], rng.randint(0, 5))
    return "".join(f"{key}: {rng.choice(['1', '-1', 'true', 'x', '[1, 2]', '{a: 1}', '1.5', 'null', '0x10'])}\n" for key in keys)


def yaml_chain(rng: random.Random, folder: Path) -> Case:
    """MaxText's argv with a config file and its base_config chain, M_ variables and Tunix's."""
    depth = rng.randint(1, 3)
    names = [f"c{i}.yml" for i in range(depth)]
    for i, name in enumerate(names):
        base = names[i + 1] if i + 1 < depth else rng.choice([None, None, "base.yml", "c0.yml", "/dev/zero", "missing.yml", "a" * 300 + ".yml"])
        _write(folder / name, (f"base_config: {base}\n" if base else "") + _config(rng) if rng.random() < 0.6 else _yaml_document(rng, base))
    if rng.random() < 0.1:
        (folder / names[-1]).unlink()
        os.mkfifo(folder / names[-1])
    return Case(["check", "--format", "json", *_env_items(rng), names[0], *(_token(rng) for _ in range(rng.randint(0, 3)))])


def flags(rng: random.Random, folder: Path) -> Case:
    return Case(["check", "--format", rng.choice(["json", "text", "sarif", "github", "junit"]), *_env_items(rng), flag_string(rng)])


def batch(rng: random.Random, folder: Path) -> Case:
    text = "\n".join(flag_string(rng) for _ in range(rng.randint(0, 5)))
    data = text.encode("utf-8", "surrogatepass") + rng.choice([b"", b"\xff", b"\r\n", b"\x00"])
    if rng.random() < 0.5:
        return Case(["check", "--batch", "-"], stdin=data)
    (folder / "batch.txt").write_bytes(data)
    return Case(["check", "--batch", "batch.txt"])


def environment(rng: random.Random, folder: Path) -> Case:
    """M_ and T_ variables and Tunix's, from --env and --env-file, on a flag string or a Tunix command line."""
    lines = [f"{rng.choice(['', 'export '])}{rng.choice(TUNIX_VARIABLES + ['M_STEPS', 'T_X'])}={_value(rng)}" for _ in range(rng.randint(0, 4))]
    _write(folder / "run.env", "\n".join(lines + [rng.choice(["", "=x", "no equals", "# comment"])]))
    args = ["check", "--env-file", "run.env", *_env_items(rng)]
    if rng.random() < 0.4:
        return Case([*args, "--", "python", "-m", rng.choice(["tunix.cli.peft_main", "tunix.cli.grpo_main"]),
                     rng.choice(["tunix/cli/base_config.yaml", "base.yaml", "missing.yaml"]), *(_token(rng) for _ in range(3))])
    return Case([*args, flag_string(rng)])


_SCRIPT_LINES = [
    'export MAXTEXT_EXTRA_FLAGS="${{MAXTEXT_EXTRA_FLAGS}} {t}"', 'export {v}="${{{v}:-{x}}}"', "let '{a}'", "x=$(( {a} ))",
    "a[{a}]=1", "y=${{a[{a}]}}", "if [ {x} -eq {x} ]; then", "if [[ {x} -le {a} ]]; then", "fi", "else", "done",
    'case "${v}" in a) A=1 ;; *) A=2 ;; esac', "for i in 1 2 3; do", "while [ $i -lt 3 ]; do i=$((i+1)); done",
    "source ./{s}", "bash ./{s}", "f() {{ f; }}", "read -r -d '' CMD <<EOF\npython3 -m maxtext.trainers.pre_train.train {t}\nEOF",
    'bash -c "$CMD"', "eval \"$CMD\"", "python3 -m maxtext.trainers.pre_train.train src/maxtext/configs/base.yml {t}",
    "python3 -m maxtext.trainers.pre_train.train {t}", "exit {x}", "shift", "set -e", "getopts ab: opt", "echo ${{!v}}",
    "x=${{v//{x}/{x}}}", "x=${{v:{a}:{a}}}", "printf -v X %s {x}", '# flaglint: disable=FL105 reason="r"', "<<EOF", "$(",
]


def script(rng: random.Random, folder: Path) -> Case:
    sourced = rng.choice(["missing.sh", "other.sh", "pipe.sh", "big.sh", "run.sh"])
    lines = ["#!/usr/bin/env bash"]
    for _ in range(rng.randint(1, 10)):
        template = rng.choice(_SCRIPT_LINES)
        lines.append(template.format(t=_token(rng).replace('"', ""), v=rng.choice(TUNIX_VARIABLES), x=rng.choice(["1", "x", "-", "", "0x1f"]),
                                     a=" ".join(rng.choice(ARITHMETIC) for _ in range(rng.randint(1, 4))), s=sourced))
    _write(folder / "run.sh", "\n".join(lines) + "\n")
    _write(folder / "other.sh", 'export MAXTEXT_EXTRA_FLAGS="steps=1"\n')
    (folder / "big.sh").write_bytes(b"# padding\n" * 60_000)
    os.mkfifo(folder / "pipe.sh")
    return Case(["lint", "--format", "json", *(["--arg", _value(rng)] if rng.random() < 0.3 else []), "run.sh"])


def manifest(rng: random.Random, folder: Path) -> Case:
    base = (REPO / "examples" / "jobsets" / rng.choice(["trainer-128.yaml", "trainer-256.yaml", "orchestrator.yaml"])).read_text()
    lines = base.splitlines()
    for _ in range(rng.randint(1, 4)):
        at = rng.randrange(len(lines))
        roll = rng.random()
        values = [i for i, line in enumerate(lines) if line.lstrip().startswith(("value:", "- name:"))]
        if roll < 0.5 and values:  # a well-formed manifest with other values and variables: its flags reach the checks
            at = rng.choice(values)
            head = lines[at][: lines[at].index(":") + 1]
            lines[at] = f"{head} {json.dumps(_value(rng) if head.endswith('value:') else rng.choice(TUNIX_VARIABLES))}"
            continue
        roll = (roll - 0.5) * 2
        if roll < 0.3:
            del lines[at]
        elif roll < 0.6:
            indent = lines[at][: len(lines[at]) - len(lines[at].lstrip())]
            lines[at] = indent + rng.choice(["value: " + _value(rng), "- name: X\n" + indent + "  value: " + _value(rng),
                                             "valueFrom: {configMapKeyRef: {name: c, key: k}}", "<<: *a", "kind: List",
                                             "envFrom: [{configMapRef: {name: c}}]", "replicas: " + HUGE])
        else:
            lines.insert(at, lines[rng.randrange(len(lines))])
    text = "\n".join(lines) + "\n"
    if rng.random() < 0.2:
        text = "apiVersion: v1\nkind: List\nitems:\n" + "".join("  " + line + "\n" if i else "- " + line + "\n" for i, line in enumerate(text.splitlines()))
    if rng.random() < 0.5:
        return Case(["gate", "--format", "json", "-"], stdin=text.encode("utf-8", "surrogatepass"))
    _write(folder / "jobset.yaml", text)
    return Case(["gate", "--format", "json", "jobset.yaml"])


_SETTINGS = {"pin": ['"maxtext-0.2.5"', '"nope"', "1"], "select": ['["FL004"]', '["FL4X"]', '"FL004"'], "ignore": ['["FL0"]', "[1]"],
             "fail-on": ['"warning"', '"never"'], "path-cap": ["1", "0", HUGE, '"x"'], "extra-rules": ['["rules.yml"]', '["/dev/zero"]', '["pipe"]'],
             "requirements": ['"req.txt"', '"pipe"', '"/dev/zero"'], "model": ['"llama2-7b"', '"nope"'], "pin-store": ['"store"', '"/dev/zero"'],
             "tunix-pin": ['"0.1.5"', '"9"'], "docs-url": ['"x"'], "colour": ["true"]}


def project_config(rng: random.Random, folder: Path) -> Case:
    lines = ["[tool.flaglint]"] if rng.random() < 0.5 else []
    for _ in range(rng.randint(0, 4)):
        key = rng.choice(list(_SETTINGS))
        lines.append(f"{key} = {rng.choice(_SETTINGS[key])}" if rng.random() < 0.85 else rng.choice(["[severity]", 'FL004 = "warn"', "[per-file-ignores]", "= x", "[["]))
    name = "pyproject.toml" if lines and lines[0] == "[tool.flaglint]" else "flaglint.toml"
    _write(folder / name, "\n".join(lines) + "\n")
    _write(folder / "rules.yml", rng.choice(["rules: []\n", "rules:\n- id: X1\n  when: steps > !!int\n", "rules: {}\n", "[", "rules:\n- {}\n"]))
    _write(folder / "req.txt", rng.choice(["maxtext==0.2.5\n", "maxtext==9\n", "maxtext @ git+https://x@" + "a" * 40 + "\n", "google-tunix==0.1.5\n", "\xff"]))
    os.mkfifo(folder / "pipe")
    return Case(["check", "--format", "json", flag_string(rng)])


def pin_store(rng: random.Random, folder: Path) -> Case:
    """A store entry written by hand or cut short: its pin.json, schema.json, rules and config index."""
    entry = folder / "xdg" / "flaglint" / "pins" / "hand"
    (entry / "rules").mkdir(parents=True)
    bundled = json.loads((REPO / "schemas" / "maxtext-0.2.5.json").read_text())
    schema: object = bundled
    roll = rng.random()
    if roll < 0.2:
        schema = rng.choice([[], {}, None, "x", {"version": 1}, {"version": "0.2.5", "keys": []}])
    elif roll < 0.7:
        keys = list(bundled["keys"])
        for _ in range(rng.randint(1, 3)):
            key = rng.choice(keys)
            bundled["keys"][key] = rng.choice([None, 1, [], {}, {**bundled["keys"][key], "kind": rng.choice(["int", "nope", 1])}])
    pin = {"name": "hand", "version": rng.choice(["0.2.5", 1, None]), "origin": "x", "kind": rng.choice(["tree", "wheel"])}
    if rng.random() < 0.2:
        pin.pop(rng.choice(list(pin)))
    _write(entry / "pin.json", json.dumps(pin))
    _write(entry / "schema.json", json.dumps(schema) if rng.random() < 0.9 else "{")
    _write(entry / "rules" / "rules.yml", rng.choice(["rules: []\n", "rules:\n- id: MX9\n  when: 'steps >'\n", "x: [", "rules:\n- when: !!int\n"]))
    if rng.random() < 0.5:
        _write(entry / "configs.json", rng.choice(["{}", "[]", '{"version": "0.2.5", "files": {"base.yml": 1}}', "{"]))
    return Case(["check", "--format", "json", "--pin", "hand", flag_string(rng)] if rng.random() < 0.8 else ["pins"],
                env={"XDG_CACHE_HOME": str(folder / "xdg")})


_TYPES = '''from pydantic import BaseModel, Field, model_validator

class MaxTextConfig(BaseModel):
  steps: int = Field(10, gt=0)
  run_name: str = ""
{extra}
'''
_EXTRA = ["  x: int = {v}", "  @model_validator(mode='after')\n  def check(self):\n    if self.steps > {v}:\n      raise ValueError('x')\n    return self",
          "  y: Literal[{v}] = 1", "  def (", "  z: dict = {{}}", "  w: 'MaxTextConfig' = None", "  q: float = float('{v}')"]


def schema_import_tree(rng: random.Random, folder: Path) -> Case:
    """A MaxText tree (or a wheel of one) for `schema import`: its Python, configs and .git, with
    links out of the tree, FIFOs, alias bombs and members of any size."""
    root = folder / "tree"
    package = root / "src" / "maxtext"
    (package / "configs" / "models").mkdir(parents=True)
    extra = "\n".join(rng.choice(_EXTRA).format(v=rng.choice(["1", "'a'", HUGE, "None", "x", "1e400"])) for _ in range(rng.choice([0, 0, 1, 2])))
    _write(package / "configs" / "types.py", _TYPES.format(extra=extra))
    for name in ("base.yml", "models/tiny.yml"):
        _write(package / "configs" / name, _config(rng) if rng.random() < 0.7 else _yaml_document(rng, None))
    _write(package / "version.py", rng.choice(['__version__ = "0.2.9"\n', "__version__ = 1\n", "\xff", ""]))
    outside = folder / "secret.yml"
    _write(outside, "steps: 3\n")
    roll = rng.random()
    if roll < 0.15:
        (package / "configs" / "models" / "link.yml").symlink_to(outside)
    elif roll < 0.25:
        (package / "configs" / "base.yml").unlink()
        (package / "configs" / "base.yml").symlink_to(outside)
    elif roll < 0.35:
        os.mkfifo(package / "configs" / "models" / "pipe.yml")
    git = root / ".git"
    roll = rng.random()
    if roll < 0.3:
        git.mkdir()
        _write(git / "HEAD", rng.choice(["ref: refs/heads/main\n", "a" * 40 + "\n", "\xff", ""]))
        _write(git / "packed-refs", f"{'0123456789abcdef' * 2}01234567 refs/heads/main\n")
    elif roll < 0.4:
        git.symlink_to("/dev/zero")
    elif roll < 0.5:
        git.mkdir()
        os.mkfifo(git / "HEAD")
    env = {"XDG_CACHE_HOME": str(folder / "xdg")}
    if rng.random() < 0.3:
        wheel = folder / "maxtext-0.2.9-py3-none-any.whl"
        with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as archive:
            for path in sorted(p for p in package.rglob("*") if p.is_file() and not p.is_symlink() and not p.is_fifo()):
                archive.write(path, "maxtext/" + path.relative_to(package).as_posix())
            if rng.random() < 0.3:
                archive.writestr("maxtext/configs/models/big.yml", b"#" * (9 * 2**20))  # deflates to kilobytes
        return Case(["schema", "import", str(wheel)], env=env)
    return Case(["schema", "import", str(root)], env=env)


def huge_number(rng: random.Random) -> str:
    """A number of any size as YAML writes one: hex, octal, binary or decimal of up to 6,000
    digits (Python converts 4,300 at most), an exponent past a float's range, inf, NaN."""
    sign = rng.choice(["", "", "-", "+"])
    digits = rng.choice([rng.randint(1, 40), rng.randint(300, 400), rng.randint(4_290, 4_310), rng.randint(4_311, 6_000)])
    roll = rng.randrange(8)
    if roll == 0:
        return sign + "0x" + "".join(rng.choice("0123456789abcdefABCDEF") for _ in range(digits))
    if roll == 1:
        return sign + rng.choice(["0b", "0o", "0"]) + "".join(rng.choice("01") for _ in range(digits))
    if roll == 2:
        return sign + "1" + "0" * digits + rng.choice(["", ".0", ".", ".5"])
    if roll == 3:
        return sign + rng.choice(["1e", "1.5e", "9E+", "1e-"]) + str(rng.choice([308, 309, 400, 4_400, 10**6]))
    if roll == 4:
        return sign + rng.choice([".inf", ".Inf", ".INF", ".nan", ".NaN", "inf", "nan", "Infinity"])
    if roll == 5:
        return sign + "_".join(rng.choice(["1", "999", "0"]) for _ in range(digits // 3 + 1))
    if roll == 6:
        return sign + "0" * rng.randint(0, 5) + "9" * digits
    return sign + str(rng.randint(0, 9)) * digits + rng.choice(["", ":30", "e5"])


NUMERIC_KEYS = ["steps", "learning_rate", "dropout_rate", "per_device_batch_size", "ici_fsdp_parallelism", "num_slices",
                "max_target_length", "log_period", "dcn_data_parallelism", "compile_topology_num_slices", "run_name",
                "logical_axis_rules", "enable_checkpointing", "remat_policy", "dpo.dpo_beta"]
TUNIX_NUMERIC_KEYS = ["batch_size", "num_batches", "num_train_epochs", "max_target_length", "training_config.max_steps",
                      "rl_training_config.eval_every_n_steps", "model_config.mesh.shape"]
_MAXTEXT_TRAIN = ["python3", "-m", "maxtext.trainers.pre_train.train", "src/maxtext/configs/base.yml"]


def huge_numbers(rng: random.Random, folder: Path) -> Case:
    """A number of any size wherever a value is typed: a flag string and a flag file, a config, an
    env file (M_ variables, Tunix's, TRAINER_TPU_SLICE's shape), a Tunix word or T_ variable, a
    container's argument. The input always holds an undefined key as well, so a run must find it."""
    words = [f"{rng.choice(NUMERIC_KEYS)}={huge_number(rng)}" for _ in range(rng.randint(1, 3))] + ["bogus_key=1"]
    rng.shuffle(words)
    channel = rng.randrange(7)
    if channel == 0:
        return Case(["check", "--format", "json", " ".join(words)], must_fail=True)
    if channel == 1:
        _write(folder / "run.flags", " ".join(words) + "\n")
        return Case(["check", "--format", "json", "-f", "run.flags"], must_fail=True)
    if channel == 2:
        _write(folder / "run.yml", "".join(f"{word.replace('=', ': ', 1)}\n" for word in dict.fromkeys(words)))
        return Case(["check", "--format", "json", "run.yml", f"{rng.choice(NUMERIC_KEYS)}={huge_number(rng)}"], must_fail=True)
    if channel == 3:
        shape = "x".join(huge_number(rng).lstrip("+-") if rng.random() < 0.5 else str(rng.randint(1, 8)) for _ in range(rng.randint(1, 3)))
        lines = [f"TRAINER_TPU_SLICE={rng.choice(['tpu7x', 'v5p', 'v6e'])}:{shape}",
                 f"{rng.choice(['TRAINER_MESH_FSDP', 'TRAINER_MESH_EXPERT', 'M_STEPS', 'M_LEARNING_RATE'])}={huge_number(rng)}"]
        _write(folder / "run.env", "\n".join(lines) + "\n")
        return Case(["check", "--format", "json", "--env-file", "run.env", " ".join(words)], must_fail=True)
    if channel == 4:
        tunix = [f"{rng.choice(TUNIX_NUMERIC_KEYS)}={huge_number(rng)}" for _ in range(rng.randint(1, 3))] + ["bogus_key=1"]
        env = ["--env", f"T_{rng.choice(['BATCH_SIZE', 'NUM_BATCHES'])}={huge_number(rng)}"] if rng.random() < 0.3 else []
        return Case(["check", "--format", "json", *env, "--", "python", "-m", rng.choice(["tunix.cli.peft_main", "tunix.cli.grpo_main"]),
                     "tunix/cli/base_config.yaml", *tunix], must_fail=True)
    if channel == 5:
        args = json.dumps([*_MAXTEXT_TRAIN, *words])
        env = json.dumps(" ".join(f"{rng.choice(NUMERIC_KEYS)}={huge_number(rng)}" for _ in range(2)))
        _write(folder / "jobset.yaml", "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata: {name: t}\nspec:\n"
               "  replicatedJobs:\n  - name: w\n    template:\n      spec:\n        template:\n          spec:\n"
               f"            containers:\n            - name: c\n              command: {args}\n"
               f"              env: [{{name: MAXTEXT_EXTRA_FLAGS, value: {env}}}]\n")
        return Case(["gate", "--format", "json", "--allow-unverified", "jobset.yaml"], must_fail=True)
    _write(folder / "run.sh", f"#!/bin/bash\nexport MAXTEXT_EXTRA_FLAGS=\"{' '.join(words)}\"\n{' '.join(_MAXTEXT_TRAIN)}\n")
    return Case(["lint", "--format", "json", "run.sh"], must_fail=True)


# Launches in bash's corners, each of a key MaxText does not define (stepz): followed and judged,
# or refused (FL011); and constructs with no end before a launch, which end in FL011. Exit 0 fails open.
_HIDDEN_LAUNCH = "python3 -m maxtext.trainers.pre_train.train src/maxtext/configs/base.yml stepz=1"
_HIDING = ["command {l}", "command -p {l}", "coproc {l}", "coproc T {{ {l}; }}", "env -S '{l}'", "nice env --split-string='{l}'",
           "bash <<EOF\n{l}\nEOF", "bash <<< '{l}'", "trap '{l}' EXIT", "trap -- '{l}' 0", "echo '{l}' | bash",
           "bash -euxo pipefail -c '{l}'", "F=stepz=1\ndeclare -n r=F\n{l} $r", "shopt -s expand_aliases\nalias t='{l}'\nt",
           "f() {{\n  local -x MAXTEXT_EXTRA_FLAGS=stepz=1\n  {l}\n}}\nf", "IFS=,\nX=a,stepz=2\n{l} $X", "g() {{ {l}; }}\ntrap g EXIT"]
_WITHOUT_END = ["while :; do A+=(x); done", 'while true; do X="$X$X a"; done', 'for ((i=0;i<100000;i++)); do X="$X steps=$i"; done',
                "f() {{ f $X; }}; f", "while :; do A[${{#A[@]}}]=x; done"]


def hidden_launches(rng: random.Random, folder: Path) -> Case:
    """A script (lint) or a container's bash -c script (gate) that launches from a corner of bash,
    or runs a construct with no end first."""
    parts = [rng.choice(_HIDING).format(l=_HIDDEN_LAUNCH) for _ in range(rng.randint(1, 2))]
    if rng.random() < 0.2:
        parts.insert(0, rng.choice(_WITHOUT_END).format() + "\n" + _HIDDEN_LAUNCH)
    text = "\n".join(parts) + "\n"
    if rng.random() < 0.3:
        body = "".join(f"      {line}\n" for line in text.splitlines())
        _write(folder / "pod.yaml", f"apiVersion: v1\nkind: Pod\nmetadata: {{name: w}}\nspec:\n  containers:\n  - name: main\n"
                                    f"    image: trainer\n    command: [bash, -c]\n    args:\n    - |\n{body}")
        return Case(["gate", "--format", "json", "pod.yaml"], must_fail=True)
    _write(folder / "run.sh", text)
    return Case(["lint", "--format", "json", "run.sh"], must_fail=True)


MAKERS = {"flag strings": flags, "--batch": batch, "argv with YAML chains": yaml_chain, "M_/T_ and --env": environment,
          "scripts": script, "manifests": manifest, "project config": project_config, "pin store contents": pin_store,
          "trees for schema import": schema_import_tree, "numbers of any size": huge_numbers,
          "launches in bash's corners": hidden_launches}
