"""Static evaluation of recipe scripts: one environment (render) or every branch outcome (explore).

Nothing here runs the script. The script is parsed with tree-sitter-bash, compiled into a flat
instruction list (compiler), and interpreted (machine). Commands other than the shell's own
(kubectl, gcloud, python, echo ...) are skipped; what the evaluator cannot know ($(...) other than
the script-directory idiom, read, mapfile) becomes an opaque value with a note.

explore() forks the interpreter's state when a step reads an input that the path has not decided.
An input ranges over unset, the literal values the scripts' conditions compare it with (a matching
sample for a glob, n-1/n/n+1 for an integer comparison, "" for -n/-z), one value that matches none
of them, and any values given in `vary`. The candidate values that lead a condition to the same
outcome stay together on one path, so the number of paths follows the distinct branch outcomes.
A fork only splits the values still on its path, so every path is feasible by construction (its
values were actually evaluated) and the paths partition the inputs' values. Each path records its
condition as the values of each input that take it (path_conditions turns these into Z3 formulas);
paths whose exports agree merge into one outcome that keeps every path. A sourced file's
comparisons join the domains once some path has loaded that file.

The script's arguments, when not given, are inputs too: `$#` ranges over none up to the most any
command reads (and the counts its tests of `$#` tell apart), and each argument `$N` over the values
the scripts compare any argument with (getopts' options among them) and one that matches none of
them; an argument that exists is never unset.
"""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from flaglint.render.bash.compiler import ANY_ARGUMENT, INDIRECT
from flaglint.render.bash.counted import CounterRead
from flaglint.render.bash.expansion import ExitScript, input_value
from flaglint.render.bash.guards import factor_names, ordered, restrict, spread
from flaglint.render.bash.lexer import compile_glob, glob_sample
from flaglint.render.bash.machine import Interp
from flaglint.render.bash.state import (
    ARGUMENT_COUNT,
    NeedInput,
    State,
    is_argument,
    is_file_test,
    is_option,
    option_arguments,
)
from flaglint.render.bash.types import (
    OTHER,
    LaunchRecogniser,
    Note,
    Origin,
    Rendering,
    ScriptError,
    Split,
    Value,
    choice_names,
    read_names,
)

__all__ = [
    "Exploration", "ExploredPath", "Note", "Origin", "Outcome", "Rendering", "ScriptError", "Value", "explore", "render",
    "run_inputs",
]



def render(script: Path, launches: LaunchRecogniser, env: Mapping[str, str], text: bytes | None = None,
           args: Sequence[str] = ()) -> Rendering:
    """The script's final variables (and the launches `launches` picks out) when it runs with
    exactly `env` (every other variable unset) and the arguments `args`. `text`: the script's bytes,
    when `script` names no file (stdin)."""
    interp = Interp(str(script), launches, text=text)
    st = interp.start(dict(env), args)
    interp.run(st)
    result = interp.rendering(st)
    result.handoffs = list(st.handoffs)
    return result


@dataclass
class ExploredPath:
    env: dict  # dict[str, str | None]: the inputs this path read (None: unset), one witness
    branches: list  # list[tuple[str, int]]: (file, line) of each if/elif/else arm and case item taken
    domains: dict = field(default_factory=dict)  # each input in env: every value that takes this path
    # When the values of several inputs go together (a merged guard over them): the condition is
    # domains times these factors, each a union of products over inputs no other factor names (each
    # product: those inputs' values, in domains' order). None: domains alone. n checks that each
    # read inputs of their own are n factors, never expanded to the product of their products.
    factors: tuple | None = None
    # A path narrowed from another on a few inputs: that path, and the inputs whose values differ
    # (every other input's values are that path's own lists): what is new in it is read from these.
    narrowed_from: ExploredPath | None = None
    changed: dict = field(default_factory=dict)

    def admits(self, values: Mapping[str, str | None]) -> bool:
        """Whether some run down the path gives each input in `values` its value."""
        domains = self.domains
        if any(name in domains and value not in domains[name] for name, value in values.items()):
            return False
        return all(any(all(name not in values or values[name] in found for name, found in product.items()) for product in factor)
                   for factor in self.factors or ())

    def products(self, names: Iterable[str] | None = None) -> Iterator[dict]:
        """The path's condition as products of value sets, one by one, each giving every input in
        domains its values; as far as `names` tell, where given: the factors that name none of them
        stay whole (any of their products takes the same values of `names`), so the products are
        those of the others only."""
        names = None if names is None else set(names)
        touching = [factor for factor in self.factors or () if names is None or not names.isdisjoint(factor[0])]
        for chosen in itertools.product(*touching):
            yield {**self.domains, **{name: values for product in chosen for name, values in product.items()}}


@dataclass
class Outcome:
    rendering: Rendering
    paths: list  # list[ExploredPath]: every path that renders these exports, in exploration order

    @property
    def env(self) -> dict:
        return self.paths[0].env

    @property
    def branches(self) -> list:
        return self.paths[0].branches


@dataclass
class Exploration:
    outcomes: list  # list[Outcome]: paths whose exported variables agree are merged into one outcome
    inputs: dict  # dict[str, list[str | None]]: each input read before assignment (or fixed), values explored
    paths_explored: int
    capped: bool  # the path cap stopped exploration; outcomes cover the paths explored
    # Each variable of the environment read before a file that compares it was loaded, with the
    # values that file compares it with, not explored (Candidates.stale).
    unexplored: dict = field(default_factory=dict)


def _factors(condition: frozenset, domains: Mapping[str, list]) -> tuple:
    """A path's condition (State.condition) as ExploredPath.factors: each factor's products over
    its own inputs, in an order that does not depend on string hashing, none that leaves an input
    no value."""
    found = []
    for factor in condition:
        names = sorted(factor_names(factor))
        products = [product for cube in ordered(factor) if all((product := spread(cube, {n: domains[n] for n in names})).values())]
        found.append(tuple(products))
    return tuple(sorted(found, key=lambda factor: list(factor[0])))


def run_inputs(env: Mapping[str, str | None]) -> tuple[dict[str, str | None], list[str]]:
    """A witness's inputs as a run takes them: the environment's variables, and the script's
    arguments (`$#` of them, else as many as it names; one it does not name has a value the
    scripts do not compare it with). Where an options loop took its arguments apart, the words
    the path read before it (a subcommand it shifted away: machine.Interp.i_optionarms), then the
    options."""
    variables, options, named = {}, {}, {}
    for name, value in env.items():  # one pass: a witness's environment holds every input of the script
        if not is_argument(name):
            variables[name] = value
        elif is_option(name):
            options[name] = value
        elif name != ARGUMENT_COUNT:
            named[int(name[1:])] = value
    if options:  # the options loop's arms, each an option given or not (compiler.OptionArms)
        return variables, [named.get(index, OTHER) for index in range(1, max(named, default=0) + 1)] + option_arguments(options)
    count = env.get(ARGUMENT_COUNT)
    count = int(count) if count is not None else max(named, default=0)
    return variables, [named.get(index, OTHER) for index in range(1, count + 1)]


# The variables bash itself sets or reads with a meaning when unset (getopts' OPTIND starts at 1,
# an unset IFS splits on blanks): never the caller's.
_SHELLS_OWN = frozenset({"OPTIND", "OPTARG", "OPTERR", "IFS", "REPLY", "PIPESTATUS", "FUNCNAME", "LINENO", "RANDOM",
                         "SECONDS", "GROUPS", "SHLVL", "PPID", "UID", "EUID", "PS4", "TMOUT", "SRANDOM", "EPOCHSECONDS"})


# At most this many names of a directory are read for the variants a file name takes (a folder
# with more gives none: which ones were read would depend on the file system's order).
NAMED_FILES_READ = 4096


def _positional(name: str) -> bool:
    """Whether an input is the script's argument count or one of its arguments, which only the
    bodies handed them compare (an option is an input of the body its loop is in)."""
    return is_argument(name) and not is_option(name)


def _named_files(script: str, before: str, after: str) -> list[str]:
    """The values a variable takes in a file name `…BEFORE${X}AFTER` run or sourced by SCRIPT: the
    names beside it (in the directory BEFORE names, from the script's own) that start with the rest
    of BEFORE and end with AFTER, each without them; sorted, so the same tree gives the same values."""
    folder, _, stem = before.rpartition("/")
    directory = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(script)), folder.lstrip("/")))
    try:
        with os.scandir(directory) as entries:
            names = sorted(itertools.islice((entry.name for entry in entries), NAMED_FILES_READ + 1))
    except OSError:
        return []
    if len(names) > NAMED_FILES_READ:
        return []
    return [name[len(stem):len(name) - len(after)] for name in names
            if len(name) > len(stem) + len(after) and name.startswith(stem) and name.endswith(after)]


class Candidates:
    """The candidate values of an input, from the comparisons in every file loaded so far."""

    def __init__(self, interp: Interp, vary: Mapping[str, list[str]]):
        self.interp = interp
        self.vary = {k: list(v) for k, v in vary.items()}
        self.cache: dict[str, tuple] = {}
        self.files_seen = (0, 0)
        self.first: dict[str, tuple] = {}  # each input's candidates when first asked

    def __call__(self, name: str) -> tuple:
        seen = (len(self.interp.files), len(self.interp.argument_files))
        if seen != self.files_seen:
            self.cache.clear()
            self.files_seen = seen
        found = self.cache.get(name)
        if found is None:
            found = self.cache[name] = self._compute(name)
            self.first.setdefault(name, found)
        return found

    def stale(self) -> dict[str, list]:
        """The inputs first asked of before a file loaded since gave them other candidates (a script
        they are handed to compares them, `RUN_PACKING="${PACKING}" bash train.sh`, or one sourced
        after they were read), with those candidates."""
        return {name: [v for v in now if v not in found] for name, found in self.first.items() if (now := self(name)) != found}

    def _facts(self) -> tuple[list, list]:
        """Every body's facts (the files' top levels and their functions'), and those of the bodies
        whose positional parameters are the script's arguments: the top levels of the files that
        share them (Interp.argument_files), and the functions they hand them to (`parse_args "$@"`),
        however deep."""
        files = self.interp.files
        tops = [f.facts for f in files.values()]
        bodies: dict[str, list] = {}
        for facts in tops:
            for name, found in facts.functions.items():
                bodies.setdefault(name, []).extend(found)
        arguments, todo, handed = [], [files[path].facts for path in files if path in self.interp.argument_files], set()
        while todo:
            facts = todo.pop()
            arguments.append(facts)
            for name in facts.forwards:
                if name not in handed:
                    handed.add(name)
                    todo.extend(bodies.get(name, ()))
        return [*tops, *(facts for found in bodies.values() for facts in found)], arguments

    def _comparands(self, name: str) -> list:
        every, of_arguments = self._facts()
        # the names in the order they are found (a dict, not a set: the candidates' order decides
        # the order of the paths, and a set of strings is iterated in an order that changes with
        # every process's hash seed)
        seeds = [name]
        if is_argument(name) and name != ARGUMENT_COUNT and not is_option(name):
            # what every argument is compared with (getopts' options, `for arg in "$@"`); where the
            # script shifts, an argument moves through $1, $2, …: what any of them is compared with
            seeds = [name, ANY_ARGUMENT]
            if any(fact.shifts for fact in of_arguments):
                seeds += [key for fact in of_arguments for key in [*fact.comparands, *(read for _, read in fact.aliases)] if is_argument(key)]
            seeds = [seed for seed in seeds if seed != ARGUMENT_COUNT]
        elif any(name in facts.named for facts in every):  # a variable may hold its name: `${!v}` may read it
            seeds.append(INDIRECT)
        names = dict.fromkeys(seeds)
        todo = list(names)
        while todo:
            current = todo.pop()
            for fact in of_arguments if _positional(current) else every:
                for assigned, read in fact.aliases:
                    if read == current and assigned not in names:
                        names[assigned] = None
                        todo.append(assigned)
        return [c for n in names for fact in (of_arguments if _positional(n) else every) for c in fact.comparands.get(n, ())]

    def _compute(self, name: str) -> tuple:
        if name == ARGUMENT_COUNT:
            return self._counts()
        if is_file_test(name):
            return (None, "true")  # it fails, or it holds
        found = self._comparands(name)
        comparands = [c for c in found if c[0] != "file"]
        named = [value for kind, payload in found if kind == "file" for value in _named_files(*payload)]
        if not comparands and not named and self._callers(name):
            return tuple(dict.fromkeys([OTHER, *self.vary.get(name, ())]))
        # an argument that exists is set; an option is given or not
        option = is_option(name) and name.startswith("$1@")
        values: list[str | None] = [None] if option or not is_argument(name) else []
        matchers = []
        for kind, payload in comparands:
            if kind == "eq":
                values.append(payload)
                matchers.append(lambda s, p=payload: s == p)
            elif kind == "glob":
                rx = compile_glob(payload)
                sample = glob_sample(payload)
                if sample is not None:
                    values.append(sample)
                matchers.append(lambda s, rx=rx: rx.fullmatch(s) is not None)
            elif kind == "int":
                try:
                    n = int(payload)
                except ValueError:
                    continue
                values.extend([str(n - 1), str(n), str(n + 1)])
            elif kind == "empty":
                values.append("")
            elif kind == "regex":
                try:
                    rx = re.compile("".join(re.escape(t) if q else t for t, q in payload))
                except re.error:
                    continue
                values.extend(s for s in ("0", "1", "2", "true", "false") if rx.search(s))
        matchers = [m for m in matchers if not all(m(s) for s in ("", OTHER, "zz"))]  # `*` matches all
        if option:  # an option is one its arm takes: any word, where a pattern takes all
            if not matchers:
                values.append(OTHER)
        elif comparands or is_argument(name):
            other = OTHER
            while any(m(other) for m in matchers) and len(other) < len(OTHER) + 8:
                other += "x"
            if not any(m(other) for m in matchers):
                values.append(other)
        values.extend(named)  # the variants a file name takes in the tree, and no other: a file not there is bash's error
        values.extend(self.vary.get(name, ()))
        return tuple(dict.fromkeys(values))

    def _callers(self, name: str) -> bool:
        """Whether a variable is its caller's: no file the script loads assigns it or reads it with
        an operator for unset (`${X:-d}`), and neither bash nor what the script launches gives it a
        meaning where it is unset (has_default), so it is taken to be set, to a value not known here."""
        if (is_argument(name) or is_file_test(name) or name in _SHELLS_OWN or name.startswith("BASH")
                or self.interp.launches.has_default(name)):
            return False
        return not any(name in facts.assigned or name in facts.defaulted for facts in self._facts()[0])

    def _counts(self) -> tuple:
        """How many arguments the script may be given: none up to the most any command reads (one,
        where none reads a given one: `"$@"`), and the counts its tests of `$#` tell apart."""
        most = max([1, *(facts.arguments for facts in self._facts()[1])])
        counts = set(range(most + 1))
        for kind, payload in self._comparands(ARGUMENT_COUNT):
            if kind == "int" and payload.isdigit():
                counts.update(n for n in (int(payload) - 1, int(payload), int(payload) + 1) if n >= 0)
        return tuple(str(n) for n in sorted(counts))


def explore(
    script: Path,
    launches: LaunchRecogniser,
    fixed: Mapping[str, str] = {},
    vary: Mapping[str, list[str]] = {},
    path_cap: int = 4096,
    args: Sequence[str] | None = None,
) -> Exploration:
    """Evaluate the script on every feasible combination of branch outcomes (`args`: its arguments;
    None: not given, so they are inputs too)."""
    interp = Interp(str(script), launches)
    interp.candidates = Candidates(interp, {k: v for k, v in vary.items() if k not in fixed})
    root = interp.start(dict(fixed), args)
    explorer = Explorer(interp)
    work = [root]
    outcomes: dict[tuple, Outcome] = {}
    paths = 0
    capped = False
    while work:
        if paths >= path_cap:
            capped = True
            break
        st = work.pop()
        forked = explorer.advance(st)
        if forked is not None:
            work.extend(reversed(forked))
            continue
        paths += 1
        outcome = explorer.outcome(st)
        key = _outcome_key(outcome.rendering)
        if key in outcomes:
            outcomes[key].paths.extend(outcome.paths)
        else:
            outcomes[key] = outcome
    inputs = {name: [value] for name, value in fixed.items()}
    inputs.update(explorer.explored)
    return Exploration(list(outcomes.values()), inputs, paths, capped)


def _outcome_key(r: Rendering) -> tuple:
    own = tuple(sorted((n, v.text, v.opaque) for n, v in r.exported.items()))
    return (r.script, r.status, own) + tuple(_outcome_key(h) for h in r.handoffs)


class Explorer:
    """Runs the paths of one script, forking a path where it reads an input it has not decided,
    and keeps the values explored of each input."""

    def __init__(self, interp: Interp):
        self.interp = interp
        self.explored: dict[str, list] = {}

    def advance(self, st: State, stop_at: type | None = None) -> list[State] | None:
        """Run until the path ends (None), forks (the states it forks into), or reaches an
        instruction of type `stop_at` or returns from a function, where paths may join (None,
        not done)."""
        interp = self.interp
        while not st.done:
            if stop_at is not None and st.pc < len(st.code.instrs) and type(st.code.instrs[st.pc]) is stop_at:
                return None
            snapshot = self._snapshot(st)
            depth = len(st.stack)
            in_function = depth and st.stack[-1][2] == "func"
            try:
                interp.step(st)
            except NeedInput as e:
                return self.fork(snapshot or st, e)
            # A function's own locals are gone once it returns: paths that differ only in them (a
            # `local` in one arm) join here, not after the last of a series of such calls.
            if stop_at is not None and in_function and len(st.stack) < depth and not st.done:
                return None
        return None

    def _snapshot(self, st: State) -> State | None:
        instrs = st.code.instrs
        if st.pc < len(instrs) and instrs[st.pc].mutates:
            return st.copy()
        return None

    def _record(self, e: NeedInput) -> None:
        seen = self.explored.setdefault(e.name, [])
        for v in e.candidates:
            if v not in seen:
                seen.append(v)

    def fork(self, st: State, e: NeedInput) -> list[State]:
        """The states after the step at st.pc, for each group of e's candidates it treats alike.
        A candidate whose step reads another undecided input forks again there, as deep as the
        step's inputs go (a value joined from N ifs on N inputs is N deep): followed with a stack of
        its own, not Python's."""
        first = self._forking(st, e)
        if type(first) is list:
            return first
        forks = [first]
        weights: dict[State, int] = {}  # (_Fork.grouped)
        while True:
            current = forks[-1]
            taken = current.next_candidate()
            if taken is None:
                forks.pop()
                done = current.grouped(weights)
                if not forks:
                    return done
                forks[-1].results.extend((forks[-1].value, r) for r in done)
                continue
            value, s = taken
            snapshot = self._snapshot(s)
            try:
                self.interp.step(s)
                current.results.append((value, s))
            except NeedInput as inner:
                nested = self._forking(snapshot or s, inner)
                if type(nested) is list:
                    current.results.extend((value, r) for r in nested)
                else:
                    forks.append(nested)

    def _forking(self, st: State, e: NeedInput) -> list[State] | _Fork:
        """The states after the step, when grouping the candidates in place gives them; else the
        fork to run candidate by candidate."""
        self._record(e)
        instr = st.code.instrs[st.pc]
        groupable = instr.groupable and not instr.mutates
        if groupable:
            grouped = self._fork_in_place(st, e)
            if grouped is not None:
                return grouped
        return _Fork(self.interp, st, e, groupable)

    def _fork_in_place(self, st: State, e: NeedInput) -> list[State] | None:
        """Group the candidates of a step that only jumps or sets the status, trying each on `st`
        itself and copying the state once per group; None when the step reads another undecided input."""
        pc, status, notes, steps, inputs, domains = st.pc, st.status, st.notes, st.steps, st.inputs, st.domains
        groups: dict[tuple, list] = {}
        self.interp.grouping = True
        try:
            for values in e.classes():
                st.inputs, st.domains = inputs.copy(), domains.copy()
                if len(values) == 1:
                    st.inputs[e.name] = input_value(values[0])
                else:  # a class the step treats alike: it reads the input's domain
                    st.inputs.pop(e.name, None)
                    st.domains[e.name] = values
                self.interp.step(st)
                groups.setdefault((st.pc, st.status, st.notes), []).extend(values)
                st.pc, st.status, st.notes, st.steps = pc, status, notes, steps
        except (NeedInput, ExitScript, CounterRead):  # another input, a value bash stops on (set -u), a summarised counter: forked one by one
            return None
        finally:
            self.interp.grouping = False
            st.pc, st.status, st.notes, st.steps, st.inputs, st.domains = pc, status, notes, steps, inputs, domains
        out = []
        for (gpc, gstatus, gnotes), values in groups.items():
            s = st.copy()
            s.pc, s.status, s.notes, s.steps = gpc, gstatus, gnotes, steps + 1
            if not restrict(s, e.name, values):
                continue
            if len(values) == 1:
                self.interp.decide(s, e.name, values[0])
            out.append(s)
        return out

    def outcome(self, st: State) -> Outcome:
        for name, v in st.inputs.items():  # inputs read with a single candidate (unset unless varied)
            seen = self.explored.setdefault(name, [])
            if (v if v is None else v.text) not in seen:
                seen.append(v if v is None else v.text)
        domains = {n: list(d) for n, d in st.domains.items()}
        factors = None if st.condition is None else _factors(st.condition, domains)
        witnesses = {}
        env = {}
        # The witness: unset where the path lets an input be unset (of each factor's products, the one with the most such)
        witness = dict(domains)
        for factor in factors or ():
            witness.update(max(factor, key=lambda product: sum(None in vs for vs in product.values())))
        for name, values in witness.items():
            if name in st.inputs:
                v = st.inputs[name]
                env[name] = None if v is None else v.text
            else:
                env[name] = None if None in values else values[0]
                if name not in st.scopes[0]:  # an assigned one is exported where it was set (rendering)
                    witnesses[name] = env[name]
        for name, v in st.inputs.items():  # set on its one candidate (the caller's variable): a run sets it too
            if v is not None and name not in env:
                env[name] = v.text
        rendering = self.interp.rendering(st, witnesses)
        rendering.handoffs = list(st.handoffs)
        self._record_reads(rendering)
        return Outcome(rendering, [ExploredPath(env, list(st.branches), domains, factors)])


    def _record_reads(self, rendering: Rendering) -> None:
        """The inputs the outcome's symbolic values read (a launch's unquoted `$F` that some paths
        never assigned, a part guarded on an input the path never decided, a variable the trainer
        reads): decided where the launch is made concrete, so their values are explored too."""
        candidates = self.interp.candidates
        words = [word.value if type(word) is Split else word for launch in rendering.launched for word in launch.words]
        for value in words:
            for name in read_names(value) | choice_names(value):
                seen = self.explored.setdefault(name, [])
                seen.extend(v for v in (candidates(name) if candidates else (None,)) if v not in seen)
        for value in (*rendering.variables.values(), *rendering.exported.values()):  # those no path read at all
            for name in read_names(value) | choice_names(value):
                if name not in self.explored:
                    self.explored[name] = list(candidates(name) if candidates else (None,))
        for handoff in rendering.handoffs:
            self._record_reads(handoff)


def _narrowed_class(r: State, name: str, values: tuple) -> tuple:
    """The values of `name` a state a class of them was run on stands for: fewer where the step
    forked on the same input again (`[[ -n $V && $IN != *x* ]]`, V joined on IN) and decided or
    narrowed it below the class."""
    if name in r.inputs:
        held = r.inputs[name]
        return (None if held is None else held.text,)
    narrower = r.domains.get(name, values)
    return tuple(narrower) if set(narrower) < set(values) else values


class _Fork:
    """One fork of a step on an undecided input, run candidate by candidate (Explorer.fork): the
    candidate being run, and the states each candidate's step has given so far."""

    def __init__(self, interp: Interp, st: State, e: NeedInput, groupable: bool):
        self.interp, self.st, self.e, self.groupable = interp, st, e, groupable
        self.candidates = iter(e.classes())
        self.value: tuple = ()
        self.results: list[tuple[tuple, State]] = []

    def next_candidate(self) -> tuple[tuple, State] | None:
        """The next class of candidates (one value, or those the step treats alike) and a copy of
        the state narrowed to it (a value decided); None when none is left."""
        for values in self.candidates:
            s = self.st.copy()
            if restrict(s, self.e.name, values):
                if len(values) == 1:
                    self.interp.decide(s, self.e.name, values[0])
                self.value = values
                return values, s
        return None

    def grouped(self, weights: dict[State, int]) -> list[State]:
        """The states the candidates gave, those of a groupable step that agree but on the input
        grouped into one. A state that a fork n deep gives is grouped again at each of its levels:
        its domains are told apart by the sum of their items' hashes (`weights`, made once for
        each state), and compared whole only where the sums say they may be one."""
        name = self.e.name
        if not self.groupable:
            return [r for _, r in self.results]
        groups: dict[tuple, tuple[State, list, list]] = {}
        buckets: dict[tuple, list[tuple]] = {}
        for v, r in self.results:
            v = _narrowed_class(r, name, v)
            weight = weights.get(r)
            if weight is None:
                weight = weights[r] = sum(map(hash, r.domains.items()))
            if name in r.domains:
                weight -= hash((name, r.domains[name]))
            bucket = buckets.setdefault((id(r.code), r.pc, r.status, len(r.stack), weight, r.condition), [])
            key = next((key for key in bucket if _alike_but(groups[key][0].domains, r.domains, name)), None)
            if key is not None:
                groups[key][1].extend(v)
                groups[key][2].append(name in r.exported)
            else:
                key = (len(groups),)
                bucket.append(key)
                groups[key] = (r, list(v), [name in r.exported])
        out = []
        for r, values, exported in groups.values():
            if len(values) > 1:
                if name in r.domains:
                    weights[r] -= hash((name, r.domains[name]))
                r.domains[name] = tuple(values)
                weights[r] += hash((name, r.domains[name]))
                r.inputs.pop(name, None)
                # Exported on every value (`export IN1` before, or set on each): it stays so. Else an
                # input whose values stay grouped is exported where the environment set it, as its
                # witness says (never read) or the rendering (assigned: machine.Interp.rendering).
                if not all(exported):
                    r.exported.discard(name)
            out.append(r)
        return out


def _alike_but(a: dict, b: dict, name: str) -> bool:
    """Whether two states' domains are the same but for the input `name`."""
    return len(a) - (name in a) == len(b) - (name in b) and all(b.get(n, _NOWHERE) == values for n, values in a.items() if n != name)


_NOWHERE = object()

