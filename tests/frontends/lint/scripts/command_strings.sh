#!/bin/bash
# MaxText command lines handed over as strings: to bash -c (grouped and valued options before it),
# to eval, and inside an XPK command with an if/else of its own.
TRAIN="python3 -m maxtext.trainers.pre_train.train maxtext/configs/base.yml run_name=r"
bash -c "$TRAIN steps=1.5"
bash -o pipefail -lc "$TRAIN log_period=2.5 | tee /tmp/log"
eval "$TRAIN" checkpoint_period=3.5
xpk workload create --cluster c --workload w --tpu-type=v5p-8 --command "if [ -f MaxText/train.py ]; then python3 MaxText/train.py MaxText/configs/base.yml per_device_batch_size=x; else $TRAIN eval_interval=4.5; fi"
