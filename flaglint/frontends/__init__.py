"""The front ends: `check` (flag strings, argv, configs), `lint` (recipe scripts) and `gate` (manifests), over the pipeline they share."""
