"""The witnesses of a script's findings (render/bash/path_conditions), kept across checks: an
editor's check after an edit that changes no condition of the script's paths (a default's value, a
flag's text) asks the same questions of the same conditions, and is given the answers found before.

A witness is read off the paths' conditions alone: each input's values explored, each path's
products of value sets and the paths left out of the witnesses' space. Those are compared as
data, so an answer is given again only where everything it was read from is as it was; the path it
names is given as its position among the finding's paths.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from flaglint.render.bash.explorer import ExploredPath

# The spaces of witnesses kept (one per script checked, the last checked last): an editor checks
# a few documents again and again.
SPACES = 16


class KeptWitnesses:
    """PathConditions.witness over the paths `explored` (less the `excluded`), its answers read from
    `kept` (space -> {paths -> answer}, kept by the caller across checks) where the same space and
    paths were asked before. The solver is set up only for a question not asked before."""

    def __init__(self, kept: dict, inputs: Mapping[str, Sequence], explored: Sequence[ExploredPath],
                 excluded: Sequence[ExploredPath]):
        self.inputs, self.explored, self.excluded = inputs, explored, excluded
        self._conditions = None
        self._shapes: dict[int, tuple] = {}  # each path's shape, by the path (alive as long as the exploration)
        space = (tuple((name, tuple(values)) for name, values in inputs.items()),
                 tuple(map(self._shape, explored)), tuple(map(self._shape, excluded)))
        self.answers = kept.pop(space, None) or {}
        kept[space] = self.answers  # the last asked, last
        if len(kept) > SPACES:
            del kept[next(iter(kept))]

    def _shape(self, path: ExploredPath) -> tuple:
        """What PathConditions reads of a path: its inputs' values and its products of value sets,
        in order; of a path narrowed from another, the inputs it changed and that path's shape,
        which hold its values (launch_parts narrows a path of one product to that path's values
        with the changed ones in their place: a shape of each of hundreds of inputs, once a path,
        was the square of a script's findings)."""
        found = self._shapes.get(id(path))
        if found is None:
            if path.narrowed_from is not None:
                found = (None, None, (_items(path.changed), self._shape(path.narrowed_from)))
            else:
                found = (_items(path.domains), None if path.factors is None else tuple(tuple(map(_items, f)) for f in path.factors), None)
            self._shapes[id(path)] = found
        return found

    def witness(self, paths: Sequence[ExploredPath]) -> tuple[ExploredPath, dict[str, list]]:
        """PathConditions.witness(paths)."""
        first: dict[int, int] = {}  # a path given twice is asked of as one
        question = (tuple(map(self._shape, paths)), tuple(first.setdefault(id(path), i) for i, path in enumerate(paths)))
        answer = self.answers.get(question)
        if answer is None:
            if self._conditions is None:
                from flaglint.render.bash.path_conditions import PathConditions  # noqa: PLC0415 z3: only where a finding needs a witness
                self._conditions = PathConditions(self.inputs, self.explored, self.excluded)
            path, matters = self._conditions.witness(paths)
            answer = self.answers[question] = (next(i for i, p in enumerate(paths) if p is path), matters)
        position, matters = answer
        return paths[position], {name: list(values) for name, values in matters.items()}


def _items(values: Mapping[str, Sequence]) -> tuple:
    return tuple(zip(values, map(tuple, values.values())))
