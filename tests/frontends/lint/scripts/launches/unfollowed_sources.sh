#!/bin/bash
# Files sourced that cannot be followed here; each could set anything (written for these tests).
source /dev/null
source ./settings/not_there.sh
source <(printf 'export M_STEPS=5\n')
source ./settings/*.sh
. ./sources_itself.sh
python3 -m maxtext.trainers.pre_train.train src/maxtext/configs/base.yml run_name=sourced log_period=2.5
