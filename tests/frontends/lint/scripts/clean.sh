#!/bin/bash
# Command lines MaxText accepts: nothing to report.
export MAXTEXT_CONFIGS_DIR=/deps/src/maxtext/configs
python3 -u -m maxtext.trainers.pre_train.train "${MAXTEXT_CONFIGS_DIR}/base.yml" run_name=ok steps=10 \
  gcs_metrics=yes prompt="a b c"
python3 -m maxtext.trainers.post_train.sft.train_sft "${MAXTEXT_CONFIGS_DIR}/post_train/sft.yml" run_name=sft steps=5
JAX_PLATFORMS=cpu python3 -m maxtext.inference.decode model_name=llama2-7b
python3 -m pip install maxtext  # not MaxText's entry point: ignored
python3 tools/plot.py steps=oops  # another program: ignored
