"""`flaglint show [KEY…] [CONFIG.yml | BASE.yaml] [key=value…]`: effective values and their origins (MaxText's or Tunix's)."""

from __future__ import annotations

import re

import click

from flaglint.cli.shared import Options, load_checker
from flaglint.core.findings import InputError
from flaglint.frontends.check.inputs import config_source
from flaglint.frontends.check.show import provenance, render_json, render_text
from flaglint.frontends.check.tunix_argv import tunix_provenance
from flaglint.read.argv import argv_source
from flaglint.read.flags import FlagSource
from flaglint.resolve.topology import from_config
from flaglint.tunix.launch import is_tunix_argv
from flaglint.tunix.pins import tunix_base_names
from flaglint.tunix.variables import launcher

_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")


@click.command()
@click.argument("words", nargs=-1)
@click.option("--flags", "flag_string", help="A MAXTEXT_EXTRA_FLAGS string (whitespace-split, as Tunix splits it).")
@click.option("--env", "env_items", multiple=True, metavar="K=V", help="A Tunix or M_<KEY> variable (repeatable).")
@click.option("--env-file", type=click.Path(dir_okay=False), help="KEY=VALUE lines of Tunix variables.")
@click.option("--pin", help="MaxText pin: a release (maxtext-0.1.0 ... maxtext-0.2.5), a fork or imported commit (7+ characters), or installed; `flaglint pins` lists them.")
@click.option("--tunix-pin", help="Tunix pin, for a Tunix command line (BASE.yaml key=value …): a release (tunix-0.1.0 ... tunix-0.1.7).")
@click.option("--requirements", type=click.Path(dir_okay=False), help="Take the pin from this requirements file.")
@click.option("--model", help="Apply this MaxText model config first.")
@click.option("--topology", help="The devices it runs on (v5p-8, v6e-64, tpu7x:4x4x8).")
@click.option("--slices", type=click.IntRange(1), default=1, show_default=True, help="Slices of --topology.")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True, help="Output format.")
def show(words, flag_string, env_items, env_file, pin, tunix_pin, requirements, model, topology, slices, output_format):
    """Print each KEY's effective value and where it came from (every key something set, when no KEY
    is named). The other words are MaxText's argv, as for `check` (CONFIG.yml and key=value words),
    or a Tunix command line (BASE.yaml key=value …)."""
    keys = [w for w in words if _KEY.fullmatch(w) and not w.endswith((".yml", ".yaml"))]
    argv = [w for w in words if w not in keys]
    if flag_string is not None and argv:
        raise InputError("give either --flags (a MAXTEXT_EXTRA_FLAGS string) or MaxText's argv words, not both")
    given = Options(env_items=env_items, env_file=env_file, pin=pin, tunix_pin=tunix_pin, requirements=requirements, model=model,
                    topology=topology, slices=slices)
    settings = given.settings()
    if argv and flag_string is None and is_tunix_argv(tuple(argv), lambda: tunix_base_names(settings["tunix-pin"])):
        pin_name, rows = tunix_provenance(tuple(argv), settings["tunix-pin"], given.env(), keys)
        click.echo(render_json(pin_name, rows) if output_format == "json" else render_text(_shown(rows)))
        return
    option = given.devices(settings["pin"])
    checker = load_checker(settings, option)
    configs = checker.pin.configs
    if flag_string is not None:
        source = FlagSource(flag_string, name=launcher().flags)
    elif argv and argv[0].endswith(".yml"):
        source = config_source(argv[0], argv[1:], configs)
    else:
        source = argv_source(argv)
    config, _ = checker.config(source, given.env())
    unknown = [k for k in keys if not config.knows(k)]
    if unknown:
        raise InputError(f"{', '.join(unknown)}: not a key MaxText {checker.pin.pin} defines")
    count = option or from_config(config)
    rows = provenance(config, keys, count.source if count else None)
    click.echo(render_json(checker.pin.pin, rows) if output_format == "json" else render_text(_shown(rows)))


def _shown(rows: list) -> list:
    """The rows, when there are any: with nothing named and nothing set there is nothing to show."""
    if not rows:
        raise InputError("nothing to show: name KEYs, or give what sets them (a CONFIG.yml, key=value words, --flags or --env)")
    return rows
