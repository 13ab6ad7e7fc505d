# A command block as a README gives it: MODEL_NAME and LOAD_PARAMETERS_PATH are set by the reader first.
python3 -m maxtext.trainers.pre_train.train src/maxtext/configs/base.yml run_name=sft-demo \
  model_name=${MODEL_NAME} load_parameters_path=${LOAD_PARAMETERS_PATH} \
  steps=100 per_device_batch_size=1 wi_tile_fwd_buffer_count=2
