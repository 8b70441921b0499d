"""posenc_lib: the one name every notebook imports (``import posenc_lib as pl``).

This file is the map; the code lives in the ``posenc`` package beside it, one room per
concept. To find something, find its concept:

=====================  ==============================================================  =====
room (``posenc/…``)    what it holds                                                   notes
=====================  ==============================================================  =====
``validate``           argument checks, ``PositionLimitError``                         all
``encoding``           the sinusoidal table, frequencies, wavelengths, R_k             02-04
``attention``          softmax, self-attention, the 猫咬狗 demo                         01
``hand_calculation``   word vector + PE, token by token                                02
``distance``           scores by offset, fits, row similarity                          04-05
``relative_family``    Shaw et al., the four-term score (Transformer-XL), T5 buckets   06
``rope_alibi``         RoPE and ALiBi in numpy                                         07-08
``context``            RoPE past its training length: PI, NTK-aware, YaRN              09
``torch_layers``       the encodings as torch modules (loaded lazily)                  05-08
``task/``              谁咬谁: data (adjacent / anywhere), model, training, evaluation   05-09
``exercises/``         ``Verdict`` and every ``check_*``, by concept                   all
``quiz`` · ``text``    the self-check quiz · aligned text and markdown tables          all
``notebook``           the setup cell, ``progress`` for slow cells                     all
``figures/``           ``style`` (fonts, axes), ``explorer`` (sliders), ``frames``      all
                       (the main slider's figures drawn ahead, switched in the
                       browser), then one file per figure family: its view, its
                       ``plot_*`` and its explorer
=====================  ==============================================================  =====

Where to start: ``encoding.py`` (the formula everything else builds on), then a figure
family such as ``figures/sinusoid.py`` to see the three layers of this course's helpers:
**compute** (pure numpy, arguments checked up front), **plot** (``plot_*(..., ax=None) ->
Figure``, never global state) and **explore** (an object that builds one figure and updates
its artists in place when a slider moves; :data:`EXPLORERS` lists them). To add a figure
family, add ``figures/<family>.py`` with its view, ``plot_*`` and explorer, re-export them
here and register the explorer in :data:`EXPLORERS`.

Conventions: ``PE[pos, 2i] = sin(pos * w_i)``, ``PE[pos, 2i+1] = cos(pos * w_i)``,
``w_i = base ** (-2i / d_model)``, positions from 0; symbols as in notebook 04's box. ``import
posenc_lib`` does not import torch: the names in ``_LAZY`` load it the first time they are used.
"""
from __future__ import annotations

import importlib

from posenc import __version__
from posenc.attention import (AttentionDemo, attention_demo, attention_weights_for_demo, self_attention,
                              softmax, token_vectors)
from posenc.context import (ROPE_SCALING_METHODS, AngleCoverage, rope_angle_coverage, rope_frequencies,
                            rope_scaled_score, rotations_per_context, yarn_attention_factor,
                            yarn_correction_range, yarn_ramp)
from posenc.distance import (LinearFit, linear_fit, offset_scores, offset_structure, position_similarity,
                             random_word_vectors, score_matrix, similarity_by_offset, word_pe_cosines,
                             word_position_probe)
from posenc.encoding import (binary_bits, encode_positions, flipped_bits, frequencies, nearest_repeat,
                             pe_distance_by_offset, pe_dot_by_offset, relative_rotation, rotation_error,
                             sinusoidal_encoding, split_permutation, wavelengths)
from posenc.exercises.context import (check_fast_pair_kept, check_ntk_base, check_rotations,
                                      check_unseen_pairs, check_yarn_attention_factor)
from posenc.exercises.encoding import (check_dot_product, check_flipped_bits, check_nearest_repeat, check_pe,
                                       check_rotation, check_rotation_product, check_scaled_rotation_scores,
                                       check_shifted_pe, check_split_column, check_wavelength)
from posenc.exercises.models import (check_order_blind_accuracy, check_position_params,
                                     check_rows_with_gradient, check_segments)
from posenc.exercises.relative_family import (check_moving_terms, check_shaw_row, check_shift_invariance,
                                              check_t5_bucket, check_t5_buckets_used, moving_terms)
from posenc.exercises.rope_alibi import (check_alibi_bias, check_alibi_slope, check_alibi_start,
                                         check_rope_angle, check_rope_pe_position, check_rope_score,
                                         check_rope_shift)
from posenc.exercises.verdict import Verdict, check_choice, check_value
from posenc.figures.alibi import AlibiExplorer, plot_alibi_attention, plot_alibi_bias
from posenc.figures.context import RopeScalingExplorer, plot_rope_scaling
from posenc.figures.explorer import Explorer
from posenc.figures.extrapolation import plot_accuracy_by_start, plot_extrapolation
from posenc.figures.hand_calculation import HandCalcExplorer, plot_hand_calculation
from posenc.figures.learned import (LearnedTableExplorer, TrainingPanel, plot_learned_similarity,
                                    plot_length_accuracy, plot_loss_curves)
from posenc.figures.permutation import PERMUTATION_SENTENCES, PermutationExplorer, plot_attention
from posenc.figures.relative import (RelativeExplorer, SimilarityExplorer, plot_cosine_histograms,
                                     plot_dot_product, plot_relative_rotation, plot_shift_regression,
                                     plot_similarity)
from posenc.figures.relative_family import (ScoreTermsExplorer, T5BucketExplorer, plot_score_terms,
                                            plot_shaw_index, plot_t5_buckets)
from posenc.figures.rope import RopeExplorer, plot_rope
from posenc.figures.sinusoid import (ClockExplorer, HeatmapExplorer, plot_binary_vs_sinusoid, plot_clock,
                                     plot_pe_curves, plot_pe_heatmap, plot_wavelengths)
from posenc.figures.style import (CJK_INSTALL_HINT, PE_COLORS, PE_STYLES, cjk_font, figure_style, label,
                                  token_label)
from posenc.figures.trained_attention import plot_trained_attention
from posenc.hand_calculation import HandCalculation, hand_calculation
from posenc.notebook import notebook_setup, progress
from posenc.quiz import INTERVIEW_QUIZ, Quiz
from posenc.relative_family import (ScoreTerms, absolute_score_terms, shaw_relative_attention,
                                    shaw_relative_index, shaw_relative_logits, t5_bucket_ranges,
                                    t5_demo_bias_table, t5_position_bias, t5_relative_bucket,
                                    transformer_xl_demo_parameters, transformer_xl_score_terms)
from posenc.rope_alibi import (alibi_attention, alibi_bias, alibi_causal_bias, alibi_slope_exponents,
                               alibi_slopes, content_position_scores, rope, rope_pair_coefficients,
                               rope_rotation, rope_score_by_offset)
from posenc.task.data import (ANIMALS, DEFAULT_D_MODEL, DEFAULT_N_TEST, DEFAULT_N_TRAIN, DEFAULT_STEPS,
                              DEFAULT_TEST_LENGTHS, DEFAULT_TRAIN_LENGTHS, FILLERS, MAX_LENGTH, PAD, PAD_ID,
                              PE_KINDS, TASKS, TOKEN_TO_ID, VOCAB, BiteDataset, make_bite_dataset)
from posenc.task.evaluation import (accuracy_by_distance, accuracy_by_start, attention_maps, evaluate,
                                    length_accuracy, mirror_agreement, order_blind_bound, sentence_tokens)
from posenc.task.experiments import (CONTEXT_TRAIN_LENGTHS, METHOD_LABELS, context_extension_table,
                                     extrapolation_table, format_context_table, format_extrapolation_table)
from posenc.task.training import (LEARNED_SNAPSHOT_EVERY, TrainResult, finetune_order_model,
                                  position_table_parameters, rows_with_gradient, train_order_model,
                                  trained_run)
from posenc.text import format_matrix, markdown_table
from posenc.validate import LAYOUTS, MAX_TABLE_ELEMENTS, PositionLimitError

#: Name -> zero-argument factory for every explorer the notebooks use.
EXPLORERS = {
    "permutation": PermutationExplorer,
    "hand_calc": HandCalcExplorer,
    "clock": ClockExplorer,
    "heatmap": HeatmapExplorer,
    "relative": RelativeExplorer,
    "similarity": SimilarityExplorer,
    "learned": LearnedTableExplorer,
    "t5_buckets": T5BucketExplorer,
    "score_terms": ScoreTermsExplorer,
    "rope": RopeExplorer,
    "alibi": AlibiExplorer,
    "rope_scaling": RopeScalingExplorer,
}

#: Names that need torch, and the module each lives in (imported on first use).
_LAZY = {
    "SinusoidalPositionalEncoding": "posenc.torch_layers",
    "LearnedPositionalEmbedding": "posenc.torch_layers",
    "rope_torch": "posenc.torch_layers",
    "OrderModel": "posenc.task.model",
}

__all__ = [
    # sinusoidal table and its geometry
    "frequencies", "wavelengths", "encode_positions", "sinusoidal_encoding", "split_permutation",
    "relative_rotation", "rotation_error", "pe_dot_by_offset", "pe_distance_by_offset", "nearest_repeat",
    "binary_bits", "flipped_bits", "LAYOUTS", "MAX_TABLE_ELEMENTS",
    # attention, hand calculation, distance
    "softmax", "self_attention", "token_vectors", "AttentionDemo", "attention_weights_for_demo",
    "attention_demo", "HandCalculation", "hand_calculation", "LinearFit", "linear_fit", "score_matrix",
    "offset_scores", "offset_structure", "random_word_vectors", "word_pe_cosines", "word_position_probe",
    "position_similarity", "similarity_by_offset",
    # the relative-position family: Shaw et al., Transformer-XL, T5
    "shaw_relative_index", "shaw_relative_logits", "shaw_relative_attention", "ScoreTerms",
    "absolute_score_terms", "transformer_xl_score_terms", "transformer_xl_demo_parameters",
    "t5_relative_bucket", "t5_bucket_ranges", "t5_position_bias", "t5_demo_bias_table",
    # RoPE and ALiBi
    "rope", "rope_rotation", "rope_pair_coefficients", "rope_score_by_offset", "content_position_scores",
    "alibi_slopes", "alibi_slope_exponents", "alibi_bias", "alibi_causal_bias", "alibi_attention",
    # context extension (PI, NTK-aware, YaRN)
    "ROPE_SCALING_METHODS", "rope_frequencies", "rotations_per_context", "yarn_correction_range", "yarn_ramp",
    "yarn_attention_factor", "AngleCoverage", "rope_angle_coverage", "rope_scaled_score",
    # torch (lazy)
    "SinusoidalPositionalEncoding", "LearnedPositionalEmbedding", "rope_torch", "OrderModel",
    "PositionLimitError",
    # the 谁咬谁 task
    "ANIMALS", "FILLERS", "PAD", "VOCAB", "TOKEN_TO_ID", "PAD_ID", "PE_KINDS", "DEFAULT_TRAIN_LENGTHS",
    "DEFAULT_TEST_LENGTHS", "DEFAULT_STEPS", "DEFAULT_D_MODEL", "DEFAULT_N_TRAIN", "DEFAULT_N_TEST",
    "LEARNED_SNAPSHOT_EVERY", "BiteDataset", "make_bite_dataset", "TrainResult", "train_order_model",
    "trained_run", "rows_with_gradient", "position_table_parameters", "evaluate", "mirror_agreement",
    "accuracy_by_start", "length_accuracy", "order_blind_bound", "extrapolation_table",
    "format_extrapolation_table", "TASKS", "MAX_LENGTH", "accuracy_by_distance", "finetune_order_model",
    "context_extension_table", "format_context_table", "METHOD_LABELS", "CONTEXT_TRAIN_LENGTHS",
    "attention_maps", "sentence_tokens",
    # exercises and quiz
    "Verdict", "check_value", "check_choice", "check_pe", "check_wavelength", "check_flipped_bits",
    "check_nearest_repeat", "check_split_column", "check_dot_product", "check_rotation", "check_shifted_pe",
    "check_rotation_product", "check_scaled_rotation_scores", "check_position_params",
    "check_order_blind_accuracy", "check_segments", "check_rows_with_gradient", "check_alibi_slope",
    "check_alibi_bias", "check_alibi_start", "check_rope_angle", "check_rope_score", "check_rope_pe_position",
    "check_rope_shift", "check_rotations", "check_ntk_base", "check_yarn_attention_factor",
    "check_unseen_pairs", "check_t5_bucket", "check_t5_buckets_used", "check_shaw_row", "check_moving_terms",
    "moving_terms", "check_shift_invariance", "check_fast_pair_kept", "Quiz", "INTERVIEW_QUIZ",
    # text, setup, style
    "format_matrix", "markdown_table", "notebook_setup", "progress", "CJK_INSTALL_HINT", "cjk_font", "label",
    "token_label", "figure_style", "PE_STYLES", "PE_COLORS",
    # figures and explorers
    "plot_pe_heatmap", "plot_clock", "plot_wavelengths", "plot_pe_curves", "plot_binary_vs_sinusoid",
    "plot_hand_calculation", "plot_attention", "plot_dot_product", "plot_shift_regression",
    "plot_cosine_histograms", "plot_relative_rotation", "plot_similarity", "plot_loss_curves",
    "plot_learned_similarity", "plot_length_accuracy", "plot_rope", "plot_alibi_bias", "plot_alibi_attention",
    "plot_extrapolation", "plot_accuracy_by_start", "plot_t5_buckets", "plot_score_terms", "plot_shaw_index",
    "PERMUTATION_SENTENCES", "Explorer", "HeatmapExplorer", "ClockExplorer", "PermutationExplorer",
    "HandCalcExplorer", "RelativeExplorer", "SimilarityExplorer", "LearnedTableExplorer", "TrainingPanel",
    "T5BucketExplorer", "ScoreTermsExplorer", "RopeExplorer", "AlibiExplorer", "EXPLORERS",
    "plot_rope_scaling", "RopeScalingExplorer", "plot_trained_attention", "__version__",
]


def __getattr__(name: str):
    """Load the torch-backed names on first use (PEP 562)."""
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'posenc_lib' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
