"""The worksheet widget of notebook 02: a grid of boxes for the 猫咬狗 table, each checked when it
is filled (the checking itself is :mod:`posenc.exercises.worksheet`, plain Python). The grid, the
header and the messages are rendered here once, for the widget and for a static page
(:func:`page_html`, whose script fills the same message templates).
"""
from __future__ import annotations

import html

import numpy as np

from ..exercises.worksheet import (
    DECIMALS, PART_NAMES, PARTS, STATES, CellFeedback, WorksheetCase, box_rule, check_cell, draw_case,
)

#: A box's state -> the colour of its mark and of its message line.
COLOURS = {"right": "#1a7f37", "wrong": "#b35900", "unreadable": "#b35900", "empty": "#999"}
#: The line under the grid (the numbers of the case's boxes).
SUMMARY = "已填 {filled} / {total} 格，对了 {right} 格。"
#: One message line per box that is filled and not right (``name`` and ``message`` HTML-escaped).
LINE = "<div class='posenc-ws-msg posenc-ws-msg-{key}' style='color:{colour}'>{mark} {name}：{message}</div>"
#: The mark beside a box.
MARK = "<span style='color:{colour};font-weight:bold'>{mark}</span>"
#: The button that draws a new case: its text and tooltip.
NEW_CASE = ("换一题", "换一题：随机抽一个新的例子")


def _header(c: WorksheetCase) -> str:
    """The worksheet's instructions and this case, as HTML."""
    words = "".join(f"<li>{html.escape(t)}（pos {p}）的词向量 = [{', '.join(f'{x:g}' for x in wv)}]</li>"
                    for t, p, wv in zip(c.tokens, c.positions, c.word_vectors))
    return ("<div style='line-height:1.6'><b>手算练习纸</b>：PE(pos, 2i) = sin(pos·w_i)，"
            "PE(pos, 2i+1) = cos(pos·w_i)，w_i = base<sup>−2i/d_model</sup>；输入 = 词向量 + PE。"
            f"每格保留 {DECIMALS} 位小数，角度用弧度；填完一格按 Tab 到下一格，那一格就会判。<br>"
            f"<b>这一题</b>：d_model = {c.d_model}，base = {c.base:g}，第一个字在 pos = {c.start}。"
            f"<ul style='margin:2px 0'>{words}</ul></div>")


def grid_cells(c: WorksheetCase) -> list[tuple]:
    """The grid's cells in DOM order, which is the order Tab visits the boxes: the head row and
    each row's label as ``("text", html)``, each box as ``("box", (part, row, dim), placeholder)``
    (row by row: its PE boxes, then its input boxes)."""
    d = c.d_model
    head = ["词 (pos)"] + [f"PE 第 {j} 维" for j in range(d)] + [f"输入 第 {j} 维" for j in range(d)]
    cells = [("text", f"<b style='white-space:nowrap'>{html.escape(h)}</b>") for h in head]
    for r, (tok, pos) in enumerate(zip(c.tokens, c.positions)):
        cells.append(("text", f"<span style='white-space:nowrap'>{html.escape(tok)}（pos {pos}）</span>"))
        cells += [("box", (part, r, j), f"{PART_NAMES[part]}[{j}]") for part in PARTS for j in range(d)]
    return cells


def grid_columns(c: WorksheetCase) -> str:
    """The grid's CSS columns: the row labels, then one per box of a row."""
    return f"repeat({2 * c.d_model + 1}, max-content)"


def box_id(key) -> str:
    """A box's name in the record and the page: ``pe-0-1``."""
    return "-".join(map(str, key))


def messages_html(c: WorksheetCase, feedback: dict, summary=None) -> str:
    """The summary line and a line per box that is typed and not right (``feedback``: key ->
    :class:`CellFeedback`, in grid order). ``summary`` gives the summary's numbers (default:
    counted from ``feedback``; a page passes :class:`~posenc.ui.declare.Slot` s)."""
    typed = [(k, fb) for k, fb in feedback.items() if fb.state != "empty"]
    if summary is None:
        filled = [fb for _, fb in typed if fb.filled]
        summary = {"filled": len(filled), "right": sum(fb.state == "right" for fb in filled)}
    lines = [LINE.format(key=box_id(k), colour=COLOURS[fb.state], mark=fb.mark, name=html.escape(c.cell_name(*k)),
                         message=html.escape(fb.message)) for k, fb in typed if fb.state != "right"]
    return f"<div class='posenc-ws-summary'>{SUMMARY.format(total=c.boxes, **summary)}</div>" + "".join(lines)


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
        self.new_button = w.Button(description=NEW_CASE[0], tooltip=NEW_CASE[1], icon="refresh")
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
        children, self.cells, self.marks, self.feedback = [], {}, {}, {}
        for kind, *cell in grid_cells(c):
            if kind == "text":
                children.append(w.HTML(cell[0]))
                continue
            key, placeholder = cell
            box = w.Text(value="", placeholder=placeholder, continuous_update=False, layout=w.Layout(width="5.6em"),
                         _dom_classes=("posenc-worksheet-cell", f"posenc-ws-{box_id(key)}"))
            mark = w.HTML("", layout=w.Layout(width="1em"))
            box.observe(lambda change, key=key: self._check(key), names="value")
            self.cells[key], self.marks[key] = box, mark
            self.feedback[key] = CellFeedback("empty")
            children.append(w.HBox([box, mark]))
        self.grid.children = children
        self.grid.layout = w.Layout(grid_template_columns=grid_columns(c), grid_gap="4px 6px", align_items="center")
        self._show_messages()

    #: How many cases a static page carries (the current one first; 「换一题」 steps through them).
    PAGE_CASES = 16

    def declaration(self) -> dict:
        """The worksheet as a static page needs it (:mod:`posenc.ui.declare`, :func:`page_html`):
        its id and :data:`PAGE_CASES` cases (this one, then cases drawn from a fixed random seed),
        each as the numbers that make it (:func:`case_declaration`)."""
        extra = np.random.default_rng(20261203)
        cases = [self.case] + [draw_case(extra) for _ in range(self.PAGE_CASES - 1)]
        return {"id": self.WORKSHEET_ID, "cases": [case_declaration(c) for c in cases]}

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

            record_worksheet(self.WORKSHEET_ID, self.case.key, self.case.boxes, box_id(key), fb.state == "right")
        self.marks[key].value = MARK.format(colour=COLOURS[fb.state], mark=fb.mark)
        self._show_messages()

    def _show_messages(self) -> None:
        self.messages.value = messages_html(self.case, self.feedback)


def case_declaration(c: WorksheetCase) -> dict:
    """A case as JSON: the numbers :func:`declared_case` makes it again from."""
    return {"tokens": list(c.tokens), "start": c.start, "d_model": c.d_model, "base": c.base,
            "words": c.word_vectors.tolist()}


def declared_case(d: dict) -> WorksheetCase:
    """The case a :func:`case_declaration` declares."""
    return WorksheetCase(tuple(d["tokens"]), int(d["start"]), int(d["d_model"]), float(d["base"]),
                         np.asarray(d["words"], dtype=float))


def page_look() -> dict:
    """What the page's script needs to show a box's verdict as the widget does: a verdict's kind ->
    the box's state, each state's mark and colour, and the :data:`LINE` and :data:`MARK` templates."""
    return {"states": dict(STATES), "marks": {s: CellFeedback(s).mark for s in COLOURS}, "colours": dict(COLOURS),
            "line": LINE, "mark": MARK}


def case_html(c: WorksheetCase) -> str:
    """One case on a static page: the header, the grid (each box carries its id, its name in the
    messages and its rule, :func:`~posenc.exercises.worksheet.box_rule`) and the messages, whose
    numbers the page's script fills in (:class:`~posenc.ui.declare.Slot`)."""
    from .declare import Slot, data_attr

    cells = []
    for kind, *cell in grid_cells(c):
        if kind == "text":
            cells.append(cell[0])
            continue
        key, placeholder = cell
        cells.append(f"<span class='posenc-ws-box'><input type='text' class='posenc-worksheet-cell posenc-ws-{box_id(key)}' "
                     f"data-key='{box_id(key)}' data-name='{html.escape(c.cell_name(*key), quote=True)}' "
                     f"{data_attr('rule', box_rule(c, *key).to_json(compact=True))} placeholder='{html.escape(placeholder)}' "
                     f"autocomplete='off' spellcheck='false'><span class='posenc-ws-mark'></span></span>")
    summary = messages_html(c, {}, summary={"filled": Slot("filled"), "right": Slot("right")})
    return (f"<div class='posenc-ws-header'>{_header(c)}</div>"
            f"<div class='posenc-ws-grid' style='grid-template-columns:{grid_columns(c)}'>{''.join(cells)}</div>"
            f"<div class='posenc-worksheet-messages' aria-live='polite'>{summary}<div class='posenc-ws-lines'></div></div>")


def page_html(decl: dict) -> str:
    """The worksheet on a static page, from its :meth:`HandCalcWorksheet.declaration`: a place
    for the case shown, the 「换一题」 button and each case as a ``<template>`` (:func:`case_html`;
    the script shows one at a time, and records each box under the case's key and size)."""
    from .declare import data_attr

    cases = [declared_case(d) for d in decl["cases"]]
    templates = "".join(f"<template class='posenc-ws-case' data-case='{html.escape(c.key, quote=True)}' "
                        f"data-size='{c.boxes}'>{case_html(c)}</template>" for c in cases)
    return (f'<div class="posenc-worksheet posenc-page-worksheet" data-worksheet="{html.escape(decl["id"])}" '
            f'{data_attr("look", page_look())}><div class="posenc-ws-case-shown"></div>'
            f'<button type="button" class="posenc-ws-new" title="{html.escape(NEW_CASE[1])}">{html.escape(NEW_CASE[0])}</button>'
            f'{templates}</div>')
