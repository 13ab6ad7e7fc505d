#!/bin/bash
# A Tunix trainer recipe whose launch script adds a MaxText key, started behind a wrapper
# (written for these tests).
DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export MAXTEXT_EXTRA_FLAGS="num_moe_token_chunks=2"
timeout --kill-after=1m 24h nice -n 5 bash "${DIR}/start_trainer.sh"
