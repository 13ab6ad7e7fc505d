"""The vocabulary every stage speaks: findings and fixes, locations, edits, the shipped data and its cache."""
