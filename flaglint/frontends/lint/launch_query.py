"""Whether some input assignment a path allows breaks a rule: one Z3 query for a group of parts
that has too many combinations to check each (launch_parts decides which groups).

Each input of the group is a Z3 integer over its value classes, and the path's condition (its
products of value sets) constrains them. Each name the group's parts set (a MaxText key, a Tunix
variable) is a term over the few inputs that decide it: its value on each of their combinations,
read from that launch resolved for real (so typing, defaults and Tunix bindings are MaxText's and
Tunix's), every other part at the path's own value. Where the launches tell what of them writes a
name (Launches.writing), the combinations on which the parts that write it are written alike read
one launch: a tuned block behind seven inputs that it writes in thirty ways costs thirty launches,
not the product of those inputs' values. The rules that read these names are
translated as a fix's are (solve/smt.py), and the solver is asked for an assignment under which one
breaks. A finding's place is where the script writes the first of its rule's names the launch
sets (solve/rules.located_order), a term over the same cases. A model is minimised to the inputs
the violation at its place depends on (an input is dropped while the violation stays forced there
with it free), confirmed by the normal check of that one launch, and that place of its rule is
left out before asking again, so every rule the group can break is found at each place it can be.

Fail closed: a solver that gives no answer leaves the launch unverified (Unverified), never
passed; a rule the encoding cannot express is FL011 for that rule alone (Judge.undecided), and
the others are still judged. z3 is imported here, and this module only for a
group over the cap.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import z3

from flaglint.frontends.lint.unverified import Unverified
from flaglint.maxtext.tpu import RULE_FUNCTIONS
from flaglint.resolve.recorded import Recorded, reads_alike
from flaglint.resolve.resolver import Config
from flaglint.resolve.topology import DEVICE_NAMES, device_keys
from flaglint.rules.expr import Node, Unknown, evaluate
from flaglint.rules.ruleset import Rule
from flaglint.solve.rules import holds, located_order
from flaglint.solve.smt import UNDEFINED, Finite, FixProblem, SolverWork, Unsupported

# The work one group's query may do, in Z3's resource units (solve/smt.py FIX_WORK_LIMIT): past it
# the launch is not verified, the same on every machine. The hardest query of the tests (fourteen
# mesh inputs, one of which picks the slice) takes 1.5 million, bench/appends_bench.py's (256
# appends nested two deep) 15 thousand; this is over ten times the hardest.
QUERY_WORK_LIMIT = 20_000_000
# Models that the concrete check of their launch does not confirm, before the group is given up.
MISMATCHES = 8
# The places one rule is reported at for one group: one more is FL011 (never a place left out).
PLACES = 64
# A rule, or a part of one, that fewer combinations of inputs decide is evaluated on each of them
# (exactly as the check does, float arithmetic and undefined values included) instead of translated.
CASES = 128


@dataclass
class _Table:
    """A name's value on each combination (itertools.product order) of the inputs that decide it;
    or, where `index` is given (_Resolved.sequence_index), on each case that term over the inputs
    picks (a key many parts write: the token written last)."""

    deciding: list[str]
    values: list[Any]
    judged: list[bool]  # where a rule that reads it is judged: no token of it refused, no value unknown
    index: Any = None
    configs: list = ()  # the launches' configs it was read from
    launches: list = ()  # those launches
    ways: list[int] | None = None  # each case's launch (an index of `launches`), where cases share them; None: one each


class _Translator(FixProblem):
    """Rules over the names a group sets: a node that few combinations of inputs decide is a case
    split over them, evaluated as the check evaluates it; anything bigger is translated."""

    def setup(self, tables: Mapping[str, _Table], classes: Mapping[str, Sequence[list]], inputs: Mapping) -> None:
        self.tables, self.classes, self.inputs = tables, classes, inputs
        self._indices: dict[tuple, Any] = {}
        self._judged: dict[str, Any] = {}
        self._cases_of: dict[int, dict] = {}  # each case term's `case == i` terms (Finite._is), by the term

    def finite(self, term: Any, values: list[Any]) -> Finite:
        """`values[i]` where `term` is i, its `term == i` terms made once for every value over that term."""
        return Finite(term, values, self._cases_of.setdefault(term.get_id(), {}))

    def deciding(self, names) -> list[str]:
        return sorted({n for name in names for n in self.tables[name].deciding})

    def index(self, deciding: list[str]) -> Any:
        """The combination's position in itertools.product order, as a Z3 term."""
        key = tuple(deciding)
        if key not in self._indices:
            index, stride = z3.IntVal(0, self.ctx), 1
            for name in reversed(deciding):
                index = index + self.inputs[name] * stride
                stride *= len(self.classes[name])
            self._indices[key] = z3.simplify(index)
        return self._indices[key]

    def cases(self, names, value_of: Callable[[Callable[[str], Any]], Any]) -> Finite:
        """`value_of(lookup)` on each combination of the inputs that decide `names`."""
        deciding = self.deciding(names)
        values = []
        for combo in itertools.product(*(range(len(self.classes[n])) for n in deciding)):
            at = dict(zip(deciding, combo))
            values.append(value_of(lambda name: self._value(name, at)))
        return self.finite(self.index(deciding), values)

    def _value(self, name: str, at: Mapping[str, int]) -> Any:
        table = self.tables.get(name)
        if table is None:
            return self.config.lookup(name)
        position = 0
        for n in table.deciding:
            position = position * len(self.classes[n]) + at[n]
        return table.values[position]

    def few(self, names, most: int = CASES) -> bool:
        """Whether at most `most` combinations of inputs decide the names (a key many parts write
        never does: its table is not by combination)."""
        return all(self.tables[name].index is None for name in names) and _combinations(self.classes, self.deciding(names)) <= most

    def _translate(self, node: Node) -> Any:
        names = node.free & self.tables.keys()
        if names and node.op not in ("var", "const") and self.few(names):
            return self.cases(names, lambda lookup: _evaluated(node, lookup))
        return super()._translate(node)

    def violated(self, rule: Rule, most: int) -> Any:
        """Where the rule is judged and broken: evaluated on each combination of the inputs that
        decide it where they are few; else translated, or, where it cannot be and it reads a key
        many parts write, evaluated on each case of its names' tables if they are at most `most`."""
        names = sorted(rule.name_set & self.tables.keys())
        judged = z3.And(*[self.judged(name) for name in names], self.ctx)
        if not self.few(names):
            if rule.when is not None and self._never_applies(rule):
                return z3.BoolVal(False, self.ctx)
            try:
                return z3.And(judged, z3.Not(self.constraint(rule)))
            except (Unsupported, Unknown, z3.Z3Exception):
                # a key many parts write is read on its cases: they are as few as its tokens
                if all(self.tables[n].index is None for n in names) or self._count(names) > most:
                    raise
                return z3.And(judged, self._where(names, lambda lookup: not holds(rule, lookup)))
        verdicts = self.cases(names, lambda lookup: not holds(rule, lookup))
        return z3.And(judged, self.boolean_term(verdicts))

    def _count(self, names) -> int:
        """The cases of the names' tables together: each combination of the inputs that decide the
        ones read by combination, with each case of each of the others."""
        count = _combinations(self.classes, self.deciding([n for n in names if self.tables[n].index is None]))
        for name in names:
            if self.tables[name].index is not None:
                count *= len(self.tables[name].values)
        return count

    def _where(self, names, test: Callable[[Callable[[str], Any]], bool]) -> Any:
        """Where `test(lookup)` holds, read on every case of the names' tables together (_count)."""
        by_combination = [n for n in names if self.tables[n].index is None]
        by_case = [n for n in names if self.tables[n].index is not None]
        deciding = self.deciding(by_combination)
        found = []
        for combo in itertools.product(*(range(len(self.classes[n])) for n in deciding)):
            at = dict(zip(deciding, combo))
            for cases in itertools.product(*(range(len(self.tables[n].values)) for n in by_case)):
                chosen = dict(zip(by_case, cases))

                def lookup(name: str) -> Any:
                    return self.tables[name].values[chosen[name]] if name in chosen else self._value(name, at)

                if test(lookup):
                    found.append(z3.And(*[self.inputs[n] == i for n, i in at.items()],
                                        *[self.tables[n].index == i for n, i in chosen.items()], self.ctx))
        return z3.Or(*found, self.ctx)

    def _never_applies(self, rule: Rule) -> bool:
        """Whether the rule's condition holds on no combination (a value it compares is never set:
        it is never judged, whatever its requirement reads)."""
        try:
            return z3.is_false(z3.simplify(self.boolean(rule.when)))
        except (Unsupported, Unknown, z3.Z3Exception):
            return False

    def term(self, table: _Table) -> Any:
        """The table's case, as a Z3 term."""
        return self.index(table.deciding) if table.index is None else table.index

    def judged(self, name: str) -> Any:
        """Where a rule that reads the name is judged (the same term for every rule)."""
        if name not in self._judged:
            table = self.tables[name]
            self._judged[name] = z3.BoolVal(True, self.ctx) if all(table.judged) else self.boolean_term(self.finite(self.term(table), table.judged))
        return self._judged[name]


def _combinations(classes: Mapping[str, Sequence[list]], deciding: list[str]) -> int:
    count = 1
    for name in deciding:
        count *= len(classes[name])
    return count


def _evaluated(node: Node, lookup) -> Any:
    try:
        return evaluate(node, lookup, RULE_FUNCTIONS)
    except Unknown:
        return UNDEFINED


class Judge(Protocol):
    """How one concrete launch is judged (lint for the trainer's flags, commands for a command line)."""

    answers: dict  # the queries asked before with the same rules, and their answers (_Asked), kept by the caller

    def config(self, launch: Any) -> tuple[Config | None, frozenset[str]]:
        """The launch's resolved config (None: it runs no MaxText), and the names it leaves
        unjudged (refused, unknown)."""

    def rules(self, config: Config) -> list[Rule]:
        """The rules judged on a launch with this config."""

    def broken(self, launch: Any) -> set[tuple[str, Any]]:
        """The rules the normal check of the launch finds broken, each with its place (`place`)."""

    def place(self, launch: Any, location: Any) -> Any:
        """Where the script wrote what the launch's config has at `location` (a Location, hashable;
        None: nowhere in the script)."""

    def undecided(self, rule: str, reason: str, place: Any) -> None:
        """Told of a rule the solver cannot decide on the group (FL011 for that rule alone, at
        `place`: where the script writes the first of its names; None: nowhere)."""


class Launches(Protocol):
    """A group's launches, as launch_parts makes them (launch_at may be any function of `env` alone)."""

    def __call__(self, env: Mapping) -> Any:
        """The launch where the inputs take their values in `env`."""

    def writing(self, names: Iterable[str]) -> Callable[[Mapping[str, Sequence]], Sequence[Hashable]]:
        """A function that gives, on each combination of some inputs' values (`inputs`: each
        input's values; itertools.product order; the others, the path's), what of the launch writes
        `names`: the same wherever the script's parts that write them are written alike (the same
        text from the same places), where the names have the same values, so one launch tells
        them. The same function for the same parts."""


def violations(classes: Mapping[str, Sequence[list]], cubes: Sequence[Mapping[str, Sequence]],
               depends: Mapping[str, set[str]], base: Mapping[str, Any], launch_at: Callable[[Mapping], Any],
               confirm_at: Callable[[Mapping[str, list]], Any], judge: Judge, cap: int,
               sequences: Mapping[str, Any] = {}) -> list[tuple[str, dict[str, list], Any]]:
    """Each rule that some allowed assignment breaks, at each place (Judge.place) it is broken at:
    the rule, the inputs that matter to one such assignment (each with its values there) and the
    place. `classes`: each input's value classes (no Choice and no product of the path's
    condition tells the values of a class apart); `depends`: the inputs
    that decide each name the group sets; `base`: the path's own values; `launch_at(env)`: the
    launch with those inputs' values (where it is a Launches, a name is read from one launch for
    each way its parts are written); `confirm_at(fixed)`: the launch of the path narrowed to them; `cap`: the most combinations of
    the inputs that decide one name; `sequences`: of a key many parts
    write, its tokens (launch_parts.KeyTokens): its value is that of the token written last, one
    launch each, not one per combination of the parts.

    The same query asked again (an editor's check after an edit that leaves the group's launches
    as they were where its rules read them; the MaxText command line that splits the flags a
    script's trainer reads, judged after them) is answered as before without the solver, where
    everything the solver's answers read is as it was (_Asked): the judge's own places, configs
    and checks of the launches it confirmed are read again, so the answer is kept by the query,
    whichever judge asked it."""
    base_launch = launch_at(base)
    base_config, base_unjudged = judge.config(base_launch)
    if base_config is None:
        return []
    resolved = _Resolved(classes, base, launch_at, judge, cap)
    # (a name the pin does not know, a key MaxText refuses, is no rule's: FL004 is the part's own check)
    tables = {name: resolved.sequence_table(name, sorted(depends[name]), sequences[name], confirm_at) if name in sequences
              else resolved.table(name, sorted(depends[name])) for name in sorted(depends) if base_config.knows(name)}
    # A name whose value moves the device count (compile_topology, a slice) makes the device
    # count's names vary with the inputs that decide it (asked of the names decided by the most
    # inputs first: one whose inputs all move already adds none).
    moved: set[str] = set()
    for name in sorted(tables, key=lambda name: (-len(depends[name]), name)):
        if not depends[name] <= moved and (
                any(c.devices != base_config.devices for c, _ in tables[name].configs) if name in sequences
                else resolved.moves(sorted(depends[name]), base_config.devices)):
            moved |= depends[name]
    moving = sorted(moved)
    if moving:
        tables.update({name: resolved.device_table(name, moving) for name in DEVICE_NAMES})
    rules = {rule.id: rule for config in [base_config, *resolved.device_configs(moving)] for rule in judge.rules(config)}
    key = (cap, repr(classes), repr(cubes), repr(sorted((name, sorted(found)) for name, found in depends.items())),
           repr(sorted(base.items(), key=lambda item: item[0])), repr(sequences),
           repr([(name, t.deciding, t.values, t.judged) for name, t in tables.items()]), tuple(sorted(base_unjudged)),
           tuple(map(id, rules.values())))
    asked = judge.answers.pop(key, None)
    if asked is None or not _holds(asked, base_config, _Places(None, tables, judge, base_config, base_launch), judge, confirm_at):
        asked = _asked(classes, cubes, sequences, tables, rules, base_config, base_unjudged, base_launch, resolved, confirm_at, judge, cap)
    judge.answers[key] = asked  # the last asked, last
    if len(judge.answers) > ANSWERS:
        del judge.answers[next(iter(judge.answers))]
    return asked.told(judge)


def _holds(asked: _Asked, config: Config, places: _Places, judge: Judge, confirm_at: Callable) -> bool:
    """_Asked.holds; a launch that cannot be judged now (Unverified) is asked of the solver again,
    which tells the judge what it tells it in its order."""
    try:
        return asked.holds(config, places, judge, confirm_at)
    except Unverified:
        return False


# The answers a judge's rules keep (Judge.answers), the last asked kept: an editor checks a buffer
# again after each edit, a command asks each group once.
ANSWERS = 16


def _asked(classes, cubes, sequences, tables: dict[str, _Table], rules: dict[str, Rule], base_config: Config, base_unjudged: frozenset,
           base_launch: Any, resolved: _Resolved, confirm_at: Callable, judge: Judge, cap: int) -> _Asked:
    """The query asked of the solver (_solved), with what it read and told the judge."""
    asked = _Asked(list(rules.values()))
    try:
        asked.found = _solved(classes, cubes, sequences, tables, rules, base_config, base_unjudged, base_launch, resolved,
                              confirm_at, judge, cap, asked)
    except Unverified as err:
        asked.refused = err
    return asked


@dataclass
class _Asked:
    """One query's answer, with what it read that its key does not hold: the path's own config's
    values (by attribute and arguments: the value's repr, the pin itself), the places of its rules'
    names, and the rules and places the check of each launch it confirmed found broken. Asked
    again where each of those reads gives what it gave, the solver would ask and answer the same."""

    rules: list  # the rules judged: held, so that their ids in the key stay theirs
    config: dict = field(default_factory=dict)  # Recorded's reads of the path's own config
    places: dict = field(default_factory=dict)  # name -> its places (_Places.cases); ("base", name) -> its place on the path's own launch
    confirmed: list = field(default_factory=list)  # (the inputs fixed, Judge.broken of that launch)
    undecided: list = field(default_factory=list)  # Judge.undecided's arguments, in order
    found: list = field(default_factory=list)
    refused: Unverified | None = None

    def holds(self, config: Config, places: _Places, judge: Judge, confirm_at: Callable) -> bool:
        return (reads_alike(config, self.config)
                and all(_alike(places.base(name[1]) if isinstance(name, tuple) else places.cases(name), seen) for name, seen in self.places.items())
                and all(judge.broken(confirm_at(fixed)) == seen for fixed, seen in self.confirmed))

    def told(self, judge: Judge) -> list:
        """Tell the judge what the query told it, and give its answer (or its refusal)."""
        for told in self.undecided:
            judge.undecided(*told)
        if self.refused is not None:
            raise Unverified(self.refused.reason, self.refused.origin)
        return list(self.found)


def _alike(found: Any, seen: Any) -> bool:
    """found == seen, of places (_Places): a list compared with each pair of its places once, as
    the combinations of one launch share one place (thousands of combinations, a few launches)."""
    if type(found) is not list or type(seen) is not list:
        return found == seen
    if len(found) != len(seen):
        return False
    compared: dict[tuple[int, int], bool] = {}
    for place, other in zip(found, seen):
        pair = (id(place), id(other))
        same = compared.get(pair)
        if same is None:
            same = compared[pair] = place == other
        if not same:
            return False
    return True


def _solved(classes: Mapping[str, Sequence[list]], cubes: Sequence[Mapping[str, Sequence]], sequences: Mapping[str, Any],
            tables: dict[str, _Table], rules: dict[str, Rule], base_config: Config, base_unjudged: frozenset, base_launch: Any,
            resolved: _Resolved, confirm_at: Callable, judge: Judge, cap: int, asked: _Asked) -> list[tuple[str, dict[str, list], Any]]:
    """violations' answer, from the solver; what it reads besides its key, and tells the judge, kept in `asked`."""
    ctx = z3.Context()  # the query's own, as a fix search's (solve/smt.py SolverWork)
    work = SolverWork(ctx, QUERY_WORK_LIMIT)
    inputs = {name: z3.Int(f"input:{name}", ctx) for name in sorted(classes)}
    solver = z3.Solver(ctx=ctx)
    solver.add([z3.And(0 <= var, var < len(classes[name])) for name, var in inputs.items()])
    solver.add(_condition(classes, cubes, inputs, ctx))
    for name, table in tables.items():  # in the order the tables were made: the terms too
        if name in sequences:
            table.index = resolved.sequence_index(sequences[name], inputs, ctx)
    translator = _Translator.over(Recorded(base_config, asked.config), {}, ctx)
    translator.setup(tables, classes, inputs)
    translator.terms.update({name: translator.finite(translator.term(t), t.values) for name, t in tables.items()})
    broken: dict[str, Any] = {}
    where = _Places(translator, tables, judge, base_config, base_launch, asked.places)
    for rule in rules.values():
        names = rule.name_set & tables.keys()
        if not names or rule.name_set & base_unjudged - tables.keys():
            continue
        try:
            broken[rule.id] = translator.violated(rule, cap)
        except (Unsupported, Unknown, z3.Z3Exception) as err:
            # that rule alone is not verified; every other rule is still judged on the group
            asked.undecided.append((rule.id, f"rule {rule.id} over {', '.join(sorted(names))} cannot be decided by the solver ({err})",
                                    where.on_base(rule)))
    found = []
    places: dict[str, int] = {}  # rule -> the places it is found broken at so far
    mismatches = 0
    while broken:
        # one rule at a time: their disjunction costs the solver more than all of them apart
        rule_id = min(broken)
        if _verdict(work, solver, broken[rule_id], inputs) == z3.unsat:
            del broken[rule_id]
            continue
        model = solver.model()
        chosen = {name: model.eval(var, model_completion=True).as_long() for name, var in inputs.items()}
        place = where.of_model(rules[rule_id], model)
        at_place = where.at(rules[rule_id], place)
        kept = _minimised(solver, work, z3.And(broken[rule_id], at_place), inputs, chosen, len(cubes) <= 1)
        fixed = {name: list(classes[name][chosen[name]]) for name in kept}
        confirmed = judge.broken(confirm_at(fixed))
        asked.confirmed.append((fixed, confirmed))
        if (rule_id, place) in confirmed:
            found.append((rule_id, fixed, place))
            # The rule may be broken at other places too (where other parts set its names): asked
            # again with this one left out, up to PLACES of them.
            broken[rule_id] = z3.And(broken[rule_id], z3.Not(at_place))
            places[rule_id] = places.get(rule_id, 0) + 1
            if places[rule_id] == PLACES:
                if _verdict(work, solver, broken[rule_id], inputs) == z3.sat:  # fail closed: a place past the count is not left out
                    raise Unverified(f"rule {rule_id} is broken at more than {PLACES} places that {', '.join(inputs)} decide")
                del broken[rule_id]
            continue
        mismatches += 1
        if mismatches > MISMATCHES:
            raise Unverified(f"the solver's reading of rule {rule_id} disagrees with its check on {', '.join(inputs)}")
        solver.add(z3.Not(z3.And(*[inputs[name] == index for name, index in chosen.items()], ctx)))
    return found


def _verdict(work: SolverWork, solver: z3.Solver, query: Any, inputs: Mapping) -> Any:
    """sat or unsat; a solver that gives no answer (its work limit) leaves the group unverified."""
    verdict = work.check(solver, query)
    if verdict not in (z3.sat, z3.unsat):
        reason = "its work limit was reached" if work.left() <= 0 else solver.reason_unknown()
        raise Unverified(f"the solver gave no answer on {', '.join(inputs)} ({reason})")
    return verdict


# A name the launch's flags or words do not set (its place is the next name's).
_UNSET = object()


class _Places:
    """Where a rule's finding is on each case of the tables: where the script writes the first
    name of the rule (in located_order) that the launch's flags or words set (None: a name set
    where the script wrote none of it)."""

    def __init__(self, translator: _Translator | None, tables: Mapping[str, _Table], judge: Judge, base_config: Config, base_launch: Any,
                 seen: dict | None = None):
        self.translator, self.tables, self.judge = translator, tables, judge
        self.base_config, self.base_launch = base_config, base_launch
        # name -> its places (cases); ("base", name) -> its place on the path's own launch (`seen`: _Asked.places)
        self._cases: dict = {} if seen is None else seen

    def _place(self, launch: Any, config: Config, name: str) -> Any:
        location = config.location(name)
        return _UNSET if location is None else self.judge.place(launch, location)

    def cases(self, name: str) -> list:
        """The name's place on each case of its table; of a name no part of the group sets, its one place."""
        if name not in self._cases:
            table = self.tables.get(name)
            if table is None:
                self._cases[name] = [self._place(self.base_launch, self.base_config, name)]
            else:  # a name of the device count has no launches: the flags do not set it
                placed = [self._place(launch, config, name) for (config, _), launch in zip(table.configs, table.launches)]
                # the combinations its names' parts are written alike on share one launch, and its place
                self._cases[name] = ([placed[way] for way in table.ways] if table.ways is not None else placed) or [_UNSET] * len(table.values)
        return self._cases[name]

    def base(self, name: str) -> Any:
        """The name's place on the path's own launch."""
        if ("base", name) not in self._cases:
            self._cases["base", name] = self._place(self.base_launch, self.base_config, name)
        return self._cases["base", name]

    def _term(self, name: str, test: Callable[[Any], bool]) -> Any:
        """Where the name's place passes `test`, as a Z3 term."""
        found = [test(place) for place in self.cases(name)]
        if name not in self.tables:
            return z3.BoolVal(found[0], self.translator.ctx)
        return self.translator.boolean_term(self.translator.finite(self.translator.term(self.tables[name]), found))

    def at(self, rule: Rule, place: Any) -> Any:
        """Where the rule's finding is at `place` (None: at no place of the script)."""
        terms, unset = [], z3.BoolVal(True, self.translator.ctx)
        for name in located_order(rule):
            terms.append(z3.And(unset, self._term(name, lambda found: found is not _UNSET and found == place)))
            unset = z3.And(unset, self._term(name, lambda found: found is _UNSET))
        return z3.simplify(z3.Or(*terms, unset if place is None else z3.BoolVal(False, self.translator.ctx)))

    def on_base(self, rule: Rule) -> Any:
        """The place of the rule's finding on the path's own launch; where the launch writes none
        of its names, where the script writes the first of them on some case of the group."""
        for name in located_order(rule):
            if (place := self.base(name)) is not _UNSET:
                return place
        return next((place for name in located_order(rule) for place in self.cases(name) if place not in (_UNSET, None)), None)

    def of_model(self, rule: Rule, model: Any) -> Any:
        """The place of the rule's finding on the model's case of each table."""
        for name in located_order(rule):
            table = self.tables.get(name)
            case = 0 if table is None else model.eval(self.translator.term(table), model_completion=True).as_long()
            if (place := self.cases(name)[case]) is not _UNSET:
                return place
        return None


def _condition(classes: Mapping[str, Sequence[list]], cubes: Sequence[Mapping[str, Sequence]], inputs: Mapping, ctx: z3.Context) -> Any:
    """The path's condition on the group's inputs: some product allows each input's class."""
    products = []
    for cube in cubes:
        members = []
        for name, var in inputs.items():
            if name in cube:
                allowed = set(cube[name])
                members.append(z3.Or(*[var == i for i, values in enumerate(classes[name]) if allowed.intersection(values)] or [z3.BoolVal(False, ctx)]))
        products.append(z3.And(*members, ctx))
    return z3.Or(*products, ctx)


class _Resolved:
    """The launch resolved on each combination of a few inputs (the others at the path's values),
    once per set of inputs; where the launches tell what writes the names read of them
    (Launches.writing), once per way those are written."""

    def __init__(self, classes: Mapping[str, Sequence[list]], base: Mapping, launch_at: Callable[[Mapping], Any], judge: Judge, cap: int):
        self.classes, self.base, self.launch_at, self.judge, self.cap = classes, base, launch_at, judge, cap
        self.writing = getattr(launch_at, "writing", None)
        self._configs: dict[tuple, tuple[list, list]] = {}  # configs', by the inputs and Launches.writing's function
        self._made: dict[tuple, Any] = {}  # each launch, by the inputs' values that differ from the path's (launch)
        self._class_of: dict[str, dict] = {}  # each input's first value of each class -> the class's index
        self._indices: dict[tuple, frozenset[int]] = {}
        self._judged: dict[int, tuple] = {}  # each launch's Judge.config, by the launch

    def configs(self, deciding: list[str], what: str, names: Iterable[str]) -> tuple[list[int], list[tuple[Any, tuple]]]:
        """The launches to read `names` from on the combinations of the inputs `deciding`: each
        combination's way (an index into the second list), and each way's launch and Judge.config.
        A way is where the parts that write the names are written so (Launches.writing), read from
        the launch of its first combination; where launch_at cannot tell, each combination."""
        ways_of = None if self.writing is None else self.writing(names)
        key = (tuple(deciding), ways_of)
        if key not in self._configs:
            count = _combinations(self.classes, deciding)
            if count > self.cap:
                raise Unverified(f"{what} is decided by {count} combinations of {', '.join(deciding)} (more than {self.cap})")
            firsts = {n: [found[0] for found in self.classes[n]] for n in deciding}
            ways = range(count) if ways_of is None else ways_of(firsts)
            position: dict[Hashable, int] = {}  # each way's index
            shown: list[tuple[Any, tuple]] = []
            for way, combo in zip(ways, itertools.product(*firsts.values())):
                if way not in position:
                    launch = self.launch(dict(zip(deciding, combo)))
                    position[way] = len(shown)
                    shown.append((launch, self.judged(launch)))
                    if shown[-1][1][0] is None:
                        raise Unverified(f"whether MaxText runs at all depends on {', '.join(deciding)}")
            self._configs[key] = ([position[way] for way in ways], shown)
        return self._configs[key]

    def launch(self, values: Mapping[str, Any]) -> Any:
        """The launch where the inputs take `values` (the others, the path's), made once for each set
        of values that differ from the path's: the tables of several sets of inputs read the same
        launches (a set with an input of one class, at the path's value, reads those of the set
        without it)."""
        changed = tuple(sorted((n, v) for n, v in values.items() if v != self.base.get(n)))  # unset is None, as launch_at reads it
        if changed not in self._made:
            self._made[changed] = self.launch_at({**self.base, **dict(changed)})
        return self._made[changed]

    def judged(self, launch: Any) -> tuple[Config | None, frozenset[str]]:
        """Judge.config of the launch, asked once of each (launch_at gives the same launch for the
        same values: the tables of several sets of inputs read it)."""
        if id(launch) not in self._judged:
            self._judged[id(launch)] = (launch, self.judge.config(launch))  # the launch kept: its id stays its own
        return self._judged[id(launch)][1]

    def table(self, name: str, deciding: list[str]) -> _Table:
        """The name's value on each combination of the inputs that decide it."""
        index, shown = self.configs(deciding, name, (name,))
        values = [config.lookup(name) for _, (config, _) in shown]
        judged = [name not in unjudged for _, (_, unjudged) in shown]
        return _Table(deciding, [values[i] for i in index], [judged[i] for i in index], configs=[found for _, found in shown],
                      launches=[launch for launch, _ in shown], ways=index)

    def sequence_table(self, name: str, deciding: list[str], tokens, launch_of: Callable[[Mapping], Any]) -> _Table:
        """A key many parts write (`tokens`: launch_parts.KeyTokens): its value where none of its
        tokens is written, then where each is the last written, read from one launch each
        (`launch_of(fixed)`: the launch with those inputs' values); its case (sequence_index), a
        term made only where the solver is asked."""
        configs, launches = [], []
        for fixed in (tokens.none, *tokens.last):
            launch = self.launch_at(self.base) if fixed is None else launch_of(fixed)
            found = self.judged(launch)
            if found[0] is None:
                raise Unverified(f"whether MaxText runs at all depends on {', '.join(deciding)}")
            configs.append(found)
            launches.append(launch)
        return _Table(deciding, [c.lookup(name) for c, _ in configs], [name not in unjudged for _, unjudged in configs], None, configs, launches)

    def sequence_index(self, tokens, inputs: Mapping, ctx: z3.Context) -> Any:
        """The case of a sequence_table, a term over `inputs`: where none of the tokens is written
        0, else 1 + the last one written."""
        def written(token: int) -> Any:
            names = sorted({n for combo in tokens.present[token] for n in combo})
            cells = {tuple(self.indices(n, combo[n]) if n in combo else self.everywhere(n) for n in names)
                     for combo in tokens.present[token]}
            return _union(cells, [inputs[n] for n in names], [len(self.classes[n]) for n in names], ctx)

        index: Any = z3.IntVal(0, ctx)  # the last token written wins: each If asks first of the later ones
        for token in range(len(tokens.present)):
            index = z3.If(written(token), token + 1, index)
        return index

    def indices(self, name: str, values: Sequence) -> frozenset[int]:
        """The input's classes within `values` (a class of the part that writes a token: a union of
        the group's classes, which every part's Choices tell apart), found once per class."""
        key = (name, tuple(values))
        if key not in self._indices:
            if name not in self._class_of:
                self._class_of[name] = {found[0]: i for i, found in enumerate(self.classes[name])}
            class_of = self._class_of[name]
            self._indices[key] = frozenset(class_of[v] for v in values if v in class_of)
        return self._indices[key]

    def everywhere(self, name: str) -> frozenset[int]:
        return frozenset(range(len(self.classes[name])))

    def counted(self, deciding: list[str]) -> tuple[list[int], list[Config]]:
        """configs for the device count (read from the keys and variables of topology.device_keys):
        each combination's way, and each way's config."""
        index, shown = self.configs(deciding, "the device count", device_keys())
        return index, [config for _, (config, _) in shown]

    def moves(self, deciding: list[str], devices: Mapping) -> bool:
        """Whether some combination of the inputs gives other device names than `devices`."""
        return any(config.devices != devices for config in self.counted(deciding)[1])

    def device_table(self, name: str, deciding: list[str]) -> _Table:
        """A name of the device count (topology.DEVICE_NAMES), judged where the launch gives one."""
        index, configs = self.counted(deciding)
        # 1 where there is none: never judged there, and any arithmetic takes it
        values, judged = [c.devices.get(name, 1) for c in configs], [name in c.devices for c in configs]
        return _Table(deciding, [values[i] for i in index], [judged[i] for i in index])

    def device_configs(self, deciding: list[str]) -> list[Config]:
        """One config for each set of device names the launches give (each judges other rules)."""
        if not deciding:
            return []
        index, configs = self.counted(deciding)
        devices = [frozenset(c.devices) for c in configs]
        return list({devices[i]: configs[i] for i in index}.values())


def _union(cells: set[tuple], inputs: Sequence, sizes: Sequence[int], ctx: z3.Context) -> Any:
    """Where one of the cells (each a class set per input, in `inputs`' order) holds, factored one
    input at a time: cells that agree on the inputs after one are one term over it, so a token
    written on every value of an input but one is a term of its size, not of its cells."""
    memo: dict[tuple[int, frozenset], Any] = {}

    def term(depth: int, rests: frozenset) -> Any:
        if depth == len(inputs):
            return z3.BoolVal(bool(rests), ctx)
        if (depth, rests) not in memo:
            by_rest: dict[tuple, set] = {}
            for cell in rests:
                by_rest.setdefault(cell[1:], set()).update(cell[0])
            # the values of this input that lead to the same cells of the rest share one term
            shared: dict[frozenset, set] = {}
            for rest, values in by_rest.items():
                shared.setdefault(frozenset(values), set()).add(rest)
            memo[depth, rests] = _connective(z3.Z3_mk_or, [
                _connective(z3.Z3_mk_and, [_among(inputs[depth], values, sizes[depth], ctx), term(depth + 1, frozenset(rest))], ctx)
                for values, rest in sorted(shared.items(), key=lambda item: sorted(item[0]))], ctx)
        return memo[depth, rests]

    return term(0, frozenset(cells))


def _among(var: Any, values: frozenset[int], size: int, ctx: z3.Context) -> Any:
    """var is one of the class indices `values` (of `size`): the shorter of the two ways to say it."""
    if len(values) == size:
        return z3.BoolVal(True, ctx)
    if 2 * len(values) <= size:
        return _connective(z3.Z3_mk_or, [var == i for i in sorted(values)], ctx)
    return _connective(z3.Z3_mk_and, [var != i for i in range(size) if i not in values], ctx)


def _connective(make: Callable, terms: Sequence, ctx: z3.Context) -> Any:
    """z3.And (`make`: z3.Z3_mk_and) or z3.Or (z3.Z3_mk_or) of Boolean terms of `ctx`: the term
    they make, by the same call, less their coercion of each argument (the tokens of a key many
    parts write make thousands)."""
    array = (z3.Ast * len(terms))()
    for i, term in enumerate(terms):
        array[i] = term.as_ast()
    return z3.BoolRef(make(ctx.ref(), len(terms), array), ctx)


def _minimised(solver: z3.Solver, work: SolverWork, broken: Any, inputs: Mapping, chosen: Mapping[str, int],
               separate: bool) -> list[str]:
    """The inputs of the model the violation depends on: each other one is dropped in turn while
    no allowed value of the dropped ones keeps the rule. Where the path's condition allows each
    input's values apart from the others' (`separate`: one product), an input the violation does
    not read never matters."""
    read = _constants(broken)
    kept = [name for name in chosen if not separate or inputs[name].get_id() in read]
    for name in list(kept):
        trial = [n for n in kept if n != name]
        if work.check(solver, z3.Not(broken), *[inputs[n] == chosen[n] for n in trial]) == z3.unsat:
            kept = trial
    return kept


def _constants(term: Any) -> set[int]:
    """The ids of the uninterpreted constants a term reads, each shared subterm visited once
    (printing a term to name it costs a thousand times more)."""
    found, seen, stack = set(), set(), [term]
    while stack:
        node = stack.pop()
        if node.get_id() in seen:
            continue
        seen.add(node.get_id())
        if z3.is_const(node) and node.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            found.add(node.get_id())
        stack.extend(node.children())
    return found
