"""Resolving: keys against the pin's schema, values typed as MaxText types them, the device count."""
