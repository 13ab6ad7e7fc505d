#!/bin/bash
# An XPK launch: the command line is inside --command.
CLUSTER=my-cluster
xpk workload create --cluster "${CLUSTER}" --workload w1 --tpu-type=v5p-8 \
  --command "python3 -m maxtext.trainers.pre_train.train run_name=w1 log_period=1.5 gcs_metrics=yes && echo done"
