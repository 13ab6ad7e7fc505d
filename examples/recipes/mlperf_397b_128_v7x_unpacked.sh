#!/usr/bin/env bash
# A bad variant for `flaglint smoke`: the 128-chip recipe on the padded (unpacked) assembler while the
# submission defaults still ask for start padding and the fused head, with a mistyped head mode.
DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export MAX_SEQ_TOKEN_PER_TPU=0
export PACK_PAD_POSITION="${PACK_PAD_POSITION:-start}"
export TUNIX_LOGPS_SHARDED_HEAD="${TUNIX_LOGPS_SHARDED_HEAD:-Fused}"
source "${DIR}/mlperf_397b_128_v7x.sh"
