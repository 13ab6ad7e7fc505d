"""Clean launches taken from a Tunix release's own example scripts (`examples/**/run_*.sh` at the
release's tag in a clone of google/tunix), for the drawn cases of tunix_differential.

Each `python3 -m tunix.cli.grpo_main|peft_main …` of a script becomes its words: the script's
variables replaced by the defaults it gives them (`n=${n:-3738}`), the arithmetic it hands to awk
and printf (`$(awk "BEGIN {print $a * $b}")`, `$(printf "%.0f" "$x")`) done here on those values,
`$RANDOM` a fixed number, and `"$@"` left out. Nothing of the scripts is run. A launch with a word
whose value is not found so is left out. The override files a launch names are read from the tag.
"""

from __future__ import annotations

import ast
import operator
import re
import shlex
import subprocess
from pathlib import Path

from oracle.tunix_differential import Case

ENTRIES = ("grpo_main", "peft_main")
_LAUNCH = re.compile(r"python3? -m tunix\.cli\.(\w+)")
_DEFAULT = re.compile(r"^(\w+)=\$\{\1:-\"?([^}\"]*)\"?\}\s*$")
_LITERAL = re.compile(r"^(\w+)=\"?([\w./:-]*)\"?\s*$")
_AWK = re.compile(r"^(\w+)=\$\(awk \"BEGIN \{(?:print|printf \\\"%\.0f\\\",) (.*)\}\"\)\s*$")
_PRINTF = re.compile(r"^(\w+)=\$\(printf \"%\.0f\" \"\$(\w+)\"\)\s*$")
_VARIABLE = re.compile(r"\$\{(\w+)\}|\$(\w+)")
_OPERATORS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}


def _git(git_dir: Path, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", str(git_dir), *args], check=True, capture_output=True, text=True).stdout


def example_launches(git_dir: Path, version: str) -> list[Case]:
    """The clean launches of the release's example scripts (those the tag has), in path order."""
    tag = f"v{version}"
    scripts = [p for p in _git(git_dir, "ls-tree", "-r", "--name-only", tag, "examples").split()
               if re.search(r"/run_[^/]*\.sh$", p)]
    cases = []
    for path in scripts:
        for entry, words in _launches(_git(git_dir, "show", f"{tag}:{path}")):
            files = {}
            if "/" in words[0] and not words[0].startswith("/"):  # run from a checkout: the tag's own base
                files[words[0]] = _git(git_dir, "show", f"{tag}:{words[0]}")
            for word in words:
                name, _, value = word.partition("=")
                if name == "override_config_file":
                    files[value] = _git(git_dir, "show", f"{tag}:{value}")
            cases.append(Case(entry, words, {}, files, f"example {path}"))
    return cases


def _launches(text: str) -> list[tuple[str, list[str]]]:
    values: dict[str, str] = {"RANDOM": "4242"}
    lines = text.replace("\\\n", " ").splitlines()
    out = []
    for line in lines:
        stripped = line.strip()
        if match := _DEFAULT.match(stripped) or _LITERAL.match(stripped):
            values[match[1]] = _substituted(match[2], values) or ""
        elif match := _AWK.match(stripped):
            values[match[1]] = _arithmetic(_substituted(match[2], values), round_it="printf" in stripped)
        elif match := _PRINTF.match(stripped):
            known = values.get(match[2])
            values[match[1]] = str(round(float(known))) if known not in (None, "") else ""
        elif (launch := _LAUNCH.search(stripped)) and launch[1] in ENTRIES and not stripped.startswith("#"):
            command = _substituted(stripped[launch.end():].rstrip("\\ "), values, keep_arguments=True)
            try:
                words = [w for w in shlex.split(command, comments=True) if w != "$@"] if command is not None else []
            except ValueError:  # not one command line shlex can split
                continue
            if words and "=" not in words[0]:
                out.append((launch[1], words))
    return out


def _substituted(text: str, values: dict[str, str], keep_arguments: bool = False) -> str | None:
    """TEXT with each variable's value; None where one has none (`"$@"` kept as it is for a launch)."""
    missing = []

    def value(match: re.Match) -> str:
        name = match[1] or match[2]
        if name not in values or values[name] == "" and name not in ("RANDOM",):
            missing.append(name)
            return ""
        return values[name]

    if keep_arguments:
        text = text.replace('"$@"', "'$@'")
    done = _VARIABLE.sub(value, text)
    return None if missing else done


def _arithmetic(expression: str | None, round_it: bool) -> str:
    """A product (or sum) of numbers, as awk computes it; '' where it is not one."""
    if expression is None:
        return ""
    try:
        number = _evaluate(ast.parse(expression.strip(), mode="eval").body)
    except (SyntaxError, ValueError, ZeroDivisionError):
        return ""
    if round_it:
        return str(round(number))
    return str(int(number)) if number == int(number) else repr(number)


def _evaluate(node: ast.expr) -> float:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        return _OPERATORS[type(node.op)](_evaluate(node.left), _evaluate(node.right))
    raise ValueError(ast.dump(node))
