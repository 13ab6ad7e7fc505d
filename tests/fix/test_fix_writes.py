"""No lost write: `--fix` writes a file only while it holds, byte for byte, what the fix was made
from (read again under an advisory lock just before the rename), keeps its extended attributes and
ACLs, and applies every edit of a fix, also two drops that share a blank."""

from __future__ import annotations

import errno
import fcntl
import json
import os
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest
from commandline import REPO
from commandline import run_flaglint as invoke

from flaglint.core.edits import Edit
from flaglint.core.findings import InputError
from flaglint.fix.files import FileChanged, apply_file_edits, write_if_unchanged


def test_two_drops_that_share_a_blank_are_both_made_in_a_flag_string():
    ran = invoke("check", "--fix", "stray bogus=1 log_period=10")
    assert ran.returncode == 0 and ran.stdout.strip() == "log_period=10", ran.stdout + ran.stderr


def test_two_drops_that_share_a_blank_are_both_made_in_a_file(tmp_path):
    flags = tmp_path / "a.flags"
    flags.write_text("stray bogus=1 log_period=10\n")
    ran = invoke("check", "--fix", "-f", str(flags))
    assert ran.returncode == 0 and flags.read_text() == "log_period=10\n", ran.stdout + ran.stderr


def test_a_file_that_is_no_longer_what_was_checked_is_left_as_it_is(tmp_path):
    flags = tmp_path / "a.flags"
    flags.write_bytes(b"stray log_period=10\nlog_period=20\n")
    edit = Edit.in_bytes(flags.read_bytes(), 0, 6, "", str(flags))
    with pytest.raises(FileChanged, match="a.flags: changed while flaglint was fixing it"):
        apply_file_edits([edit], False, {str(flags): "stray log_period=10\n"})  # checked without its second line
    assert flags.read_bytes() == b"stray log_period=10\nlog_period=20\n"
    flags.write_bytes(b"xx log_period=10\n")  # the edited span itself no longer reads `stray `
    with pytest.raises(FileChanged):
        apply_file_edits([edit], False)


def test_a_write_is_refused_when_the_file_changed_after_it_was_read(tmp_path):
    flags = tmp_path / "a.flags"
    flags.write_bytes(b"stray log_period=10\n# appended by someone else\n")
    with pytest.raises(FileChanged):
        write_if_unchanged(flags, b"stray log_period=10\n", b"log_period=10\n")
    assert flags.read_bytes() == b"stray log_period=10\n# appended by someone else\n"
    write_if_unchanged(flags, flags.read_bytes(), b"log_period=10\n")
    assert flags.read_bytes() == b"log_period=10\n"


def _waiting_for_a_lock(path: Path) -> bool:
    """Whether some process waits for a lock on the file (a `->` line of /proc/locks names its inode)."""
    inode = f":{os.stat(path).st_ino} "
    return any("->" in line and inode in line for line in Path("/proc/locks").read_text().splitlines())


def _flaglint_process(*args: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("FLAGLINT_DEBUG", None)
    return subprocess.Popen([sys.executable, "-m", "flaglint", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=env, cwd=REPO)


@pytest.mark.process
def test_a_run_waits_for_the_lock_and_then_sees_what_another_process_wrote(tmp_path):
    if not Path("/proc/locks").exists():
        pytest.skip("no /proc/locks to see the waiting run in")
    flags = tmp_path / "a.flags"
    flags.write_bytes(b"stray log_period=10\n")
    with flags.open("rb") as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)  # as another flaglint run writing this file holds it
        proc = _flaglint_process("check", "--fix", "-f", str(flags))
        for _ in range(1200):  # until the run waits for the lock (its check takes a few seconds), or it ended
            if _waiting_for_a_lock(flags) or proc.poll() is not None:
                break
            time.sleep(0.1)
        assert proc.poll() is None, proc.communicate()
        with flags.open("ab") as other:
            other.write(b"# a line another process appends\n")
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 2, out + err
    assert err.decode().strip() == f"flaglint: error: {flags}: changed while flaglint was fixing it; the fix was not written (run flaglint again)"
    assert flags.read_bytes() == b"stray log_period=10\n# a line another process appends\n"


@pytest.mark.process
def test_no_line_another_process_appends_during_a_fix_is_lost(tmp_path):
    flags = tmp_path / "a.flags"
    flags.write_bytes(b"stray log_period=10\n")
    proc = _flaglint_process("check", "--fix", "-f", str(flags))
    appended = []
    while proc.poll() is None and len(appended) < 5_000:  # a few hundred lines a second: the file stays a flag file
        line = f"# line {len(appended)}\n".encode()
        with flags.open("ab") as out:
            out.write(line)
        appended.append(line)
        time.sleep(0.002)
    out, err = proc.communicate(timeout=120)
    text = flags.read_bytes()
    assert all(line in text for line in appended)
    assert proc.returncode == 2 and b"changed while flaglint was fixing it" in err or text.startswith(b"log_period=10\n"), out + err


@pytest.mark.process
def test_two_runs_at_once_take_turns(tmp_path):
    flags = tmp_path / "a.flags"
    flags.write_bytes(b"stray log_period=10 bogus_key=1\n")
    runs = [_flaglint_process("check", "--fix", "-f", str(flags)) for _ in range(2)]
    codes = sorted(run.wait(timeout=120) for run in runs)
    # One writes; the other finds the file changed and says so (or, if it started after, has nothing left to fix).
    assert codes in ([0, 0], [0, 2]) and flags.read_bytes() == b"log_period=10\n"
    assert not [name for name in os.listdir(tmp_path) if name.endswith(".flaglint")]  # no temporary file left


def _xattrs_supported(path: Path, name: str, value: bytes) -> bool:
    try:
        os.setxattr(path, name, value)
    except OSError as err:
        if err.errno in (errno.ENOTSUP, errno.EPERM, errno.EACCES, errno.EINVAL):
            return False
        raise
    return True


def test_a_write_keeps_extended_attributes(tmp_path):
    flags = tmp_path / "a.flags"
    flags.write_text("stray log_period=10\n")
    if not _xattrs_supported(flags, "user.origin", b"recipes/v5p"):
        pytest.skip(f"{tmp_path} does not hold user extended attributes")
    assert invoke("check", "--fix", "-f", str(flags)).returncode == 0
    assert flags.read_text() == "log_period=10\n" and os.getxattr(flags, "user.origin") == b"recipes/v5p"


def _acl(*entries: tuple[int, int, int]) -> bytes:
    """A POSIX ACL as the system.posix_acl_access attribute holds it: version 2, then (tag, permissions, id) entries."""
    return struct.pack("<I", 2) + b"".join(struct.pack("<HHI", tag, perm, ident) for tag, perm, ident in entries)


def test_a_write_keeps_the_acl(tmp_path):
    flags = tmp_path / "a.flags"
    flags.write_text("stray log_period=10\n")
    undefined = 0xFFFFFFFF
    # The owner reads and writes, user 4242 reads, the group and the others nothing.
    acl = _acl((0x01, 6, undefined), (0x02, 4, 4242), (0x04, 0, undefined), (0x10, 4, undefined), (0x20, 0, undefined))
    if not _xattrs_supported(flags, "system.posix_acl_access", acl):
        pytest.skip(f"{tmp_path} does not hold ACLs")
    mode = os.stat(flags).st_mode & 0o777
    assert invoke("check", "--fix", "-f", str(flags)).returncode == 0
    assert flags.read_text() == "log_period=10\n"
    assert os.getxattr(flags, "system.posix_acl_access") == acl and os.stat(flags).st_mode & 0o777 == mode


def test_a_finding_left_out_with_ignore_gets_no_fix():
    flags = "stray bogus=1 log_period=10"
    ran = invoke("check", "--ignore", "FL004", "--fix", flags)
    assert ran.stdout.strip() == flags and ran.returncode == 1  # FL001 stays: its only fix also drops bogus=1
    payload = json.loads(invoke("check", "--ignore", "FL004", "--format", "json", flags).stdout)
    assert [f["rule"] for f in payload["findings"]] == ["FL001"] and payload["fixes"] == []
    assert "a fix is not offered: it would change what the suppressed FL004 at line 1 is about" in payload["notes"]
    assert invoke("check", "--ignore", "FL001,FL004", "--fix", flags).stdout.strip() == flags


def test_a_finding_a_script_suppresses_gets_no_fix(tmp_path):
    script = tmp_path / "r.sh"
    text = ('#!/usr/bin/env bash\n'
            '# flaglint: disable=FL004 reason="read by our own launcher"\n'
            'export MAXTEXT_EXTRA_FLAGS="our_launcher_key=1 stray log_period=10"\n')
    script.write_text(text)
    ran = invoke("lint", "--fix", "--unsafe-fixes", "--format", "json", str(script))
    payload = json.loads(ran.stdout)
    assert script.read_text() == text, ran.stdout  # the only fix of FL001 (stray) also drops our_launcher_key=1
    assert [f["rule"] for f in payload["findings"]] == ["FL001"] and payload["fixes"] == []
    assert "a fix is not offered: it would change what the suppressed FL004 at line 3 is about" in payload["notes"]


def test_check_config_fix_applies_what_the_report_lists(tmp_path):
    config = tmp_path / "run.yml"
    config.write_text('base_config: "base.yml"\nlog_period: 1.5\nsteps: 10\n')
    (fix,) = json.loads(invoke("check", str(config), "--format", "json").stdout)["fixes"]
    # Removing the refused value brings back base.yml's period, a value the user did not choose: unsafe.
    assert not fix["safe"] and [(e["line"], e["old"], e["new"]) for e in fix["edits"]] == [(2, "log_period: 1.5", "")]
    held = invoke("check", str(config), "--fix", "--format", "json")
    assert held.returncode == 1 and "applied" not in json.loads(held.stdout) and "log_period: 1.5" in config.read_text()
    applied = json.loads(invoke("check", str(config), "--fix", "--unsafe-fixes", "--format", "json").stdout)["applied"]
    assert [(e["old"], e["new"]) for e in applied[0]["edits"]] == [("log_period: 1.5", "")]
    assert config.read_text() == 'base_config: "base.yml"\nsteps: 10\n'


def test_a_fix_is_never_written_through_something_that_is_not_a_regular_file(tmp_path):
    fifo = tmp_path / "flags.fifo"
    os.mkfifo(fifo)
    edit = Edit.in_bytes(b"stray log_period=10\n", 0, 6, "", str(fifo))
    with pytest.raises(InputError, match="flags.fifo: not a regular file"):
        apply_file_edits([edit], False)  # returns at once: nothing waits for a writer
