"""Path conditions of an exploration as Z3 formulas, and the smallest witness of a set of paths.

Each input is a Z3 integer ranging over the indices of the values explored for it (unset
included). A path's condition says that the inputs it read take values that lead down it: one
product of value sets, or several where merged paths' guards read several inputs together; the
inputs it never read are free. A finding that occurs on some paths holds under the
disjunction of their conditions, and its witness is the smallest set of inputs whose values alone
imply that disjunction: the variables that matter, and nothing else.

z3 is imported here, and this module only by lint when a finding needs a witness.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import z3

from flaglint.render.bash.explorer import ExploredPath
from flaglint.render.bash.guards import simplified
from flaglint.render.bash.types import preference

# Candidate paths tried as the start of the witness search: a witness from any path is correct,
# trying a few of the least constrained ones finds a small one at a cost that does not grow with the paths.
WITNESS_STARTS = 8
# The work one witness query may do, in Z3's resource units (its `rlimit`, counted alike on every
# machine). A query Z3 cannot answer within it counts as satisfiable, which only keeps an input in
# the witness that might have been dropped: the witness stays correct, just not the smallest.
# The largest query of the test suite's scripts and bench/appends_bench.py's took 11,449 units
# (z3-solver 5.4.1).
WITNESS_QUERY_WORK = 2_000_000

# The cubes of paths of one product kept at most (PathConditions._path_cube_of), by the paths' ids.
PATH_CUBES = 16384


class PathConditions:
    """The conditions of the explored paths over their inputs. The paths partition the inputs' values
    (tests/render/test_bash_property.py proves it in Z3), so the space of witnesses is every
    assignment but those of the `excluded` paths (the ones a finding cannot be judged on)."""

    def __init__(self, inputs: Mapping[str, Sequence[str | None]], paths: Sequence[ExploredPath],
                 excluded: Sequence[ExploredPath] = ()):
        self.values: dict[str, list[str | None]] = {name: list(dict.fromkeys(values)) for name, values in inputs.items()}
        read: set[int] = set()
        for path in paths:
            while path is not None and id(path) not in read:  # a narrowed path adds only its changed inputs
                read.add(id(path))
                for name, values in (path.changed if path.narrowed_from is not None else path.domains).items():
                    known = self.values.setdefault(name, [])
                    known.extend(v for v in values if v not in known)
                path = path.narrowed_from
        self.variables: dict[str, z3.ArithRef] = {}
        self._members: dict[tuple, z3.BoolRef] = {}
        self._constrains: dict[tuple, bool] = {}  # (input, id of a path's values): whether they leave some out
        self._path_cube: dict[int, tuple] = {}  # a path of one product (by id, kept) -> (it, its cube)
        self._excluded = self._conditions(excluded)
        self._literals: dict[z3.Solver, dict[tuple, z3.BoolRef]] = {}  # (_satisfiable)
        # paths (by identity: they live as long as the exploration) -> their witness; findings of
        # one place on the same paths (several rules, several keys) ask for the same one
        self._witnesses: dict[tuple, tuple[ExploredPath, dict[str, list]]] = {}

    def variable(self, name: str) -> z3.ArithRef:
        if name not in self.variables:
            self.variables[name] = z3.Int(name)
        return self.variables[name]

    @property
    def bounds(self) -> z3.BoolRef:
        """Every input within the indices of its values."""
        return self._bounded(self.values)

    def _bounded(self, names: Iterable[str]) -> z3.BoolRef:
        return z3.And([z3.And(0 <= self.variable(name), self.variable(name) < len(self.values[name])) for name in sorted(names)])

    def _space(self, names: set[str]) -> list[z3.BoolRef]:
        """The assignments a witness may take, over `names` and the inputs the excluded paths read
        (every other input is free: no formula here reads it)."""
        if not self._excluded.holds:
            return [self._bounded(names)]
        return [self._bounded(names | self._excluded.names), z3.Not(self._formula(self._excluded))]

    def member(self, name: str, values: Iterable[str | None]) -> z3.BoolRef:
        key = (name, frozenset(values))
        found = self._members.get(key)
        if found is None:
            var = self.variable(name)
            found = self._members[key] = z3.Or([var == self.values[name].index(v) for v in key[1]])
        return found

    def any_of(self, paths: Iterable[ExploredPath]) -> z3.BoolRef:
        return self._formula(self._conditions(paths))

    def _formula(self, condition: _Condition) -> z3.BoolRef:
        terms = [self._conjunction(cube) for cube in condition.cubes]
        for cube, factors in condition.factored:
            disjunctions = [_joined(z3.Z3_mk_or, [self._conjunction(product) for product in factor]) for factor in factors]
            terms.append(_joined(z3.Z3_mk_and, [self._conjunction(cube), *disjunctions]))
        return _joined(z3.Z3_mk_or, terms)

    def _conjunction(self, cube: frozenset) -> z3.BoolRef:
        return _joined(z3.Z3_mk_and, [self.member(name, values) for name, values in cube])

    def _conditions(self, paths: Iterable[ExploredPath]) -> _Condition:
        """The paths' conditions: those of one product as few products of value sets, before Z3
        sees them (building thousands of path conditions as Z3 terms costs seconds); those of
        several as their domains' product times their factors, never expanded."""
        cubes, factored = [], []
        for path in paths:
            if path.factors is None:
                cubes.append(self._path_cube_of(path))
            else:
                factored.append((self._cube(path.domains), [[self._cube(product) for product in factor] for factor in path.factors]))
        return _Condition(simplified(cubes, self.values), factored)

    def _path_cube_of(self, path: ExploredPath) -> frozenset:
        """_cube of the path's product. Of a path narrowed on a few inputs from another
        (ExploredPath.changed), its path's cube with those inputs' values changed: the launches of
        a key's tokens narrow one path of hundreds of inputs hundreds of times."""
        if len(self._path_cube) > PATH_CUBES:
            self._path_cube.clear()
        chain = []  # the path and those it was narrowed from, down to one whose cube is known or that was not narrowed
        at = path
        while (known := self._path_cube.get(id(at))) is None or known[0] is not at:
            chain.append(at)
            if at.narrowed_from is None or at.narrowed_from.factors is not None:
                break
            at = at.narrowed_from
        for at in reversed(chain):
            parent = at.narrowed_from
            if parent is None or parent.factors is not None:
                cube = self._cube(at.domains)
            else:
                # an input's item is (name, its values) where they leave some out: one not in the cube is no item of it
                removed = [(name, frozenset(parent.domains[name])) for name in at.changed if name in parent.domains]
                added = [(name, frozenset(at.domains[name])) for name in at.changed if self._leaves_out(name, at.domains[name])]
                cube = self._path_cube[id(parent)][1].difference(removed).union(added)
            self._path_cube[id(at)] = (at, cube)
        return self._path_cube[id(path)][1]

    def _cube(self, domains: Mapping[str, Sequence[str | None]]) -> frozenset:
        """The product as (input, values) for the inputs it constrains."""
        return frozenset((name, frozenset(values)) for name, values in self._constraining(domains))

    def _constraining(self, domains: Mapping[str, Sequence[str | None]]) -> Iterable[tuple[str, Sequence[str | None]]]:
        """The inputs of a product that leave some of their values out, with their values
        (_leaves_out, its look-up inlined: each of a script's N witnesses reads its paths' N inputs)."""
        known = self._constrains
        for name, values in domains.items():
            leaves_out = known.get((name, id(values)))
            if leaves_out is None:
                leaves_out = self._leaves_out(name, values)
            if leaves_out:
                yield name, values

    def _leaves_out(self, name: str, values: Sequence[str | None]) -> bool:
        """Whether the values leave some of the input's out (remembered per list: narrowed paths share their path's)."""
        key = (name, id(values))
        found = self._constrains.get(key)
        if found is None:
            found = self._constrains[key] = set(values) != set(self.values[name])
        return found

    def witness(self, paths: Sequence[ExploredPath]) -> tuple[ExploredPath, dict[str, list]]:
        """A path among `paths`, and the fewest of its inputs whose values imply the disjunction of the
        paths' conditions whatever the other inputs are; each input with every value that does."""
        key = tuple(id(path) for path in paths)
        found = self._witnesses.get(key)
        if found is None:
            found = self._witnesses[key] = self._witness(paths)
        path, matters = found
        return path, {name: list(values) for name, values in matters.items()}

    def _witness(self, paths: Sequence[ExploredPath]) -> tuple[ExploredPath, dict[str, list]]:
        condition = self._conditions(paths)
        # a path's first products (of many, the first few: any start gives a correct witness)
        starts = sorted(((p, c) for p in paths for c in itertools.islice(p.products(), WITNESS_STARTS)),
                        key=lambda start: len(start[1]))[:WITNESS_STARTS]
        if len(condition.cubes) == 1 and not condition.factored and not self._excluded.holds:
            return self._product_witness(starts[0], dict(next(iter(condition.cubes))))
        constrained = [(p, self._constrained(c)) for p, c in starts]
        names = condition.names | {name for _, c in constrained for name in c}
        space = self._space(names)
        refuter = z3.Solver()
        refuter.add(*space, z3.Not(self._formula(condition)))
        path, kept = min(((p, self._sufficient(refuter, c)) for p, c in constrained), key=lambda found: len(found[1]))
        return path, self._widened(refuter, kept, space)

    def _product_witness(self, start: tuple[ExploredPath, Mapping[str, Sequence]],
                         product: Mapping[str, frozenset]) -> tuple[ExploredPath, dict[str, list]]:
        """The witness when the paths' condition is one product and every assignment is a witness's
        (no excluded paths), read off it without the solver: each input the product constrains
        matters (a value outside its set leaves the paths) and no other does; each takes the start's
        values, then the product's other values in explored order. It is what the solver's search
        finds from any start, at a cost that follows the product's inputs (a script's N findings,
        each on N inputs, are N**2 steps, not N**2 queries of N inputs each)."""
        path, cube = start
        return path, {name: list(values) + [v for v in self.values[name] if v in product[name] and v not in values]
                      for name, values in self._constrained(cube).items() if name in product}

    def _constrained(self, cube: Mapping[str, Sequence]) -> dict[str, list]:
        """The inputs of one product of a path's condition that it constrains: an input the path
        lets take any of its values never matters."""
        return {name: list(values) for name, values in self._constraining(cube)}

    def _sufficient(self, refuter: z3.Solver, kept: dict[str, list]) -> dict[str, list]:
        """Drop the constrained inputs of one product of a path's condition one by one while the rest still refute `refuter`."""
        for name in list(kept):
            trial = {n: v for n, v in kept.items() if n != name}
            if not self._satisfiable(refuter, trial):
                kept = trial
        return kept

    def _widened(self, refuter: z3.Solver, kept: dict[str, list], space: list[z3.BoolRef]) -> dict[str, list]:
        """Each kept input with every explored value that, with the others' values, still implies the
        paths (merged paths of one outcome spread its values over several paths) and occurs at all,
        where one of them is preferred to all the input's own (a witness names its most preferred
        value, the first of them: an input that has a literal already is not widened, so a witness
        costs its inputs, not every value the script compares them with)."""
        reachable = z3.Solver()
        reachable.add(*space)
        widened = {}
        for name, values in kept.items():
            others = {n: v for n, v in kept.items() if n != name}
            best = min(map(preference, values), default=None)
            extra = [
                v for v in self.values[name]
                if v not in values and (best is None or preference(v) < best)
                and not self._satisfiable(refuter, {**others, name: [v]})
                and self._satisfiable(reachable, {**others, name: [v]})
            ]
            widened[name] = values + extra
        return widened

    def _satisfiable(self, solver: z3.Solver, assignment: Mapping[str, Iterable[str | None]]) -> bool:
        # Each input's value set is a literal that implies it, asserted once in the solver, and a
        # query checks under the literals of its sets: asserted anew in a scope of each query, z3
        # took up the whole formula again at each of a witness's n queries.
        literals = self._literals.setdefault(solver, {})
        held = []
        for name, values in assignment.items():
            key = (name, frozenset(values))
            literal = literals.get(key)
            if literal is None:
                literal = literals[key] = z3.Bool(f"held {len(literals)} {name}")
                solver.add(z3.Implies(literal, self.member(name, values)))
            held.append(literal)
        solver.set("rlimit", WITNESS_QUERY_WORK)
        # (z3's own call: Solver.check casts each literal in Python, n casts a query)
        array = (z3.Ast * len(held))(*(literal.as_ast() for literal in held))
        return z3.Z3_solver_check_assumptions(solver.ctx.ref(), solver.solver, len(held), array) != z3.Z3_L_FALSE


@dataclass
class _Condition:
    """Paths' conditions: the union of `cubes` and of each (cube, factors) of `factored`, that cube
    times the union of each factor's cubes."""
    cubes: set
    factored: list

    @property
    def holds(self) -> bool:
        """Whether any path is in it."""
        return bool(self.cubes or self.factored)

    @property
    def names(self) -> set[str]:
        """The inputs it constrains."""
        cubes = [*self.cubes, *(c for cube, factors in self.factored for c in (cube, *itertools.chain(*factors)))]
        return {name for cube in cubes for name, _ in cube}


def _joined(make, terms: Sequence[z3.BoolRef]) -> z3.BoolRef:
    """z3's And or Or (`make`) of Boolean terms, made without z3.And's Python coercion of each
    argument: the conditions of n paths that each read up to n inputs are n**2 terms."""
    ctx = z3.main_ctx()
    array = (z3.Ast * len(terms))(*(term.as_ast() for term in terms))
    return z3.BoolRef(make(ctx.ref(), len(terms), array), ctx)

