#!/bin/bash
# A Tunix trainer recipe that gives the flags on the launch's own command line, behind wrappers
# (written for these tests).
export MAXTEXT_EXTRA_FLAGS="num_moe_token_chunks=2 use_ring_of_experts=true"
if [[ "${NO_RING:-}" == 1 ]]; then
  env MAXTEXT_EXTRA_FLAGS="num_moe_token_chunks=2 use_ring_of_experts=false" nice -n 5 python3 -m tunix.launcher
else
  MAXTEXT_EXTRA_FLAGS="num_moe_token_chunks=1" timeout 12h python3 -m tunix.launcher
fi
