"""tools/drag_metrics.release_check: after a drag the page must come to show the kernel's
figure at the kernel's position. It waits for that (a loaded kernel may still be drawing the
last value) and fails when the two never agree, however long it waits."""
import itertools

import drag_metrics as dm  # tools/drag_metrics.py (pyproject puts tools/ on the test path)


class _Page:
    def __init__(self):
        self.polls = 0

    def wait_for_timeout(self, ms):
        self.polls += 1


def _stub(monkeypatch, page_shows, kernel):
    """The page shows the i-th (value, sha) of ``page_shows`` at its i-th look; the kernel ``kernel``."""
    looks = iter(page_shows)
    current = {}

    def look(*_):
        current.update(zip(("now", "sha"), next(looks)))
        return {"now": current["now"]}

    monkeypatch.setattr(dm, "kernel_shown", lambda page, name, control: dict(kernel))
    monkeypatch.setattr(dm, "slider_state", look)
    monkeypatch.setattr(dm, "displayed_sha", lambda page, explorer: current["sha"])


def test_agreement_at_once_needs_no_wait(monkeypatch):
    _stub(monkeypatch, [], {"position": 7, "sha": "a"})
    page = _Page()
    r = dm.release_check(page, None, 0, "clock", "pos", {"final_value": 7, "final_sha": "a"})
    assert r["release_ok"] and page.polls == 0


def test_a_kernel_still_drawing_is_waited_for(monkeypatch):
    # the page first shows the value before last, then the kernel's last figure arrives
    _stub(monkeypatch, [(7, "b"), (7, "a")], {"position": 7, "sha": "a"})
    page = _Page()
    r = dm.release_check(page, None, 0, "clock", "pos", {"final_value": 6, "final_sha": "c"}, timeout_s=60)
    assert r["release_ok"] and r["final_sha"] == "a" and page.polls == 2


def test_a_page_that_never_shows_the_kernels_figure_fails(monkeypatch):
    _stub(monkeypatch, itertools.repeat((7, "b")), {"position": 7, "sha": "a"})
    r = dm.release_check(_Page(), None, 0, "clock", "pos", {"final_value": 7, "final_sha": "b"}, timeout_s=0.05)
    assert r["release_ok"] is False and r["kernel"]["sha"] == "a" and r["final_sha"] == "b"


def test_the_position_counts_too(monkeypatch):
    # same figure, but the handle sits elsewhere: not a release the kernel agrees with
    _stub(monkeypatch, itertools.repeat((6, "a")), {"position": 7, "sha": "a"})
    r = dm.release_check(_Page(), None, 0, "clock", "pos", {"final_value": 6, "final_sha": "a"}, timeout_s=0.05)
    assert r["release_ok"] is False
    # a FloatSlider's 0.8999999999999999 is the page's 0.9
    _stub(monkeypatch, [], {"position": 0.8999999999999999, "sha": "a"})
    assert dm.release_check(_Page(), None, 0, "x", "y", {"final_value": 0.9, "final_sha": "a"})["release_ok"]
