"""Records: plain classes of named values, with the equality, repr and `replace` dataclasses gives.

The records a check builds on every start are written as plain classes: `dataclasses` writes and
compiles each class's methods from source when its module is imported, and importing it imports
`inspect` (with `ast`, `dis` and `tokenize`); for the 28 records of a cold `check`, that was more
than a third of its instructions. A record names its fields in `field_names`, in its `__init__`'s
order (and as its `__slots__`, where nothing caches a property on it), and writes its `__init__`.
A frozen record is one nothing assigns to after its `__init__`; unlike a frozen dataclass, it does
not refuse an assignment.
"""

from __future__ import annotations


class Record:
    """Equal to a record of its class with equal fields; unhashable, as a mutable record must be."""

    __slots__ = ()
    field_names: tuple[str, ...] = ()

    def field_values(self) -> tuple:
        return tuple(getattr(self, name) for name in self.field_names)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self.field_values() == other.field_values()  # type: ignore[attr-defined]

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"{type(self).__qualname__}({', '.join(f'{name}={getattr(self, name)!r}' for name in self.field_names)})"

    def replace(self, **changes):
        """A copy with the CHANGES made (field name -> value), as dataclasses.replace makes it."""
        return type(self)(**{**{name: getattr(self, name) for name in self.field_names}, **changes})


class FrozenRecord(Record):
    """A record nothing changes once it is made: hashable by its fields."""

    __slots__ = ()

    def __hash__(self) -> int:
        return hash(self.field_values())
