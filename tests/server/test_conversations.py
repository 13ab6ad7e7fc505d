"""Random conversations with `flaglint server` (tests/server_conversations.py): documents of every
kind opened, edited, hovered at any position and closed; every open document is diagnosed at its
latest text, none fails its check, and a flag document with an undefined key is never clean."""

from __future__ import annotations

import random

import pytest
from server_conversations import conversation

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("seed", range(12))
def test_a_random_conversation_diagnoses_every_document(tmp_path, seed):
    outcome = conversation(random.Random(seed), tmp_path)
    assert (outcome.internal, outcome.hung, outcome.fail_open) == ([], [], []), outcome
