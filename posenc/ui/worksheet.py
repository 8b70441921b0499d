"""The worksheet widget of notebook 02: a grid of boxes for the 猫咬狗 table, each checked when it
is filled (the checking itself is :mod:`posenc.exercises.worksheet`, plain Python).
"""
from __future__ import annotations

import html

import numpy as np

from ..exercises.worksheet import DECIMALS, PART_NAMES, PARTS, CellFeedback, WorksheetCase, box_rule, check_cell, draw_case

_COLOURS = {"right": "#1a7f37", "wrong": "#b35900", "unreadable": "#b35900", "empty": "#999"}


def _header(c: WorksheetCase) -> str:
    """The worksheet's instructions and this case, as HTML."""
    words = "".join(f"<li>{html.escape(t)}（pos {p}）的词向量 = [{', '.join(f'{x:g}' for x in wv)}]</li>"
                    for t, p, wv in zip(c.tokens, c.positions, c.word_vectors))
    return ("<div style='line-height:1.6'><b>手算练习纸</b>：PE(pos, 2i) = sin(pos·w_i)，"
            "PE(pos, 2i+1) = cos(pos·w_i)，w_i = base<sup>−2i/d_model</sup>；输入 = 词向量 + PE。"
            f"每格保留 {DECIMALS} 位小数，角度用弧度；填完一格按 Tab 到下一格，那一格就会判。<br>"
            f"<b>这一题</b>：d_model = {c.d_model}，base = {c.base:g}，第一个字在 pos = {c.start}。"
            f"<ul style='margin:2px 0'>{words}</ul></div>")


def _case_declaration(c: WorksheetCase) -> dict:
    boxes = {}
    for r in range(len(c.tokens)):
        for part in PARTS:
            for j in range(c.d_model):
                boxes[f"{part}-{r}-{j}"] = {"name": c.cell_name(part, r, j),
                                            "rule": box_rule(c, part, r, j).to_json(compact=True)}
    return {"header": _header(c), "tokens": list(c.tokens), "positions": [int(p) for p in c.positions],
            "d_model": c.d_model, "boxes": boxes, "key": c.key, "size": c.boxes}


class HandCalcWorksheet:
    """A grid of boxes for the PE table and the input (word vector + PE) of a random case;
    each box is checked when it is filled (Enter, or Tab to the next box) and the slip it
    shows is named below the grid; 「换一题」 draws a new case. Every filled box is recorded in the
    learner's progress under the case (:func:`posenc.course.progress.record_worksheet`).

    ``rng``: a numpy Generator or a seed. ``.widget`` is what a notebook displays,
    ``.cells[(part, row, dim)]`` the boxes (part "pe" or "input"), ``.feedback[...]`` what
    each box says (a :class:`CellFeedback`), ``.case`` the current :class:`WorksheetCase`.
    """

    #: The declared worksheet (:data:`posenc.course.catalogue.WORKSHEETS`) its cases are recorded under.
    WORKSHEET_ID = "pe-table"

    def __init__(self, rng=None, case: WorksheetCase | None = None):
        import ipywidgets as w

        self.rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
        self.header = w.HTML()
        self.grid = w.GridBox()
        self.messages = w.HTML(_dom_classes=("posenc-worksheet-messages",))
        self.new_button = w.Button(description="换一题", tooltip="换一题：随机抽一个新的例子", icon="refresh")
        self.new_button.on_click(lambda _: self.new_case())
        from .declare import WORKSHEET, declared_box

        self.widget = declared_box([self.header, self.grid, self.messages, self.new_button], WORKSHEET,
                                   self.declaration, _dom_classes=("posenc-worksheet",))
        self.new_case(case)

    def new_case(self, case: WorksheetCase | None = None) -> None:
        """Show ``case`` (default: a new one drawn from ``rng``) with every box empty."""
        import ipywidgets as w

        self.case = case if case is not None else draw_case(self.rng)
        c = self.case
        self.header.value = _header(c)
        d = c.d_model
        head = ["词 (pos)"] + [f"PE 第 {j} 维" for j in range(d)] + [f"输入 第 {j} 维" for j in range(d)]
        children = [w.HTML(f"<b style='white-space:nowrap'>{html.escape(h)}</b>") for h in head]
        self.cells, self.marks, self.feedback = {}, {}, {}
        for r, (tok, pos) in enumerate(zip(c.tokens, c.positions)):
            children.append(w.HTML(f"<span style='white-space:nowrap'>{html.escape(tok)}（pos {pos}）</span>"))
            for part in PARTS:                      # DOM order = Tab order: PE boxes, then input boxes
                for j in range(d):
                    key = (part, r, j)
                    box = w.Text(value="", placeholder=f"{PART_NAMES[part]}[{j}]", continuous_update=False,
                                 layout=w.Layout(width="5.6em"),
                                 _dom_classes=("posenc-worksheet-cell", f"posenc-ws-{part}-{r}-{j}"))
                    mark = w.HTML("", layout=w.Layout(width="1em"))
                    box.observe(lambda change, key=key: self._check(key), names="value")
                    self.cells[key], self.marks[key] = box, mark
                    self.feedback[key] = CellFeedback("empty")
                    children.append(w.HBox([box, mark]))
        self.grid.children = children
        self.grid.layout = w.Layout(grid_template_columns=f"repeat({2 * d + 1}, max-content)",
                                    grid_gap="4px 6px", align_items="center")
        self._show_messages()

    #: How many cases a static page carries (the current one first; 「换一题」 steps through them).
    PAGE_CASES = 16

    def declaration(self) -> dict:
        """The worksheet as a static page needs it (:mod:`posenc.ui.declare`): :data:`PAGE_CASES`
        cases (this one, then cases drawn from a fixed random seed), each with its words, the
        header the widget shows and every box's rule (:func:`~posenc.exercises.worksheet.box_rule`)."""
        extra = np.random.default_rng(20261203)
        cases = [self.case] + [draw_case(extra) for _ in range(self.PAGE_CASES - 1)]
        return {"id": self.WORKSHEET_ID, "decimals": DECIMALS, "parts": {p: PART_NAMES[p] for p in PARTS},
                "cases": [_case_declaration(c) for c in cases]}

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)

    def fill(self, part: str, row: int, dim: int, text: str) -> CellFeedback:
        """Type ``text`` into a box (as the browser would) and return what it says."""
        self.cells[(part, row, dim)].value = text
        return self.feedback[(part, row, dim)]

    def _check(self, key) -> None:
        fb = check_cell(self.case, *key, self.cells[key].value)
        self.feedback[key] = fb
        if fb.filled:
            from ..course.progress import record_worksheet

            record_worksheet(self.WORKSHEET_ID, self.case.key, self.case.boxes, "-".join(map(str, key)),
                             fb.state == "right")
        self.marks[key].value = (f"<span style='color:{_COLOURS[fb.state]};font-weight:bold'>"
                                 f"{fb.mark}</span>")
        self._show_messages()

    def _show_messages(self) -> None:
        typed = [(k, fb) for k, fb in self.feedback.items() if fb.state != "empty"]
        filled = [fb for _, fb in typed if fb.filled]
        right = sum(fb.state == "right" for fb in filled)
        lines = [f"<div class='posenc-ws-msg posenc-ws-msg-{k[0]}-{k[1]}-{k[2]}' style='color:{_COLOURS[fb.state]}'>"
                 f"{fb.mark} {html.escape(self.case.cell_name(*k))}：{html.escape(fb.message)}</div>"
                 for k, fb in typed if fb.state != "right"]
        total = len(self.feedback)
        summary = f"<div>已填 {len(filled)} / {total} 格，对了 {right} 格。</div>"
        self.messages.value = summary + "".join(lines)
