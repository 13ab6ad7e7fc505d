"""Before 0.2.0 pyconfig refuses, before it reads any, an M_ variable that names no key of the
config files or is not all upper case (FL044); later releases ignore both."""

from __future__ import annotations

import pytest

from flaglint.frontends.check.inputs import config_source
from flaglint.frontends.checker import Checker
from flaglint.read.flags import FlagSource

OLD, NEW = "maxtext-0.1.0", "maxtext-0.2.5"


def _rules(pin: str, env: dict[str, str], source: FlagSource | None = None) -> list[str]:
    result = Checker(pin).check(source or FlagSource("steps=10"), env, fix=False)
    return sorted(f.rule for f in result.findings if f.severity == "error")


@pytest.mark.parametrize(("env", "old_layout"), [
    ({"M_STEPZ": "3"}, ["FL044"]),  # names no key
    ({"M_steps": "3"}, ["FL044"]),  # a key, not in upper case
    ({"M_LOG_PERIOD": "50"}, []),
    ({"M_STEPZ": "3", "M_Log_Period": "5", "HOME": "/root"}, ["FL044", "FL044"]),  # each one said; others are not M_
])
def test_a_stray_m_variable_stops_only_the_old_pyconfig(env, old_layout):
    assert _rules(OLD, env) == old_layout
    assert _rules(NEW, env) == []


def test_a_key_only_the_users_config_file_defines_may_be_set_by_its_m_variable(tmp_path):
    config = tmp_path / "mine.yml"
    config.write_text("base_config: base.yml\nmy_own_note: hello\n")
    source = config_source(str(config), ["steps=10"], "0.1.0")
    findings = Checker(OLD).check(source, {"M_MY_OWN_NOTE": "x", "M_NOT_THERE": "y"}, fix=False).findings
    assert [f.message for f in findings if f.rule == "FL044"] == [
        "M_NOT_THERE names no key of the config files (not_there); MaxText before 0.2.0 refuses an M_ variable it cannot place"]
