#!/usr/bin/env bash
# The tuned trainer keys (TRAINER_TUNED_FLAGS=true), measured on 128 TPU v7x (seed, tuned-flags commit).
# moe_chunk_pipeline and the packed routing gather follow the MoE token chunk count.
export MAXTEXT_EXTRA_FLAGS="${MAXTEXT_EXTRA_FLAGS} context_parallel_strategy=all_gather sa_fuse_reciprocal=true \
gdn_cp_mode=seq gdn_cp_state=device gdn_cp_matmul_precision=high cast_grads_after_all_reduce=true \
wi_tile_dlhs_mlp_dim=2048 decoder_layer_input=device moe_routing_maps=device moe_gmm_v2_dlhs_transpose_rhs=true \
moe_routing_index_math=count moe_unsplit_prefused_wi=true moe_roe_packed_routing_gather=true \
moe_router_grad_from_wo_input=true moe_wi_gmm_fused_swiglu=true gdn_conv1d_input_in_qkv_dtype=true \
gdn_conv1d_dense_token_stack=true wi_tile_fwd_batch_seq=512 wi_tile_drhs_batch_seq=512 \
wo_tile_fwd_batch_seq=512 wo_tile_dlhs_batch_seq=512 wo_tile_drhs_batch_seq=512 \
moe_chunk_pipeline=true custom_mesh_and_rule=cp-as-ep-dense-no-cp"
