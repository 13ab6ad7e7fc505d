#!/bin/bash
# An entry point that validates with RLConfig, a config flaglint cannot find, and M_ variables.
python3 -m maxtext.trainers.post_train.rl.train_rl run_name=rl trainer_devices_fraction=0.5
python3 -m maxtext.trainers.pre_train.train configs/missing.yml steps=3
export M_STEPS=7
python3 -m MaxText.train steps=3
