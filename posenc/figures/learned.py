"""Learned position tables as pictures: loss curves, the table's row similarity taking
shape during training, accuracy by sentence length, and the training panel.
"""
from __future__ import annotations

import html
import math
import time

import numpy as np

from ..distance import position_similarity, similarity_by_offset
from ..encoding import sinusoidal_encoding
from ..task.data import ANIMALS, DEFAULT_STEPS, MAX_LENGTH, PE_KINDS
from ..task.training import train_order_model, trained_run
from ..validate import bilingual, check_array, check_int, check_lengths, check_one_of, check_slider_value
from ..ui.engine.controls import StaleClicks, slider_layout, slider_style
from ..ui.engine.explorer import Explorer, LiveFigure
from ..ui.engine.spec import ExplorerSpec, Param, choice_slider, step
from .style import CAPTION_BOX, PE_COLORS, new_axes, figure_style, label

#: y range of every loss plot (log axis): from below the final losses up past ln 8.
LOSS_YLIM = (1e-4, 10.0)


def _training_table_html(runs: dict, pes=None) -> str:
    """An HTML table of training results: accuracy per model and seconds.

    ``runs`` maps a pe name to its :class:`TrainResult`; names in ``pes`` without a run yet
    get a row of dashes (the training panel fills it in as each model finishes).
    """
    pes = list(runs) if pes is None else list(pes)
    head = ("位置编码 (pe)", "训练集准确率 (train)", "留出集准确率 (held-out)", "最后的损失 (loss)", "用时 (s)")
    # Inline padding: widget HTML gets no table styling, and bare cells run together.
    pad = "style='padding: 2px 14px 2px 0; text-align: left; white-space: nowrap'"
    num = "style='padding: 2px 14px 2px 0; text-align: right; white-space: nowrap'"
    cells = "".join(f"<th {pad}>{html.escape(h)}</th>" for h in head)
    body = []
    for pe in pes:
        r = runs.get(pe)
        if r is None:
            row = [f"<td {pad}>{html.escape(pe)}</td>"] + [f"<td {num}>—</td>"] * 4
            body.append("<tr>" + "".join(row) + "</tr>")
            continue
        body.append(
            f"<tr><td {pad}>{html.escape(pe)}</td><td {num} class='posenc-acc'>{r.train_accuracy:.3f}</td>"
            f"<td {num} class='posenc-acc'>{r.test_accuracy:.3f}</td><td {num}>{r.losses[-1]:.4f}</td>"
            f"<td {num}>{r.seconds:.1f}</td></tr>")
    return (f"<table class='posenc-training-table' style='border-collapse: collapse'>"
            f"<thead><tr>{cells}</tr></thead><tbody>{''.join(body)}</tbody></table>")


class _LossView:
    """Training loss against the step, one line per encoding, on a log axis.

    ln 8 (guessing among 8 animals) and ln 2 (guessing between the two in the sentence)
    are marked: an order-blind model goes from the first to the second and stays there.
    """

    def __init__(self, ax, pes, steps):
        self.ax = ax
        self.lines = {}
        for pe in pes:
            (self.lines[pe],) = ax.plot([], [], color=PE_COLORS.get(pe, "k"), lw=1.6, label=pe)
        # ln 8 is captioned above its line; ln 2 below it, because an order-blind model's
        # curve (none) ends just above ln 2 and would run through a caption there.
        for value, zh, en, above in ((math.log(len(ANIMALS)), f"ln {len(ANIMALS)}：{len(ANIMALS)} 只动物里瞎猜",
                                      f"ln {len(ANIMALS)}: guess among {len(ANIMALS)} animals", True),
                                     (math.log(2), "ln 2：两只动物里猜一只", "ln 2: guess one of the two", False)):
            ax.axhline(value, color="0.35", lw=0.8, ls="--", zorder=0.5)
            # on a white box above the curves: a run of other losses (plot_loss_curves takes any)
            # may pass where the caption is
            ax.text(0.99, value * (1.12 if above else 1 / 1.12), label(f"{zh} ({value:.3f})", f"{en} ({value:.3f})"),
                    transform=ax.get_yaxis_transform(), ha="right", va="bottom" if above else "top",
                    fontsize=9, color="0.3", zorder=3, bbox=CAPTION_BOX)
        ax.set_yscale("log")
        ax.set_ylim(*LOSS_YLIM)
        ax.set_xlim(0, steps)
        from matplotlib.ticker import MaxNLocator

        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel(label("训练步 (step)", "training step"))
        ax.set_ylabel(label("交叉熵损失（对数轴）", "cross-entropy loss (log)"))
        ax.legend(loc="lower left", fontsize=9, ncols=len(pes), frameon=False)

    def artists(self):
        return list(self.lines.values())

    def set_losses(self, pe, losses):
        losses = np.asarray(losses, dtype=float)
        self.lines[pe].set_data(np.arange(1, len(losses) + 1), losses)


def _runs_losses(runs) -> dict:
    if not isinstance(runs, dict) or not runs:
        raise ValueError(bilingual("runs must be a non-empty dict {pe: TrainResult or list of losses}",
                                   "runs 必须是非空字典 {pe: TrainResult 或损失列表}"))
    out = {}
    for pe, r in runs.items():
        losses = getattr(r, "losses", r)
        out[check_one_of("pe", pe, PE_KINDS)] = check_array(f"losses of {pe}", losses, ndim=1)
    return out


def plot_loss_curves(runs, ax=None):
    """Loss curves of several runs (``{pe: TrainResult}`` or ``{pe: losses}``) on a log axis.
    """
    losses = _runs_losses(runs)
    with figure_style():
        fig, ax = new_axes(ax, (6.4, 3.0))
        view = _LossView(ax, list(losses), max(len(v) for v in losses.values()))
        for pe, v in losses.items():
            view.set_losses(pe, v)
        ax.set_title(label(f"{len(losses)} 个模型的训练损失", f"training loss of {len(losses)} models"))
    return fig


def _default_run():
    """The learned run the figures show by default (trained once per session, then cached)."""
    return trained_run("learned")


def _check_run(run):
    snaps = getattr(run, "snapshots", None)
    if not snaps or getattr(run, "config", {}).get("pe") != "learned":
        raise ValueError(bilingual("run must be a learned TrainResult with snapshots (train_order_model('learned', "
                                   "snapshot_every=5))",
                                   "run 必须是带快照的 learned 训练结果"))
    return run


def _snapshot_at(run, step):
    steps = [s for s, _ in run.snapshots]
    if step is None:
        return run.snapshots[-1]
    check_one_of("step", step, steps)
    return run.snapshots[steps.index(step)]


class _LearnedSimilarityView:
    """Learned table's row similarity (changes with the step), the sinusoidal table's
    (fixed), and the learned run's loss with a marker at the step."""

    def __init__(self, ax_learned, ax_sin, ax_loss, run):
        self.run = run
        n, d_model = run.snapshots[0][1].shape
        kw = dict(cmap="RdBu_r", vmin=-1, vmax=1, interpolation="nearest",
                  extent=(-0.5, n - 0.5, n - 0.5, -0.5))
        self.image = ax_learned.imshow(np.eye(n), **kw)
        sin_table = sinusoidal_encoding(n, d_model, run.config.get("base", 10000.0))
        ax_sin.imshow(position_similarity(sin_table), **kw)
        adj = similarity_by_offset(position_similarity(sin_table))[1]
        ax_sin.set_title(label(f"正弦表（固定，不训练）\n相邻位置的平均 cos = {adj:.2f}",
                               f"sinusoidal (fixed)\nneighbours: mean cos = {adj:.2f}"), fontsize=9)
        heatmaps = [ax_learned, ax_sin]
        ticks = list(range(0, n, max(1, n // 8)))
        for ax in heatmaps:
            ax.set_xticks(ticks)
            ax.set_yticks(ticks)
            ax.set_xlabel(label("位置 n", "position n"))
        ax_learned.set_ylabel(label("位置 m", "position m"))
        self.title = ax_learned.set_title(" \n ", fontsize=9)
        # The colour scale is titled above the bar, not labelled beside it: a side label sat
        # against the loss panel's y axis and read as that panel's label.
        bar = ax_learned.get_figure().colorbar(self.image, ax=heatmaps, shrink=0.85, pad=0.02)
        bar.ax.set_title("cos", fontsize=9)
        losses = np.asarray(run.losses)
        ax_loss.plot(np.arange(1, len(losses) + 1), losses, color=PE_COLORS["learned"], lw=1.4)
        ax_loss.axhline(math.log(2), color="0.35", lw=0.8, ls="--", zorder=0.5)
        # ln 2 named right of the frame: inside, the snapshot's line crossed it at some step
        ax_loss.text(1.01, math.log(2), "ln 2", transform=ax_loss.get_yaxis_transform(),
                     ha="left", va="center", fontsize=9, color="0.3")
        ax_loss.set_yscale("log")
        ax_loss.set_ylim(*LOSS_YLIM)
        ax_loss.set_xlim(-0.03 * len(losses), 1.03 * len(losses))
        ax_loss.set_xlabel(label("训练步 (step)", "training step"))
        ax_loss.set_ylabel(label("交叉熵损失（对数轴）", "cross-entropy loss (log)"))
        ax_loss.set_title(label("learned 模型的训练损失\n竖线 = 当前快照", "loss of the learned model\nline = this snapshot"), fontsize=9)
        self.marker = ax_loss.axvline(0, color="k", lw=1.2)

    def artists(self):
        return [self.image, self.title, self.marker]

    def parts(self):
        """The animated artists by what changes them (the step changes all three)."""
        return {"table": [self.image, self.title], "marker": [self.marker]}

    def update(self, step):
        step, table = _snapshot_at(self.run, step)
        sim = position_similarity(table)
        self.image.set_data(sim)
        adj = similarity_by_offset(sim)[1]
        self.title.set_text(label(f"可学习表，第 {step} 步\n相邻位置的平均 cos = {adj:.2f}",
                                  f"learned, step {step}\nneighbours: mean cos = {adj:.2f}"))
        self.marker.set_xdata([step, step])


def plot_learned_similarity(run=None, step=None, ax=None):
    """Row similarity of the learned table at ``step`` next to the sinusoidal table's, and
    the learned run's loss.

    ``run`` defaults to :func:`trained_run` ("learned"), ``step`` to its last snapshot.
    """
    run = _check_run(_default_run() if run is None else run)
    step = _snapshot_at(run, step)[0]
    with figure_style():
        fig, axes = new_axes(ax, (9.4, 3.0), 1, 3, width_ratios=[1, 1, 1.25])
        view = _LearnedSimilarityView(*axes, run)
        view.update(step)
    return fig


def plot_length_accuracy(curves: dict, train_lengths=(4, 8), ax=None):
    """Accuracy against sentence length for several models, training lengths shaded.

    ``curves`` maps a label to ``{length: accuracy or None}`` (from :func:`length_accuracy`);
    the label's first word picks the colour (a pe name), a second curve of the same pe is
    dashed. None (the model cannot read that length) is marked with a cross at the bottom.
    """
    if not isinstance(curves, dict) or not curves:
        raise ValueError(bilingual("curves must be a non-empty dict {label: {length: accuracy}}",
                                   "curves 必须是非空字典"))
    lo, hi = check_lengths("train_lengths", train_lengths, 3, MAX_LENGTH)
    with figure_style():
        fig, ax = new_axes(ax, (6.8, 3.2))
        ax.axvspan(lo - 0.5, hi + 0.5, color="0.92", zorder=0)
        ax.text((lo + hi) / 2, 1.04, label("训练时的长度", "training lengths"), ha="center",
                va="bottom", fontsize=9, color="0.3")
        ax.axhline(0.5, color="0.35", lw=0.8, ls="--")
        seen = {}
        all_lengths = set()
        for name, by_length in curves.items():
            pe = str(name).split()[0]
            color = PE_COLORS.get(pe, "k")
            style = "--" if pe in seen else "-"
            seen[pe] = True
            xs = sorted(int(k) for k in by_length)
            all_lengths.update(xs)
            ys = np.array([np.nan if by_length[x] is None else float(by_length[x]) for x in xs])
            ax.plot(xs, ys, style, marker="o", ms=3.5, color=color, lw=1.5, label=str(name))
            missing = [x for x, y in zip(xs, ys) if np.isnan(y)]
            if missing:
                ax.plot(missing, [0.02] * len(missing), "x", color=color, ms=6, mew=1.6, clip_on=False,
                        label=label(f"{name}：没有这一行，报错", f"{name}: no row, raises"))
        ax.set_ylim(0, 1.1)
        ax.set_xticks(sorted(all_lengths))
        ax.set_xlabel(label("句子长度（词数，含「。」）", "sentence length (tokens)"))
        ax.set_ylabel(label("留出集准确率", "held-out accuracy"))
        ax.text(lo - 0.4, 0.52, label("0.5：不看语序的上限", "0.5: order-blind ceiling"),
                ha="left", va="bottom", fontsize=9, color="0.3")
        ax.legend(fontsize=9, loc="lower left", framealpha=0.9)
    return fig


class LearnedTableExplorer(Explorer):
    """Slide through saved training snapshots: the learned table's row similarity takes
    shape (left) next to the fixed sinusoidal table's (middle); the loss (right) marks the step.

    No training happens on a slider move: the default run (:func:`trained_run` "learned",
    a snapshot every 5 steps) is trained once per session and cached.
    """

    spec = ExplorerSpec(
        name="learned", main="step", figsize=(8.6, 2.9), play=300,
        controls=(
            choice_slider("step", None, lambda p: [s for s, _ in p["run"].snapshots], label="训练步",
                          when_none="last", changes=("table", "marker")),
        ),
        params=(Param("run", None, _check_run, when_none=_default_run),),
        view=lambda fig, p: _LearnedSimilarityView(*fig.subplots(1, 3, width_ratios=[1, 1, 1.25]), p["run"]),
        update=lambda view, v, p: view.update(v["step"]),
        steps=(
            step(("step", 0), see="只有对角线是深红的"),
            step(*(("step", 5 * k) for k in range(1, 21)), see="损失下降的那一段里，前后两组方块出现"),
        ),
    )


class _LossMonitor:
    """The training panel's live loss figure: a :class:`~posenc.ui.engine.explorer.LiveFigure`
    (no controls) whose lines are updated in place (``set_losses``) and blitted by
    :meth:`refresh`."""

    FIGSIZE = (8.6, 2.9)

    def __init__(self, pes, steps):
        self.pes, self.steps = tuple(pes), int(steps)
        self.live = LiveFigure(self.FIGSIZE, self._make_view)
        self.figure, self.image = self.live.figure, self.live.image

    def _make_view(self, fig):
        ax = fig.add_subplot(1, 1, 1)
        self.view = _LossView(ax, self.pes, self.steps)
        self.hint = ax.text(0.5, 0.5, label("点「训练」开始", "press train to start"), transform=ax.transAxes,
                            ha="center", va="center", fontsize=11, color="0.4")
        return [*self.view.artists(), self.hint]

    def reset(self, steps: int) -> None:
        """Empty every line and set the x axis to ``steps`` (a new axis: one full redraw)."""
        steps = int(steps)
        new_axis = steps != self.steps
        if new_axis:
            self.view.ax.set_xlim(0, steps)
        self.steps = steps
        for pe in self.pes:
            self.view.set_losses(pe, [])
        self.hint.set_visible(False)
        self.live.refresh(full=new_axis)

    def set_losses(self, pe, losses) -> None:
        self.view.set_losses(pe, losses)

    def refresh(self) -> None:
        """Blit the lines as they are now into the image."""
        self.live.refresh()


class TrainingPanel:
    """Train several encodings with one button: progress bar, live loss curve, results table.

    Nothing trains until the button is pressed (``panel.button.click()`` from code); seed
    and steps are read at that moment and never trigger training themselves. Each model
    is :func:`train_order_model` with that seed and number of steps, so the same seed gives
    the same numbers as the notebook's code cells.
    """

    def __init__(self, seed: int = 0, steps: int | None = None, pes=("none", "sinusoidal", "learned")):
        import ipywidgets as w

        pes = tuple(check_one_of("pes", p, PE_KINDS) for p in pes)
        if not pes or len(set(pes)) != len(pes):
            raise ValueError(bilingual(f"pes must name distinct encodings, got {pes!r}", "pes 必须是互不相同的编码名"))
        self.pes = pes
        seed = check_int("seed", seed, 0, 10**6)
        steps = DEFAULT_STEPS if steps is None else check_slider_value("steps", steps, 5, 300, 5)
        st = slider_style()
        self.controls = {
            "seed": w.BoundedIntText(seed, min=0, max=10**6, description=label("seed（随机种子）", "seed"), style=st,
                                     continuous_update=False, layout=w.Layout(width="230px")),
            "steps": w.IntSlider(steps, min=5, max=300, step=5, description=label("steps（训练步数）", "steps"),
                                 style=slider_style(label("steps（训练步数）", "steps")), continuous_update=False,
                                 layout=slider_layout(label("steps（训练步数）", "steps"))),
        }
        self.button = w.Button(description="训练 (train)", button_style="primary", icon="play",
                               tooltip="train one model per position encoding / 每种位置编码训练一个模型")
        self.bar = w.IntProgress(value=0, min=0, max=len(pes) * steps, description="进度",
                                      style=st)
        self.status = w.HTML("<span class='posenc-training-status'>还没有训练 (not trained yet)</span>")
        self.table = w.HTML(_training_table_html({}, pes))
        self.monitor = _LossMonitor(pes, steps)
        self.image = self.monitor.image
        self.runs: dict = {}
        #: Which clicks were sent while a run was going on (its clock can be replaced in tests).
        self.clicks = StaleClicks()
        self.button.on_click(self._on_click)
        row = w.HBox([self.controls["seed"], self.controls["steps"], self.button],
                     layout=w.Layout(flex_flow="row wrap", align_items="center"))
        from ..ui.declare import STATIC, declared_box

        self.widget = declared_box([row, self.bar, self.status, self.image, self.table], STATIC,
                                   lambda: {"hint": self.STATIC_HINT})
        self.widget.add_class("posenc-training")

    def _set_status(self, text: str) -> None:
        self.status.value = f"<span class='posenc-training-status'>{html.escape(text)}</span>"

    def _on_click(self, _button) -> None:
        """Train, unless the click was sent while a run was going on (it waited in the
        kernel's queue meanwhile: :class:`~posenc.ui.engine.controls.StaleClicks`)."""
        if self.clicks.stale():
            self._set_status("训练进行时多点的一下，已忽略 (ignored a click made while training)")
            return
        self.train()

    def train(self) -> dict:
        """Train every encoding with the current seed and steps; returns ``{pe: TrainResult}``."""
        seed, steps = int(self.controls["seed"].value), int(self.controls["steps"].value)
        n = len(self.pes)
        refresh_every = max(1, steps // 20)
        self.button.disabled = True
        self.runs = {}
        self.table.value = _training_table_html(self.runs, self.pes)
        self.bar.max, self.bar.value = n * steps, 0
        self.monitor.reset(steps)
        start = time.perf_counter()
        try:
            for i, pe in enumerate(self.pes):
                self._set_status(f"正在训练 {pe}（{i + 1}/{n}），seed = {seed}，{steps} 步 …")
                seen: list = []

                def on_step(step, loss, pe=pe, i=i, seen=seen):
                    seen.append(loss)
                    self.bar.value = i * steps + step
                    if step % refresh_every == 0 or step == steps:
                        self.monitor.set_losses(pe, seen)
                        self.monitor.refresh()

                result = train_order_model(pe, seed=seed, steps=steps, callback=on_step, callback_every=1)
                self.runs[pe] = result
                self.monitor.set_losses(pe, result.losses)
                self.monitor.refresh()
                self.table.value = _training_table_html(self.runs, self.pes)
            self._set_status(f"完成 (done)：{n} 个模型，seed = {seed}，{steps} 步，共 "
                             f"{time.perf_counter() - start:.1f} s")
        finally:
            self.button.disabled = False
            self.clicks.finished()
        return self.runs

    #: What the panel says on a page with no kernel (its inputs are off there).
    STATIC_HINT = "静态网页：按钮和参数要在 JupyterLab 里运行笔记本才能用；下面是构建网页时训练的结果。"

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)
