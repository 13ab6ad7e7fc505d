#!/bin/bash
# Command strings handed to the TPU VMs a launcher starts (and a kubectl exec), each with the same broken pair, and
# required variables written as ${NAME?} (written for these tests).
gcloud compute tpus tpu-vm ssh "${TPU_NAME?}" --zone=us-east5-b --worker=all \
  --command="cd maxtext && python3 -m maxtext.trainers.pre_train.train run_name=a num_moe_token_chunks=2 use_ring_of_experts=false"
gcloud alpha compute tpus queued-resources ssh my-qr --node=all --worker=all --command \
  "python3 -m MaxText.train MaxText/configs/base.yml run_name=b num_moe_token_chunks=2 use_ring_of_experts=false 2>&1 | tee b.log"
python3 tools/orchestration/multihost_runner.py --TPU_PREFIX="${TPU_PREFIX?}" \
  --COMMAND="source venv/bin/activate && python3 -m maxtext.trainers.pre_train.train run_name=${RUN_NAME:?set RUN_NAME} num_moe_token_chunks=2 use_ring_of_experts=false"
python3 multihost_job.py --NUM_SLICES=2 --RUN_NAME=d \
  --COMMAND="bash setup.sh && python3 -m MaxText.train MaxText/configs/base.yml run_name=d num_moe_token_chunks=2 use_ring_of_experts=false"
gcloud compute tpus tpu-vm ssh "${TPU_NAME}" --worker=all --command="$(cat ./remote_command.txt)"
kubectl exec -it trainer-0 -c main -- python3 -m maxtext.trainers.pre_train.train run_name=e num_moe_token_chunks=2 use_ring_of_experts=false
