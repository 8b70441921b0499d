"""Shared test settings: matplotlib never opens a window, hypothesis stays quick."""
import os

os.environ.setdefault("MPLBACKEND", "Agg")

from hypothesis import settings

settings.register_profile("course", max_examples=60, deadline=None)
settings.load_profile("course")


def pytest_terminal_summary(terminalreporter):
    """Print how long each notebook took to execute (nbclient, fresh kernel)."""
    try:
        from test_notebooks import DURATIONS
    except ImportError:
        return
    if DURATIONS:
        terminalreporter.section("notebook execution times (nbclient, fresh kernel)")
        for name, seconds in sorted(DURATIONS.items()):
            terminalreporter.write_line(f"{name:45s} {seconds:6.1f} s")
