"""The learner's progress, kept on their own machine: every ``check_*`` records its result and
every quiz the first choice per question, in one JSON file.

The file is ``$POSENC_PROGRESS`` (default ``~/.posenc/progress.json``), written atomically
(a temporary file in the same folder, then ``os.replace``). A corrupt or unwritable file gives a
one-line warning and never breaks a check: the course works without it. Layout::

    {"version": 1,
     "exercises": {exercise_id: {"notebook": …, "solved": bool, "first": "正确" | "再想想",
                                 "attempts": int}},
     "quiz": {quiz_name: {question_text: {"first": option_index, "right": bool}}}}

:data:`EXERCISES` lists, per notebook, the exercises its 练习 section asks (a test checks it
against the notebooks); :func:`progress_summary` reads the file against it, and
``posenc.figures.progress.show_progress`` shows it.
"""
from __future__ import annotations

import json
import os
import pathlib
import sys
import tempfile

from .course import NOTEBOOK_TITLES

#: The environment variable naming the progress file.
PROGRESS_ENV = "POSENC_PROGRESS"
_VERSION = 1

#: Per notebook, the exercises of its 练习 section, in order, as :func:`exercise_id` keys
#: (tests/test_progress.py reads them off the notebooks' exercise cells).
EXERCISES = {
    "01_permutation_invariance": (
        "check_choice(exercise='01.1')",
        "check_choice(exercise='01.2')",
        "check_choice(exercise='01.3')",
        "check_choice(exercise='01.4')",
    ),
    "02_sinusoidal_hand_calculation": (
        'check_pe(pos=4, d_model=2, base=10000, word=None)',
        'check_pe(pos=2, d_model=6, base=10000, word=None)',
        'check_pe(pos=5, d_model=2, base=10000, word=[0.2, -0.1])',
        "check_choice(exercise='02.4')",
    ),
    "03_clock_hands_frequencies": (
        "check_choice(exercise='03.1')",
        'check_wavelength(i=3, d_model=8, base=10000, decimals=1)',
        'check_flipped_bits(pos=12)',
        'check_nearest_repeat(d_model=4, max_offset=100, base=10000)',
        'check_split_column(j=5, d_model=8)',
    ),
    "04_relative_position": (
        'check_dot_product(k=100, d_model=4, base=10000)',
        'check_rotation(k=1, d_model=2, base=10000)',
        'check_rotation_product(a=5, b=2)',
        'check_scaled_rotation_scores(a=1, b=1, k=1)',
    ),
    "05_learned_embeddings": (
        'check_segments(n_tokens=1300, max_len=512)',
        'check_order_blind_accuracy()',
        'check_rows_with_gradient(train_lengths=[4, 12], max_len=20)',
        "check_choice(exercise='05.4')",
    ),
    "06_relative_family": (
        'check_t5_bucket(k=-20, bidirectional=True, num_buckets=32, max_distance=128)',
        "check_t5_buckets_used(side='after', bidirectional=True, num_buckets=16, max_distance=64)",
        'check_shaw_row(m=10, n=3, max_relative=4)',
        "check_moving_terms(scheme='absolute', vary='m')",
    ),
    "07_rope": (
        'check_rope_angle(i=1, pos=100, d_model=4, base=10000)',
        'check_rope_score(q=[1, 0], key=[0, 1], m=3, n=4, base=10000)',
        'check_rope_pe_position(p=20, pos=6)',
        'check_rope_shift(shift=7, m=3, n=10, d_model=16, seed=0)',
        'check_llama_row(r=5, head_dim=8)',
        'check_partial_rotary_pairs(hidden_size=6144, num_heads=64, rotary_pct=0.25)',
    ),
    "08_alibi_extrapolation": (
        'check_alibi_slope(h=3, num_heads=8)',
        'check_alibi_slope(h=10, num_heads=12)',
        'check_alibi_bias(h=2, num_heads=8, m=6, n=2, causal=True)',
        'check_alibi_start(seq_len=20, train_lengths=[4, 8])',
    ),
    "09_context_extension": (
        'check_rotations(i=40, d_model=128, length=4096, base=10000)',
        'check_unseen_pairs(d_model=128, train_len=4096, target_len=16384, base=10000)',
        'check_ntk_base(d_model=128, factor=4, base=10000)',
        'check_yarn_attention_factor(factor=8)',
        'check_beta_ratio(d_model=16, factor=4)',
    ),
    "10_rope_real_models": (
        "check_rotated_dims(model='GPT-NeoX-20B')",
        'check_llama3_slowdown(wavelength=4096)',
        "check_mla_cache(model='DeepSeek-V3')",
    ),
    "11_positions_in_practice": (
        'check_decode_position(n_pad=4, n_real=6)',
        'check_cu_seqlens(lengths=[3, 5, 2])',
        'check_bf16_position(pos=5050)',
        'check_streaming_position(n_tokens=1000, n_sink=4, n_recent=8)',
    ),
    "12_where_position_goes": (
        'check_raster_offset(cols=12)',
        'check_causal_weight(n=9)',
        'check_mrope_text_start(n_text_before=5, grid_thw=[1, 6, 8])',
    ),
    "13_summary_interview": (
        'check_shift_invariance()',
        'check_fast_pair_kept()',
    ),
}

_WARNED: set = set()


def progress_path() -> pathlib.Path:
    """Where the progress file is: ``$POSENC_PROGRESS`` or ``~/.posenc/progress.json``.
    Introduced in notebook 01_permutation_invariance."""
    env = os.environ.get(PROGRESS_ENV)
    return pathlib.Path(env).expanduser() if env else pathlib.Path.home() / ".posenc" / "progress.json"


def _warn(message: str) -> None:
    """One line on stderr, once per progress file and session."""
    key = str(progress_path())
    if key not in _WARNED:
        _WARNED.add(key)
        print(message, file=sys.stderr)


def _empty() -> dict:
    return {"version": _VERSION, "exercises": {}, "quiz": {}}


def load_progress() -> dict:
    """The progress record (an empty one when there is no file yet; a corrupt file is
    warned about in one line and read as empty). Introduced in notebook 01_permutation_invariance."""
    path = progress_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return _empty()
    except OSError as err:
        _warn(f"进度文件 {path} 读不了（{err.__class__.__name__}），这次不记录进度；练习照常检查。")
        return _empty()
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if not (isinstance(data, dict) and isinstance(data.get("exercises"), dict)
            and isinstance(data.get("quiz"), dict)):
        _warn(f"进度文件 {path} 已损坏，按空记录处理（下次记录时覆盖它）；练习照常检查。")
        return _empty()
    return data


def _save(data: dict) -> None:
    """Write ``data`` atomically; an unwritable place is warned about in one line."""
    path = progress_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".progress-", suffix=".json", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(data, f, ensure_ascii=False, indent=1, sort_keys=True)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError as err:
        _warn(f"进度文件 {path} 写不进去（{err.__class__.__name__}），这次不记录进度；练习照常检查。")


def _notebook_of(exercise: str) -> str | None:
    return next((nb for nb, ids in EXERCISES.items() if exercise in ids), None)


def record_check(exercise: str, verdict) -> None:
    """Record one answer to the exercise ``exercise`` (an :func:`exercise_id`): the first
    answer's verdict stays, attempts count up, solved stays True once reached. Never raises.
    Introduced in notebook 01_permutation_invariance."""
    try:
        data = load_progress()
        entry = data["exercises"].setdefault(
            exercise, {"notebook": _notebook_of(exercise), "solved": False,
                       "first": "正确" if verdict else "再想想", "attempts": 0})
        entry["attempts"] = int(entry.get("attempts", 0)) + 1
        entry["solved"] = bool(entry.get("solved")) or bool(verdict)
        _save(data)
    except Exception as err:          # progress must never break a check
        _warn(f"进度没记下来（{err.__class__.__name__}: {err}）；练习照常检查。")


def record_quiz(quiz: str, question: str, choice: int, right: bool) -> None:
    """Record the first choice for a quiz question (later picks change nothing). Never raises.
    Introduced in notebook 10_rope_real_models."""
    try:
        data = load_progress()
        asked = data["quiz"].setdefault(quiz, {})
        if question not in asked:
            asked[question] = {"first": int(choice), "right": bool(right)}
            _save(data)
    except Exception as err:
        _warn(f"进度没记下来（{err.__class__.__name__}: {err}）；测验照常判分。")


def quiz_first_tries(quiz: str, questions) -> tuple[int, int]:
    """(questions whose first recorded choice was right, questions answered at least once)
    for the quiz ``quiz`` among ``questions`` (their texts)."""
    asked = load_progress()["quiz"].get(quiz, {})
    seen = [asked[q] for q in questions if q in asked]
    return sum(bool(s.get("right")) for s in seen), len(seen)


def progress_summary(quizzes: dict) -> list[dict]:
    """One row per notebook with exercises or a quiz (``quizzes``: notebook -> its question
    bank, :data:`posenc.quiz.QUIZZES`): ``notebook``, ``title``, ``solved``, ``total``
    (exercises), ``quiz_right``, ``quiz_total`` (first-try score; total 0 when the notebook has
    no quiz) and ``quiz_answered``. Introduced in notebook 01_permutation_invariance."""
    data = load_progress()
    rows = []
    for nb, title in NOTEBOOK_TITLES.items():
        ids = EXERCISES.get(nb, ())
        bank = quizzes.get(nb)
        if not ids and not bank:
            continue
        solved = sum(bool(data["exercises"].get(e, {}).get("solved")) for e in ids)
        texts = [q["question"] for q in bank or ()]
        asked = data["quiz"].get(nb, {})
        rows.append({"notebook": nb, "title": title, "solved": solved, "total": len(ids),
                     "quiz_right": sum(bool(asked.get(t, {}).get("right")) for t in texts),
                     "quiz_answered": sum(t in asked for t in texts), "quiz_total": len(texts)})
    return rows


def reset_progress(confirm: bool = False) -> bool:
    """Clear the learner's progress, only with ``confirm=True`` (otherwise say how, and keep
    it). Returns True when it was cleared. Introduced in notebook 01_permutation_invariance."""
    if confirm is not True:
        print("进度没有清空：要清空，请运行 pl.reset_progress(confirm=True)。")
        return False
    _save(_empty())
    print(f"进度已清空（{progress_path()}）。")
    return True
