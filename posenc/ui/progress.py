"""The learner's progress as a table and a small bar chart: per notebook, exercises solved, drills
passed, the quiz's first-try score and the worksheet's cases, read from the learner's record
(:mod:`posenc.course.progress`) against what the course declares (:mod:`posenc.course.catalogue`,
the quiz banks' question ids): whatever a learner wrote into a notebook, the table counts the same.

The table, its closing line and the chart are rendered here once, for the kernel (with the
learner's numbers) and for a static page (:func:`page_html`: the same table and the same
matplotlib chart, as SVG, with the numbers left to the page's script; it counts the reader's
browser record with ``tools/site/record.js``, which a test holds equal to :func:`summary`).
"""
from __future__ import annotations

import html

import numpy as np

from ..course import catalogue, notebooks
from ..course.progress import load_progress, progress_path, worksheet_cases
from ..course.quiz_banks import QUIZZES
from ..validate import bilingual
from .look import figure_style, label, new_axes

#: The table's first column.
NOTEBOOK_COLUMN = "笔记本"
#: The other columns: header, the cell (the learner's numbers and the declared totals as fields)
#: and the declared field that says whether the notebook has this kind at all (else 「—」).
COLUMNS = (
    ("练习（做对 / 共）", "{solved} / {total}", "total"),
    ("手写代码（通过 / 共）", "{drills_passed} / {drills_total}", "drills_total"),
    ("自测题首次作答（答对 / 共）", "{quiz_right} / {quiz_total}（已答 {quiz_answered}）", "quiz_total"),
    ("练习纸（做完 / 做过的题）", "{worksheet_done} / {worksheet_tried}", "worksheet"),
)
#: What a row counts in the learner's record (the rest of a row is declared).
COUNTED = ("solved", "drills_passed", "quiz_right", "quiz_answered", "worksheet_done", "worksheet_tried")
#: The line under the table; the drills' part only where the course has drills.
TOTAL_LINE = "共做对 {solved} / {total} 道练习"
DRILLS_LINE = "，通过 {drills_passed} / {drills_total} 道手写代码"
#: The chart's bars: the learner's field, the declared total, colour, label.
BARS = (("solved", "total", "C0", ("练习做对", "exercises solved")),
        ("drills_passed", "drills_total", "C2", ("手写代码通过", "drills passed")),
        ("quiz_right", "quiz_total", "C1", ("自测题首次答对", "quiz, first try")))
#: The count written beside a bar, and a worksheet's cases at the row's right end.
COUNT = "{got}/{total}"
SHEET = ("练习纸 {done}/{tried}", "worksheet {done}/{tried}")


def declaration(quizzes: dict = QUIZZES) -> dict:
    """What the table counts, per notebook that asks something (``quizzes``: notebook -> its
    question bank, :data:`posenc.course.quiz_banks.QUIZZES`): its stem, title, exercise ids, drill
    ids, quiz name and question ids, worksheet id (None without one)."""
    exercises, drills = catalogue.by_notebook("exercise"), catalogue.by_notebook("drill")
    sheets = {w.notebook: w.id for w in catalogue.WORKSHEETS}
    out = []
    for nb, title in notebooks.NOTEBOOK_TITLES.items():
        ids, drill_ids, bank = exercises.get(nb, ()), drills.get(nb, ()), quizzes.get(nb)
        if ids or drill_ids or bank or nb in sheets:
            out.append({"notebook": nb, "title": title, "exercises": list(ids), "drills": list(drill_ids),
                        "quiz": nb if bank else None, "questions": [q["id"] for q in bank or ()],
                        "worksheet": sheets.get(nb)})
    return {"notebooks": out}


def summary(decl: dict, data: dict) -> list[dict]:
    """One row per declared notebook (:func:`declaration`) counted in the learner's record
    ``data`` (:func:`~posenc.course.progress.load_progress`): ``notebook``, ``title``, ``solved`` /
    ``total`` (exercises), ``drills_passed`` / ``drills_total``, ``quiz_right`` / ``quiz_answered``
    / ``quiz_total`` (first tries; total 0 without a quiz), ``worksheet`` (its id or None) and
    ``worksheet_done`` / ``worksheet_tried`` (cases with every box right / with a box tried; None
    without a worksheet). The static page counts the same way (record.js ``summary``)."""
    done = lambda ids: sum(bool(data["exercises"].get(e, {}).get("solved")) for e in ids)
    rows = []
    for nb in decl["notebooks"]:
        qids, sheet = nb["questions"], nb["worksheet"]
        cases = worksheet_cases(data, sheet) if sheet else (None, None)
        rows.append({"notebook": nb["notebook"], "title": nb["title"],
                     "solved": done(nb["exercises"]), "total": len(nb["exercises"]),
                     "drills_passed": done(nb["drills"]), "drills_total": len(nb["drills"]),
                     "quiz_right": sum(bool(data["quiz"].get(q, {}).get("right")) for q in qids),
                     "quiz_answered": sum(q in data["quiz"] for q in qids), "quiz_total": len(qids),
                     "worksheet": sheet, "worksheet_done": cases[0], "worksheet_tried": cases[1]})
    return rows


def progress_summary(quizzes: dict = QUIZZES) -> list[dict]:
    """:func:`summary` of the course's declarations and the learner's progress file."""
    return summary(declaration(quizzes), load_progress())


def totals(rows) -> dict:
    """The numbers of the line under the table: exercises solved / total, drills passed / total."""
    return {k: sum(r[k] for r in rows) for k in ("solved", "total", "drills_passed", "drills_total")}


def _cells(r: dict) -> list[str]:
    """A row's cells after the notebook's, as text (HTML where the numbers are slots)."""
    return [template.format(**r) if r[has] else "—" for _, template, has in COLUMNS]


def total_line(t: dict) -> str:
    """The line under the table, from :func:`totals` (a page's counted numbers may be slots)."""
    return TOTAL_LINE.format(**t) + (DRILLS_LINE.format(**t) if t["drills_total"] else "") + "。"


def table_html(rows) -> str:
    """The table as HTML: a row per notebook (``data-notebook``, a link to it, :data:`COLUMNS`)."""
    head = "".join(f"<th>{html.escape(h)}</th>" for h in (NOTEBOOK_COLUMN, *(c[0] for c in COLUMNS)))
    body = "".join(f"<tr data-notebook='{r['notebook']}'><td><a href='{r['notebook']}.ipynb'>"
                   f"{r['notebook'][:2]} {html.escape(r['title'])}</a></td>"
                   + "".join(f"<td>{c}</td>" for c in _cells(r)) + "</tr>" for r in rows)
    return f"<table class='posenc-progress-table'><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def plot_progress(rows, ax=None, gids: bool = False):
    """Horizontal bars per notebook: exercises solved / total, drills passed / total (where the
    notebook has drills) and, where it has a quiz, its first-try score / questions (each as a
    share, the counts written beside); a worksheet's cases done / tried are written at the row's
    right end. Every text is at least 9 pt (12.5 px at the course's 100 dpi). ``gids`` names
    each bar, count and worksheet text (``posenc-bar-<notebook>-<field>``, ``posenc-count-…``,
    ``posenc-sheet-<notebook>``) for a page's script to set (:func:`chart_svg`).
    """
    rows = list(rows)
    if not rows:
        raise ValueError(bilingual("rows must not be empty", "rows 不能为空"))
    n = len(rows)
    share = lambda a, b: a / b if b else np.nan
    bars = [b for b in BARS if any(r[b[1]] for r in rows)]
    height = 0.8 / len(bars)
    with figure_style():
        fig, ax = new_axes(ax, (6.8, 0.1 * len(bars) * n + 0.12 * n + 1.2))
        y = np.arange(n)[::-1]
        for k, (got, total, colour, name) in enumerate(bars):
            offset = (len(bars) - 1) / 2 * height - k * height
            values = np.array([share(r[got], r[total]) for r in rows])
            patches = ax.barh(y + offset, np.nan_to_num(values), height=height * 0.95, color=colour, label=label(*name))
            for yy, r, v, patch in zip(y, rows, values, patches):
                if r[total]:
                    text = ax.text(v + 0.01, yy + offset, COUNT.format(got=r[got], total=r[total]), va="center", fontsize=9)
                    if gids:
                        patch.set_gid(f"posenc-bar-{r['notebook']}-{got}")
                        text.set_gid(f"posenc-count-{r['notebook']}-{got}")
        for yy, r in zip(y, rows):
            if r.get("worksheet_tried") or (gids and r.get("worksheet")):
                text = ax.text(1.32, yy, label(*SHEET).format(done=r["worksheet_done"], tried=r["worksheet_tried"]),
                               va="center", ha="right", fontsize=9, color="#57606a")
                if gids:
                    text.set_gid(f"posenc-sheet-{r['notebook']}")
        ax.set_yticks(y, [r["notebook"][:2] for r in rows])
        ax.set_xlim(0, 1.34)
        ax.set_xticks([0, 0.25, 0.5, 0.75, 1.0], ["0", "25%", "50%", "75%", "100%"])
        ax.set_xlabel(label("完成比例", "share done"))
        ax.set_ylabel(label("笔记本", "notebook"))
        ax.legend(loc="lower right", fontsize=9, frameon=False, bbox_to_anchor=(1.0, 1.0), ncol=len(bars))
        ax.spines[["top", "right"]].set_visible(False)
    return fig


class ProgressView:
    """What :func:`show_progress` displays: the table (Markdown, and HTML with the chart as a PNG,
    so it draws wherever it runs, with or without an inline matplotlib backend), and its
    declaration for a static page (:mod:`posenc.ui.declare`, :func:`page_html`)."""

    def __init__(self, rows):
        self.rows = list(rows)

    def markdown(self) -> str:
        lines = ["| " + " | ".join((NOTEBOOK_COLUMN, *(c[0] for c in COLUMNS))) + " |", "|---" * (len(COLUMNS) + 1) + "|"]
        lines += [f"| [{r['notebook'][:2]} {r['title']}]({r['notebook']}.ipynb) | " + " | ".join(_cells(r)) + " |"
                  for r in self.rows]
        lines.append(f"\n{total_line(totals(self.rows))}进度只存在这台电脑上：`{progress_path()}`。")
        return "\n".join(lines)

    def html(self) -> str:
        """The table and the line under it, as HTML."""
        return (table_html(self.rows) + f"<p>{html.escape(total_line(totals(self.rows)))}"
                f"进度只存在这台电脑上：<code>{html.escape(str(progress_path()))}</code>。</p>")

    def png(self) -> bytes:
        import io

        out = io.BytesIO()
        plot_progress(self.rows).savefig(out, format="png", dpi=100)
        return out.getvalue()

    def _repr_mimebundle_(self, include=None, exclude=None):
        import base64

        from .declare import PROGRESS

        img = base64.b64encode(self.png()).decode()
        return {"text/markdown": self.markdown(),
                "text/html": f"{self.html()}<img class='posenc-progress-chart' alt='{html.escape('进度图')}' "
                             f"src='data:image/png;base64,{img}'>",
                PROGRESS: declaration()}


# ---------------------------------------------------------------------------
# on a static page
# ---------------------------------------------------------------------------
#: What the page says under the chart, and its reset button with the question it asks first.
PAGE_NOTE = ("这张表读的是<b>你这个浏览器</b>里记下的进度：在静态网页里做的练习和自测题都记在这里"
             "（不上传到任何地方）；在 JupyterLab 里做的记在你自己电脑上的进度文件里。")
RESET = ("清空这个浏览器里的进度", "清空这个浏览器里记下的全部练习、自测题和练习纸进度？")


def _skeleton(decl: dict, counted) -> list[dict]:
    """The declared rows with each counted number replaced by ``counted(field)``."""
    rows = summary(decl, {"exercises": {}, "quiz": {}, "worksheet": {}})
    return [{**r, **{k: counted(k) for k in COUNTED if r[k] is not None}} for r in rows]


def chart_svg(decl: dict) -> tuple[str, list]:
    """The chart of :func:`plot_progress` as SVG text, every declared bar drawn full and named,
    and the parts the page's script sets: per bar its ids, notebook and fields, per worksheet
    text its id and template."""
    import io

    import matplotlib

    full = _skeleton(decl, lambda k: "–")
    for r in full:                         # every bar full: the script scales it to the reader's share
        r.update(solved=r["total"], drills_passed=r["drills_total"], quiz_right=r["quiz_total"])
    fig = plot_progress(full, gids=True)
    out = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "posenc-progress"}):
        fig.savefig(out, format="svg", metadata={"Date": None})
    svg = out.getvalue()
    svg = svg[svg.index("<svg"):]
    parts = []
    for r in full:
        for got, total, _, _ in BARS:
            if r[total]:
                parts.append({"notebook": r["notebook"], "got": got, "total": total,
                              "bar": f"posenc-bar-{r['notebook']}-{got}", "count": f"posenc-count-{r['notebook']}-{got}"})
        if r["worksheet"]:
            parts.append({"notebook": r["notebook"], "sheet": f"posenc-sheet-{r['notebook']}"})
    return svg, parts


def page_html(decl: dict) -> str:
    """The progress on a static page, from its :func:`declaration`: the same table
    (:func:`table_html`) and closing line with every counted number a
    :class:`~posenc.ui.declare.Slot`, the same chart (:func:`chart_svg`; its templates
    :data:`COUNT`, :data:`SHEET`), the page's note and its reset button."""
    from .declare import Slot, data_attr

    rows = _skeleton(decl, Slot)
    declared = totals(_skeleton(decl, lambda k: 0))
    line = total_line({**declared, "solved": Slot("solved"), "drills_passed": Slot("drills_passed")})
    svg, parts = chart_svg(decl)
    chart = {"parts": parts, "count": COUNT, "sheet": label(*SHEET)}
    return (f'<div class="posenc-progress-page" {data_attr("progress", decl)} {data_attr("chart", chart)} '
            f'data-confirm="{html.escape(RESET[1])}">'
            f'<div class="posenc-progress-table-box">{table_html(rows)}'
            f'<p class="posenc-progress-total">{line}</p></div>'
            f'<div class="posenc-progress-chart-box">{svg}</div>'
            f'<p class="posenc-progress-note">{PAGE_NOTE}</p>'
            f'<button type="button" class="posenc-progress-reset">{html.escape(RESET[0])}</button></div>')


def show_progress() -> None:
    """Show the learner's progress: per notebook, exercises solved / total, drills passed, the
    quiz's first-try score and the worksheet's cases, as a table and a small bar chart (drawn wherever it runs). In JupyterLab
    the numbers come from the progress file; on a static page, from the reader's browser.
   """
    from IPython.display import display

    display(ProgressView(progress_summary(QUIZZES)))
