"""The MaxText importer: a MaxText tree, wheel or installed package read (never run) into a schema and rules."""
