"""The pipeline for one flag string: read -> resolve -> solve -> fix, into a Result.

`Checker` holds what does not change between flag strings (pin, rules), so `--batch` pays for
loading once and every line after that is cheap.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping

from flaglint.core.edits import Applicability
from flaglint.core.findings import Finding, InputError, Result
from flaglint.maxtext.pyconfig import ep_rank_without_axes
from flaglint.maxtext.tpu import RULE_FUNCTIONS
from flaglint.maxtext.values import shown_setting
from flaglint.pins.config_classes import class_checks, class_rules, tokenizer_not_found
from flaglint.pins.pins import (
    DEFAULT_PIN,
    NotJudged,
    load_pin,
    not_judged,
    pins_defining,
)
from flaglint.read.argv import argv_source
from flaglint.read.config_chain import PIN_LABEL
from flaglint.read.flags import FlagSource
from flaglint.resolve.recorded import Recorded, reads_alike
from flaglint.resolve.resolver import Config, close_keys, resolve
from flaglint.resolve.topology import (
    DEVICE_NAMES,
    DeviceCount,
    device_names,
    from_config,
    not_judged_note,
    unmodelled_mesh_note,
)
from flaglint.rules.expr import Unknown, evaluate, substitute
from flaglint.rules.ruleset import built_in, load_ruleset
from flaglint.solve.rules import applicable, finding, holds, minimal_changes

TYPE_CHECKING = False  # typing's, without importing typing: a cold check does not need it
if TYPE_CHECKING:
    from flaglint.pins.pins import PinSchema
    from flaglint.render.yaml_chain import Written
    from flaglint.rules.ruleset import RuleSet
    from flaglint.schema.config_index import ConfigIndex
    from flaglint.solve.solutions import Solution

# The configs a checker keeps (shared_config): a recipe's launches, and a language server's checks
# of it after each edit, resolve the same few flag strings again; past this many the one read
# longest ago goes.
SHARED_CONFIGS = 1024
# The rule verdicts a checker keeps (_violated); past this many they are all dropped.
VERDICTS = 1 << 16
# The fix searches a checker keeps (_smallest): this many sets of rules, each with this many answers
# (a recipe's launches break the same rules with other values), the one asked longest ago going first.
FIX_SEARCHES = 64
FIX_ANSWERS = 8


class Checker:
    def __init__(self, pin: str = DEFAULT_PIN, model: str | None = None, extra_rules: tuple[str, ...] = (),
                 devices: DeviceCount | None = None, fail_closed: bool = False, pin_origin: str = "default"):
        """`devices`: the device count given by the caller (--topology); else the config's own.
        `fail_closed`: a check of MaxText's that flaglint cannot judge is an error (the gate's
        default), not a warning. `pin_origin`: what chose the pin (`--pin`, a settings file), or
        "default"."""
        self.pin_origin = pin_origin
        self.model = model
        self.devices = devices
        self.fail_closed = fail_closed
        pin_schema = load_pin(pin)
        self.judge_with(pin_schema, load_ruleset(pin_schema.rules, tuple(extra_rules)))

    def judge_with(self, pin: PinSchema, ruleset: RuleSet) -> None:
        """Judge by PIN's keys and RULESET from now on, with nothing kept of what was judged before."""
        self.pin = pin
        self.ruleset = ruleset
        # MaxText's messages of the checks hand-written rules state
        self._stated = tuple(m for rule in self.ruleset.rules if rule.applies_to(self.pin.chain) for m in rule.states)
        self._rules: list | None = None  # the rules this pin can judge; the same for every flag string
        self._by_name: dict[str, list[int]] | None = None  # the positions in _rules of the rules that read each name
        self._notes: dict[tuple, str | None] = {}  # each note (not_judged_note, unmodelled_mesh_note), by the pin chain it depends on
        self._shared: dict[tuple, tuple[Config, list[Finding]]] = {}  # _resolved's, the one read longest ago first
        self._verdicts: dict[tuple, tuple] = {}  # _violated's: (rule, the values it reads) -> (the rule, whether it holds)
        self._searches: dict[tuple, list] = {}  # _smallest's, by the rules: (what it read, its answer), the one asked longest ago first
        # lint's solver answers on launches judged with these rules (frontends/lint/launch_query), kept while the checker is
        self.answers: dict = {}
        # lint's witnesses of findings over the same path conditions (frontends/lint/kept_witnesses), kept alike
        self.witnesses: dict = {}
        self._classes: dict[str, Checker] = {}  # for_config_class's, by class

    def for_config_class(self, name: str) -> Checker:
        """This checker for a launch whose entry point validates with config class NAME (train_rl:
        RLConfig): the pin's keys and the rules as that class has them (pins.config_classes), made once."""
        if name == self.pin.config_class:
            return self
        if name not in self._classes:
            other = copy.copy(self)
            pin = self.pin.validated_with(name)
            other.judge_with(pin, class_rules(self.ruleset, pin))
            self._classes[name] = other
        return self._classes[name]

    def config(self, source: FlagSource, env: Mapping[str, str] | None = None) -> tuple[Config, list[Finding]]:
        config, findings = resolve(source, self.pin, env or {}, self.model)
        count = self.devices or from_config(config)
        if count is not None:
            config.devices = device_names(config, count)
        return config, findings

    def shared_config(self, source: FlagSource, env: Mapping[str, str]) -> Config:
        """The config of a flag string with no config chain (`env`: the Tunix variables), resolved
        once while it is among the last SHARED_CONFIGS read: the caller reads it, never changes it."""
        return self._resolved(source, env)[0]

    def _config(self, source: FlagSource, env: Mapping[str, str]) -> tuple[Config, list[Finding]]:
        """config(), read from what _resolved keeps for a flag string without a config chain (a
        chain is no key); the findings are the caller's to change (settings' severities): copies."""
        if source.chain is not None:
            return self.config(source, env)
        config, found = self._resolved(source, env)
        return config, [finding.replace() for finding in found]

    def _resolved(self, source: FlagSource, env: Mapping[str, str]) -> tuple[Config, list[Finding]]:
        """config(), kept while among the last SHARED_CONFIGS read (shared_config's and _config's: a
        recipe's launches are judged by both); neither is changed once made."""
        key = (source, tuple(sorted(env.items())))
        found = self._shared.pop(key, None)
        if found is None:
            found = self.config(source, env)
            if len(self._shared) >= SHARED_CONFIGS:
                del self._shared[next(iter(self._shared))]
        self._shared[key] = found
        return found

    def check(self, source: FlagSource, env: Mapping[str, str] | None = None, *, fix: bool = True, max_fixes: int = 3,
              unknown: frozenset[str] = frozenset()) -> Result:
        """`unknown`: keys and variables whose value cannot be known (a rule reading one is not judged)."""
        env = dict(env or {})
        config, findings = self._config(source, env)
        if fix:  # a fix search adds to the tokens every fix drops (_without_refused): a list of its own
            config = config.replace(rejected=list(config.rejected))
        # A key whose value MaxText refuses has no value to judge other rules by (MaxText stops at
        # the refusal): judging them by its default would report what the user never wrote.
        refused = refused_keys(config)
        judged = self._judged_rules(config, unknown | refused)
        broken = self._violated(judged, config)
        findings += [finding(rule, config, self.ruleset.derived) for rule in broken]
        findings += ep_rank_without_axes(judged, broken, config, lambda rule: finding(rule, config, self.ruleset.derived))
        findings += self._not_judged(config, refused)
        findings += tokenizer_not_found(config, unknown)
        result = Result(pin=self.pin.pin, findings=findings)
        note = self._mesh_note(config) if config.devices else self._not_judged_note(config)
        if note is not None:
            result.notes.append(note)
        if fix and (broken or config.rejected):
            rules = [r for r in self.judgeable_rules(config) if not unknown.intersection(r.name_set)]
            self._add_fixes(result, config, env, rules, max_fixes, broken)
        return result

    def _violated(self, rules: list, config: Config) -> list:
        """The rules the config breaks (solve.rules.violated), each verdict kept by the rule and the
        values of the names it reads: a recipe's launches, and an editor's checks after each edit,
        give most rules the values they gave them before."""
        broken = []
        read: dict[str, tuple | None] = {}  # each name's typed value, read once for all the rules
        for rule in rules:
            key = _verdict_key(rule, config, read)
            if key is None:
                kept = not holds(rule, config.lookup)
            else:
                found = self._verdicts.get(key)
                if found is None:
                    if len(self._verdicts) >= VERDICTS:
                        self._verdicts.clear()
                    found = self._verdicts[key] = (rule, not holds(rule, config.lookup))  # the rule kept: its id stays its own
                kept = found[1]
            if kept:
                broken.append(rule)
        return broken

    def _not_judged_note(self, config: Config) -> str | None:
        return self._note(not_judged_note, config)

    def _mesh_note(self, config: Config) -> str | None:
        return self._note(unmodelled_mesh_note, config)

    def _note(self, note_of, config: Config) -> str | None:
        key = (note_of, tuple(config.pin.chain))
        if key not in self._notes:
            self._notes[key] = note_of(self.ruleset, config)
        return self._notes[key]

    def _not_judged(self, config: Config, refused: set[str]) -> list[Finding]:
        """MaxText's checks that no rule states (neither imported nor by hand), each where the config
        sets a key it reads (MaxText stops before it at a refused value) and what flaglint can state
        of the way to it may hold."""
        given = {key for key in _given(config) - refused if not _from_maxtext(config, key)}
        found = []
        for check in class_checks(not_judged(self.pin.rules), self.pin):
            if check.message.startswith(self._stated):
                continue
            keys = tuple(k for k in check.keys if k in given)
            if not keys or not self._may_hold(check, config):
                continue
            at = next((where for k in keys if (where := config.location(k)) is not None), None)
            found.append(built_in("FL016", keys, at, fail_closed=self.fail_closed, version=self.pin.version, validator=check.id,
                                  site=check.site, set_keys=", ".join(keys), reason=check.reason, message=check.message))
        return found

    def _may_hold(self, check: NotJudged, config: Config) -> bool:
        if check.when is None:
            return True
        condition = substitute(check.when, self.ruleset.derived)

        def lookup(name: str):
            if not config.knows(name):
                raise Unknown(name)
            return config.lookup(name)

        try:
            return bool(evaluate(condition, lookup, RULE_FUNCTIONS))
        except Unknown:
            return True

    def judgeable_rules(self, config: Config) -> list:
        """The rules this pin can judge (the same for every flag string), less those on a device
        count this config does not give. A MaxText check a hand-written rule states (`states`) is
        judged by that rule alone, not also by its import."""
        if self._rules is None:
            rules = applicable(self.ruleset, config.replace(devices=dict.fromkeys(DEVICE_NAMES, 1)))
            self._rules = [r for r in rules if r.states or not r.message.startswith(self._stated)]
        missing = set(DEVICE_NAMES) - config.devices.keys()
        return [r for r in self._rules if missing.isdisjoint(r.name_set)]

    def _judged_rules(self, config: Config, unjudged: set[str] | frozenset[str]) -> list:
        """_judged(judgeable_rules(config)) less the rules that read a name of `unjudged`, found from
        the rules of each name (a launch gives a few dozen names; the rules are hundreds)."""
        if self._by_name is None:
            self.judgeable_rules(config)
            self._by_name = {}
            for position, rule in enumerate(self._rules):
                for name in rule.name_set:
                    self._by_name.setdefault(name, []).append(position)
        found: set[int] = set()
        for name in _given(config):
            found.update(self._by_name.get(name, ()))
        for name in (*unjudged, *(set(DEVICE_NAMES) - config.devices.keys())):
            found.difference_update(self._by_name.get(name, ()))
        return [self._rules[position] for position in sorted(found)]

    def _add_fixes(self, result: Result, config: Config, env: dict[str, str], rules, max_fixes: int, broken: list) -> None:
        """`broken`: the rules the config breaks, as check() judged them."""
        from flaglint.fix.flags import is_safe, write_fix  # noqa: PLC0415 the fix writer: only for a config a fix is searched for
        from flaglint.solve.solutions import Solution, Unsatisfiable  # noqa: PLC0415 the fix writer: only for a config a fix is searched for

        # Every fix drops the tokens MaxText refuses (undefined keys, bad values), so the solver
        # starts from the flags without them: an earlier token of a refused key is in force again.
        kept = self._without_refused(config, env)
        if kept is not config:  # else the rules are judged already: no token was refused
            judgeable = {id(r) for r in self.judgeable_rules(kept)}
            rules = [r for r in rules if id(r) in judgeable]
            broken = self._violated(_judged(rules, kept), kept)
        try:
            solutions = self._smallest(kept, rules, broken, max_fixes) if broken else [Solution(())]
        except Unsatisfiable as err:
            if _only_by_hand(broken, err.rules):
                return
            held = ", ".join(f"{k}={shown_setting(v)}" for k, v in err.fixed.items())
            result.findings.append(built_in("FL090", tuple(err.rules), variant="together" if len(err.rules) > 1 else None,
                                            rule=err.rules[0], rules=", ".join(err.rules), held=held, pin=self.pin.pin))
            return
        if broken and not solutions:
            solutions = [_back_to_defaults(kept, broken)]
            result.notes.append("the solver found no smallest fix within its limit; the fix offered resets the keys of the broken rules to their defaults")
        for solution in solutions:
            candidate, tunix_changes = write_fix(config, solution)
            after = self._clean(config.source.replace(text=candidate.flags), {**env, **tunix_changes})
            if after is not None:
                candidate.applicability = Applicability.SAFE if is_safe(config, after) else Applicability.UNSAFE
                result.fixes.append(candidate)
            else:
                result.notes.append(f"a proposed fix ({candidate.flags!r}) did not re-check clean and was dropped")
        if result.fixes:
            self._add_rename(result, config, env)
        result.fixes.sort(key=lambda fix: not fix.safe)  # the safe ones first: --fix applies the first it may

    def _smallest(self, config: Config, rules: list, broken: list, max_fixes: int) -> list[Solution]:
        """minimal_changes(), kept with what it read of the config (resolve.recorded): asked again
        with the same rules where each of those reads gives what it gave (another launch of a
        recipe, an editor's check after an edit the broken rules do not read), it answers alike."""
        from flaglint.solve.solutions import Unsatisfiable  # noqa: PLC0415 the fix writer: only for a config a fix is searched for

        key = (tuple(map(id, rules)), tuple(map(id, broken)), max_fixes)
        answers = self._searches.pop(key, None) or []
        self._searches[key] = answers
        if len(self._searches) > FIX_SEARCHES:
            del self._searches[next(iter(self._searches))]
        found = next((answer for reads, answer, _ in answers if reads_alike(config, reads)), None)
        if found is None:
            reads: dict = {}
            try:
                found = minimal_changes(Recorded(config, reads), rules, broken, max_fixes)
            except Unsatisfiable as err:
                found = err
            answers[:] = [(reads, found, (rules, broken)), *answers[: FIX_ANSWERS - 1]]  # the rules kept: their ids stay theirs
        if isinstance(found, Unsatisfiable):
            raise found.with_traceback(None)
        return found

    def _add_rename(self, result: Result, config: Config, env: dict[str, str]) -> None:
        """Beside the first fix, the same fix with misspelled keys renamed as "did you mean" says
        (a key another pin defines is not misspelled: it is left to be dropped)."""
        from flaglint.fix.flags import renamed  # noqa: PLC0415 the fix writer: only for a config a fix is searched for

        candidate = renamed(config, result.fixes[0], self.meant)
        if candidate is not None and self._clean(config.source.replace(text=candidate.flags), env) is not None:
            result.fixes.append(candidate)

    def meant(self, key: str) -> list[str]:
        """The keys of this pin "did you mean" names for KEY, which it does not define (none for a
        key another pin defines: it is not misspelled)."""
        return [] if pins_defining(key) else close_keys(key, self.pin.pin)

    def _without_refused(self, config: Config, env: dict[str, str]) -> Config:
        """The flags as every fix leaves them: tokens MaxText refuses dropped (or their case
        corrected). Dropping one can bring an earlier token of its key back into force; when MaxText
        refuses that one too, it joins config.rejected, so that every fix drops it as well."""
        from flaglint.fix.flags import apply_edits, refused_edit  # noqa: PLC0415 the fix writer: only for a config a fix is searched for

        text = config.source.text
        kept = config
        while config.rejected:
            edits = {id(token): refused_edit(text, token, config)[0] for token in config.rejected}
            kept = self._config(config.source.replace(text=apply_edits(text, list(edits.values()))), env)[0]
            survivors = [t for t in config.tokens if id(t) not in edits or edits[id(t)].new]
            if not kept.rejected or len(survivors) != len(kept.tokens):
                break
            at = {id(token): index for index, token in enumerate(kept.tokens)}
            back = [survivors[at[id(token)]] for token in kept.rejected]
            new = [token for token in back if all(token is not r for r in config.rejected)]
            if not new:  # only tokens already handled (a corrected case still refused): nothing more to drop
                break
            config.rejected.extend(new)
        return kept

    def _clean(self, fixed: FlagSource, env: dict[str, str]) -> Config | None:
        """The fixed flags as read again, when no rule breaks on them (None otherwise)."""
        env = {k: v for k, v in env.items() if v != ""}
        config, findings = self._config(fixed, env)
        in_files = set(config.chain.files) if config.chain is not None else set()
        if any(self._left_after_fix(f, in_files) for f in findings):
            return None
        judged = self._judged_rules(config, frozenset())
        if self._violated(judged, config) or ep_rank_without_axes(judged, [], config, lambda rule: finding(rule, config, self.ruleset.derived)):
            return None
        return config

    def _left_after_fix(self, finding: Finding, in_files: set[str]) -> bool:
        """Whether an error is left that an edit of the flags could have removed (the registry says
        which rules' findings no edit removes: the pin's own, the string's size). A value MaxText
        refuses in a config file is removed from the file by the fix (fix/config_files.py), not from the flags."""
        rule = self.ruleset.by_id(finding.rule)
        if finding.severity != "error" or rule is not None and not rule.fixable:
            return False
        return not (rule is not None and rule.refused_value and finding.location is not None and finding.location.file in in_files)


_PLAIN = (str, int, bool, type(None))


def _verdict_key(rule, config: Config, read: dict[str, tuple | None]) -> tuple | None:
    """The rule and the values of the names it reads, each with its type (True is not 1, and a float
    by its repr: -0.0 is not 0.0); None where one is not a plain value (a list, a dict) or not known.
    `read`: the typed values of names read before from the same config."""
    key: list = [id(rule)]
    for name in rule.names:
        typed = read.get(name, _UNREAD)
        if typed is _UNREAD:
            typed = read[name] = _typed_value(config, name)
        if typed is None:
            return None
        key.append(typed)
    return tuple(key)


_UNREAD = object()


def _typed_value(config: Config, name: str) -> tuple | None:
    try:
        value = config.lookup(name)
    except KeyError:  # read only where evaluating the rule reaches it
        return None
    kind = type(value)
    if kind is float:
        return kind, repr(value)
    return (kind, value) if kind in _PLAIN else None


def refused_keys(config: Config) -> set[str]:
    return {token.key for token in config.rejected if token.key in config.pin.keys and token.key not in config.explicit}


def _only_by_hand(broken: list, conflicting: tuple[str, ...]) -> bool:
    """The conflict is a broken rule that only keys the fix policy holds can satisfy (the token of
    FL119): its own finding says what to set by hand, so FL090 would say it twice."""
    from flaglint.solve.solutions import held_keys  # noqa: PLC0415 the fix writer: only for a config a fix is searched for
    held = set(held_keys())
    by_id = {rule.id: rule for rule in broken}
    return all(rule_id in by_id and by_id[rule_id].require is not None and set(by_id[rule_id].require.names()) <= held
               for rule_id in conflicting)


def _back_to_defaults(config: Config, broken: list) -> Solution:
    """A fix that is easy to trust when no smallest one was found: the flags the broken rules read go."""
    from flaglint.solve.solutions import Solution  # noqa: PLC0415 the fix writer: only for a config a fix is searched for
    names = dict.fromkeys(n for rule in broken for n in rule.names if n in config.explicit and config.explicit[n].origin == "flags")
    return Solution(tuple((n, config.explicit[n].value, config.pin.default(n)) for n in names
                          if config.explicit[n].value != config.pin.default(n)))


def _given(config: Config) -> set[str]:
    """The keys and names someone set: the flags, files, the model, Tunix, the device count."""
    return set(config.explicit) | set(config.devices) | {name for name, value in config.tunix.items() if value is not None}


def _from_maxtext(config: Config, key: str) -> bool:
    """Whether KEY's value comes from MaxText's own files (the model file, a config it ships), whose
    values its checks are written to accept: only the user's settings make a check worth naming."""
    assignment = config.explicit.get(key)
    return assignment is not None and assignment.origin.startswith(("model:", f"yaml:{PIN_LABEL}/"))


def _judged(rules: list, config: Config) -> list:
    """The rules that read a value someone set. A rule that reads only defaults holds: each pin's
    defaults satisfy its rules (tests/test_rules.py checks that at every pin)."""
    given = _given(config)
    return [r for r in rules if not r.name_set.isdisjoint(given)]


def check_flags(flags: str, *, pin: str = DEFAULT_PIN, env: Mapping[str, str] | None = None, model: str | None = None,
                fix: bool = True, max_fixes: int = 3) -> Result:
    """Check one MAXTEXT_EXTRA_FLAGS string (with Tunix variables in `env`) at a pin."""
    return Checker(pin, model).check(FlagSource(flags), env, fix=fix, max_fixes=max_fixes)


def check_command(checker: Checker, words: list[str], config: str, env: dict[str, str], unknown: frozenset[str] = frozenset(),
                  index: ConfigIndex | None = None, written: Mapping[str, Written] = {}) -> list[Finding]:
    """MaxText's verdict, as flaglint judges it, on argv words after a config file. Locations in the
    argv are columns of argv_source(words).text (quoted_origins maps them back)."""
    try:
        chained = argv_with_chain(words, config, index, written)
    except InputError as err:
        return [built_in("FL010", variant="config", reason=err)]
    return checker.check(chained, env, fix=False, unknown=unknown).findings


def argv_with_chain(words: list[str], config: str, index: ConfigIndex | None, written: Mapping[str, Written] = {}) -> FlagSource:
    """MaxText's argv words after the config file `config`, with that file's base_config chain."""
    from flaglint.render.yaml_chain import config_node, load_chain  # noqa: PLC0415 it imports yaml: off a flag string's cold check

    return argv_source(words).replace(chain=load_chain(config_node(config, index, written), index, written))
