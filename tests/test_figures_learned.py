"""posenc/figures/learned.py: loss curves, the learned table's row similarity taking shape,
accuracy by length, the training table and the training panel. (Drawing contracts:
test_figures_style.py and test_figures_explorer.py.)

Expected values: cosines as loops (tests/reference.py) on the run's own snapshots, and direct
calls of the training API.
"""
import re

import numpy as np
import pytest

import posenc_lib as pl
import reference as ref
from posenc.figures.learned import _training_table_html


def test_training_table_html_lists_every_pe():
    runs = {"sinusoidal": pl.trained_run("sinusoidal")}
    text = _training_table_html(runs, ["none", "sinusoidal"])
    assert text.count("<tr>") == 3 and "—" in text
    accs = re.findall(r"class='posenc-acc'>([0-9.]+)<", text)
    assert accs == [f"{runs['sinusoidal'].train_accuracy:.3f}", f"{runs['sinusoidal'].test_accuracy:.3f}"]


def test_plot_learned_similarity_refuses_bad_input():
    with pytest.raises(ValueError):
        pl.plot_learned_similarity(step=3)          # not a snapshot step
    with pytest.raises(ValueError):
        pl.plot_learned_similarity(run=pl.trained_run("sinusoidal"))


def test_plot_loss_curves_refuses_empty_runs():
    with pytest.raises(ValueError):
        pl.plot_loss_curves({})


# ---------------------------------------------------------------------------
# The learned explorer
# ---------------------------------------------------------------------------
def test_learned_explorer_shows_the_snapshot_similarity():
    ex = pl.EXPLORERS["learned"]()
    run = pl.trained_run("learned")
    assert [v for _, v in ex.controls["step"].options] == [s for s, _ in run.snapshots]
    assert ex.controls["step"].value == run.snapshots[-1][0]
    for step, table in (run.snapshots[0], run.snapshots[7]):
        table = table.astype(float).tolist()          # plain Python floats for the loop
        ex.controls["step"].value = step
        shown = np.asarray(ex.view.image.get_array())
        for p in range(len(table)):
            for q in range(len(table)):
                assert abs(shown[p, q] - ref.cosine(table[p], table[q])) < 1e-9
        assert f"{step}" in ex.view.title.get_text()
    ex.play.value = 2                                 # the Play button drives the slider
    assert ex.controls["step"].value == run.snapshots[2][0]
    assert ex.redraws == 1


def test_learned_explorer_moves_change_the_same_artists_and_never_train():
    """A slider move updates the artists it has in place and blits them: the same figure, the
    same artists, no full redraw, the same run (nothing trained). How long a move takes against
    a new figure is measured by tools/benchmark.py, never asserted in a test."""
    ex = pl.LearnedTableExplorer()
    fig, run, image = ex.figure, ex.run, ex.view.image
    children = [list(ax.get_children()) for ax in fig.axes]
    redraws = ex.redraws
    opts = [v for _, v in ex.controls["step"].options]
    for j in range(12):
        ex.controls["step"].value = opts[(7 * j + 3) % len(opts)]
    assert ex.figure is fig and ex.run is run is pl.trained_run("learned") and ex.view.image is image
    assert [list(ax.get_children()) for ax in fig.axes] == children
    assert ex.redraws == redraws


# ---------------------------------------------------------------------------
# The training panel
# ---------------------------------------------------------------------------
@pytest.mark.slow  # trains several models (the README's rule for slow)
def test_training_panel_button_trains_three_models():
    panel = pl.TrainingPanel(seed=2, steps=10)
    assert "posenc-training" in panel.widget._dom_classes
    assert panel.controls["steps"].continuous_update is False
    assert panel.controls["seed"].continuous_update is False
    before = panel.image.value
    panel.controls["steps"].value = 15                # moving a control does not train
    panel.controls["seed"].value = 3
    assert panel.bar.value == 0 and panel.image.value == before and panel.runs == {}
    panel.button.click()
    assert panel.bar.value == panel.bar.max == 3 * 15
    assert panel.image.value != before
    accs = re.findall(r"class='posenc-acc'>([0-9.]+)<", panel.table.value)
    assert len(accs) == 6 and all(0.0 <= float(a) <= 1.0 for a in accs)
    assert set(panel.runs) == {"none", "sinusoidal", "learned"}
    assert not panel.button.disabled
    assert "3" in panel.status.value and "15" in panel.status.value
    # Deterministic: the same seed and steps as a direct call give the same losses.
    direct = pl.train_order_model("learned", seed=3, steps=15)
    assert panel.runs["learned"].losses == direct.losses
    lines = panel.monitor.view.lines
    np.testing.assert_array_equal(lines["learned"].get_ydata(), direct.losses)


def test_training_panel_refuses_bad_arguments():
    with pytest.raises(ValueError):
        pl.TrainingPanel(pes=("none", "none"))
    with pytest.raises(ValueError):
        pl.TrainingPanel(pes=("bogus",))
    with pytest.raises(ValueError):
        pl.TrainingPanel(steps=1)


@pytest.mark.slow
def test_training_panel_without_cjk_font_draws_no_tofu(without_cjk_font):
    without_cjk_font('''
figs = [pl.TrainingPanel(steps=10).monitor.figure]
''')
