#!/bin/bash
export MAXTEXT_EXTRA_FLAGS="${MAXTEXT_EXTRA_FLAGS} use_ring_of_experts=false"
python3 -m tunix.launcher
