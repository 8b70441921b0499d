"""Helpers and sample data shared by the test modules."""
import io
import warnings

import numpy as np


def pixels(fig) -> np.ndarray:
    """The figure rendered to raw RGBA bytes (a full draw, animated artists included)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="rgba")
    return np.frombuffer(buf.getvalue(), dtype=np.uint8)


def assert_draws_cleanly(make) -> None:
    """``make()`` returns a Figure that draws something, with no warning of any kind."""
    from matplotlib.figure import Figure

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fig = make()
        assert isinstance(fig, Figure)
        assert pixels(fig).std() > 0


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
