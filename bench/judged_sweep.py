"""Public recipe material judged by the real MaxText and Tunix: per tree, every script linted, every
manifest gated and every MaxText config checked as a user does (`flaglint lint|gate|check FILE`, a
fresh process from the tree's root, sweeping.run_flaglint), and every MaxText and Tunix launch
flaglint reports (each path's argv with its config file, launches.py) handed to the pin's real
pyconfig or Tunix's HyperParameters (oracle_judge.py); each launch classed (judging.py): found,
other key, accepted, missed, false error, not verified (with the construct). Lines that look like a
launch where flaglint reported none are listed as unseen, for a person to read.

    python bench/judged_sweep.py TREE [TREE ...] [--pin maxtext-0.2.5] [--tunix 0.1.7] [--timeout 120]
                                 [--json OUT.json] [--show]

TREE is GIT_DIR[@REV][:UNDER] (a repository, `fetch` brings public ones under
/work/.mirror/<owner>+<name>/repo, written out at REV, HEAD by default, and only the files under
UNDER swept) or a directory, its repository's root (copied); either is swept as a checkout, as a user
lints one. Scripts are read, never run. The per-file limit
(--timeout) is the bench's: a file that does not end is a hang, counted and named.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests")]

from judging import CLASSES, LAUNCH_LINE, NOT_VERIFIED, as_linted, classify, unseen  # noqa: E402
from launches import launches_within  # noqa: E402
from oracle_judge import maxtext_verdicts, tunix_verdicts_of  # noqa: E402
from sweeping import (  # noqa: E402
    SCRIPTS,
    YAML,
    command_blocks,
    commit_of,
    copied_out,
    files_of,
    run_flaglint,
    written_out,
)

# the commit of flaglint that judged the trees (a working tree's edits are not in it)
FLAGLINT = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip() or None
WORKLOAD = re.compile(r"^kind:\s*(JobSet|Job|CronJob|Pod|Deployment|StatefulSet|ReplicaSet|DaemonSet|List)\s*$", re.M)
MAXTEXT_CONFIG = re.compile(r"^base_config:", re.M)


def _tree(spec: str) -> tuple[str, str | None, str | None]:
    """GIT_DIR[@REV][:UNDER] or a directory: (path, rev or None for a directory, under)."""
    path, _, under = spec.partition(":")
    path, _, rev = path.partition("@")
    if (Path(path) / "HEAD").is_file() or (Path(path) / ".git").exists():
        return path, rev or "HEAD", under or None
    return path, None, under or None


def _name(path: str) -> str:
    folder = Path(path).resolve()
    return folder.parent.name if folder.name == "repo" else folder.name


def _lint_one(root: Path, script: Path, args) -> dict:
    run = run_flaglint(root, "lint", script, ["--pin", args.pin, "--tunix-pin", args.tunix], args.timeout)
    found = launches_within(root, script, args.pin, f"tunix-{args.tunix}", args.timeout)
    return {"run": run, "found": found}


def config_lint(run: dict) -> list[dict]:
    """flaglint's verdict on a config checked alone (`flaglint check FILE`, its run as a dict): its
    errors; a refusal to read it as a config (exit 2: a name MaxText reads as an undefined key,
    not as its config) is an error on that key, the file's name."""
    if run["rc"] == 2:
        return [{"rule": "exit 2", "keys": [str(Path(run["file"]).with_suffix(""))], "message": run["error"] or ""}]
    return [{"rule": f["rule"], "keys": f["keys"], "message": f["message"]} for f in run["findings"]
            if f["severity"] == "error" or f["rule"] in ("FL011", "FL016")]


def classed(record: dict) -> None:
    """The record's class and construct from flaglint's verdict and the program's (judging.classify);
    none where the program could not be run."""
    run = record.get("judged", not (record["oracle"] or "").startswith("not judged: "))
    judged = classify(record["lint"], record["oracle"]) if run else None
    record["class"] = judged.cls if judged else None
    record["construct"] = judged.construct if judged else None


def _construct(message: str) -> str:
    """An FL011 message without its script's own words: the construct, to count alike ones together."""
    return re.sub(r"'[^']*'|\"[^\"]*\"|\b\d+\b", "…", message)[:140]


def sweep(spec: str, args) -> dict:
    path, rev, under = _tree(spec)
    commit = commit_of(path, rev) if rev else None
    with written_out(path, commit) if rev else copied_out(path) as root:
        blocks = command_blocks(root, LAUNCH_LINE, under) if args.readme else []
        scripts = files_of(root, SCRIPTS, under)
        yamls = [(file, file.read_text(errors="replace")) for file in files_of(root, YAML, under)]
        # a Helm template (`{{ … }}`) is no manifest until it is rendered
        manifests = [file for file, text in yamls if WORKLOAD.search(text) and "{{" not in text]
        configs = [file for file, text in yamls if file not in manifests and MAXTEXT_CONFIG.search(text)]
        linted = {}
        for number, script in enumerate(scripts, 1):
            print(f"\r   {_name(path)}: {number}/{len(scripts)} {script.relative_to(root)}"[:150].ljust(150), end="", file=sys.stderr, flush=True)
            linted[script] = _lint_one(root, script, args)
        print(file=sys.stderr)
        gated = [run_flaglint(root, "gate", file, ["--pin", args.pin], args.timeout) for file in manifests]
        checked = [run_flaglint(root, "check", file, ["--pin", args.pin], args.timeout) for file in configs]
        records = []
        for script, done in linted.items():
            found = done["found"] or {"launches": [], "unverified": [], "error": f"did not end within {args.timeout:.0f} s"}
            for launch in found["launches"]:
                records.append({**launch, "script": str(script.relative_to(root)),
                                "lint": as_linted(launch, done["run"].findings, found["unverified"], done["run"].error if done["run"].hang else None)})
            at = {(launch["file"], launch["line"]) for launch in found["launches"]}
            # a launch lint cannot make concrete (or a script it did not finish), and apart, an FL011 on
            # a construct it cannot follow, after which what the script launches is not known
            unmade = {(u["file"], u["line"]): ("unverified", u["reason"]) for u in found["unverified"]}
            if done["run"].hang:
                unmade[(str(script.relative_to(root)), 1)] = ("unverified", done["run"].error)
            for f in done["run"].findings:
                if f["rule"] == "FL011" and f["location"]:
                    unmade.setdefault((f["location"]["file"], f["location"]["line"]), ("construct", f["message"]))
            for (file, line), (kind, reason) in unmade.items():
                if (file, line) not in at:
                    records.append({"kind": kind, "file": file, "line": line, "argv": [], "config": None, "unknown": [],
                                    "script": str(script.relative_to(root)), "lint": [{"rule": "FL011", "keys": [], "message": reason}],
                                    "oracle": None, "class": NOT_VERIFIED if kind == "unverified" else None, "construct": reason})
        for run in checked:
            records.append({"kind": "config", "file": run.file, "line": 1, "argv": [], "config": run.file, "config_text": None,
                            "env": {}, "unknown": [], "script": run.file, "lint": config_lint(vars(run))})
        maxtext = [r for r in records if r["kind"] in ("maxtext", "config")]
        tunix = [r for r in records if r["kind"] == "tunix"]
        for group, answers in ((maxtext, maxtext_verdicts(args.pin.removeprefix("maxtext-"), root, maxtext)),
                               (tunix, tunix_verdicts_of(args.tunix, root, tunix))):
            for record, answer in zip(group, answers if isinstance(answers, list) else [None] * len(group)):
                record["oracle"] = answer if isinstance(answers, list) else f"not judged: {answers}"
                record["judged"] = isinstance(answers, list)
                classed(record)
        reported: dict[str, set[int]] = {}
        for record in records:
            reported.setdefault(record["file"], set()).add(record["line"])
            for file, line in record.get("written_at", []):
                reported.setdefault(file, set()).add(line)
        for done in linted.values():
            for item in (done["found"] or {}).get("unverified", []):
                reported.setdefault(item["file"], set()).add(item["line"])
            for finding in done["run"].findings:
                if finding["location"]:
                    reported.setdefault(finding["location"]["file"], set()).add(finding["location"]["line"])
        missing = [(str(script.relative_to(root)), line, text) for script in scripts
                   for line, text in unseen(script.read_text(errors="replace"), reported.get(str(script.relative_to(root)), set()))]
        lines = {str(script.relative_to(root)): len(script.read_text(errors="replace").splitlines()) for script in scripts}
    runs = [done["run"] for done in linted.values()]
    return {"tree": _name(path), "path": path, "commit": commit, "flaglint": FLAGLINT, "under": under, "scripts": len(scripts), "blocks": len(blocks),
            "manifests": len(manifests), "configs": len(configs), "records": records, "unseen": missing,
            "runs": [vars(run) for run in runs], "gated": [vars(run) for run in gated], "checked": [vars(run) for run in checked],
            "extract_errors": [(str(s.relative_to(root)), d["found"]["error"] if d["found"] else "hang")
                               for s, d in linted.items() if not d["found"] or d["found"]["error"]],
            "lines": lines}


def _growth(runs: list[dict], lines: dict[str, int]) -> str:
    """The largest script's time against the median script's: how time grows with length."""
    timed = [run for run in runs if run["rc"] is not None and lines.get(run["file"])]
    if not timed:
        return "-"
    largest = max(timed, key=lambda run: lines[run["file"]])
    median_lines = statistics.median(lines[run["file"]] for run in timed)
    median_wall = statistics.median(run["wall"] for run in timed)
    return (f"{largest['file']} ({lines[largest['file']]} lines, {lines[largest['file']] / median_lines:.0f}x the median's "
            f"{median_lines:.0f}): {largest['wall']:.2f} s, {largest['wall'] / median_wall:.1f}x the median time")


def _slowest(run: dict | None) -> str:
    return f"{run['wall']:.2f} ({run['file']})" if run else "-"


def summary(trees: list[dict]) -> str:
    """One row per tree: its launches by class, the FL011 share, and the time per file."""
    rows = ["| tree @ commit (flaglint) | launches | found | other key | accepted | missed | false error | not verified | unseen |"
            " FL011 off launches | hangs | median s/file (CPU) | slowest s |", "|---" * 13 + "|"]
    for tree in trees:
        launches = [r for r in tree["records"] if r["kind"] != "construct"]
        classes = Counter(r["class"] for r in launches)
        walls = [run["wall"] for run in tree["runs"]]
        cpus = [run["cpu"] for run in tree["runs"] if run["cpu"] is not None]
        hangs = [run for run in tree["runs"] + tree["gated"] + tree["checked"] if run["rc"] is None]
        rows.append(f"| {tree['tree']}{':' + tree['under'] if tree['under'] else ''} @{(tree['commit'] or 'directory')[:12]}"
                    f" ({tree.get('flaglint') or '?'}) | {len(launches)} | "
                    + " | ".join(str(classes[c]) for c in CLASSES[:5])
                    + f" | {classes[NOT_VERIFIED]} ({classes[NOT_VERIFIED] / max(len(launches), 1):.1%}) | {len(tree['unseen'])}"
                    f" | {sum(r['kind'] == 'construct' for r in tree['records'])} | {len(hangs)}"
                    f" | {statistics.median(walls) if walls else 0:.2f} ({statistics.median(cpus) if cpus else 0:.2f})"
                    f" | {max(walls) if walls else 0:.2f} |")
    return "\n".join(rows)


def report(tree: dict, show: bool) -> str:
    """The tree's table and, below it, every launch not found or accepted (all with SHOW), each FL011
    off a launch (a construct lint cannot follow), the hangs and internal errors, and the unseen lines."""
    runs = tree["runs"]
    launches = [r for r in tree["records"] if r["kind"] != "construct"]
    constructs = [r for r in tree["records"] if r["kind"] == "construct"]
    classes = Counter(r["class"] for r in launches)
    walls = [run["wall"] for run in runs]
    cpus = [run["cpu"] for run in runs if run["cpu"] is not None]
    slowest = max(runs, key=lambda run: run["wall"]) if runs else None
    hangs = [run for run in runs + tree["gated"] + tree["checked"] if run["rc"] is None]
    internal = [run for run in runs + tree["gated"] + tree["checked"] if run["internal"]]
    kinds = Counter(r["kind"] for r in launches)
    out = [f"== {tree['tree']} {tree['commit'] or '(directory)'}{' under ' + tree['under'] if tree['under'] else ''}",
           f"   files: {tree['scripts']} scripts ({tree.get('blocks', 0)} of them Markdown command blocks), {tree['manifests']} manifests, "
           f"{tree['configs']} MaxText configs; launches: {kinds['maxtext']} MaxText, {kinds['tunix']} Tunix, "
           f"{kinds['unverified']} not made concrete, {kinds['config']} configs alone; "
           f"not verified {classes[NOT_VERIFIED] / max(len(launches), 1):.1%} of {len(launches)}",
           "   | launches | " + " | ".join(CLASSES) + " | unseen | FL011 off launches | hangs | internal | median s/file (CPU) | slowest |",
           f"   | {len(launches)} | " + " | ".join(str(classes[c]) for c in CLASSES) + f" | {len(tree['unseen'])} | {len(constructs)} | "
           f"{len(hangs)} | {len(internal)} | {statistics.median(walls) if walls else 0:.2f} ({statistics.median(cpus) if cpus else 0:.2f}) | "
           f"{_slowest(slowest)} |",
           f"   growth: {_growth(runs, tree['lines'])}"]
    not_judged = [r for r in launches if r["class"] is None]
    if not_judged:
        out.append(f"   not judged by the program ({len(not_judged)}): {not_judged[0]['oracle']}")
    gate_codes = Counter(run["rc"] for run in tree["gated"])
    out.append(f"   gate exit codes {dict(gate_codes)}; check (configs) exit codes {dict(Counter(run['rc'] for run in tree['checked']))}")
    by_construct = Counter(_construct(r["construct"]) for r in tree["records"] if r.get("construct"))
    if by_construct:
        out.append("   FL011 by construct: " + "; ".join(f"{n}x {c}" for c, n in by_construct.most_common()))
    for run in hangs + internal:
        out.append(f"   {'HANG' if run['rc'] is None else 'INTERNAL'} {run['file']}: {run['error']}")
    unread = Counter(re.sub(r"^\S+:\d+:\d+: ", "", error) for _, error in tree["extract_errors"])
    if unread:  # a script flaglint cannot parse (lint reports FL010 on it), or an extraction that failed
        out.append("   launches not extracted: " + "; ".join(f"{n}x {error}" for error, n in unread.most_common())
                   + f" ({', '.join(file for file, _ in tree['extract_errors'][:3])}{', …' if len(tree['extract_errors']) > 3 else ''})")
    for record in launches:
        if record["class"] in ("accepted", "found") and not show:
            continue
        lint = "; ".join(f["rule"] + " " + f["message"] for f in record["lint"])[:300] or "accepts"
        out.append(f"   {record['class'] or 'not judged'}: {record['file']}:{record['line']} ({record['kind']}, config {record['config']})")
        out.append(f"      flaglint: {lint}")
        if record["class"] != NOT_VERIFIED:
            out.append(f"      program: {(record['oracle'] or 'accepts')[:300]}")
            out.append(f"      argv: {' '.join(record['argv'])[:400]}")
    for record in constructs:
        out.append(f"   FL011 off launches {record['file']}:{record['line']}: {record['construct'][:200]}")
    for file, line, text in tree["unseen"]:
        out.append(f"   unseen {file}:{line}: {text}")
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="+", help="GIT_DIR[@REV][:UNDER] or a directory")
    parser.add_argument("--pin", default="maxtext-0.2.5", help="the MaxText pin (a bundled release: its oracle is built)")
    parser.add_argument("--tunix", default="0.1.7", help="the Tunix release (bundled)")
    parser.add_argument("--timeout", type=float, default=120, help="seconds per file, for lint and for its launches apart")
    parser.add_argument("--json", help="write every tree's launches, verdicts and times here")
    parser.add_argument("--readme", action="store_true",
                        help="lint the shell blocks of Markdown files that hold a launch too (written beside them in the copy)")
    parser.add_argument("--show", action="store_true", help="print found and accepted launches too")
    args = parser.parse_args()
    trees = []
    for spec in args.trees:
        trees.append(sweep(spec, args))
        if args.json:  # after each tree, so that a long sweep's finished trees are kept
            Path(args.json).write_text(json.dumps(trees, indent=1, sort_keys=True) + "\n")
        print(report(trees[-1], args.show), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
