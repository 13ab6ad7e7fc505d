"""Every read is bounded: core/reading.py reads each input kind up to its limit, refuses what is not a
regular file (a FIFO blocks, /dev/zero never ends) unless it is stdin, and no other module opens a
file for reading (the allow-list below says why each exception is one)."""

from __future__ import annotations

import io
import os
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flaglint.core import reading
from flaglint.core.reading import (
    InputKind,
    TooLarge,
    Unreadable,
    read_file,
    read_stream,
    read_text,
    regular_file,
)

PACKAGE = Path(__file__).resolve().parents[2] / "flaglint"
READS = re.compile(r"\bopen\(|\.read_text\(|\.read_bytes\(|\.read\(\)")
# (module, what the line holds): reads that are not of an input, or that fix/ owns
ALLOWED = {
    ("flaglint/fix/files.py", "read_bytes()"): "--fix compares a file with what it read just before writing it",
    ("flaglint/fix/files.py", 'target.open("r+b")'): "--fix writes the file in place",
    ("flaglint/fix/files.py", 'target.open("rb") as locked'): "--fix locks the file it replaces (flock); it reads it through read_for_write",
    ("flaglint/cli/console.py", "os.open(os.devnull, os.O_WRONLY)"): "stdout goes to /dev/null on a closed pipe",
    ("flaglint/frontends/check/confirm.py", "self._stderr.read()"): "--confirm-with reads the MaxText process it started",
    ("flaglint/frontends/check/pyconfig_runner.py", 'dist.read_text("direct_url.json")'):
        "runs in MaxText's environment: the installed package's metadata",
    ("flaglint/importer/sources.py", "self._archive.open(name)"): "a wheel's member, read through read_stream",
    ("flaglint/memory/compile_runner.py", "open(given)"): "runs in the compile environment: the request flaglint wrote",
    ("flaglint/memory/compile_runner.py", 'open(answer_path, "w")'): "runs in the compile environment: its answer",
    ("flaglint/memory/head_runner.py", "open(given)"): "runs in the compile environment: the request flaglint wrote",
    ("flaglint/memory/head_runner.py", 'open(answer_path, "w")'): "runs in the compile environment: its answer",
    ("flaglint/memory/environment.py", '.lock", "w") as lock'): "a lock file (flock), never read",
    ("flaglint/importer/tunix_releases.py", "tarfile.open(fileobj=BytesIO(archive))"):
        "a maintainer's tool: `git archive` of a release tag, to regenerate the bundled pins",
}


def test_no_module_reads_a_file_but_through_the_bounded_reader():
    found = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        module = path.relative_to(PACKAGE.parent).as_posix()
        if module == "flaglint/core/reading.py" or module.startswith("flaglint/trainer/"):
            continue  # the reader itself; the bundled trainer core reads no input (`flaglint smoke` runs it on settings)
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if READS.search(line):
                allowed = [key for key in ALLOWED if key[0] == module and key[1] in line]
                if not allowed:
                    found.add(f"{module}:{number}: {line.strip()}")
    assert sorted(found) == [], "read through flaglint.core.reading instead:\n" + "\n".join(sorted(found))


def test_every_limit_is_named_in_one_place():
    kinds = [value for value in vars(reading).values() if isinstance(value, InputKind)]
    assert len({kind.name for kind in kinds}) == len(kinds) and all(kind.limit > 0 for kind in kinds)


TINY = InputKind("test input", 10)


@settings(max_examples=50, deadline=None)
@given(data=st.binary(max_size=30), looked=st.none() | st.integers(0, 30))
def test_a_stream_is_read_up_to_the_limit(data, looked):
    # looked: the size a file had when it was looked at; it may have grown or shrunk since
    if len(data) <= TINY.limit:
        assert read_stream(io.BytesIO(data), TINY, "x", looked) == data
    else:
        with pytest.raises(TooLarge, match="x: over the 10 bytes flaglint reads of a test input"):
            read_stream(io.BytesIO(data), TINY, "x", looked)


def test_a_file_over_the_limit_is_refused_by_its_size(tmp_path):
    path = tmp_path / "big"
    path.write_bytes(b"x" * 11)
    with pytest.raises(TooLarge, match=r"big: 11 bytes, over the 10 bytes flaglint reads of a test input"):
        read_file(path, TINY)
    path.write_bytes(b"x" * 10)
    assert read_file(path, TINY) == b"x" * 10


def test_a_fifo_is_refused_without_opening_it(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(Unreadable, match=r"pipe: not a regular file \(a FIFO\); flaglint reads a flag file from a regular file"):
        read_file(fifo, reading.FLAG_FILE)


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_a_device_is_refused():
    with pytest.raises(Unreadable, match=r"/dev/zero: not a regular file \(a character device\)"):
        read_file("/dev/zero", reading.ENV_FILE)


def test_a_folder_and_a_missing_file_and_a_long_name(tmp_path):
    with pytest.raises(Unreadable, match=r"not a regular file \(a folder\)"):
        read_file(tmp_path, reading.CONFIG_FILE)
    with pytest.raises(Unreadable, match=r"cannot read \(No such file or directory\)"):
        read_file(tmp_path / "missing", reading.CONFIG_FILE)
    with pytest.raises(Unreadable, match=r"cannot read \(File name too long\)"):
        read_file(tmp_path / ("a" * 5000), reading.CONFIG_FILE)


def test_a_link_out_of_the_tree_is_not_followed(tmp_path):
    tree, outside = tmp_path / "tree", tmp_path / "secret.txt"
    tree.mkdir()
    outside.write_text("key: value\n")
    (tree / "inside.txt").write_text("ok\n")
    (tree / "link.txt").symlink_to(outside)
    assert read_text(tree / "inside.txt", reading.SOURCE_FILE, within=tree) == "ok\n"
    with pytest.raises(Unreadable, match=r"link.txt: a link out of .*tree"):
        read_text(tree / "link.txt", reading.SOURCE_FILE, within=tree)


def test_text_that_is_not_utf8_names_the_byte(tmp_path):
    path = tmp_path / "latin.txt"
    path.write_bytes(b"ok\xe9")
    with pytest.raises(Unreadable, match=r"latin.txt: not UTF-8 \(byte 2"):
        read_text(path, reading.FLAG_FILE)


def test_the_look_before_the_read_is_kept(tmp_path):
    path = tmp_path / "flags"
    path.write_text("steps=1")
    assert regular_file(path, reading.FLAG_FILE).st_size == 7
