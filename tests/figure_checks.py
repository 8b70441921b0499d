"""Figure helpers shared by the test modules."""
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
