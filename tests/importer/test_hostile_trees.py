"""`schema import` of a hostile tree or wheel: each ends in one line naming the file, never in an
internal error or a read without bound (an alias bomb, a member of gigabytes once inflated, a link
out of the tree, a value JSON cannot hold)."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from commandline import run_flaglint

from flaglint.core.reading import SOURCE_FILE
from flaglint.pins import pins, store

TYPES = "from pydantic import BaseModel, Field\n\nclass MaxTextConfig(BaseModel):\n  steps: int = Field(10, gt=0)\n"
BOMB = ("a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
        "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n")


@pytest.fixture(autouse=True)
def isolated_store(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    for cached in (pins.load_pin, store.project_store):
        cached.cache_clear()
    yield
    for cached in (pins.load_pin, store.project_store):
        cached.cache_clear()


def _tree(root: Path, base: str = "steps: 1\n") -> Path:
    package = root / "src" / "maxtext"
    (package / "configs" / "models").mkdir(parents=True)
    (package / "configs" / "types.py").write_text(TYPES)
    (package / "configs" / "base.yml").write_text(base)
    (package / "version.py").write_text('__version__ = "0.2.9"\n')
    return root


def _refused(path: Path) -> str:
    ran = run_flaglint("schema", "import", str(path))
    lines = ran.stderr.strip().splitlines()
    assert ran.returncode == 2 and len(lines) == 1 and "internal error" not in lines[0], ran.stderr
    return lines[0]


def test_a_clean_tree_imports(tmp_path):
    ran = run_flaglint("schema", "import", str(_tree(tmp_path / "tree")))
    assert ran.returncode == 0 and "registered maxtext-0.2.9-" in ran.stdout, ran.stderr


def test_an_alias_bomb_in_a_config(tmp_path):
    assert "aliases expand this file past 10000 nodes" in _refused(_tree(tmp_path / "tree", BOMB))


def test_a_link_out_of_the_tree_is_not_read(tmp_path):
    (tmp_path / "secret.yml").write_text("steps: 3\n")
    tree = _tree(tmp_path / "tree")
    (tree / "src" / "maxtext" / "configs" / "models" / "link.yml").symlink_to(tmp_path / "secret.yml")
    assert "link.yml: a link out of" in _refused(tree)


def test_a_value_json_cannot_hold(tmp_path):
    line = _refused(_tree(tmp_path / "tree", "steps: 1\nrun_name: !!binary aGVsbG8=\n"))
    assert "configs/base.yml:2: run_name: a value JSON cannot hold" in line


def test_a_wheel_member_is_read_up_to_the_limit_whatever_its_header_says(tmp_path):
    wheel = tmp_path / "maxtext-0.2.9-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("maxtext/configs/types.py", TYPES)
        archive.writestr("maxtext/configs/base.yml", "#" * (SOURCE_FILE.limit + 1))  # kilobytes once deflated
    assert "maxtext/configs/base.yml: over the 8 MiB flaglint reads of a MaxText or Tunix source file" in _refused(wheel)
