"""posenc_lib: the one name every notebook imports (``import posenc_lib as pl``).

This file is the map; the code lives in the ``posenc`` package beside it, one room per
concept. A concept keeps its name in every layer: RoPE's numpy code is ``rope.py``, its
torch version ``torch_layers.rope_torch``, its figure ``figures/rope.py``, its exercises
``exercises/rope.py`` and its quiz bank ``course.quiz_banks.ROPE``. To find something, find its
concept:

=====================  ===========================================================  ========
room (``posenc/…``)    what it holds                                                notebook
=====================  ===========================================================  ========
``validate``           the argument checks every room uses (``check_int``, …)       all
``encoding``           the sinusoidal table, its two layouts, frequencies,          02-04
                       wavelengths, the shift R_k
``attention``          the one softmax, scaled dot-product attention and causal     01
                       mask (every attention calls them); self-attention, the
                       猫咬狗 demo
``hand_calculation``   word vector + PE, token by token                             02
``distance``           scores by offset, fits, row similarity                       04-05
``relative_family``    Shaw et al., the four-term score (Transformer-XL), T5        06
``rope``               RoPE in numpy: the rotation, the score by offset, the        07, 11
                       complex form, the decay bound, rotate_half, partial rotary,
                       p-RoPE
``alibi``              ALiBi in numpy: head slopes, the distance bias, how far      08
                       each head looks (``alibi_reach``)
``context``            RoPE past its training length, by Hugging Face's             09
                       ``rope_type`` (``ROPE_SCALING``): PI (``linear``),
                       NTK-aware, dynamic NTK, YaRN, Llama 3.1's rule, LongRoPE;
                       Self-Extend's and ReRoPE's offsets
``rope_base``          how large the base must be for a context length (Men et al.  09
                       2024): the margin B(m), the smallest passing base and the
                       base above which every base passes
``real_models``        real models' RoPE settings (``MODEL_CONFIGS``, Phi-3's       10, 11
                       LongRoPE config, each sourced), frequencies from a config
``inference``          RoPE at inference: the KV cache, dynamic NTK, per-step       10
                       ALiBi/T5 biases, grouped-query attention (GQA/MQA)
``mla``                multi-head latent attention and decoupled RoPE (DeepSeek)    10
``practice``           positions in real code: left padding, packing and           11
                       ``cu_seqlens``, bf16/fp16 positions and angles, caches that
                       drop tokens (sliding window, StreamingLLM, sinks, xPos),
                       Llama 4's NoPE layers, flash-attn's ALiBi, local/global
                       layers (Gemma 2, Gemma 3)
``decoding``           speculative and tree decoding: a tree's position ids         11
                       (depth) and its attention mask (Medusa)
``probes``             linear probes per layer, the causal mask's counting signal   12
``position_ids``       ids made for length generalization: randomized positions,    09, 12
                       Abacus ids, PoSE's skipped ids, the distances ids cover
``cope``               contextual positions (CoPE): gates counted, not tokens       12
``recurrence``         order carried by a recurrence: causal linear attention       12
                       with a decay (the state-space / linear-attention family)
``rope_2d``            patches in raster order, axial 2D RoPE, M-RoPE (Qwen2-VL's   11, 12
                       sections, Qwen2.5-VL's time ids, Qwen3-VL's interleaving),
                       a ViT's learned table at a new resolution
``torch_layers``       the encodings as torch modules, the one torch RoPE, ALiBi    05-09
                       and attention (loaded lazily)
``position_limit``     ``PositionLimitError``: a table asked for a row it lacks     05
``text``               aligned tables and markdown tables of printed results        all
``task/``              谁咬谁: data (adjacent / anywhere), model, training,          05-11
                       evaluation, experiments
``exercises/``         ``Verdict``, the one grading pipeline and every ``check_*``, all
                       one file per concept (pure: they record nothing); the
                       worksheet's box-by-box checking; drills (``drill``: run the
                       reader's function, name the slip; ``drills/``: one file per
                       concept, ``check_drill_*``)
``course/``            the course as data: every exercise declared with a stable    all
                       id (``catalogue``, and ``check``, the one call an exercise
                       cell makes), the quiz banks (ids per question), the
                       notebooks' titles, the learner's progress record
                       (``$POSENC_PROGRESS``, migrated from older layouts)
``ui/``                what a reader clicks, apart from the math: ``engine/``       all
                       (the widget engine under every explorer: ``spec``, an
                       explorer as data; ``canvas``; ``controls``; ``frames``, the
                       main slider's figures drawn ahead; ``static``; ``explorer``),
                       ``look`` (fonts, labels, axes: below the engine), ``quiz``, ``worksheet``,
                       ``progress`` (the learner's table and chart), ``notebook``
                       (the setup cell, ``progress_bar``)
``figures/``           ``style`` (axes, colours), then one file per figure family:  all
                       its view, its ``plot_*`` and its explorer
=====================  ===========================================================  ========

Where to start: ``encoding.py`` (the formula everything else builds on), then a figure family
such as ``figures/sinusoid.py`` to see the three layers of this course's helpers: **compute**
(pure numpy, arguments checked up front), **plot** (``plot_*(..., ax=None) -> Figure``, never
global state) and **explore** (an object that builds one figure and updates its artists in
place when a slider moves). To add a figure family, add ``figures/<family>.py`` with its view,
``plot_*`` and explorer (a class holding an ``ExplorerSpec``: its controls and its view; the
widgets, checks and frames follow), import them below and add the class to
:data:`EXPLORERS` (keyed by its spec's name).

Frequencies, from one place each: ``encoding.frequencies`` is the formula ``w_i``; every other
frequency function starts from it: ``context.rope_frequencies`` (a ``rope_type`` scaling),
``real_models.rope_frequencies_from_config`` (a model's config), ``rope.p_rope_frequencies``.

Conventions: ``PE[pos, 2i] = sin(pos * w_i)``, ``PE[pos, 2i+1] = cos(pos * w_i)``,
``w_i = base ** (-2i / d_model)``, positions from 0; symbols as in notebook 04's box.

``__all__`` is every name imported below (in this order) and ``EXPLORERS``. Neither
``import posenc_lib`` nor ``from posenc_lib import *`` imports torch: the names in ``_LAZY``
(``pl.OrderModel``, ``pl.rope_torch``, …; in ``dir(pl)``, not in ``__all__``) load it the first
time they are used.
"""
from __future__ import annotations

import importlib

_NOT_EXPORTED = set(globals())  # everything imported from here on is part of the map

from posenc import __version__

# -- the sinusoidal table and its geometry (02-04) ---------------------------------------------
from posenc.encoding import (
    LAYOUTS,
    binary_bits,
    encode_positions,
    flipped_bits,
    frequencies,
    nearest_repeat,
    pe_distance_by_offset,
    pe_dot_by_offset,
    relative_rotation,
    rotation_error,
    sinusoidal_encoding,
    split_permutation,
    wavelengths,
)
from posenc.validate import MAX_TABLE_ELEMENTS

# -- attention, the hand calculation, distance (01-05) -----------------------------------------
from posenc.attention import (
    AttentionDemo,
    attention_demo,
    attention_weights_for_demo,
    scaled_dot_product_attention,
    self_attention,
    softmax,
    token_vectors,
)
from posenc.hand_calculation import HandCalculation, hand_calculation
from posenc.distance import (
    LinearFit,
    linear_fit,
    offset_scores,
    offset_structure,
    position_similarity,
    random_word_vectors,
    score_matrix,
    similarity_by_offset,
    word_pe_cosines,
    word_position_probe,
)

# -- the relative-position family: Shaw et al., Transformer-XL, T5 (06) ------------------------
from posenc.relative_family import (
    ScoreTerms,
    absolute_score_terms,
    offset_logits,
    offset_range_text,
    shaw_relative_attention,
    shaw_relative_index,
    shaw_relative_logits,
    t5_bucket_ranges,
    t5_bucket_table,
    t5_demo_bias_table,
    t5_position_bias,
    t5_relative_bucket,
    transformer_xl_demo_parameters,
    transformer_xl_score_terms,
)

# -- RoPE (07), ALiBi (08), context extension: PI, NTK-aware, YaRN (09) ------------------------
from posenc.rope import (
    apply_rope_half,
    content_position_scores,
    llama_permute_rows,
    partial_rope,
    rope,
    rope_abel_bound,
    rope_attention,
    rope_complex,
    rope_complex_score,
    rope_cos_sin,
    rope_decay_bound,
    rope_pair_coefficients,
    p_rope_frequencies,
    rope_partial_sums,
    rope_rotate_half,
    rope_rotation,
    rope_score_by_offset,
    rotate_half,
)
from posenc.alibi import (
    alibi_attention,
    alibi_bias,
    alibi_causal_bias,
    alibi_needle_margin,
    alibi_needle_weight,
    alibi_reach,
    alibi_slope_exponents,
    alibi_slopes,
)
from posenc.context import (
    ROPE_SCALING,
    ROPE_TYPES,
    AngleCoverage,
    beta_digits,
    dynamic_ntk_scale,
    entropy_invariant_scale,
    rope_angle_coverage,
    rope_frequencies,
    rerope_offsets,
    rotations_per_context,
    self_extend_offsets,
    softmax_entropy,
    yarn_correction_range,
    yarn_paper_ramp,
    yarn_ramp,
)
from posenc.rope_base import rope_base_bounds, rope_base_margin

# -- RoPE in real models and at inference: configs, KV cache, MLA (10) -------------------------
from posenc.real_models import (
    MODEL_CONFIGS,
    PHI3_LONGROPE_CONFIG,
    TRAIN_LEN_KEYS,
    model_frequencies,
    rope_frequencies_from_config,
    rope_type,
    rotary_dims,
    config_train_len,
    config_train_len_key,
)
from posenc.inference import (
    DecodeResult,
    alibi_step_bias,
    causal_rope_attention,
    decode_step,
    gqa_attention,
    kv_cache_decode,
    kv_cache_numbers,
    move_cached_keys,
    recompute_decode,
    repeat_kv,
    t5_step_bias,
)
from posenc.mla import (
    mla_absorbed_matrix,
    mla_absorbed_scores,
    mla_cache_per_token,
    mla_decoupled_scores,
    mla_scores,
    mla_softmax_scale,
)

# -- positions in practice: padding, packing, precision, caches, newer layouts (11) -------------
from posenc.practice import (
    LOCAL_GLOBAL_CONFIGS,
    PAD_POSITION_ID,
    POSITION_DTYPES,
    angle_error,
    cu_seqlens,
    flash_alibi_bias,
    flash_causal_mask,
    layer_cache_tokens,
    layer_types,
    llama4_attn_scale,
    llama4_rope_layers,
    masked_rope_attention,
    packed_causal_mask,
    packed_position_ids,
    position_ids_from_mask,
    rope_angles_in,
    rope_score_from_angles,
    sliding_window_mask,
    softmax_with_sink,
    stored_positions,
    streaming_cache,
    xpos_scale,
)
from posenc.decoding import tree_attention_mask, tree_branches, tree_nodes, tree_position_ids

# -- where position goes: probes per layer, NoPE, 2D RoPE and M-RoPE (12) ---------------------
from posenc.probes import (
    PROBE_METHODS,
    LayerProbes,
    causal_uniform_weights,
    layer_probes,
    position_readout,
    readout_slope,
)
from posenc.position_ids import abacus_positions, distances_seen, pose_position_ids, randomized_positions
from posenc.cope import cope_position_logits, cope_positions
from posenc.recurrence import linear_attention
from posenc.rope_2d import (
    PATCH_LAYOUTS,
    QWEN2_VL_SECTION,
    mrope_angles,
    mrope_pair_axes,
    mrope_position_ids,
    patch_scores,
    qwen25_vl_time_ids,
    resize_position_table,
)

# -- torch: the error is torch-free, the modules load lazily (see _LAZY) -----------------------
from posenc.position_limit import PositionLimitError

# -- the 谁咬谁 task (05-09) --------------------------------------------------------------------
from posenc.task.data import (
    ANIMALS,
    DEFAULT_D_MODEL,
    DEFAULT_N_TEST,
    DEFAULT_N_TRAIN,
    DEFAULT_STEPS,
    DEFAULT_TEST_LENGTHS,
    DEFAULT_TRAIN_LENGTHS,
    FILLERS,
    MAX_LENGTH,
    PAD,
    PAD_ID,
    PE_KINDS,
    TASKS,
    TOKEN_TO_ID,
    VOCAB,
    BiteDataset,
    make_bite_dataset,
)
from posenc.task.training import (
    LEARNED_SNAPSHOT_EVERY,
    TrainResult,
    position_table_parameters,
    train_order_model,
    trained_run,
)
from posenc.task.evaluation import (
    accuracy_by_start,
    attention_maps,
    evaluate,
    length_accuracy,
    mirror_agreement,
    order_blind_bound,
)
from posenc.task.experiments import (
    CONTEXT_TRAIN_LENGTHS,
    ROPE_TYPE_LABELS,
    context_extension_table,
    extrapolation_table,
    format_context_table,
    format_extrapolation_table,
)

# -- exercises and the quiz --------------------------------------------------------------------
# An exercise cell makes one call, ``pl.check(exercise_id, answer)``: the exercises are declared
# in posenc/course/catalogue.py. The check functions below are pure (they record nothing).
from posenc.course.catalogue import check
from posenc.exercises.verdict import Verdict
from posenc.exercises.permutation import (
    check_output_row,
    check_pe_input_output,
    check_pooled_change,
    check_weight_cell,
)
from posenc.exercises.encoding import (
    check_dot_product,
    check_first_short_hand,
    check_flipped_bits,
    check_nearest_repeat,
    check_pe,
    check_pe_bug_symptom,
    check_rotation,
    check_rotation_product,
    check_scaled_rotation_scores,
    check_split_column,
    check_wavelength,
)
from posenc.exercises.learned import (
    check_longer_sentence,
    check_order_blind_accuracy,
    check_rows_with_gradient,
    check_segments,
)
from posenc.exercises.relative_family import (
    check_moving_terms,
    check_shaw_row,
    check_shift_invariance,
    check_t5_bucket,
    check_t5_buckets_used,
)
from posenc.exercises.rope import (
    check_llama_row,
    check_partial_rotary_pairs,
    check_rope_angle,
    check_rope_pe_position,
    check_rope_score,
    check_rope_shift,
)
from posenc.exercises.alibi import check_alibi_bias, check_alibi_slope, check_alibi_start
from posenc.exercises.context import (
    check_beta_ratio,
    check_fast_pair_kept,
    check_ntk_base,
    check_rotations,
    check_unseen_pairs,
    check_yarn_attention_factor,
)
from posenc.exercises.real_models import (
    check_llama3_slowdown,
    check_mla_cache,
    check_softmax_scale,
    llama3_slowdown,
)
from posenc.exercises.practice import (
    check_bf16_position,
    check_cu_seqlens,
    check_decode_position,
    check_streaming_position,
)
from posenc.exercises.probes import check_causal_weight
from posenc.exercises.rope_2d import check_mrope_text_start, check_raster_offset

# -- drills: the reader writes the function, the check names the slip ---------------------------
from posenc.exercises.drills.attention import check_drill_causal_attention
from posenc.exercises.drills.encoding import check_drill_sinusoidal_table
from posenc.exercises.drills.relative_family import check_drill_t5_bucket
from posenc.exercises.drills.rope import (
    check_drill_rope_cos_sin,
    check_drill_rope_interleaved,
    check_drill_rope_permute,
    check_drill_rope_rotate_half,
)
from posenc.exercises.drills.alibi import check_drill_alibi_slopes
from posenc.exercises.drills.context import check_drill_scaled_frequencies
from posenc.exercises.drills.inference import check_drill_kv_cache_step
from posenc.exercises.drills.practice import check_drill_packed_positions, check_drill_position_ids

# -- the reader's side: the quiz, the worksheet, progress, the setup cell ----------------------
from posenc.course.quiz_banks import INTERVIEW_QUIZ, PRACTICE, REAL_MODELS
from posenc.course.progress import progress_path, reset_progress
from posenc.ui.quiz import Quiz
from posenc.ui.worksheet import HandCalcWorksheet
from posenc.ui.progress import show_progress
from posenc.ui.notebook import notebook_setup, progress_bar

# -- text, figure style -----------------------------------------------------------------------
from posenc.text import format_matrix, markdown_table
from posenc.ui.look import CJK_INSTALL_HINT, cjk_font, figure_style
from posenc.figures.style import PE_COLORS, PE_STYLES

# -- figures and explorers, one family per file ------------------------------------------------
from posenc.ui.engine.explorer import Explorer
from posenc.figures.permutation import PERMUTATION_SENTENCES, PermutationExplorer, plot_attention
from posenc.figures.hand_calculation import HandCalcExplorer, plot_hand_calculation
from posenc.figures.sinusoid import (
    ClockExplorer,
    HeatmapExplorer,
    plot_binary_vs_sinusoid,
    plot_clock,
    plot_pe_curves,
    plot_pe_heatmap,
    plot_wavelengths,
)
from posenc.figures.relative import (
    RelativeExplorer,
    SimilarityExplorer,
    plot_cosine_histograms,
    plot_dot_product,
    plot_relative_rotation,
    plot_shift_regression,
    plot_similarity,
)
from posenc.figures.learned import (
    LearnedTableExplorer,
    TrainingPanel,
    plot_learned_similarity,
    plot_length_accuracy,
    plot_loss_curves,
)
from posenc.figures.relative_family import (
    ScoreTermsExplorer,
    T5BucketExplorer,
    plot_score_terms,
    plot_shaw_index,
    plot_t5_buckets,
)
from posenc.figures.rope import RopeExplorer, plot_rope, plot_rope_decay
from posenc.figures.alibi import AlibiExplorer, plot_alibi_attention, plot_alibi_bias
from posenc.figures.extrapolation import plot_accuracy_by_start, plot_extrapolation
from posenc.figures.context import ContextExplorer, plot_rope_scaling, plot_yarn_ramp
from posenc.figures.trained_attention import plot_trained_attention
from posenc.figures.real_models import RealModelsExplorer, plot_real_model
from posenc.figures.practice import plot_angle_error, plot_packing, plot_position_rounding
from posenc.figures.probes import plot_layer_probes, plot_position_readout
from posenc.figures.rope_2d import Rope2DExplorer, plot_rope_2d

#: Name -> explorer class, for every explorer the notebooks use, keyed by each spec's own name
#: (notebooks call the class itself, ``pl.RopeExplorer()``; tools and tests walk this dict).
EXPLORERS = {cls.spec.name: cls for cls in (
    PermutationExplorer, HandCalcExplorer, ClockExplorer, HeatmapExplorer, RelativeExplorer,
    SimilarityExplorer, LearnedTableExplorer, T5BucketExplorer, ScoreTermsExplorer, RopeExplorer,
    AlibiExplorer, ContextExplorer, RealModelsExplorer, Rope2DExplorer)}

#: Names that need torch, and the module each lives in (imported on first use).
_LAZY = {
    "SinusoidalPositionalEncoding": "posenc.torch_layers",
    "LearnedPositionalEmbedding": "posenc.torch_layers",
    "rope_torch": "posenc.torch_layers",
    "OrderModel": "posenc.task.model",
}

# The lazy names stay out of __all__: ``from posenc_lib import *`` would otherwise load torch
# (the star import looks every name up). They are still ``pl.<name>`` and in ``dir(pl)``.
__all__ = [name for name in globals() if name not in _NOT_EXPORTED and not name.startswith("_")]
__all__ += ["__version__"]


def __getattr__(name: str):
    """Load the torch-backed names on first use (PEP 562)."""
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'posenc_lib' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
