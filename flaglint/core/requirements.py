"""Requirements files as pip reads their lines: `maxtext[tpu]==0.2.4 ; python_version >= "3.10"`
names maxtext at 0.2.4 (PEP 508, read with `packaging`); options (`-r`, `--index-url`) and URLs
without a name are not requirements of a project."""

from __future__ import annotations

from collections.abc import Iterator

TYPE_CHECKING = False  # typing's, without importing typing: a cold check does not need it
if TYPE_CHECKING:
    from packaging.requirements import Requirement


def requirement_lines(text: str) -> Iterator[tuple[int, str, Requirement]]:
    """(line number, the line without its comment, the requirement) for each line that is one."""
    from packaging.requirements import InvalidRequirement, Requirement  # noqa: PLC0415 packaging: only where a requirements file is read

    for number, line in enumerate(text.splitlines(), 1):
        code = line.split(" #", 1)[0].strip() if not line.lstrip().startswith("#") else ""
        if not code or code.startswith("-"):
            continue
        try:
            yield number, code, Requirement(code)
        except InvalidRequirement:
            continue


def pinned_version(text: str, project: str) -> tuple[int, str] | None:
    """The line and version of the first `PROJECT==X.Y.Z` (any extras or markers), or None."""
    from packaging.utils import canonicalize_name  # noqa: PLC0415 packaging: only where a requirements file is read

    for number, _, requirement in requirement_lines(text):
        if canonicalize_name(requirement.name) != canonicalize_name(project):
            continue
        exact = [spec.version for spec in requirement.specifier if spec.operator in ("==", "===") and "*" not in spec.version]
        if exact:
            return number, exact[0]
    return None
