"""Stage 3, resolve: keys against the pin's schema, values typed as MaxText types them, the device count."""
