"""MaxText's argv in `flaglint check`: each word whole, a value may hold spaces; a single argument
stays a MAXTEXT_EXTRA_FLAGS string, whitespace-split as Tunix splits it."""

from __future__ import annotations

import shlex
import subprocess

from hypothesis import given, settings
from hypothesis import strategies as st

from flaglint.frontends.checker import Checker
from flaglint.read.argv import argv_source, shell_words
from flaglint.read.flags import FlagSource

_WORD = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=12)


@settings(max_examples=60, deadline=None)
@given(st.lists(_WORD, max_size=5))
def test_the_words_come_back_whole_with_the_span_a_user_types(words):
    source = argv_source(words)
    tokens = shell_words(source.text)
    assert [t.text for t in tokens] == words
    for token, word in zip(tokens, words):
        assert source.text[token.offset:token.end_offset] == shlex.quote(word)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.text(st.sampled_from("ab =\"'\\$ \t"), max_size=8), max_size=4))
def test_shell_words_split_as_bash_does(words):
    text = " ".join(words)
    try:
        ours = [t.text for t in shell_words(text)]
    except Exception:  # an unterminated quote: bash refuses it too
        done = subprocess.run(["bash", "-n", "-c", f"set -- {text}"], capture_output=True)
        assert done.returncode != 0
        return
    done = subprocess.run(["bash", "-c", f'set -f; set -- {text}; for a in "$@"; do printf "%s\\0" "$a"; done'], capture_output=True)
    if done.returncode == 0 and "$" not in text:  # no expansion: $ is bash's, not a MaxText word's
        assert done.stdout.decode().split("\0")[:-1] == ours


def test_a_value_with_spaces_is_one_argv_word():
    result = Checker().check(argv_source(["prompt=I love to", "steps=10"]), fix=False)
    assert not [f for f in result.findings if f.severity == "error"]
    # The same text as one MAXTEXT_EXTRA_FLAGS string: Tunix splits it, 'love' and 'to' have no '='.
    tunix = Checker().check(FlagSource("prompt=I love to steps=10"), fix=False)
    assert [f.rule for f in tunix.findings if f.rule == "FL001"] == ["FL001", "FL001"]


def test_an_argv_word_without_equals_is_a_key_set_to_none():
    # `scan_layers=$UNSET` reaches MaxText as scan_layers= ; MaxText reads both as None and refuses it
    for word in ("scan_layers=", "scan_layers"):
        (finding,) = [f for f in Checker().check(argv_source([word, "steps=5"]), fix=False).findings if f.severity == "error"]
        assert finding.rule == "FL005" and finding.keys == ("scan_layers",) and finding.location.column == 1


def test_a_fix_of_argv_keeps_the_other_words_whole():
    result = Checker().check(argv_source(["prompt=I love to", "log_period=1.5"]))
    assert result.fixes and result.fixes[0].flags == "'prompt=I love to'"


def test_check_cli_reads_several_arguments_as_argv_and_one_as_a_flag_string(flaglint_cli):
    argv = flaglint_cli("check", "prompt=I love to", "steps=10")
    assert argv.returncode == 0, argv.stdout + argv.stderr
    flag_string = flaglint_cli("check", "prompt=I love to")
    assert flag_string.returncode == 1 and "FL001" in flag_string.stdout
