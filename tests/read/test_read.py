"""Flag strings are split exactly as Tunix splits them, and every token keeps its span."""

from hypothesis import given, settings
from hypothesis import strategies as st

from flaglint.read import flags
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


def test_a_string_read_again_gives_the_same_tokens_in_a_list_of_its_own():
    first = tokenize("steps=1 log_period=2")
    first.append(first[0])
    again = tokenize("steps=1 log_period=2")
    assert [t.text for t in again] == ["steps=1", "log_period=2"]
    assert [t.where for t in again] == [t.where for t in first[:2]]


def test_the_strings_read_longest_ago_go_past_the_characters_kept(monkeypatch):
    monkeypatch.setattr(flags, "TOKENIZED_CHARACTERS", 21)
    first = {text: tokenize(text)[0] for text in ("a=1 b=2", "c=3 d=4", "e=5 f=6")}  # seven characters each
    assert all(tokenize(text)[0] is token for text, token in first.items())  # kept
    tokenize("g=7 h=8")  # a=1 b=2 goes
    assert tokenize("c=3 d=4")[0] is first["c=3 d=4"]
    assert tokenize("a=1 b=2")[0] is not first["a=1 b=2"]


def test_env_file_and_items(tmp_path):
    env_file = tmp_path / "run.env"
    env_file.write_text("# comment\nexport A=1\nB='two words'\n\n", encoding="utf-8")
    assert read_env_assignments(("C=3", "A=9"), str(env_file)) == {"A": "9", "B": "two words", "C": "3"}
