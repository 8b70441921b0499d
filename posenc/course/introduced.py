"""Where a reader first meets each public name of ``posenc_lib``: the notebook that introduces
it, declared once, as data.

tools/build_contents.py derives each notebook's 「先读」 from this table (the earlier notebooks
that introduce the ``pl.*`` names its code calls, leaving out :data:`INFRASTRUCTURE`), and
tests/test_facade.py checks that every public function and class of ``posenc_lib`` is declared
here, once, under a notebook that uses it. A docstring may tell people the same; no tool reads it
there. A new public name goes into the tuple of the notebook that first uses it.
"""

#: notebook (file stem) -> the public functions and classes a reader first meets there, in the
#: order ``posenc_lib`` lists them.
INTRODUCED: dict[str, tuple[str, ...]] = {
    "01_permutation_invariance": (
        "sinusoidal_encoding", "AttentionDemo", "attention_demo", "attention_weights_for_demo",
        "self_attention", "softmax", "token_vectors", "Verdict", "check", "check_output_row",
        "check_pooled_change", "check_pe_input_output", "check_weight_cell", "check_drill_causal_attention",
        "progress_path",
        "reset_progress", "show_progress", "notebook_setup", "format_matrix", "PermutationExplorer",
        "plot_attention",
    ),
    "02_sinusoidal_hand_calculation": (
        "encode_positions", "frequencies", "wavelengths", "HandCalculation", "hand_calculation",
        "check_pe", "check_pe_bug_symptom", "HandCalcWorksheet", "HandCalcExplorer", "plot_hand_calculation",
        "plot_pe_curves",
    ),
    "03_clock_hands_frequencies": (
        "binary_bits", "flipped_bits", "nearest_repeat", "pe_distance_by_offset",
        "split_permutation", "check_first_short_hand", "check_flipped_bits", "check_nearest_repeat", "check_split_column",
        "check_wavelength", "check_drill_sinusoidal_table", "figure_style", "ClockExplorer", "HeatmapExplorer",
        "plot_binary_vs_sinusoid", "plot_clock", "plot_pe_heatmap", "plot_wavelengths",
    ),
    "04_relative_position": (
        "pe_dot_by_offset", "relative_rotation", "rotation_error", "LinearFit", "linear_fit",
        "offset_scores", "offset_structure", "random_word_vectors", "score_matrix",
        "word_pe_cosines", "word_position_probe", "check_dot_product", "check_rotation",
        "check_rotation_product", "check_scaled_rotation_scores", "RelativeExplorer",
        "SimilarityExplorer", "plot_cosine_histograms", "plot_dot_product",
        "plot_relative_rotation", "plot_shift_regression", "plot_similarity",
    ),
    "05_learned_embeddings": (
        "position_similarity", "similarity_by_offset", "PositionLimitError", "BiteDataset",
        "make_bite_dataset", "TrainResult", "position_table_parameters", "train_order_model",
        "trained_run", "attention_maps", "evaluate", "length_accuracy", "mirror_agreement",
        "order_blind_bound", "check_longer_sentence", "check_order_blind_accuracy", "check_rows_with_gradient",
        "check_segments", "progress_bar", "markdown_table", "LearnedTableExplorer", "TrainingPanel",
        "plot_learned_similarity", "plot_length_accuracy", "plot_loss_curves",
        "plot_trained_attention", "SinusoidalPositionalEncoding", "LearnedPositionalEmbedding",
        "OrderModel",
    ),
    "06_relative_family": (
        "ScoreTerms", "absolute_score_terms", "offset_logits", "offset_range_text", "shaw_relative_attention",
        "shaw_relative_index", "shaw_relative_logits", "t5_bucket_ranges", "t5_bucket_table",
        "t5_demo_bias_table", "t5_position_bias", "t5_relative_bucket",
        "transformer_xl_demo_parameters", "transformer_xl_score_terms", "check_moving_terms",
        "check_shaw_row", "check_t5_bucket", "check_t5_buckets_used", "check_drill_t5_bucket", "ScoreTermsExplorer",
        "T5BucketExplorer", "plot_score_terms", "plot_shaw_index", "plot_t5_buckets",
    ),
    "07_rope": (
        "apply_rope_half", "content_position_scores", "llama_permute_rows", "partial_rope", "rope", "rope_abel_bound",
        "rope_attention", "rope_complex", "rope_complex_score", "rope_cos_sin", "rope_decay_bound",
        "rope_pair_coefficients", "rope_partial_sums", "rope_rotate_half", "rope_rotation",
        "rope_score_by_offset", "rotate_half", "check_llama_row", "check_partial_rotary_pairs",
        "check_rope_angle", "check_rope_pe_position", "check_rope_score", "check_rope_shift",
        "check_drill_rope_interleaved", "check_drill_rope_cos_sin", "check_drill_rope_rotate_half",
        "check_drill_rope_permute",
        "RopeExplorer", "plot_rope", "plot_rope_decay", "rope_torch",
    ),
    "08_alibi_extrapolation": (
        "alibi_attention", "alibi_bias", "alibi_causal_bias", "alibi_needle_margin", "alibi_needle_weight", "alibi_reach",
        "alibi_slope_exponents", "alibi_slopes", "accuracy_by_start", "extrapolation_table",
        "format_extrapolation_table", "check_alibi_bias", "check_alibi_slope", "check_alibi_start",
        "check_drill_alibi_slopes",
        "AlibiExplorer", "plot_alibi_attention", "plot_alibi_bias", "plot_accuracy_by_start",
        "plot_extrapolation",
    ),
    "09_context_extension": (
        "AngleCoverage", "beta_digits", "dynamic_ntk_scale", "entropy_invariant_scale", "rope_angle_coverage",
        "rope_base_bounds", "rope_base_margin", "rope_frequencies", "rerope_offsets", "rotations_per_context",
        "self_extend_offsets", "softmax_entropy", "yarn_correction_range", "yarn_paper_ramp", "yarn_ramp",
        "distances_seen", "pose_position_ids", "randomized_positions",
        "context_extension_table", "format_context_table", "check_beta_ratio", "check_ntk_base",
        "check_rotations", "check_unseen_pairs", "check_yarn_attention_factor", "check_drill_scaled_frequencies",
        "ContextExplorer", "plot_rope_scaling", "plot_yarn_ramp",
    ),
    "10_rope_real_models": (
        "model_frequencies", "rope_frequencies_from_config", "rope_type", "rotary_dims",
        "config_train_len", "config_train_len_key", "DecodeResult", "alibi_step_bias",
        "causal_rope_attention", "decode_step", "gqa_attention", "kv_cache_decode", "kv_cache_numbers",
        "move_cached_keys", "recompute_decode", "repeat_kv", "t5_step_bias", "mla_absorbed_matrix",
        "mla_absorbed_scores", "mla_cache_per_token", "mla_decoupled_scores", "mla_scores", "mla_softmax_scale",
        "check_llama3_slowdown", "check_mla_cache", "check_softmax_scale", "check_drill_kv_cache_step",
        "llama3_slowdown", "Quiz",
        "RealModelsExplorer", "plot_real_model",
    ),
    "11_positions_in_practice": (
        "p_rope_frequencies", "angle_error", "cu_seqlens", "flash_alibi_bias", "flash_causal_mask",
        "layer_cache_tokens", "layer_types", "llama4_attn_scale", "llama4_rope_layers",
        "masked_rope_attention", "packed_causal_mask", "packed_position_ids",
        "position_ids_from_mask", "rope_angles_in", "rope_score_from_angles", "sliding_window_mask",
        "softmax_with_sink", "stored_positions", "streaming_cache", "xpos_scale",
        "tree_attention_mask", "tree_branches", "tree_nodes", "tree_position_ids",
        "mrope_pair_axes", "qwen25_vl_time_ids", "check_bf16_position", "check_cu_seqlens",
        "check_decode_position", "check_streaming_position", "check_drill_position_ids",
        "check_drill_packed_positions", "plot_angle_error", "plot_packing",
        "plot_position_rounding",
    ),
    "12_where_position_goes": (
        "LayerProbes", "causal_uniform_weights", "layer_probes", "position_readout",
        "readout_slope", "abacus_positions", "cope_position_logits",
        "cope_positions", "linear_attention", "scaled_dot_product_attention", "mrope_angles", "mrope_position_ids", "patch_scores",
        "resize_position_table", "check_causal_weight", "check_mrope_text_start",
        "check_raster_offset", "plot_layer_probes", "plot_position_readout", "Rope2DExplorer",
        "plot_rope_2d",
    ),
    "13_summary_interview": (
        "check_shift_invariance", "check_fast_pair_kept",
    ),
}

#: What every notebook uses, whatever it teaches (the setup cell, progress bars, printed tables,
#: the course's look, the answer type and the generic multiple-choice check, the explorers' base
#: class): calling one makes no earlier notebook a prerequisite.
INFRASTRUCTURE: frozenset[str] = frozenset({
    "notebook_setup", "progress_bar", "format_matrix", "markdown_table", "figure_style", "cjk_font",
    "Verdict", "check", "Explorer",
})


def first_met() -> dict[str, str]:
    """Every name of :data:`INTRODUCED` -> the notebook (file stem) that introduces it."""
    return {name: notebook for notebook, names in INTRODUCED.items() for name in names}
