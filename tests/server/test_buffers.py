"""An editor's buffers read in place of files (core.reading.buffers_over_files): by every reader,
the bash evaluator's source and the YAML chain included, within the block only."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from commandline import REPO

from flaglint.core.reading import (
    SCRIPT,
    TooLarge,
    buffers_over_files,
    names_a_file,
    read_text,
)
from flaglint.server.documents import Workbench


def test_a_buffer_stands_for_its_file_within_the_block(tmp_path: Path):
    path = tmp_path / "run.sh"
    path.write_text("on disk\n", encoding="utf-8")
    unsaved = tmp_path / "new.sh"
    with buffers_over_files({str(path): b"in the editor\n", str(unsaved): b"never saved\n"}):
        assert read_text(path, SCRIPT) == "in the editor\n"
        assert read_text(unsaved, SCRIPT) == "never saved\n" and names_a_file(unsaved)
    assert read_text(path, SCRIPT) == "on disk\n" and not names_a_file(unsaved)


def test_a_buffer_over_the_limit_is_refused_as_a_file_would_be(tmp_path: Path):
    with buffers_over_files({str(tmp_path / "big.sh"): b"#" * (SCRIPT.limit + 1)}), pytest.raises(TooLarge):
        read_text(tmp_path / "big.sh", SCRIPT)


def test_a_sourced_file_and_a_base_config_come_from_their_buffers(tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text('[tool.flaglint]\npin = "bbd0f6f10"\n', encoding="utf-8")
    (tmp_path / "flags.sh").write_text('FLAGS="steps=10"\n', encoding="utf-8")
    script = tmp_path / "run.sh"
    script.write_text('source "$(dirname "$0")/flags.sh"\nexport MAXTEXT_EXTRA_FLAGS="$FLAGS"\n', encoding="utf-8")
    bench = Workbench()
    assert [f.rule for f in bench.check(str(script), script.read_text(encoding="utf-8"), {}).findings] == []
    buffers = {str(tmp_path / "flags.sh"): 'FLAGS="steps=10 not_a_key_anywhere=1"\n'}
    found = bench.check(str(script), script.read_text(encoding="utf-8"), buffers).findings
    assert [(f.rule, f.location.file) for f in found] == [("FL004", str(tmp_path / "flags.sh"))]

    (tmp_path / "parent.yml").write_text("base_config: base.yml\n", encoding="utf-8")
    child = tmp_path / "child.yml"
    child.write_text("base_config: parent.yml\n", encoding="utf-8")
    assert bench.check(str(child), child.read_text(encoding="utf-8"), {}).findings == []
    found = bench.check(str(child), child.read_text(encoding="utf-8"), {str(tmp_path / "parent.yml"): "base_config: base.yml\nstepz: 3\n"}).findings
    assert [(f.rule, f.location.file, f.location.line) for f in found] == [("FL004", str(tmp_path / "parent.yml"), 2)]


def test_without_pygls_the_server_says_what_to_install():
    blocked = "import sys; sys.modules['pygls'] = None; sys.argv = ['flaglint', 'server']; from flaglint.cli import run; run()"
    done = subprocess.run([sys.executable, "-c", blocked], capture_output=True, text=True, cwd=REPO)
    assert done.returncode == 2
    # flaglint is installed from its clone (no package index has it): a name to pip install would invite a squatter
    assert done.stderr == ("flaglint: error: flaglint server needs the server extra (pip install '.[server]' in a clone of "
                           "flaglint): no module named pygls\n")


def test_no_other_command_loads_the_server():
    ran = ("import sys; sys.argv = ['flaglint', 'lint', 'examples/recipes/base.sh']\n"
           "from flaglint.cli import main\n"
           "try:\n    main()\nexcept SystemExit:\n    pass\n"
           "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pygls', 'lsprotocol') or m.startswith('flaglint.server')))")
    done = subprocess.run([sys.executable, "-c", ran], capture_output=True, text=True, cwd=REPO)
    assert done.stdout.strip().splitlines()[-1] == "[]"
