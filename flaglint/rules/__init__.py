"""Rules as data: the condition language, rule sets and their cache, and the documentation made from them."""
