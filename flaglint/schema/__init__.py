"""Typed key schemas as a check reads them: the keys of a pin, the pydantic models of the schema files, and the index of a release's config files."""
