#!/bin/bash
# XPK workloads: the accelerator and the number of slices they ask for are the devices MaxText finds.
TRAIN="python3 -m maxtext.trainers.pre_train.train maxtext/configs/base.yml run_name=r steps=5"
xpk workload create --cluster c --workload two --tpu-type=v5p-256 --num-slices=2 \
  --command "$TRAIN dcn_data_parallelism=2 ici_fsdp_parallelism=128"
xpk workload create --cluster c --workload one --tpu-type v5p-256 \
  --command "$TRAIN dcn_data_parallelism=2 ici_fsdp_parallelism=128"
xpk workload create --cluster c --workload shaped --device-type=tpu7x-4x4x4 --num-slices 1 \
  --command "$TRAIN ici_fsdp_parallelism=64"
