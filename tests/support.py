"""Helpers and sample data shared by the test modules."""
import functools
import heapq
import io
import itertools
import warnings

import numpy as np

import posenc_lib as pl
from posenc.ui.engine.fill_thread import _Handle


@functools.cache
def default_explorer(name: str):
    """The explorer ``name`` with its defaults, made once per test process: for tests that only
    read its widgets (a construction draws the figure twice, 0.3-1 s). Never set a control on it."""
    return pl.EXPLORERS[name]()


def pixels(fig) -> np.ndarray:
    """The figure rendered to raw RGBA bytes (a full draw, animated artists included)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="rgba")
    return np.frombuffer(buf.getvalue(), dtype=np.uint8)


def rgb(png: bytes) -> np.ndarray:
    """PNG bytes as an (height, width, 3) array of ints."""
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)


def full_render(fig) -> np.ndarray:
    """An unpickled copy of ``fig`` drawn on a fresh canvas (no blit, no cached layer or glyph),
    as :func:`rgb` pixels."""
    import pickle

    buf = io.BytesIO()
    with pl.figure_style():
        pickle.loads(pickle.dumps(fig)).savefig(buf, format="png", dpi="figure")
    return rgb(buf.getvalue())


def share_differing(a: np.ndarray, b: np.ndarray) -> float:
    """Share of pixels that differ by more than 8 (of 255) in some channel."""
    assert a.shape == b.shape
    return float(np.mean(np.any(np.abs(a - b) > 8, axis=-1)))


def assert_draws_cleanly(make) -> None:
    """``make()`` returns a Figure that draws something, with no warning of any kind."""
    from matplotlib.figure import Figure

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fig = make()
        assert isinstance(fig, Figure)
        assert pixels(fig).std() > 0


#: English words that must not appear in the Chinese half of a message (after its " / ").
#: ("a" is left out: the Chinese half may name the letters a, b, c, d.)
ENGLISH_WORDS = {"and", "are", "at", "be", "between", "both", "but", "cannot", "contains",
                 "either", "from", "got", "in", "is", "least", "most", "must", "neither", "not", "of",
                 "one", "only", "or", "should", "than", "the", "to", "with", "within"}


def chinese_half(message: str) -> str:
    """The Chinese half of an ``"English / 中文"`` message: from the " / " before its first CJK
    character outside quotes (the whole message when there is no such separator)."""
    import re

    unquoted = re.sub(r"'[^']*'|\"[^\"]*\"", lambda m: "_" * len(m.group()), message)
    first = next((i for i, ch in enumerate(unquoted) if "\u4e00" <= ch <= "\u9fff"), None)
    assert first is not None, f"no Chinese in {message!r}"
    sep = message.rfind(" / ", 0, first)
    return message[sep + 3:] if sep >= 0 else message


def english_words_in(text: str) -> list:
    """English words of :data:`ENGLISH_WORDS` in ``text``, leaving out quoted strings and code."""
    import re

    text = re.sub(r"'[^']*'|\"[^\"]*\"|`[^`]*`", "", text)
    return [w for w in re.findall(r"[A-Za-z]+", text) if w.lower() in ENGLISH_WORDS and w not in ("None",)]


def assert_wrong(verdict, shown, *keywords) -> None:
    """A wrong answer's verdict: it starts by quoting the entry (``你填的是 <shown>``) and names
    each keyword (the slip it shows)."""
    assert not verdict, verdict.message
    assert verdict.message.startswith(f"你填的是 {shown}"), verdict.message
    for word in keywords:
        assert word in verdict.message, (word, verdict.message)


def assert_placeholder(verdict) -> None:
    """The verdict for an answer left at None: not right, and it says so."""
    assert not verdict and "None" in verdict.message


def notebook_code(name: str) -> list:
    """The source of every code cell of ``notebooks/<name>``."""
    import json
    import pathlib

    path = pathlib.Path(__file__).resolve().parents[1] / "notebooks" / name
    return ["".join(c["source"]) for c in json.loads(path.read_text(encoding="utf-8"))["cells"]
            if c["cell_type"] == "code"]


def assert_refused_clearly(call, exc, words) -> None:
    """``call()`` raises ``exc`` with a message naming ``words`` and also written in Chinese."""
    import pytest

    with pytest.raises(exc) as info:
        call()
    msg = str(info.value)
    assert words in msg
    assert any("\u4e00" <= ch <= "\u9fff" for ch in msg), "message should also be in Chinese"


#: Two rows shaped like ``extrapolation_table``'s: one model that runs at every length, one
#: whose learned table is too short (no accuracy, an error message).
EXTRAPOLATION_ROWS = [
    {"label": "rope", "pe": "rope", "max_len": 8, "in_distribution": 1.0,
     "by_length": {9: 0.996, 10: 1.0}, "error": None},
    {"label": "learned (max_len=8)", "pe": "learned", "max_len": 8, "in_distribution": 0.999,
     "by_length": {9: None, 10: None}, "error": "sequence length 9 exceeds max_len=8"},
]

#: Arguments of a training run for structure tests (shapes, keys, bookkeeping), not accuracy.
SMALL = dict(steps=20, n_train=64, n_test=64)


#: Samples of each public plot_*: its arguments as Python source (``pl`` in scope), evaluated
#: here and in a fresh interpreter with no CJK font. Plots that need a TrainResult use the
#: memoised ``pl.trained_run`` or a 10-step run.
PLOT_SAMPLES = {
    # figures/sinusoid.py
    "plot_pe_heatmap": [""],
    "plot_clock": ["", "5", "3"],
    "plot_wavelengths": ["", "64, bases=(100.0, 10000.0)"],
    "plot_pe_curves": ["", "16, 12"],
    "plot_binary_vs_sinusoid": ["", "2, n_pos=16"],
    # figures/hand_calculation.py
    "plot_hand_calculation": [""],
    # figures/permutation.py
    "plot_attention": ["", "'猫咬狗'", "'狗咬猫', use_pe=True, reference='猫咬狗'"],
    # figures/relative.py
    "plot_dot_product": [""],
    "plot_shift_regression": ["k=1"],
    "plot_cosine_histograms": [""],
    "plot_relative_rotation": ["5, -3, 16"],
    "plot_similarity": ["64, projection=True"],
    # figures/learned.py
    "plot_loss_curves": [
        "{pe: pl.trained_run(pe) for pe in ('none', 'sinusoidal', 'learned')}",
        "{'learned': [2.0, 1.0, 0.5]}",
        "{'none': [2.0, 0.7]}",
        "{'none': [2.0, 0.7], 'learned': [2.0, 0.1]}",
    ],
    "plot_learned_similarity": ["", "step=0",
                                "run=pl.train_order_model('learned', steps=10, snapshot_every=5)"],
    "plot_length_accuracy": [
        "{'none': {4: 0.5, 9: 0.5}, 'learned': {4: 1.0, 9: None}, 'learned (16)': {4: 1.0, 9: 0.7}}",
        "{'sinusoidal': {4: 1.0, 5: 0.9}}",
        "{'learned': {4: 1.0, 9: None}}",
    ],
    # figures/rope.py
    "plot_rope": ["", "pos=16, n=20, i=3, base=100.0"],
    "plot_rope_decay": ["", "d_model=16, base=100.0, max_offset=40, seed=3"],
    "plot_rope_2d": ["", "grid=12, query_row=11, query_col=0, layout='mrope', base=1e6", "layout='axial'"],
    "plot_layer_probes": ["{'a': pl.LayerProbes([1.0, 0.8, 0.5], [1.0, 0.9, 0.7]), 'b': pl.LayerProbes([0.0, 0.3, 0.4], [0.5, 0.6, 0.7])}"],
    "plot_position_readout": ["{'a': list(range(16)), 'b': list(range(8)) + [7.5] * 8}, 8"],
    # figures/practice.py
    "plot_packing": ["", "[1, 4, 2, 6]"],
    "plot_angle_error": ["", "positions=(100,), head_dim=16, base=10000.0, dtypes=('float16',)"],
    "plot_position_rounding": ["", "250, 300, dtypes=('bfloat16',)", "2040, 2100, dtypes=('float16', 'float32')"],
    # figures/alibi.py
    "plot_alibi_bias": ["", "seq_len=30, num_heads=4, heads=2, causal=True", "causal=True"],
    "plot_alibi_attention": ["", "seq_len=20, num_heads=4, causal=True, query=19"],
    # figures/extrapolation.py
    "plot_extrapolation": [
        repr(EXTRAPOLATION_ROWS),
        repr([{"label": "rope", "pe": "rope", "in_distribution": 1.0, "by_length": {9: 1.0}, "error": None}]),
    ],
    "plot_accuracy_by_start": ["{'rope': {0: 1.0, 1: 0.9}, 'alibi': {0: 0.6, 1: 1.0}}, 8",
                               "{'rope': {0: 1.0}}, 8"],
    # figures/relative_family.py
    "plot_t5_buckets": ["", "num_buckets=8, max_distance=20, bidirectional=False"],
    "plot_score_terms": ["", "m=200, terms='ad'"],
    "plot_shaw_index": ["", "query_len=5, key_len=9, max_relative=2"],
    # figures/context.py
    "plot_rope_scaling": ["", "rope_type='yarn', factor=8.0, train_len=2048, target_len=16384, d_model=64",
                          "rope_type='linear', factor=2.0", "rope_type='ntk'"],
    "plot_yarn_ramp": ["", "d_model=8, train_len=16", "d_model=64, train_len=65536, base=500000.0"],
    # figures/real_models.py
    "plot_real_model": ["", "model='GPT-NeoX-20B', seq_len=1024", "model='DeepSeek-V3', seq_len=1048576"],
    # figures/trained_attention.py
    "plot_trained_attention": ["{'none': pl.trained_run('none'), 'rope': pl.trained_run('rope')}",
                               "{'sinusoidal': pl.trained_run('sinusoidal')}, layer=1, head=2"],
}


#: Every public plot_*, found by introspection (a new one without PLOT_SAMPLES must fail).
PLOTS = sorted(name for name in pl.__all__ if name.startswith("plot_"))
#: (plot name, sample index) for every sample; a plot without samples gets (name, 0).
PLOT_CASES = [(name, i) for name in PLOTS for i in range(len(PLOT_SAMPLES.get(name, [None])))]


def plot_call(name: str, i: int, ax: str = "") -> str:
    """Python source calling plot ``name`` with its sample ``i`` (and ``ax`` source, if any)."""
    args = PLOT_SAMPLES[name][i]
    return f"pl.{name}({', '.join(a for a in (args, ax) if a)})"


def plot_case_id(case) -> str:
    name, i = case
    return f"{name}-{i}"


def no_cjk_figures() -> dict:
    """Key -> source of every figure the no-CJK-font check draws (conftest ``no_cjk_verdicts``):
    each plot sample (key ``plot_x-i``) and each explorer (key ``explorer name``)."""
    figures = {plot_case_id(c): plot_call(*c) for c in PLOT_CASES if c[0] in PLOT_SAMPLES}
    figures.update({f"explorer {name}": f"pl.EXPLORERS[{name!r}]().figure" for name in pl.EXPLORERS})
    return figures


def declared(stem: str) -> list[str]:
    """The exercises notebook ``stem`` declares (posenc/course/catalogue.py), written as the call
    they make: ``check_alibi_slope(h=3, num_heads=8)`` (its drills are tests/test_drill*.py's)."""
    from posenc.course import catalogue

    return [f"{e.check.__name__}(" + ", ".join(f"{k}={v!r}" for k, v in e.params.items()) + ")"
            for e in catalogue.for_notebook(stem, kind="exercise")]


# ---------------------------------------------------------------------------
# Drills: a slip written in a test must be named by its own message
# ---------------------------------------------------------------------------
def slip_message(drill, name: str) -> str:
    """The message ``drill`` declares for its slip ``name``."""
    return next(s.message for s in drill.slips if s.name == name)


def assert_names(check, drill, fn, name):
    """``check(fn)`` is a slip verdict whose message begins with slip ``name``'s; returns it."""
    verdict = check(fn)
    assert verdict.kind == "slip" and not verdict, (name, verdict)
    assert verdict.message.startswith(slip_message(drill, name)), (name, verdict.message)
    return verdict


def assert_every_slip_tested(pairs) -> None:
    """``pairs`` of (drill, the slip names a test module writes as loops): each drill's declared
    slips are exactly those."""
    for drill, tested in pairs:
        assert {s.name for s in drill.slips} == set(tested), drill.name


class FakeLoop:
    """A clock and a ``call_later`` that move only when the test says so (its handles are the
    fill thread's own)."""

    def __init__(self):
        self.now = 100.0
        self.queue = []
        self.seq = itertools.count()

    def clock(self):
        return self.now

    def call_later(self, delay, callback):
        handle = _Handle()
        heapq.heappush(self.queue, (self.now + delay, next(self.seq), callback, handle))
        return handle

    def step(self) -> bool:
        """Run the next callback (the clock jumps to its time); False: none is pending."""
        while self.queue:
            when, _, callback, handle = heapq.heappop(self.queue)
            if handle.cancelled():
                continue
            self.now = max(self.now, when)
            callback()
            return True
        return False

    def advance(self, dt):
        """Let ``dt`` seconds pass, running every callback due meanwhile."""
        end = self.now + dt
        while self.queue and self.queue[0][0] <= end:
            self.step()
        self.now = end

    def run(self, limit=100_000):
        """Run callbacks until none is pending."""
        for _ in range(limit):
            if not self.step():
                return
        raise AssertionError("the fill never stopped")
