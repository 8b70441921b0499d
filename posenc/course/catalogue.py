"""What the course asks, declared once: every exercise and drill with a stable id, the notebook
that asks it and the check that grades it; the worksheet; and :func:`check`, the one call an
exercise cell makes (``pl.check("rope-angle", answer, i=1, pos=100)``).

An id is a short slug chosen when the exercise is written and never changed or reused: it is not
derived from the question's wording, the call's arguments or the notebook's number, so rewording
a question, renumbering the notebooks or a learner's edits to a cell never orphan a record. The
right answer, the message per option and the slip table live in the check function
(``posenc/exercises/*``), not in the cell. The progress table (:mod:`posenc.ui.progress`), the
contents builder and the static edition read these declarations; nothing reads the notebooks'
cells to learn what the course asks. (A test checks that each declared exercise has exactly one
cell in its notebook that calls it, and that every such call names a declared id.)

The quiz questions carry their ids in :mod:`posenc.course.quiz_banks`.
"""
from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field
from types import MappingProxyType
from collections.abc import Callable, Mapping

from ..exercises import alibi, context, encoding, learned, permutation, practice, probes, real_models
from ..exercises import relative_family, rope, rope_2d
from ..exercises.drills import alibi as alibi_drills
from ..exercises.drills import attention as attention_drills
from ..exercises.drills import context as context_drills
from ..exercises.drills import encoding as encoding_drills
from ..exercises.drills import inference as inference_drills
from ..exercises.drills import practice as practice_drills
from ..exercises.drills import relative_family as relative_family_drills
from ..exercises.drills import rope as rope_drills
from ..exercises.reading import normalise
from ..exercises.verdict import Verdict
from ..validate import bilingual

KINDS = ("exercise", "drill")
#: What an id looks like: lowercase words joined by dashes ("rope-angle", "drill-rope-interleaved").
ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


@dataclass(frozen=True)
class Exercise:
    """One exercise or drill: ``id`` (stable slug), ``notebook`` (the file stem of the notebook
    that asks it), ``check`` (``check(answer, **params) -> Verdict``, pure), ``params`` (the
    arguments it is declared with), ``kind`` (``"exercise"`` or ``"drill"``) and, for a drill,
    ``minutes`` (what an interview would allow)."""

    id: str
    notebook: str
    check: Callable
    params: Mapping = field(default_factory=dict)
    kind: str = "exercise"
    minutes: float | None = None

    def __post_init__(self):
        if not ID.fullmatch(self.id):
            raise ValueError(bilingual(f"an exercise id is lowercase words joined by dashes, got {self.id!r}",
                                       "练习的 id 只能由小写字母、数字和连字符组成"))
        if self.kind not in KINDS:
            raise ValueError(bilingual(f"kind must be one of {KINDS}, got {self.kind!r}", f"kind 只能是 {KINDS} 之一"))
        object.__setattr__(self, "params", MappingProxyType(dict(self.params)))


@dataclass(frozen=True)
class Worksheet:
    """A worksheet whose random cases are recorded box by box (``id``, ``notebook``)."""

    id: str
    notebook: str


_01, _02, _03 = "01_permutation_invariance", "02_sinusoidal_hand_calculation", "03_clock_hands_frequencies"
_04, _05, _06 = "04_relative_position", "05_learned_embeddings", "06_relative_family"
_07, _08, _09 = "07_rope", "08_alibi_extrapolation", "09_context_extension"
_10, _11, _12 = "10_rope_real_models", "11_positions_in_practice", "12_where_position_goes"
_13 = "13_summary_interview"

#: Every exercise and drill of the course, in the order of the course (within a notebook, the
#: order of its cells: a drill follows the section it practises, the exercises are in 练习).
#: A drill's ``minutes`` is what an interview would allow for writing it.
EXERCISES: tuple = (
    Exercise("drill-causal-attention", _01, attention_drills.check_drill_causal_attention, kind="drill", minutes=10),
    Exercise("perm-output-row", _01, permutation.check_output_row),
    Exercise("perm-pooled-change", _01, permutation.check_pooled_change),
    Exercise("perm-pe-input-output", _01, permutation.check_pe_input_output),
    Exercise("perm-weight-cell", _01, permutation.check_weight_cell),
    Exercise("pe-row-pos4", _02, encoding.check_pe, {"pos": 4}),
    Exercise("pe-row-pos2-d6", _02, encoding.check_pe, {"pos": 2, "d_model": 6}),
    Exercise("pe-input-pos5", _02, encoding.check_pe, {"pos": 5, "word": (0.2, -0.1)}),
    Exercise("pe-bug-symptom", _02, encoding.check_pe_bug_symptom),
    Exercise("drill-sinusoidal-table", _03, encoding_drills.check_drill_sinusoidal_table, kind="drill", minutes=10),
    Exercise("clock-first-short-hand", _03, encoding.check_first_short_hand),
    Exercise("wavelength-slowest-d8", _03, encoding.check_wavelength, {"i": 3, "d_model": 8}),
    Exercise("flipped-bits-12", _03, encoding.check_flipped_bits, {"pos": 12}),
    Exercise("nearest-repeat-d4", _03, encoding.check_nearest_repeat, {"d_model": 4, "max_offset": 100}),
    Exercise("split-column-j5", _03, encoding.check_split_column, {"j": 5, "d_model": 8}),
    Exercise("pe-dot-k100", _04, encoding.check_dot_product, {"k": 100, "d_model": 4}),
    Exercise("rotation-k1", _04, encoding.check_rotation, {"k": 1, "d_model": 2}),
    Exercise("rotation-product", _04, encoding.check_rotation_product, {"a": 5, "b": 2}),
    Exercise("scaled-rotation-scores", _04, encoding.check_scaled_rotation_scores, {"a": 1, "b": 1}),
    Exercise("segments-1300", _05, learned.check_segments, {"n_tokens": 1300, "max_len": 512}),
    Exercise("order-blind-accuracy", _05, learned.check_order_blind_accuracy),
    Exercise("rows-with-gradient", _05, learned.check_rows_with_gradient, {"train_lengths": (4, 12), "max_len": 20}),
    Exercise("longer-sentence", _05, learned.check_longer_sentence),
    Exercise("drill-t5-bucket", _06, relative_family_drills.check_drill_t5_bucket, kind="drill", minutes=15),
    Exercise("t5-bucket-k-20", _06, relative_family.check_t5_bucket, {"k": -20}),
    Exercise("t5-buckets-after", _06, relative_family.check_t5_buckets_used,
             {"side": "after", "num_buckets": 16, "max_distance": 64}),
    Exercise("shaw-row", _06, relative_family.check_shaw_row, {"m": 10, "n": 3, "max_relative": 4}),
    Exercise("moving-terms", _06, relative_family.check_moving_terms, {"scheme": "absolute", "vary": "m"}),
    Exercise("drill-rope-interleaved", _07, rope_drills.check_drill_rope_interleaved, kind="drill", minutes=10),
    Exercise("drill-rope-cos-sin", _07, rope_drills.check_drill_rope_cos_sin, kind="drill", minutes=5),
    Exercise("drill-rope-rotate-half", _07, rope_drills.check_drill_rope_rotate_half, kind="drill", minutes=5),
    Exercise("drill-rope-permute", _07, rope_drills.check_drill_rope_permute, kind="drill", minutes=10),
    Exercise("rope-angle", _07, rope.check_rope_angle, {"i": 1, "pos": 100, "d_model": 4}),
    Exercise("rope-score", _07, rope.check_rope_score, {"q": (1, 0), "key": (0, 1), "m": 3, "n": 4}),
    Exercise("rope-pe-position", _07, rope.check_rope_pe_position, {"p": 20, "pos": 6}),
    Exercise("rope-shift", _07, rope.check_rope_shift, {"shift": 7}),
    Exercise("llama-row", _07, rope.check_llama_row, {"r": 5, "head_dim": 8}),
    Exercise("partial-rotary-pairs", _07, rope.check_partial_rotary_pairs),
    Exercise("drill-alibi-slopes", _08, alibi_drills.check_drill_alibi_slopes, kind="drill", minutes=10),
    Exercise("alibi-slope-h3", _08, alibi.check_alibi_slope, {"h": 3, "num_heads": 8}),
    Exercise("alibi-slope-h10-of-12", _08, alibi.check_alibi_slope, {"h": 10, "num_heads": 12}),
    Exercise("alibi-bias", _08, alibi.check_alibi_bias, {"h": 2, "num_heads": 8, "m": 6, "n": 2}),
    Exercise("alibi-start", _08, alibi.check_alibi_start, {"seq_len": 20}),
    Exercise("drill-scaled-frequencies", _09, context_drills.check_drill_scaled_frequencies, kind="drill", minutes=20),
    Exercise("rotations-pair40", _09, context.check_rotations, {"i": 40, "d_model": 128, "length": 4096}),
    Exercise("unseen-pairs", _09, context.check_unseen_pairs, {"d_model": 128, "train_len": 4096, "target_len": 16384}),
    Exercise("ntk-base", _09, context.check_ntk_base, {"d_model": 128, "factor": 4}),
    Exercise("yarn-attention-factor", _09, context.check_yarn_attention_factor, {"factor": 8}),
    Exercise("beta-ratio", _09, context.check_beta_ratio, {"d_model": 16, "factor": 4}),
    Exercise("drill-kv-cache-step", _10, inference_drills.check_drill_kv_cache_step, kind="drill", minutes=15),
    Exercise("mla-softmax-scale", _10, real_models.check_softmax_scale, {"model": "DeepSeek-V3"}),
    Exercise("llama3-slowdown", _10, real_models.check_llama3_slowdown, {"wavelength": 4096}),
    Exercise("mla-cache", _10, real_models.check_mla_cache, {"model": "DeepSeek-V3"}),
    Exercise("drill-position-ids", _11, practice_drills.check_drill_position_ids, kind="drill", minutes=5),
    Exercise("drill-packed-positions", _11, practice_drills.check_drill_packed_positions, kind="drill", minutes=10),
    Exercise("decode-position", _11, practice.check_decode_position, {"n_pad": 4, "n_real": 6}),
    Exercise("cu-seqlens", _11, practice.check_cu_seqlens, {"lengths": (3, 5, 2)}),
    Exercise("bf16-position", _11, practice.check_bf16_position, {"pos": 5050}),
    Exercise("streaming-position", _11, practice.check_streaming_position,
             {"n_tokens": 1000, "n_sink": 4, "n_recent": 8}),
    Exercise("raster-offset", _12, rope_2d.check_raster_offset, {"cols": 12}),
    Exercise("causal-weight", _12, probes.check_causal_weight, {"n": 9}),
    Exercise("mrope-text-start", _12, rope_2d.check_mrope_text_start, {"n_text_before": 5, "grid_thw": (1, 6, 8)}),
    Exercise("shift-invariance", _13, relative_family.check_shift_invariance),
    Exercise("fast-pair-kept", _13, context.check_fast_pair_kept),
)

#: Ids of exercises the course no longer asks, with why: a learner's record of them is kept (it is
#: never deleted), but no table counts it. An id is never reused.
RETIRED = {
    "rotated-dims-neox": "GPT-NeoX-20B's 24 of 96 rotated dims: computed once, in 07 §10's exercise 6 "
                         "(partial-rotary-pairs); 10 asks where YaRN's temperature goes instead (mla-softmax-scale).",
}

#: The worksheets whose cases are recorded (notebook 02's hand calculation of the PE table).
WORKSHEETS: tuple = (Worksheet("pe-table", _02),)

_BY_ID = {e.id: e for e in EXERCISES}
if len(_BY_ID) != len(EXERCISES) or set(_BY_ID) & set(RETIRED):
    raise RuntimeError(bilingual("two exercises share an id (or reuse a retired one)", "两道练习用了同一个 id（或用了已退役的 id）"))


def exercise(exercise_id: str) -> Exercise:
    """The declared exercise with this id (a clear error naming the notebook's ids otherwise)."""
    try:
        return _BY_ID[exercise_id]
    except (KeyError, TypeError):
        raise KeyError(bilingual(f"no exercise has the id {exercise_id!r}; declared ids: {', '.join(_BY_ID)}",
                                 f"没有 id 为 {exercise_id!r} 的练习")) from None


def for_notebook(stem: str, kind: str | None = None) -> tuple:
    """The exercises (and drills) the notebook ``stem`` asks, in order; ``kind`` keeps one kind."""
    return tuple(e for e in EXERCISES if e.notebook == stem and (kind is None or e.kind == kind))


def for_kind(kind: str) -> tuple:
    """Every declared exercise of one ``kind`` (``"exercise"`` or ``"drill"``), in course order."""
    return tuple(e for e in EXERCISES if e.kind == kind)


def by_notebook(kind: str | None = None) -> dict:
    """Notebook stem -> the ids of its exercises (of one ``kind`` if given), in course order."""
    out: dict = {}
    for e in EXERCISES:
        if kind is None or e.kind == kind:
            out.setdefault(e.notebook, []).append(e.id)
    return {stem: tuple(ids) for stem, ids in out.items()}


def worksheet(worksheet_id: str) -> Worksheet:
    """The declared worksheet with this id."""
    for w in WORKSHEETS:
        if w.id == worksheet_id:
            return w
    raise KeyError(bilingual(f"no worksheet has the id {worksheet_id!r}", f"没有 id 为 {worksheet_id!r} 的练习纸"))


#: What a verdict adds when the cell changed the exercise's declared arguments.
VARIANT_NOTE = "（你改了题目的参数 {changed}：这是变体，照常判分，但不记进度。）"


def _same(a, b) -> bool:
    return normalise(a) == normalise(b)


def check(exercise_id: str, answer, **params) -> Verdict:
    """Grade ``answer`` for the declared exercise ``exercise_id`` and record the verdict in the
    learner's progress (:func:`posenc.course.progress.record_check`) unless it is pending (the
    answer is still ``None``, or a drill's stub is unfinished). ``params`` may repeat the
    declared arguments that teach something (``i=1, pos=100``); an argument that differs from
    the declaration grades that variant and records nothing (the verdict says so).
    """
    ex = exercise(exercise_id)
    signature = inspect.signature(ex.check)
    unknown = [k for k in params if k not in signature.parameters or k == "answer"]
    if unknown:
        raise TypeError(bilingual(f"{exercise_id}: unknown argument(s) {unknown}; the exercise takes "
                                  f"{[p for p in signature.parameters if p != 'answer']}",
                                  f"{exercise_id} 没有参数 {unknown}"))
    changed = {}
    for k, v in params.items():
        declared = ex.params.get(k, signature.parameters[k].default)
        if declared is inspect.Parameter.empty or not _same(v, declared):
            changed[k] = v
    verdict = ex.check(answer, **{**ex.params, **params})
    if changed:
        if not verdict.pending:
            verdict.message += VARIANT_NOTE.format(changed=", ".join(f"{k}={v!r}" for k, v in changed.items()))
        return verdict
    verdict.exercise = ex.id
    if not verdict.pending:
        from .progress import record_check

        record_check(ex.id, verdict)
    return verdict
