"""Flag strings are split exactly as Tunix splits them, and every token keeps its span."""

from hypothesis import given, settings
from hypothesis import strategies as st

from flaglint.read.flags import read_env_assignments, tokenize

whitespace = st.sampled_from([" ", "\t", "\n", "\r\n", "\x0b", "\x0c", "\u00a0", "\u2003", "\x1c", "  "])
word = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12).filter(lambda s: not s.isspace())


@settings(max_examples=300)
@given(st.lists(st.tuples(word, whitespace), max_size=20), whitespace)
def test_tokens_are_str_split(parts, lead):
    text = lead + "".join(w + s for w, s in parts)
    tokens = tokenize(text)
    assert [t.text for t in tokens] == text.split()
    for token in tokens:
        assert text[token.offset : token.end_offset] == token.text
        line_start = text.rfind("\n", 0, token.offset) + 1
        assert token.line == text.count("\n", 0, token.offset) + 1
        assert token.column == token.offset - line_start + 1


@given(st.text(max_size=200))
def test_tokenize_never_fails_and_matches_split(text):
    assert [t.text for t in tokenize(text)] == text.split()


def test_key_and_value_split_at_first_equals():
    (token,) = tokenize("k=a=b")
    assert (token.key, token.value) == ("k", "a=b")
    (bare,) = tokenize("novalue")
    assert bare.key is None and bare.value is None


def test_env_file_and_items(tmp_path):
    env_file = tmp_path / "run.env"
    env_file.write_text("# comment\nexport A=1\nB='two words'\n\n", encoding="utf-8")
    assert read_env_assignments(("C=3", "A=9"), str(env_file)) == {"A": "9", "B": "two words", "C": "3"}
