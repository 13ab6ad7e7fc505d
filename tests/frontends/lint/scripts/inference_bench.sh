#!/bin/bash
# An inference microbenchmark launcher: options parsed from "$@", stages validated from a
# comma-separated list, a default for every unset input, the longest prefill picked from a list.
# Three of its defaults are values MaxText 0.2.5 refuses: a prefill list written as one integer
# (the key is a string), kv_quant_dtype=fp8 (int8 or int4), quantization=aqt_fp8 (no such mode).

bench_name="prefill_bench"
profile=false
stages=prefill,generate

for opt in "$@"; do
  case $opt in
    -p) profile=true ;;
    -n=*|--name=*) bench_name="${opt#*=}" ;;
    -s=*|--stages=*) stages="${opt#*=}" ;;
  esac
  shift
done

IFS=',' read -ra wanted <<< "$stages"
for stage in "${wanted[@]}"; do
  case "$stage" in
    prefill|prefill-multisampling|generate) ;;
    *) echo "unknown stage $stage"; exit 1 ;;
  esac
done

if [[ -z ${OUT_DIR} ]]; then
  export OUT_DIR=/tmp/bench
fi
if [[ -z ${QUANT} ]]; then
  QUANT="aqt_fp8"
fi
if [[ -z ${KV_DTYPE} ]]; then
  KV_DTYPE="fp8"
  KV_QUANT=True
fi
if [[ -z ${PREFILLS} ]]; then
  PREFILLS=1024
fi
if [[ -z ${BATCH} ]]; then
  BATCH=64
fi
EXTRA=""
if [[ "$profile" = true ]]; then
  EXTRA=" profiler=xplane"
fi

IFS=',' read -r -a lengths <<< "$PREFILLS"
longest=${lengths[0]}
for n in "${lengths[@]}"; do
  ((n > longest)) && longest=$n
done

python3 -m maxtext.inference.inference_microbenchmark src/maxtext/configs/base.yml \
  base_output_directory=$OUT_DIR \
  run_name=$bench_name \
  model_name=llama2-7b \
  max_prefill_predict_length=$longest \
  max_target_length=2048 \
  per_device_batch_size=$BATCH \
  inference_microbenchmark_prefill_lengths=$PREFILLS \
  inference_microbenchmark_stages=$stages \
  kv_quant_dtype=$KV_DTYPE \
  quantize_kvcache=$KV_QUANT \
  quantization=$QUANT$EXTRA
