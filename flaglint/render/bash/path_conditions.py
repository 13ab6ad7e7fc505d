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

from collections.abc import Iterable, Mapping, Sequence

import z3

from flaglint.render.bash.explorer import ExploredPath
from flaglint.render.bash.guards import simplified

# Candidate paths tried as the start of the witness search: a witness from any path is correct,
# trying a few of the least constrained ones finds a small one at a cost that does not grow with the paths.
WITNESS_STARTS = 8


class PathConditions:
    """The conditions of the explored paths over their inputs. The paths partition the inputs' values
    (tests/render/test_bash_property.py proves it in Z3), so the space of witnesses is every
    assignment but those of the `excluded` paths (the ones a finding cannot be judged on)."""

    def __init__(self, inputs: Mapping[str, Sequence[str | None]], paths: Sequence[ExploredPath],
                 excluded: Sequence[ExploredPath] = ()):
        self.values: dict[str, list[str | None]] = {name: list(dict.fromkeys(values)) for name, values in inputs.items()}
        merged: dict[str, object] = {}  # of each input, the last list of values merged (narrowed paths share them)
        for path in paths:
            for name, values in path.domains.items():
                if merged.get(name) is values:
                    continue
                merged[name] = values
                known = self.values.setdefault(name, [])
                known.extend(v for v in values if v not in known)
        self.variables = {name: z3.Int(name) for name in self.values}
        self._members: dict[tuple, z3.BoolRef] = {}
        self.bounds = z3.And([z3.And(0 <= var, var < len(self.values[name])) for name, var in self.variables.items()])
        self.space = z3.And(self.bounds, z3.Not(self.any_of(excluded))) if excluded else self.bounds

    def member(self, name: str, values: Iterable[str | None]) -> z3.BoolRef:
        key = (name, frozenset(values))
        found = self._members.get(key)
        if found is None:
            var = self.variables[name]
            found = self._members[key] = z3.Or([var == self.values[name].index(v) for v in key[1]])
        return found

    def any_of(self, paths: Iterable[ExploredPath]) -> z3.BoolRef:
        return z3.Or([z3.And([self.member(name, values) for name, values in cube]) for cube in self._cubes(paths)])

    def _cubes(self, paths: Iterable[ExploredPath]) -> set[frozenset]:
        """The paths' conditions as few products of value sets, before Z3 sees them (building
        thousands of path conditions as Z3 terms costs seconds)."""
        return simplified((self._cube(c) for p in paths for c in p.products()), self.values)

    def _cube(self, domains: Mapping[str, Iterable[str | None]]) -> frozenset:
        return frozenset((name, frozenset(values)) for name, values in domains.items())

    def witness(self, paths: Sequence[ExploredPath]) -> tuple[ExploredPath, dict[str, list]]:
        """A path among `paths`, and the fewest of its inputs whose values imply the disjunction of the
        paths' conditions whatever the other inputs are; each input with every value that does."""
        refuter = z3.Solver()
        refuter.add(self.space, z3.Not(self.any_of(paths)))
        starts = sorted(((p, c) for p in paths for c in p.products()), key=lambda start: len(start[1]))[:WITNESS_STARTS]
        path, kept = min(((p, self._sufficient(refuter, c)) for p, c in starts), key=lambda found: len(found[1]))
        return path, self._widened(refuter, kept)

    def _sufficient(self, refuter: z3.Solver, cube: Mapping[str, Sequence]) -> dict[str, list]:
        """Drop the inputs of one product of a path's condition one by one while the rest still refute `refuter`."""
        # An input the path lets take any of its values constrains nothing: it never matters.
        kept = {name: list(values) for name, values in cube.items() if set(values) != set(self.values[name])}
        for name in list(kept):
            trial = {n: v for n, v in kept.items() if n != name}
            if not self._satisfiable(refuter, trial):
                kept = trial
        return kept

    def _widened(self, refuter: z3.Solver, kept: dict[str, list]) -> dict[str, list]:
        """Each kept input with every explored value that, with the others' values, still implies the
        paths (merged paths of one outcome spread its values over several paths) and occurs at all."""
        reachable = z3.Solver()
        reachable.add(self.space)
        widened = {}
        for name, values in kept.items():
            others = {n: v for n, v in kept.items() if n != name}
            extra = [
                v for v in self.values[name]
                if v not in values
                and not self._satisfiable(refuter, {**others, name: [v]})
                and self._satisfiable(reachable, {**others, name: [v]})
            ]
            widened[name] = values + extra
        return widened

    def _satisfiable(self, solver: z3.Solver, assignment: Mapping[str, Iterable[str | None]]) -> bool:
        solver.push()
        solver.add([self.member(name, values) for name, values in assignment.items()])
        found = solver.check() != z3.unsat
        solver.pop()
        return found
