"""`flaglint memory`: whether the train step a launch compiles fits in the HBM of its chips, asked
of the pinned MaxText's own ahead-of-time compile (flaglint/memory/)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import click

from flaglint.cli.options import common_options
from flaglint.cli.output import emit
from flaglint.cli.shared import Options, load_checker
from flaglint.core.findings import Finding, InputError, Result
from flaglint.core.location import Location
from flaglint.core.progress import Progress
from flaglint.core.reading import SCRIPT, read_file
from flaglint.frontends.check.inputs import check_sources
from flaglint.frontends.checker import Checker, argv_with_chain
from flaglint.maxtext.pyconfig import is_key_variable
from flaglint.memory.compile import Request, compile_all
from flaglint.memory.environment import managed_python, versions
from flaglint.memory.head import HEAD_VARIABLES, head_requests
from flaglint.memory.request import COMPILER_VARIABLES, compile_request
from flaglint.memory.verdict import FITS, OUT_OF_MEMORY, Verdict, gib
from flaglint.read.flags import FlagSource
from flaglint.report import Checked
from flaglint.resolve.topology import from_config
from flaglint.rules.ruleset import built_in

_SCRIPTS = (".sh", ".bash")


@dataclass
class Launch:
    """One config to compile: where the report places its verdict, and what the compile is."""

    checked: Checked
    at: Location
    requests: list[Request] = field(default_factory=list)  # none: not compiled (MaxText would refuse its config)


@click.command()
@click.argument("args", nargs=-1, required=True)
@common_options
@click.option("--compile-with", metavar="PYTHON",
              help="Compile with this Python (MaxText, jax and libtpu installed: the job's container's) instead of "
                   "flaglint's environment for the pin's release.")
@click.option("--jobs", type=click.IntRange(1), default=1, show_default=True,
              help="Compiles at once (each takes a CPU and about 2 GiB of memory).")
@click.option("--head", is_flag=True,
              help="Compile the bundled log-prob head (both modes) at the launch's per-chip sizes instead of the train step (seconds; no MaxText needed).")
def memory(args, options: Options, compile_with, jobs, head):
    """Compile the train step of ARGS for its TPU topology, ahead of time and on this machine's
    CPU, and say whether it fits in each chip's HBM: its peak, the chip's capacity and the
    headroom, or what it needs beyond what the chip has (FL018).

    ARGS is what `check` takes (MaxText's argv `CONFIG.yml key=value …`, a flag string) or a
    recipe script (each MaxText launch in it, for the environment --env gives). The topology is
    --topology and --slices, else an XPK launch's --tpu-type and --num-slices, else the config's
    compile_topology and compile_topology_num_slices.
    The compile is MaxText's own (train_compile) in a Python 3.12 environment flaglint builds on
    first use; verdicts are kept, so a launch asked about again is answered at once.
    """
    if options.fix or options.diff:
        raise InputError(f"{'--fix' if options.fix else '--diff'}: `flaglint memory` reports what the compiler says and fixes "
                         "nothing; `flaglint check --fix` fixes the flags")
    settings = options.settings()
    checker = load_checker(settings, options.devices(settings["pin"]))
    env = options.env()
    launches = _recipe_launches(args, checker, env, head) if _is_script(args) else [_argv_launch(args, checker, env, head)]
    judge(launches, checker, compile_with, jobs, head)
    emit(options, [launch.checked for launch in launches], settings)


def judge(launches: list[Launch], checker: Checker, compile_with: str | None, jobs: int, head: bool) -> None:
    """Each launch's compiles (kept verdicts first), reported on its result."""
    requests = [request for launch in launches for request in launch.requests]
    if not requests:
        return
    python, environment = _environment(checker.pin, compile_with)
    with Progress() as progress:
        counted = iter(range(1, len(requests) + 1))
        answers = iter(compile_all(requests, checker.pin.pin, python, environment, jobs, lambda request: progress.step(
            f"compiling {'the log-prob head' if head else 'the train step'} ({next(counted)} of {len(requests)})")))
    for launch in launches:
        if launch.requests and head:
            _report_head(launch, [next(answers) for _ in launch.requests])
        elif launch.requests:
            _report(launch, *next(answers))


def _is_script(args: tuple[str, ...]) -> bool:
    return len(args) == 1 and args[0].endswith(_SCRIPTS) and Path(args[0]).is_file()


def manifest_launches(path: str, text: str, checker: Checker, env: dict[str, str], head: bool) -> list[Launch]:
    """The compile of each launch of MaxText's own entry points in the manifest's workloads (its
    argv and the M_ and compiler variables of its container), for the slice its TPU node selector
    names and its replicated job's replicas, as the gate counts its devices (or the checker's
    --topology); other launches are named in a note."""
    from flaglint.frontends.commands import config_path, not_compiled  # noqa: PLC0415 the bash evaluator: only for a recipe or manifest
    from flaglint.frontends.gate.manifests import find_launches, on_slice  # noqa: PLC0415 the gate's reading: only for `gate --memory`
    from flaglint.maxtext.launch import recognise  # noqa: PLC0415 launch recognition: only for a recipe or manifest
    from flaglint.render.manifest import read_manifest  # noqa: PLC0415 yaml: only for `gate --memory`
    from flaglint.schema.config_index import load_index  # noqa: PLC0415 the whole index: only for a recipe or manifest

    index = load_index(checker.pin.configs)
    launches = []
    for container in read_manifest(text, path).containers:
        for process in find_launches(container, path).launches:
            words = [process.program, *(arg.text for arg in process.args)]
            command = recognise(words, index)
            first = process.args[command.start - 1].start if command is not None and len(process.args) >= command.start else None
            at = first.replace(file=path, end_column=first.column + 1) if first is not None else Location(path, 1, 1, end_column=2)
            on_workload = on_slice(checker, process)
            reason = ("it is not one of MaxText's own entry points (a Tunix trainer, or flags a launcher hands on): its train "
                      "step has no compile entry here" if command is None else not_compiled(command)) or (
                "its TPU topology is not known (no TPU node selector that names a MaxText topology; --topology gives one)"
                if on_workload.devices is None else None)
            if reason is not None:
                skipped = Launch(Checked(path, text, Result(pin=checker.pin.pin)), at)
                skipped.checked.result.notes.append(f"{_where(at)}{container.path}: not compiled: {reason}")
                launches.append(skipped)
                continue
            config, _ = config_path(command, [], index)
            source = argv_with_chain([words[i] for i in command.args], config, index)
            variables = {name: value.text for name, value in process.env.items() if is_key_variable(name) or name in COMPILER_VARIABLES}
            launches.append(launch_of(on_workload, source, {**env, **variables}, at, path, text, head, with_check=False))
    return launches


def _argv_launch(args: tuple[str, ...], checker: Checker, env: dict[str, str], head: bool) -> Launch:
    (source,) = check_sources(args, checker.pin.configs)
    return launch_of(checker, source, env, Location(None, 1, 1, end_column=2), None, source.text, head)


def _recipe_launches(args: tuple[str, ...], checker: Checker, env: dict[str, str], head: bool) -> list[Launch]:
    """Each MaxText launch of the script, as the environment given runs it (rendered, never run),
    for the slices of its XPK workload (--tpu-type, --num-slices) where it has one."""
    from flaglint.frontends.commands import command_lines, config_path, not_compiled  # noqa: PLC0415 the bash evaluator: only for a recipe
    from flaglint.render.bash.types import ScriptError  # noqa: PLC0415 the same
    from flaglint.render.recipes import render as render_bash  # noqa: PLC0415 the same
    from flaglint.schema.config_index import load_index  # noqa: PLC0415 the whole index: only for a recipe

    script = Path(args[0])
    text = read_file(args[0], SCRIPT)
    try:
        rendering = render_bash(script, env, text)
    except ScriptError as err:
        raise InputError(str(err)) from None
    index = load_index(checker.pin.configs)
    launches = []
    for rendered in [rendering, *rendering.handoffs]:
        for launch in rendered.launched:
            for line in command_lines(launch, index):
                if not_compiled(line.command) is not None:
                    continue
                config, _ = config_path(line.command, [script.parent, Path.cwd()], index, line.written)
                source = argv_with_chain([line.words[i].text for i in line.command.args], config, index, line.written)
                at = Location(line.file, line.line, 1, end_column=2)
                compiler = {name: value.text for name, value in {**rendered.exported, **launch.assigned}.items()
                            if name in (*COMPILER_VARIABLES, *HEAD_VARIABLES) and value is not None}  # the script's LIBTPU_INIT_ARGS
                launches.append(launch_of(line.checker(checker), source, {**env, **compiler, **line.env}, at, args[0],
                                          text.decode("utf-8", "replace"), head))
    if not launches:
        raise InputError(f"{args[0]}: no MaxText training launch found for this environment (--env sets the script's variables)")
    return launches


def launch_of(checker: Checker, source: FlagSource, env: dict[str, str], at: Location, label: str | None, text: str, head: bool,
              *, with_check: bool = True) -> Launch:
    """The compile of one config (none where MaxText would refuse it), for the slices the checks
    count its devices on: the checker's (--topology, an XPK workload's, a TPU node selector's),
    else the config's own (compile_topology, Tunix's slice). WITH_CHECK: the report carries the
    config's findings too (the gate reports them itself)."""
    checked = checker.check(source, env, fix=False)
    result = checked if with_check else Result(pin=checked.pin)
    launch = Launch(Checked(label, text, result, argv=source.argv and label is None), at)
    if any(finding.severity == "error" for finding in checked.findings):
        result.notes.append(f"{_where(at)}not compiled: MaxText would refuse this config before compiling (its errors are reported)")
        return launch
    config, _ = checker.config(source, env)
    count = checker.devices or from_config(config)
    if count is None:
        raise InputError("the compile needs a TPU topology: give --topology (and --slices), or set compile_topology and "
                         "compile_topology_num_slices (MaxText's train_compile needs both)")
    if count.topology is None:
        result.notes.append(f"{_where(at)}not compiled: {count.source} is no slice MaxText {checker.pin.version} has a compile "
                            "topology for (--topology gives one)")
        return launch
    launch.requests = (head_requests(config, env, count.topology) if head else
                       [compile_request(config, checker.pin.version, count.topology, count.slices, env)])
    return launch


def _environment(pin, compile_with: str | None) -> tuple[Path, dict[str, str]]:
    if compile_with:
        return Path(compile_with), versions(compile_with)
    if pin.pin != f"maxtext-{pin.version}":
        raise InputError(f"{pin.pin} is no MaxText release flaglint can install: give --compile-with PYTHON, an interpreter "
                         "with that MaxText, jax and libtpu installed")
    with Progress() as progress:
        def say(text: str) -> None:
            progress.clear()
            click.echo(f"flaglint: {text}", err=True)

        return managed_python(pin.version, say, progress.step)


def _report(launch: Launch, verdict: Verdict, from_cache: bool) -> None:
    (request,), result = launch.requests, launch.checked.result
    target = request.topology + (f" x {request.slices} slices" if request.slices > 1 else "")
    compiled = ", ".join(f"{name} {version}" for name, version in sorted(verdict.versions.items()))
    result.notes.append(f"{_where(launch.at)}compiled by {request.module} for {target}" + (f" with {compiled}" if compiled else "")
                        + (" (the verdict kept from an earlier compile)" if from_cache else ""))
    if verdict.outcome == FITS:
        capacity = f" of the {gib(verdict.capacity)} of HBM a chip has, {gib(verdict.headroom)} to spare" if verdict.capacity else ""
        result.notes.append(f"{_where(launch.at)}the train step fits: its peak is {gib(verdict.required)} a chip{capacity}")
        return
    finding: Finding
    if verdict.outcome == OUT_OF_MEMORY:
        finding = built_in("FL018", (), launch.at, topology=target, required=gib(verdict.required), available=gib(verdict.capacity))
    else:
        finding = built_in("FL019", (), launch.at, topology=target, reason=verdict.message)
    result.findings.append(finding)


def _report_head(launch: Launch, answers: list[tuple[Verdict, bool]]) -> None:
    """The recipe's head program (the first request) and the other mode's, each fitting or not."""
    result = launch.checked.result
    (chosen, _), (other, _) = answers
    ran, alternative = launch.requests
    compiled = ", ".join(f"{name} {version}" for name, version in sorted(chosen.versions.items()) if name != "maxtext")
    result.notes.append(f"{_where(launch.at)}compiled for one {ran.chip} chip with {compiled}")
    for request, verdict in ((ran, chosen), (alternative, other)):
        if verdict.outcome == FITS:
            spare = f" of {gib(verdict.capacity)}, {gib(verdict.headroom)} to spare" if verdict.capacity else ""
            result.notes.append(f"{_where(launch.at)}{request.described}: fits, peak {gib(verdict.required)}{spare}")
        elif verdict.outcome == OUT_OF_MEMORY:
            result.notes.append(f"{_where(launch.at)}{request.described}: does not fit, needs {gib(verdict.required)} "
                                f"of {gib(verdict.capacity)}")
        else:
            result.notes.append(f"{_where(launch.at)}{request.described}: {verdict.message}")
    if chosen.outcome == OUT_OF_MEMORY:
        result.findings.append(built_in("FL018", ("TUNIX_LOGPS_SHARDED_HEAD",), launch.at, variant="head", head=ran.described,
                                        required=gib(chosen.required), available=gib(chosen.capacity),
                                        other=alternative.mode, other_fits="fits" if other.outcome == FITS else "does not fit either"))


def _where(at: Location) -> str:
    return f"{at.file}:{at.line}: " if at.file else ""

