#!/usr/bin/env bash
# A launch written behind a command word that is empty unless -n is given (`${RUNNER} python3 …`),
# in a function an options loop's switch calls, its words reading eight caller variables each
# defaulted with `[ -z "$X" ]` (written for test_verdicts.py).
label=nightly
dry=false
eval_only=false
for opt in "$@"; do
  case $opt in
    -n) dry=true ;;
    -e) eval_only=true ;;
    -l=*) label="${opt#*=}" ;;
    -l) shift; label="$1" ;;
  esac
  shift
done
if "$dry"; then RUNNER=echo; else RUNNER=''; fi
if [ -z "$VOCAB_DIR" ]; then VOCAB_DIR=/opt/assets; fi
if [ -z "$STEPS" ]; then STEPS=20; fi
if [ -z "$WARMUP" ]; then WARMUP=2; fi
if [ -z "$MODEL" ]; then MODEL=default; fi
if [ -z "$CKPT" ]; then CKPT=gs://bucket/ckpt/$MODEL; fi
if [ -z "$EXTRA" ]; then EXTRA="load_parameters_path=${CKPT} tokenizer_path=${VOCAB_DIR}/tokenizer.llama2"; fi
if [ -z "$OUT" ]; then OUT=/home/$USER/runs; fi
if [ -z "$DATA" ]; then DATA=/home/$USER/data; fi
train() {
  LOGS=${OUT}/logs/${label}
  mkdir -p ${LOGS}
  ${RUNNER} python3 -m maxtext.trainers.pre_train.train src/maxtext/configs/base.yml \
    run_name=${label} base_output_directory=${OUT} dataset_path=${DATA} model_name=${MODEL} \
    steps=${STEPS} warmup_steps_fraction=0.${WARMUP} ${EXTRA} bogus_key=1 2>&1 | tee ${LOGS}/train.log
}
if ! "$eval_only"; then
  train
fi
