"""The record a judged sweep leaves (bench/results/): the tables of its trees, and a fixed sample
of their launches stored as the argv flaglint extracted (keys and values, never the scripts) with
the real program's verdict, which tests/bench/test_judged_sample.py re-judges without the oracle.

    python bench/judged_record.py SWEEP.json [SWEEP.json ...] [--per-tree 12] [--results bench/results]
                                  [--command "what made the sweeps"]

A launch enters the sample (with the words the program was given: one only an input decides is
left out) when it can be judged again without its tree: a MaxText launch whose
config is MaxText's own (src/maxtext/configs/…, where the tree holds none of that name) or one the script writes (its text is stored), a
Tunix launch whose override files were found (their keys and values are stored with it). Per tree, the launches flaglint gets wrong first, then those
MaxText or Tunix refuses, then accepted ones, in file and line order.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests")]

from judged_sweep import classed, config_lint, report, summary  # noqa: E402
from judging import ACCEPTED, FALSE_ERROR, FOUND, MISSED, OTHER_KEY, classify  # noqa: E402
from launches import OVERRIDE  # noqa: E402

from flaglint.render.bash.explorer import OTHER  # noqa: E402

ORDER = {FALSE_ERROR: 0, MISSED: 0, FOUND: 1, OTHER_KEY: 1, ACCEPTED: 2}
KEPT = ("tree", "commit", "file", "line", "kind", "entry", "argv", "config", "config_text", "files", "env", "devices", "oracle",
        "class")


def _replayable(record: dict) -> bool:
    if record["class"] not in ORDER:
        return False
    if record["kind"] == "tunix":
        return all(word[len(OVERRIDE):] in record["files"] for word in record["argv"] if word.startswith(OVERRIDE))
    return record["kind"] == "maxtext" and (record["config_text"] is not None or record["config"].startswith("src/maxtext/configs/"))


def _in_tree(tree: dict, path: str | None) -> bool:
    """Whether the tree holds the file PATH (a MaxText tree's own configs: read there, not the pin's)."""
    if path is None or tree["commit"] is None:
        return path is not None and (Path(tree["path"]) / path).is_file()
    return subprocess.run(["git", "-C", tree["path"], "cat-file", "-e", f"{tree['commit']}:{path}"], capture_output=True).returncode == 0


def sample(trees: list[dict], per_tree: int) -> list[dict]:
    chosen = []
    for tree in trees:
        kept = sorted((r for r in tree["records"] if _replayable(r) and not _in_tree(tree, r["config"])),
                      key=lambda r: (ORDER[r["class"]], r["file"], r["line"]))
        seen = set()
        for record in kept:
            key = (record["kind"], tuple(w for w in record["argv"] if OTHER not in w), record["config"], record.get("config_text"))
            if key in seen:
                continue
            seen.add(key)
            # the words the program was given: a word only an input decides is left out (oracle_judge)
            entry = {"tree": tree["tree"], "commit": tree["commit"], **record, "argv": [w for w in record["argv"] if OTHER not in w]}
            # an override file's keys and values, not its text (its comments and layout stay in its tree)
            entry["files"] = {path: yaml.safe_dump(yaml.safe_load(text), sort_keys=False) for path, text in record.get("files", {}).items()}
            # its class by flaglint's verdict on the argv itself, the one the test judges again
            entry["class"] = classify(record["flaglint"], record["oracle"]).cls
            chosen.append({name: entry.get(name) for name in KEPT})
            if len(seen) == per_tree:
                break
    return chosen


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sweeps", nargs="+", help="files judged_sweep.py --json wrote")
    parser.add_argument("--per-tree", type=int, default=12)
    parser.add_argument("--results", default=str(REPO / "bench" / "results"))
    parser.add_argument("--command", default="", help="the command lines that made the sweeps, for the record")
    parser.add_argument("--pin", default="maxtext-0.2.5")
    parser.add_argument("--tunix", default="0.1.7")
    args = parser.parse_args()
    trees = [tree for path in args.sweeps for tree in json.loads(Path(path).read_text())]
    for tree in trees:
        checked = {run["file"]: run for run in tree["checked"]}
        for record in (r for r in tree["records"] if r["kind"] in ("maxtext", "tunix", "config")):
            if record["kind"] == "config":
                record["lint"] = config_lint(checked[record["file"]])
            classed(record)  # by the classifier as it is now
    results = Path(args.results)
    results.mkdir(parents=True, exist_ok=True)
    tables = "\n\n".join(report(tree, show=False) for tree in trees)
    (results / "judged_sweep.md").write_text(
        f"# Public recipe material judged by MaxText {args.pin.removeprefix('maxtext-')} and Tunix {args.tunix}\n\n"
        f"Made by: `{args.command}`\n\n{summary(trees)}\n\n```\n{tables}\n```\n")
    launches = sample(trees, args.per_tree)
    (results / "judged_sample.json").write_text(json.dumps(
        {"pin": args.pin, "tunix": f"tunix-{args.tunix}", "launches": launches}, indent=1, sort_keys=True) + "\n")
    print(f"{len(launches)} launches from {len({launch['tree'] for launch in launches})} trees; tables of {len(trees)} trees")
    return 0


if __name__ == "__main__":
    sys.exit(main())
