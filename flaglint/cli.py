"""The `flaglint` command. Exit codes: 0 clean, 1 findings at or above --fail-on, 2 bad usage or input."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, Callable

import click

from .findings import InputError
from .report import FORMATS, Checked, render


def _fail(message: str) -> None:
    click.echo(f"flaglint: error: {message}", err=True)
    sys.exit(2)


class _Group(click.Group):
    """Turns bad input anywhere into one line and exit code 2, never a traceback."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except InputError as err:
            _fail(str(err))
        except (click.exceptions.Exit, click.ClickException, click.exceptions.Abort, SystemExit):
            raise
        except RecursionError:
            _fail("input too deeply nested")
        except Exception as err:  # noqa: BLE001 - a bug must still not show users a traceback
            if os.environ.get("FLAGLINT_DEBUG"):
                raise
            _fail(f"internal error ({type(err).__name__}: {err}); rerun with FLAGLINT_DEBUG=1 and report it")


@click.group(cls=_Group)
@click.version_option(package_name="flaglint")
def main() -> None:
    """Check MaxText/Tunix training flags, recipe scripts and JobSets before launch."""


def _common(fn: Callable) -> Callable:
    options = [
        click.option("--env", "env_items", multiple=True, metavar="K=V", help="A Tunix variable (repeatable)."),
        click.option("--env-file", type=click.Path(dir_okay=False), help="KEY=VALUE lines of Tunix variables."),
        click.option("--pin", help="MaxText pin: maxtext-0.2.5, or a fork commit such as bbd0f6f10."),
        click.option("--requirements", type=click.Path(dir_okay=False), help="Take the pin from this requirements file."),
        click.option("--model", help="Apply this MaxText model config (configs/models/NAME.yml) first."),
        click.option("--format", "output_format", type=click.Choice(FORMATS), default="text", show_default=True),
        click.option("--fail-on", type=click.Choice(["error", "warning", "info"]), help="Lowest severity that fails (default: error)."),
        click.option("--max-fixes", type=click.IntRange(0, 50), default=3, show_default=True, help="Fixes of the smallest size to list."),
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


def _settings(pin: str | None, requirements: str | None, model: str | None, fail_on: str | None):
    from .config import load_settings
    from .schema.pins import pin_from_requirements

    settings = load_settings()
    settings.override("requirements", requirements, "--requirements")
    if requirements:
        settings.override("pin", pin_from_requirements(requirements), f"--requirements {requirements}")
    settings.override("pin", pin, "--pin")
    settings.override("model", model, "--model")
    settings.override("fail-on", fail_on, "--fail-on")
    return settings


def _apply_settings(result, settings, file: str | None = None):
    from .config import rule_enabled

    result.findings = [f for f in result.findings if rule_enabled(settings, f.rule, file)]
    for finding in result.findings:
        finding.severity = settings["severity"].get(finding.rule, finding.severity)
    return result


def _emit(output_format: str, checked: list[Checked], settings) -> None:
    click.echo(render(output_format, checked))
    if any(item.result.fails(settings["fail-on"]) for item in checked):
        sys.exit(1)


@main.command()
@click.argument("flags", nargs=-1)
@_common
@click.option("-f", "--file", "flag_file", type=click.Path(dir_okay=False), help="Read the flag string from this file.")
@click.option("--files", "as_files", is_flag=True, help="FLAGS are paths of flag files (one flag string each), as pre-commit passes them.")
@click.option("--batch", type=click.Path(dir_okay=False, allow_dash=True), help="One flag string per line; one JSON result per line (fixes only with --fix).")
@click.option("--fix", is_flag=True, help="Print the fixed flag string (or rewrite --file with --write).")
@click.option("--write", is_flag=True, help="With --fix and --file: rewrite the file in place.")
@click.option("--confirm-with", type=click.Path(dir_okay=False), help="Also run the pinned MaxText's pyconfig in this Python.")
def check(flags, env_items, env_file, pin, requirements, model, output_format, fail_on, max_fixes, flag_file, as_files, batch, fix, write, confirm_with):
    """Check FLAGS (a MAXTEXT_EXTRA_FLAGS string, `-` for stdin, or the NAME of a set variable)."""
    from .check import Checker
    from .read import FlagSource, read_env_assignments, read_flag_sources, read_text_file

    settings = _settings(pin, requirements, model, fail_on)
    env = read_env_assignments(env_items, env_file)
    checker = Checker(settings["pin"], settings["model"], tuple(settings["extra-rules"]))
    if batch:
        _check_batch(checker, batch, env, max_fixes if fix else 0, settings)
        return
    if flag_file:
        sources = [FlagSource(read_text_file(flag_file), file=flag_file)]
    elif as_files:
        sources = [FlagSource(read_text_file(path), file=path) for path in flags]
    elif flags:
        sources = read_flag_sources(tuple(flags))
    else:
        raise InputError("nothing to check: give FLAGS, `-` for stdin, a variable NAME, or --file")
    if write and not (fix and flag_file):
        raise InputError("--write needs --fix and --file")
    checked = []
    for source in sources:
        result = _apply_settings(checker.check(source, env, max_fixes=max_fixes), settings, source.file)
        checked.append(Checked(source.file, source.text, result))
    if confirm_with:
        from .confirm import confirm

        for item in checked:
            click.echo(confirm(confirm_with, settings["pin"], item.text, env, settings["model"]), err=True)
    if fix:
        _print_or_write_fix(checked[0], flag_file if write else None, checker, env, settings)
        return
    _emit(output_format, checked, settings)


def _print_or_write_fix(item: Checked, write_to: str | None, checker, env, settings) -> None:
    """Print (or write) the first fix, then exit as a check of the fixed string would."""
    from .read import FlagSource

    fixed = item.result.fixes[0].flags if item.result.fixes else item.text
    if write_to is None:
        click.echo(fixed.strip())
    elif item.result.fixes:
        from .fix_files import write_atomically

        write_atomically(Path(write_to), fixed if fixed.endswith("\n") or not item.text.endswith("\n") else fixed + "\n")
        click.echo(f"fixed {write_to}: " + ", ".join(f"{c.key} {c.from_!r} -> {c.to!r}" for c in item.result.fixes[0].changes), err=True)
    after = _apply_settings(checker.check(FlagSource(fixed, file=item.label), env, fix=False), settings, item.label)
    if after.fails(settings["fail-on"]):
        click.echo(render("text", [Checked(item.label, fixed, after)]), err=True)
        sys.exit(1)


def _check_batch(checker, batch: str, env, max_fixes: int, settings) -> None:
    from .read import FlagSource, decode

    data = sys.stdin.buffer.read() if batch == "-" else Path(batch).read_bytes() if Path(batch).is_file() else None
    if data is None:
        raise InputError(f"{batch}: no such file")
    failed = False
    for number, line in enumerate(decode(data, batch).splitlines(), 1):
        result = _apply_settings(checker.check(FlagSource(line, file=None), env, fix=max_fixes > 0, max_fixes=max_fixes), settings)
        payload = result.to_json()
        payload["line"] = number
        click.echo(json.dumps(payload))
        failed |= result.fails(settings["fail-on"])
    sys.exit(1 if failed else 0)


@main.command("rules")
@click.option("--pin", help="Only the rules that apply at this pin.")
def list_rules(pin):
    """List every rule: id, severity, title."""
    from .ruleset import load_ruleset
    from .schema.pins import load_pin

    pin_schema = load_pin(pin) if pin else None
    ruleset = load_ruleset(pin_schema.version if pin_schema else "0.2.5")
    for rule in ruleset.rules:
        if pin_schema is None or rule.applies_to(pin_schema.chain):
            click.echo(f"{rule.id:8} {rule.severity:8} {rule.title}")


@main.command()
@click.argument("rule_id")
def explain(rule_id):
    """Show a rule's title, rationale, examples, fix and source."""
    from .docs import explain_rule
    from .ruleset import load_ruleset

    rule = load_ruleset("0.2.5").by_id(rule_id.upper())
    if rule is None:
        raise InputError(f"no rule {rule_id!r}; `flaglint rules` lists them")
    click.echo(explain_rule(rule))


@main.command("config")
def show_config():
    """Print the effective settings and where each came from."""
    from .config import SETTINGS, load_settings

    settings = load_settings()
    click.echo(f"# config file: {settings.file or '(none found)'}")
    for name in SETTINGS:
        click.echo(f"{name} = {json.dumps(settings[name])}    # {settings.origins[name]}")


@main.group()
def schema():
    """Typed key schemas."""


@schema.command("import")
@click.argument("path", type=click.Path(exists=True))
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write the schema JSON here.")
@click.option("--rules", "rules_dir", type=click.Path(file_okay=False), help="Also write MaxText's validators as rules into this folder (rules/maxtext/<version>).")
def schema_import(path, output, rules_dir):
    """Read a MaxText source tree, wheel or installed package (without importing it)."""
    from .schema.importer import import_schema, schema_summary, write_schema

    imported = import_schema(path)
    click.echo(schema_summary(imported))
    if output:
        write_schema(imported, output)
        click.echo(f"wrote {output}")
    if rules_dir:
        from .schema.validators import summary, write_rules

        click.echo(summary(write_rules(path, rules_dir)))
        click.echo(f"wrote {rules_dir}")


@main.command()
@click.argument("flags", nargs=-1)
@click.option("--env", "env_items", multiple=True, metavar="K=V")
@click.option("--env-file", type=click.Path(dir_okay=False))
@click.option("--recipe", type=click.Path(dir_okay=False), help="Take the variables this recipe exports with --env (rendered, never run).")
def smoke(flags, env_items, env_file, recipe):
    """Run the bundled trainer core at toy sizes with the settings these variables select.

    The head and packer settings are Tunix variables (TUNIX_LOGPS_SHARDED_HEAD,
    COMPUTE_LOGPS_CHUNK_SIZE, PACK_PAD_POSITION, PACK_PAD_ALIGN, ...); FLAGS are accepted for
    symmetry with `check` and do not change them.
    """
    from .read import read_env_assignments

    env = read_env_assignments(env_items, env_file)
    if recipe:
        from .render.bash import ScriptError, render as render_bash

        try:
            env = {name: value.text for name, value in render_bash(Path(recipe), env).exported.items()}
        except ScriptError as err:
            raise InputError(str(err)) from None
    try:
        from .trainer.smoke import run_smoke
    except ImportError as err:
        raise InputError(f"flaglint smoke needs the trainer extra (pip install 'flaglint[trainer]'): {err}") from None
    problems = run_smoke(env)
    for problem in problems:
        click.echo(f"smoke: {problem}")
    if problems:
        sys.exit(1)
    click.echo("smoke: head and packer pass with these settings")


def _vary(items: tuple[str, ...]) -> dict[str, list[str]]:
    widened: dict[str, list[str]] = {}
    for item in items:
        key, sep, values = item.partition("=")
        if not sep or not key:
            raise InputError(f"--vary {item!r}: expected K=v1,v2")
        widened.setdefault(key, []).extend(values.split(","))
    return widened


@main.command("render")
@click.argument("script", type=click.Path(dir_okay=False))
@click.option("--env", "env_items", multiple=True, metavar="K=V", help="An input variable (repeatable).")
@click.option("--env-file", type=click.Path(dir_okay=False))
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True)
def render_script(script, env_items, env_file, output_format):
    """Print the variables SCRIPT exports for one environment, without running it."""
    from .read import read_env_assignments
    from .render.bash import ScriptError, render as render_bash

    env = read_env_assignments(env_items, env_file)
    try:
        rendering = render_bash(Path(script), env)
    except ScriptError as err:
        raise InputError(str(err)) from None
    exported = {name: value.text for name, value in sorted(rendering.exported.items())}
    if output_format == "json":
        click.echo(json.dumps({"version": 1, "env": exported}, indent=2))
    else:
        for name, value in exported.items():
            click.echo(f"{name}={value}")
    for note in rendering.notes:
        click.echo(f"note: {note.file}:{note.line}: {note.message}", err=True)


@main.command()
@click.argument("scripts", nargs=-1, required=True, type=click.Path(dir_okay=False))
@_common
@click.option("--vary", "vary_items", multiple=True, metavar="K=v1,v2", help="Widen an input's values (repeatable).")
@click.option("--path-cap", type=click.IntRange(1), help="Most input combinations checked together per script (default 4096).")
@click.option("--fix", is_flag=True, help="Apply the safe fixes to the scripts.")
@click.option("--unsafe-fixes", is_flag=True, help="With --fix or --diff, also apply unsafe fixes.")
@click.option("--diff", is_flag=True, help="Show the fixes as a diff without writing.")
@click.option("--allow-unverified", is_flag=True, help="A launch that cannot be verified is a warning, not an error.")
def lint(scripts, env_items, env_file, pin, requirements, model, output_format, fail_on, max_fixes, vary_items, path_cap, fix, unsafe_fixes, diff,
         allow_unverified):
    """Check recipe SCRIPTS on every branch, statically (they are never run)."""
    from .check import Checker
    from .lint import check_script
    from .read import read_env_assignments

    settings = _settings(pin, requirements, model, fail_on)
    settings.override("path-cap", path_cap, "--path-cap")
    env = read_env_assignments(env_items, env_file)
    checker = Checker(settings["pin"], settings["model"], tuple(settings["extra-rules"]))
    def run_all():
        results = [check_script(Path(s), checker, env, _vary(vary_items), settings["path-cap"], max_fixes, allow_unverified)
                   for s in scripts]
        for script, result in zip(scripts, results):
            _apply_settings(result.result, settings, script)
        return results

    results = run_all()
    if diff:
        _fix_scripts(results, unsafe_fixes, write=False)
    elif fix:
        # Fixes for different branches can interact: apply, check again, until nothing changes.
        for _ in range(10):
            if not _fix_scripts(results, unsafe_fixes, write=True):
                break
            results = run_all()
    hint = "flaglint lint --fix edits the script (--diff shows the edit)"
    _emit(output_format, [Checked(s, r.text, r.result, hint) for s, r in zip(scripts, results)], settings)


def _fix_scripts(results, unsafe: bool, write: bool) -> bool:
    """Show or write each script's fix; True when a file changed."""
    import difflib

    from .fix_files import write_atomically
    from .lint import apply_file_edits

    edits = [edit for result in results for edit in result.edits]
    changed = apply_file_edits(edits, unsafe)
    for file, (old, new) in changed.items():
        if write:
            write_atomically(Path(file), new.decode("utf-8"))
            click.echo(f"fixed {file}", err=True)
        else:
            click.echo("".join(difflib.unified_diff(old.decode("utf-8").splitlines(True), new.decode("utf-8").splitlines(True), f"a/{file}", f"b/{file}")), nl=False)
    if any(not e.safe for e in edits) and not unsafe:
        click.echo("unsafe fixes not applied; use --unsafe-fixes", err=True)
    for result in results:
        for line in result.additions:
            click.echo(f"to fix by hand in {result.path}: {line}", err=True)
    return bool(changed)


# The gate command reuses the option helpers above, so it is registered once they exist.
from .cli_gate import gate  # noqa: E402

main.add_command(gate)
