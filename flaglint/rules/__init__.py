"""Rules as data: the condition language, and the rule sets (hand-written and imported from MaxText) with their cache."""
