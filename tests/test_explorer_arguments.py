"""Every explorer (and the training panel) checks its arguments up front, like every function
of the package: a bad value is a TypeError or ValueError naming the parameter the caller
passed and the allowed values, in English and in Chinese, never a raw ipywidgets TraitError
and never a value silently clamped by a slider (``ClockExplorer(pos=1000)`` once became 255).

For each explorer, one bad value per constructor argument; the table must cover every
argument of the signature. The ends of each slider's range are accepted.
"""
import inspect

import pytest

import posenc_lib as pl
from support import chinese_half, default_explorer, english_words_in

#: Explorer -> {argument: a bad value}. Out of a slider's range, off its step, not an option,
#: the wrong type.
BAD = {
    pl.PermutationExplorer: {"sentence": "猫狗咬", "use_pe": 1},
    pl.HandCalcExplorer: {"word_0": 1.5, "word_1": 0.52, "start": 2, "d_model": 10, "base": 5.0},
    pl.ClockExplorer: {"pos": 1000, "d_model": 18, "base": 1e7},
    pl.HeatmapExplorer: {"seq_len": 1, "d_model": 255, "base": 2.0, "layout": "x"},
    pl.RelativeExplorer: {"pos": -1, "k": 51, "d_model": 6, "base": 1.0},
    pl.SimilarityExplorer: {"d_model": 300, "base": 1e9, "projection": "yes"},
    pl.LearnedTableExplorer: {"step": 3, "run": "a run"},
    pl.T5BucketExplorer: {"num_buckets": 6, "max_distance": 30, "bidirectional": None},
    pl.ScoreTermsExplorer: {"m": 10, "a": "yes", "b": 0, "c": None, "d": 1},
    pl.RopeExplorer: {"pos": -100, "i": 8, "base": 1e6, "n": 41},
    pl.AlibiExplorer: {"num_heads": 17, "seq_len": 3, "head": 9, "causal": 0},
    pl.ContextExplorer: {"rope_type": "dynamic", "factor": 3, "train_len": 100, "target_len": 20000,
                             "d_model": 100, "base": 0.5},
    pl.RealModelsExplorer: {"model": "GPT-5", "seq_len": 1000},
    pl.Rope2DExplorer: {"grid": 17, "query_row": 16, "query_col": -1, "layout": "1d", "base": 1e7},
    pl.TrainingPanel: {"seed": -1, "steps": 7, "pes": ("rope", "x")},
}
#: Explorer -> arguments at the ends of its sliders (accepted, shown as given).
EDGES = {
    pl.ClockExplorer: {"pos": 255, "d_model": 2, "base": 1e6},
    pl.HeatmapExplorer: {"seq_len": 200, "d_model": 256, "base": 10.0, "layout": "split"},
    pl.RopeExplorer: {"pos": 0, "i": 7, "base": 1e5},
    pl.HandCalcExplorer: {"word_0": -1.0, "word_1": 1.0, "start": 0, "d_model": 8},
    pl.T5BucketExplorer: {"num_buckets": 64, "max_distance": 512},
    pl.Rope2DExplorer: {"grid": 16, "query_row": 15, "query_col": 0, "layout": "mrope", "base": 1e6},
}
CASES = [(cls, arg, value) for cls, args in BAD.items() for arg, value in args.items()]


def test_every_explorer_and_every_argument_is_covered():
    assert set(BAD) == set(pl.EXPLORERS.values()) | {pl.TrainingPanel}
    for cls, args in BAD.items():
        params = [p for p in inspect.signature(cls).parameters if p != "self"]
        assert sorted(args) == sorted(params), cls.__name__


@pytest.mark.parametrize("cls,arg,value", CASES, ids=[f"{c.__name__}-{a}" for c, a, _ in CASES])
def test_a_bad_argument_is_refused_naming_it(cls, arg, value):
    if cls is pl.AlibiExplorer and arg == "head":
        kwargs = {"num_heads": 8, "head": value}          # the head slider ends at num_heads
    else:
        kwargs = {arg: value}
    with pytest.raises((TypeError, ValueError)) as info:
        cls(**kwargs)
    message = str(info.value)
    assert type(info.value).__module__ == "builtins", f"{type(info.value)} leaked from a widget"
    chinese = chinese_half(message)
    english = message[:len(message) - len(chinese) - 3]
    assert english.startswith((f"{arg} ", f"{arg}[")), message
    assert arg in chinese and not english_words_in(chinese), message


def test_the_documented_examples():
    """The cases that once slipped through: a TraitError, a silent clamp, a silent 0."""
    for call, words in ((lambda: pl.ContextExplorer(factor=3), "factor must be one of (1, 2, 4, 8, 16, 32)"),
                        (lambda: pl.HeatmapExplorer(layout="x"), "layout must be one of ('interleaved', 'split')"),
                        (lambda: pl.ClockExplorer(pos=1000), "pos must be in [0, 255]"),
                        (lambda: pl.RopeExplorer(pos=-100), "pos must be in [0, 40]")):
        with pytest.raises(ValueError, match=words.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
            call()


@pytest.mark.parametrize("cls", sorted(EDGES, key=lambda c: c.__name__), ids=lambda c: c.__name__)
def test_the_ends_of_each_range_are_accepted(cls):
    ex = cls(**EDGES[cls])
    for arg, value in EDGES[cls].items():
        if arg in ex.controls:
            assert ex.controls[arg].value == value, (arg, ex.controls[arg].value)


@pytest.mark.parametrize("name", sorted(pl.EXPLORERS))
def test_options_are_shown_in_chinese_and_passed_as_keywords(name):
    """A dropdown's labels are what the reader sees: Chinese with the keyword in brackets (or a
    name such as YaRN), never the bare English keyword; the value passed on stays the keyword."""
    if pl.cjk_font() is None:
        pytest.skip("without a CJK font every label is English by design")
    ex = default_explorer(name)
    for cname, control in ex.controls.items():
        for option in getattr(control, "options", ()):
            shown, value = option if isinstance(option, tuple) else (option, option)
            if isinstance(value, str) and value.isascii():
                assert shown != value, f"{name}.{cname}: option {value!r} is shown as the bare English keyword"


def test_the_heatmap_layouts_read_in_chinese():
    ex = pl.HeatmapExplorer(layout="split")
    assert ex.controls["layout"].value == "split"
    if pl.cjk_font() is not None:
        assert [label for label, _ in ex.controls["layout"].options] == ["交错 (interleaved)", "前后分半 (split)"]
