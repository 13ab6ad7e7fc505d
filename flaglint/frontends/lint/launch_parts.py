"""A launch whose values are symbolic (render/bash/symbolic), checked as a few concrete launches.

The flag string of a merged outcome is pieces, some of them Choices on inputs; the Tunix variables
may be Choices too. Each Choice is a *part*. Two parts belong together when they share an input,
write into one flag token, set the same key or variable, or when one rule reads a name of each:
the rest of the launch is the same whatever they take. A group of parts is checked on every
combination of its inputs' values with every other part at the path's own values (its base), so
the checks grow with the sum over groups, not with the product. Only the combinations the path's
condition allows are checked: where a guard over several inputs merged paths, or refused some of
their combinations with a non-zero exit, the others launch nothing. A finding of a group's check
whose keys are that group's belongs to the inputs' values of that check; a finding of the base
check that touches no part belongs to the whole outcome.

A group with more combinations than the cap is not enumerated: what the same parts alone decide
(a token MaxText refuses, a value of the wrong type, a key two parts set) is checked on those
parts' combinations, few since a part reads an input or two, and the solver is asked which rules
some allowed combination of them all breaks (launch_query), each answer one launch checked like
any other.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from flaglint.core.findings import InputError
from flaglint.frontends.lint.unverified import Unverified
from flaglint.read.argv import shell_words
from flaglint.render.bash.expansion import input_value
from flaglint.render.bash.explorer import ExploredPath
from flaglint.render.bash.types import (
    Choice,
    FromInput,
    Rendering,
    Sym,
    Value,
    choice_names,
    resolve,
)
from flaglint.resolve.topology import DEVICE_NAMES, device_keys

# A group with more combinations than this is checked by the solver instead of on each of them.
COMBINATION_CAP = 4096


@dataclass(kw_only=True)
class Owned:
    """Which findings of a concrete launch are its own: those that read one of `names` (None: any)
    and none of `excluded`, and are of `rule` where the launch was checked for that rule alone
    (the solver's answer)."""

    names: frozenset | None = None
    excluded: frozenset = frozenset()
    rule: str | None = None

    def owns(self, read: set, rule: str) -> bool:
        return ((self.names is None or not self.names.isdisjoint(read)) and self.excluded.isdisjoint(read)
                and self.rule in (None, rule))


@dataclass
class Concrete(Owned):
    """One concrete launch: its rendering and the path condition it stands for."""

    rendering: Rendering
    path: ExploredPath


@dataclass
class ConcreteArgv(Owned):
    """One concrete command line of a launch whose words are symbolic."""

    words: tuple  # tuple[Value, ...]
    path: ExploredPath


@dataclass
class _Part:
    inputs: set
    names: set
    members: list = field(default_factory=list)  # a group's parts
    origin: object = None  # Origin | None: where the script writes the part (a group: its first part)


def concrete_launches(rendering: Rendering, path: ExploredPath, explored: Mapping[str, Sequence],
                      flags_variable: str, variables: Mapping, rule_names: Iterable[frozenset],
                      bound: Mapping[str, set], selectors: Iterable[str] = (),
                      cap: int = COMBINATION_CAP, judge=None) -> list[Concrete]:
    """The launches to check for one outcome. `variables`: the Tunix variables; `bound`: the
    MaxText keys each one binds; `rule_names`: the names each rule reads; `selectors`: variables
    that decide whether the flags reach MaxText at all (TRAINER_BACKEND); `judge`: how the solver's
    answers for a group over `cap` are judged (launch_query.Judge on a Rendering)."""
    base = dict(path.env)
    symbolic = {name: v for name, v in rendering.variables.items()
                if (name == flags_variable or name in variables) and _is_symbolic(v)}
    if not symbolic:
        return [Concrete(_resolved(rendering, base, {}), path)]
    deciding = [name for name in selectors if name in symbolic]
    if deciding:  # split the path on the selectors' inputs first: each part then has one selector value
        launches = []
        for sub in _split(path, set().union(*(_inputs(symbolic[n]) for n in deciding)), symbolic, explored, cap, "the trainer backend"):
            pick, read_input = _picker(sub.env, {})
            fixed = {n: resolve(symbolic[n], pick, read_input) for n in deciding}
            narrowed = Rendering(rendering.exported, {**rendering.variables, **fixed}, rendering.notes, rendering.script,
                                 rendering.handoffs, rendering.status, rendering.branches)
            launches.extend(concrete_launches(narrowed, sub, explored, flags_variable, variables, rule_names, bound, (), cap, judge))
        return launches
    parts: list[_Part] = []
    flags = symbolic.get(flags_variable)
    if flags is not None:
        parts.extend(_flag_parts(flags, base))
    for name, value in symbolic.items():
        if name != flags_variable:
            parts.append(_Part(_inputs(value), {name, *bound.get(name, ())}, origin=_first_origin(value)))
    groups = _groups(parts, rule_names)
    launches = [Concrete(_resolved(rendering, base, {}), path, excluded=frozenset().union(*(g.names for g in groups)))]
    for group in groups:
        for sub, owned in _group_paths(path, group, symbolic, explored, cap, judge, lambda env: _resolved(rendering, env, {})):
            launches.append(Concrete(_resolved(rendering, sub.env, {}), sub, **owned))
    return launches


def _group_paths(path: ExploredPath, group: _Part, symbolic: Mapping, explored: Mapping[str, Sequence], cap: int,
                 judge, launch_at) -> list[tuple[ExploredPath, dict]]:
    """The paths on which to check a group, each with what it owns (Owned's fields): every combination of its inputs' values; or, over `cap`, the combinations of the parts
    that set a name, for the names only they set (the other parts stay at the path's values there,
    so a rule that reads names of other parts too is the solver's), and each launch the solver
    finds a rule broken on, for that rule (the inputs it left free take one value each there).
    `launch_at(env)`: the launch with those inputs' values."""
    try:
        return _checked_group(path, group, symbolic, explored, cap, judge, launch_at)
    except Unverified as err:
        err.origin = err.origin or group.origin
        raise


def _checked_group(path: ExploredPath, group: _Part, symbolic: Mapping, explored: Mapping[str, Sequence], cap: int,
                   judge, launch_at) -> list[tuple[ExploredPath, dict]]:
    if _count(_input_classes(path, group.inputs, symbolic, explored)) <= cap:
        return [(sub, {"names": frozenset(group.names)}) for sub in _split(path, group.inputs, symbolic, explored, cap)]
    if judge is None:
        raise Unverified(f"{', '.join(sorted(group.inputs))} decide the launch together in more than {cap} combinations")
    writers: dict[str, frozenset] = {}
    for index, part in enumerate(group.members):
        for name in part.names:
            writers[name] = writers.get(name, frozenset()) | {index}
    depends = {name: set().union(*(group.members[i].inputs for i in who)) for name, who in writers.items()}
    decided: dict[frozenset, set] = {}
    for name, who in writers.items():
        decided.setdefault(who, set()).add(name)
    # What the same parts alone decide (a token of one key, one key set by two parts) is checked on
    # those parts' combinations: a part reads an input or two, so they are few whatever the cap.
    few = max(cap, COMBINATION_CAP)
    found = []
    for names in decided.values():
        inputs = depends[next(iter(names))]
        for sub in _split(path, inputs, symbolic, explored, few, ", ".join(sorted(names))):
            found.append((sub, {"names": frozenset(names), "excluded": frozenset(group.names - names)}))
    cubes = path.products()
    classes = _input_classes(path, group.inputs, symbolic, explored, cubes)
    from flaglint.frontends.lint.launch_query import violations  # noqa: PLC0415 z3: only for a group over the path cap

    for rule, fixed in violations(classes, cubes, depends, path.env, launch_at, lambda fixed: launch_at(_narrowed(path, fixed).env), judge, few):
        found.append((_narrowed(path, fixed), {"names": frozenset(group.names), "rule": rule}))
    return found


def _input_classes(path: ExploredPath, inputs: set, symbolic: Mapping, explored: Mapping[str, Sequence],
                   cubes: Sequence[Mapping] = ()) -> dict[str, list[list]]:
    """Each input's values, in the classes that the symbolic values (and `cubes`, products of
    the path's condition) tell apart."""
    splits: dict[str, set] = {}
    read_whole: set = set()
    for value in symbolic.values():
        _splits(value, splits)
        _from_inputs(value, read_whole)
    for cube in cubes:
        for name, values in cube.items():
            splits.setdefault(name, set()).add(frozenset(values))
    return {name: _classes(_domain(name, path, explored), None if name in read_whole else splits.get(name))
            for name in sorted(inputs)}


def _count(classes: Mapping[str, list]) -> int:
    count = 1
    for c in classes.values():
        count *= len(c)
    return count


def _split(path: ExploredPath, inputs: set, symbolic: Mapping, explored: Mapping[str, Sequence], cap: int,
           deciding: str = "") -> list[ExploredPath]:
    """The path, once for each combination of the inputs' values that the symbolic values tell
    apart; more than `cap` of them for what the inputs decide (`deciding`) is Unverified."""
    by_input = _input_classes(path, inputs, symbolic, explored)
    count = _count(by_input)
    if count > cap:
        raise Unverified(f"{deciding or 'a part of the launch'} is decided by {count} combinations of {', '.join(by_input)} (more than {cap})")
    names, classes = list(by_input), list(by_input.values())
    subs = []
    for combo in itertools.product(*classes):
        sub = _narrowed(path, dict(zip(names, combo)))
        if sub is not None:
            subs.append(sub)
    return subs


def _narrowed(path: ExploredPath, fixed: Mapping[str, list]) -> ExploredPath | None:
    """The part of the path where each input in `fixed` takes one of its values; None where the
    path's condition rules that out (a guard over several inputs, or one that exits, took it)."""
    cubes = []
    for cube in path.products():
        narrowed = {**cube, **{name: [v for v in cube.get(name, values) if v in values] for name, values in fixed.items()}}
        if all(narrowed.values()):
            cubes.append(narrowed)
    if not cubes:
        return None
    domains = {name: list(dict.fromkeys(v for c in cubes for v in c[name])) for name in cubes[0]}
    env = dict(path.env)
    for name, values in cubes[0].items():
        if name in fixed or env.get(name) not in values:
            env[name] = values[0]
    return ExploredPath(env, [], domains, cubes if len(cubes) > 1 else None)


def _splits(value, into: dict[str, set]) -> None:
    """The value sets each input's Choices tell apart."""
    if type(value) is Choice:
        for values, alt in value.alts:
            into.setdefault(value.name, set()).add(values)
            _splits(alt, into)
    elif type(value) is Sym:
        for piece in value.pieces:
            _splits(piece, into)


def _classes(domain: list, splits: set | None) -> list[list]:
    """The input's values, grouped where no Choice tells them apart; an input read as a value
    (FromInput) has every value apart."""
    if splits is None:
        return [[v] for v in domain]
    grouped: dict[tuple, list] = {}
    for v in domain:
        grouped.setdefault(tuple(v in s for s in splits), []).append(v)
    return list(grouped.values())


def _is_symbolic(value) -> bool:
    return type(value) is Choice or type(value) is Sym


def _inputs(value) -> set:
    names = choice_names(value)
    _from_inputs(value, names)
    return names


def _from_inputs(value, into: set) -> None:
    if type(value) is FromInput:
        into.add(value.name)
    elif type(value) is Choice:
        for _, alt in value.alts:
            _from_inputs(alt, into)
    elif type(value) is Sym:
        for piece in value.pieces:
            _from_inputs(piece, into)


def _domain(name: str, path: ExploredPath, explored: Mapping[str, Sequence]) -> list:
    values = path.domains.get(name)
    if values is None:
        values = explored.get(name) or [path.env.get(name)]
    return list(dict.fromkeys(values))


def _picker(base: Mapping, assignment: Mapping):
    def value_of(name: str):
        return assignment[name] if name in assignment else base.get(name)

    def pick(choice: Choice):
        value = value_of(choice.name)
        return next((alt for values, alt in choice.alts if value in values), choice.alts[0][1])

    return pick, lambda name: input_value(value_of(name))


def _resolved(rendering: Rendering, base: Mapping, assignment: Mapping) -> Rendering:
    pick, read_input = _picker(base, assignment)

    def concrete(values: dict) -> dict:
        out = {}
        for name, v in values.items():
            v = resolve(v, pick, read_input) if _is_symbolic(v) or type(v) is FromInput else v
            if isinstance(v, list):
                v = v[0] if v and v[0] is not None else None
            if v is not None:
                out[name] = v
        return out

    return Rendering(concrete(rendering.exported), concrete(rendering.variables), rendering.notes,
                     rendering.script, rendering.handoffs, rendering.status, rendering.branches)


def _flag_parts(flags, base: Mapping) -> list[_Part]:
    """One part per Choice among the flag string's pieces, with the keys of the tokens it writes
    into in any of its values; parts that write into one token are one part."""
    pieces = flags.pieces if type(flags) is Sym else (flags,)
    indices = [i for i, p in enumerate(pieces) if type(p) is not Value]
    pick_base, read_base = _picker(base, {})
    base_texts = [resolve(p, pick_base, read_base) for p in pieces]
    parts = {i: _Part(_inputs(pieces[i]), set(), origin=_first_origin(pieces[i])) for i in indices}
    owner = {i: i for i in indices}

    def find(i: int) -> int:
        while owner[i] != i:
            i = owner[i]
        return i

    own = {i: [resolve(pieces[i], *_picker(base, assignment)) for assignment in _own_assignments(pieces[i], base)] for i in indices}
    joins = {i: _joins(own[i]) for i in indices}
    for i in indices:
        for value in own[i]:
            texts = list(base_texts)
            texts[i] = value
            for token, touched in _tokens(texts, joins):
                if i in touched:
                    parts[i].names.add(token.split("=", 1)[0])
                    for j in touched:
                        if j in owner and find(j) != find(i):
                            owner[find(j)] = find(i)
        # the base value's tokens too: a part that is empty elsewhere still removes them
        for token, touched in _tokens(base_texts, joins):
            if i in touched:
                parts[i].names.add(token.split("=", 1)[0])
    merged: dict[int, _Part] = {}
    for i in indices:
        root = find(i)
        into = merged.setdefault(root, _Part(set(), set(), origin=parts[i].origin))
        into.inputs |= parts[i].inputs
        into.names |= parts[i].names
    return list(merged.values())


def _first_origin(value):
    """Where the script writes the first character in which the value's alternatives differ."""
    if type(value) is Sym:
        return next((o for p in value.pieces if type(p) is not Value and (o := _first_origin(p)) is not None), None)
    if type(value) is not Choice:
        return None
    alts = [_origins(alt) for _, alt in value.alts]
    shared = 0
    while all(shared < len(a) for a in alts) and all(a[shared] == alts[0][shared] for a in alts):
        shared += 1
    return next((o for a in alts for o in a[shared:] if o is not None), None)


def _origins(value) -> list:
    """The origins of the value's characters, each Choice at its first alternative that has any."""
    if type(value) is Value:
        return list(value.origins)
    if type(value) is Sym:
        return [o for p in value.pieces for o in _origins(p)]
    if type(value) is Choice:
        return next((found for _, alt in value.alts if (found := _origins(alt))), [])
    return []


def _own_assignments(piece, base: Mapping) -> list[dict]:
    names = sorted(_inputs(piece))
    values = []
    for name in names:
        found = {base.get(name)}
        _choice_values(piece, name, found)
        values.append(sorted(found, key=lambda v: (v is None, str(v))))
    return [dict(zip(names, combo)) for combo in itertools.product(*values)]


def _choice_values(value, name: str, into: set) -> None:
    """One value of `name` from each alternative set of the Choices on it."""
    if type(value) is Choice:
        for values, alt in value.alts:
            if value.name == name:
                into.add(next(iter(sorted(values, key=lambda v: (v is None, str(v))))))
            _choice_values(alt, name, into)
    elif type(value) is Sym:
        for piece in value.pieces:
            _choice_values(piece, name, into)


def _joins(values: list) -> tuple[bool, bool]:
    """Whether some value of a piece would join the token before it, and the token after it."""
    texts = [v.text for v in values if v is not None and v.text]
    return any(not t[0].isspace() for t in texts), any(not t[-1].isspace() for t in texts)


def _tokens(texts: list, joins: Mapping[int, tuple[bool, bool]] | None = None) -> list[tuple[str, set]]:
    """The whitespace-separated tokens of the joined pieces, each with the pieces it touches (an
    empty piece touches the token it would split, or join with another of its values: `joins`,
    else with any)."""
    owners: list[int] = []
    chars: list[str] = []
    empty_at: dict[int, list[int]] = {}
    for index, value in enumerate(texts):
        text = "" if value is None else value.text
        if not text:
            empty_at.setdefault(len(chars), []).append(index)
        chars.extend(text)
        owners.extend([index] * len(text))
    found = []
    start = None
    for position in range(len(chars) + 1):
        blank = position == len(chars) or chars[position].isspace()
        if not blank and start is None:
            start = position
        if blank and start is not None:
            touched = set(owners[start:position])
            for at in range(start, position + 1):
                for index in empty_at.get(at, ()):
                    left, right = (True, True) if joins is None or index not in joins else joins[index]
                    if start < at < position or at == position and left or at == start and right:
                        touched.add(index)
            found.append(("".join(chars[start:position]), touched))
            start = None
    return found


def _groups(parts: list[_Part], rule_names: Iterable[frozenset]) -> list[_Part]:
    """The parts, joined where they must be checked together."""
    owner = list(range(len(parts)))

    def find(i: int) -> int:
        while owner[i] != i:
            i = owner[i]
        return i

    def union(i: int, j: int) -> None:
        a, b = find(i), find(j)
        if a != b:
            owner[b] = a

    by_name: dict[str, list[int]] = {}
    for i, part in enumerate(parts):
        for name in part.names | {f"input:{n}" for n in part.inputs}:
            by_name.setdefault(name, []).append(i)
    for indices in by_name.values():
        for j in indices[1:]:
            union(indices[0], j)
    for names in rule_names:
        if not names.isdisjoint(DEVICE_NAMES):  # the device count is read from the launch's keys
            names = names | device_keys()
        hit = {i for name in names for i in by_name.get(name, ())}
        if len(hit) > 1:
            first = min(hit)
            for j in hit:
                union(first, j)
    groups: dict[int, _Part] = {}
    for i, part in enumerate(parts):
        into = groups.setdefault(find(i), _Part(set(), set(), origin=part.origin))
        into.inputs |= part.inputs
        into.names |= part.names
        into.members.append(part)
    return list(groups.values())


def concrete_argvs(words: Sequence, path: ExploredPath, explored: Mapping[str, Sequence],
                   rule_names: Iterable[frozenset], cap: int = COMBINATION_CAP, judge=None) -> list[ConcreteArgv]:
    """The command lines to check for a launched program's words, some of them symbolic: one part
    per symbolic word, named by the key it sets (`key=...`) in any of its values, grouped and split
    as a flag string's parts are (`judge`: launch_query.Judge on the words)."""
    symbolic = {str(i): w for i, w in enumerate(words) if _is_symbolic(w)}
    base = dict(path.env)
    if not symbolic:
        return [ConcreteArgv(tuple(words), path)]
    parts = []
    for word in symbolic.values():
        keys = set()
        for assignment in _own_assignments(word, base):
            pick, read_input = _picker(base, assignment)
            value = resolve(word, pick, read_input)
            keys |= _word_keys("" if value is None else value.text)
        parts.append(_Part(_inputs(word), keys, origin=_first_origin(word)))
    groups = _groups(parts, rule_names)
    argvs = [ConcreteArgv(_resolved_words(words, base), path, excluded=frozenset().union(*(g.names for g in groups)))]
    for group in groups:
        for sub, owned in _group_paths(path, group, symbolic, explored, cap, judge, lambda env: _resolved_words(words, env)):
            argvs.append(ConcreteArgv(_resolved_words(words, sub.env), sub, **owned))
    return argvs


def _word_keys(text: str) -> set:
    """The names a word sets: `key=…`, and the keys of the key=value words inside it when it holds
    a command line (an XPK `--command "… train.py base.yml ici_pipeline_parallelism=${STAGES}"`)."""
    keys = {text.split("=", 1)[0]}
    try:
        keys.update(token.text.split("=", 1)[0] for token in shell_words(text) if "=" in token.text)
    except InputError:
        pass
    return keys


def _resolved_words(words: Sequence, env: Mapping) -> tuple:
    pick, read_input = _picker(env, {})
    resolved = (resolve(w, pick, read_input) if _is_symbolic(w) else w for w in words)
    return tuple(w if w is not None else Value("", []) for w in resolved)
