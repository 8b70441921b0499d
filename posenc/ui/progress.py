"""The learner's progress as a table and a small bar chart: per notebook, exercises solved, drills
passed, the quiz's first-try score and the worksheet's cases, read from the learner's record
(:mod:`posenc.course.progress`) against what the course declares (:mod:`posenc.course.catalogue`,
the quiz banks' question ids): whatever a learner wrote into a notebook, the table counts the same.
"""
from __future__ import annotations

import numpy as np

from ..course import catalogue, notebooks
from ..course.progress import load_progress, progress_path, worksheet_cases
from ..course.quiz_banks import QUIZZES
from ..validate import bilingual
from .look import figure_style, label, new_axes


def progress_summary(quizzes: dict) -> list[dict]:
    """One row per notebook that asks something (``quizzes``: notebook -> its question bank,
    :data:`posenc.course.quiz_banks.QUIZZES`): ``notebook``, ``title``, ``solved`` / ``total``
    (exercises), ``drills_passed`` / ``drills_total``, ``quiz_right`` / ``quiz_answered`` /
    ``quiz_total`` (first tries; total 0 without a quiz) and ``worksheet_done`` /
    ``worksheet_tried`` (cases with every box right / with a box tried; None without a worksheet).
   """
    data = load_progress()
    done = lambda ids: sum(bool(data["exercises"].get(e, {}).get("solved")) for e in ids)
    exercises, drills = catalogue.by_notebook("exercise"), catalogue.by_notebook("drill")
    sheets = {w.notebook: w.id for w in catalogue.WORKSHEETS}
    rows = []
    for nb, title in notebooks.NOTEBOOK_TITLES.items():
        ids, drill_ids, bank = exercises.get(nb, ()), drills.get(nb, ()), quizzes.get(nb) or ()
        if not (ids or drill_ids or bank or nb in sheets):
            continue
        qids = [q["id"] for q in bank]
        sheet = worksheet_cases(data, sheets[nb]) if nb in sheets else (None, None)
        rows.append({"notebook": nb, "title": title, "solved": done(ids), "total": len(ids),
                     "drills_passed": done(drill_ids), "drills_total": len(drill_ids),
                     "quiz_right": sum(bool(data["quiz"].get(q, {}).get("right")) for q in qids),
                     "quiz_answered": sum(q in data["quiz"] for q in qids), "quiz_total": len(qids),
                     "worksheet_done": sheet[0], "worksheet_tried": sheet[1]})
    return rows


def plot_progress(rows, ax=None):
    """Horizontal bars per notebook: exercises solved / total, drills passed / total (where the
    notebook has drills) and, where it has a quiz, its first-try score / questions (each as a
    share, the counts written beside); a worksheet's cases done / tried are written at the row's
    right end. Every text is at least 9 pt (12.5 px at the course's 100 dpi).
    """
    rows = list(rows)
    if not rows:
        raise ValueError(bilingual("rows must not be empty", "rows 不能为空"))
    n = len(rows)
    share = lambda a, b: a / b if b else np.nan
    bars = [("solved", "total", "C0", label("练习做对", "exercises solved")),
            ("drills_passed", "drills_total", "C2", label("手写代码通过", "drills passed")),
            ("quiz_right", "quiz_total", "C1", label("自测题首次答对", "quiz, first try"))]
    bars = [b for b in bars if any(r[b[1]] for r in rows)]
    height = 0.8 / len(bars)
    with figure_style():
        fig, ax = new_axes(ax, (6.8, 0.1 * len(bars) * n + 0.12 * n + 1.2))
        y = np.arange(n)[::-1]
        for k, (got, total, colour, name) in enumerate(bars):
            offset = (len(bars) - 1) / 2 * height - k * height
            values = np.array([share(r[got], r[total]) for r in rows])
            ax.barh(y + offset, np.nan_to_num(values), height=height * 0.95, color=colour, label=name)
            for yy, r, v in zip(y, rows, values):
                if r[total]:
                    ax.text(v + 0.01, yy + offset, f"{r[got]}/{r[total]}", va="center", fontsize=9)
        for yy, r in zip(y, rows):
            if r.get("worksheet_tried"):
                ax.text(1.32, yy, label(f"练习纸 {r['worksheet_done']}/{r['worksheet_tried']}",
                                        f"worksheet {r['worksheet_done']}/{r['worksheet_tried']}"),
                        va="center", ha="right", fontsize=9, color="#57606a")
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
    declaration for a static page (:mod:`posenc.ui.declare`): the notebooks, their exercises and
    their quiz questions, from which the page fills the table with the reader's own record."""

    def __init__(self, rows):
        self.rows = list(rows)

    def markdown(self) -> str:
        lines = ["| 笔记本 | 练习（做对 / 共） | 手写代码（通过 / 共） | 自测题首次作答（答对 / 共） | 练习纸（做完 / 做过的题） |",
                 "|---|---|---|---|---|"]
        for r in self.rows:
            quiz = f"{r['quiz_right']} / {r['quiz_total']}（已答 {r['quiz_answered']}）" if r["quiz_total"] else "—"
            drills = f"{r['drills_passed']} / {r['drills_total']}" if r["drills_total"] else "—"
            sheet = "—" if r["worksheet_tried"] is None else f"{r['worksheet_done']} / {r['worksheet_tried']}"
            exercises = f"{r['solved']} / {r['total']}" if r["total"] else "—"
            lines.append(f"| [{r['notebook'][:2]} {r['title']}]({r['notebook']}.ipynb) | {exercises} | {drills} | {quiz} | {sheet} |")
        solved, total = sum(r["solved"] for r in self.rows), sum(r["total"] for r in self.rows)
        passed, drills = sum(r["drills_passed"] for r in self.rows), sum(r["drills_total"] for r in self.rows)
        drill_text = f"，通过 {passed} / {drills} 道手写代码" if drills else ""
        lines.append(f"\n共做对 {solved} / {total} 道练习{drill_text}。进度只存在这台电脑上：`{progress_path()}`。")
        return "\n".join(lines)

    def png(self) -> bytes:
        import io

        out = io.BytesIO()
        plot_progress(self.rows).savefig(out, format="png", dpi=100)
        return out.getvalue()

    def _repr_mimebundle_(self, include=None, exclude=None):
        import base64
        import html as html_lib

        from .declare import PROGRESS

        table = _markdown_table_html(self.markdown())
        img = base64.b64encode(self.png()).decode()
        return {"text/markdown": self.markdown(),
                "text/html": f"{table}<img class='posenc-progress-chart' alt='{html_lib.escape('进度图')}' "
                             f"src='data:image/png;base64,{img}'>",
                PROGRESS: declaration()}


def _markdown_table_html(markdown: str) -> str:
    """The progress table's Markdown as HTML (a table, a link per notebook, the closing line)."""
    import html as html_lib
    import re

    rows, tail = [], []
    for line in markdown.splitlines():
        if line.startswith("|") and not line.startswith("|---"):
            rows.append([c.strip() for c in line.strip("|").split("|")])
        elif line.strip() and not line.startswith("|"):
            tail.append(line)

    def cell(text):
        text = html_lib.escape(text)
        text = re.sub(r"\[([^\]]+)\]\(([^)]+)\)", r"<a href='\2'>\1</a>", text)
        return re.sub(r"`([^`]+)`", r"<code>\1</code>", text)

    head, body = rows[0], rows[1:]
    out = ["<table class='posenc-progress-table'><thead><tr>" + "".join(f"<th>{cell(h)}</th>" for h in head) + "</tr></thead><tbody>"]
    out += ["<tr>" + "".join(f"<td>{cell(c)}</td>" for c in r) + "</tr>" for r in body]
    out.append("</tbody></table>")
    out += [f"<p>{cell(t)}</p>" for t in tail]
    return "".join(out)


def declaration() -> dict:
    """What :func:`progress_summary` counts, per notebook that asks something: its stem, title,
    exercise ids, drill ids, quiz name and question ids, worksheet id (None without one)."""
    exercises, drills = catalogue.by_notebook("exercise"), catalogue.by_notebook("drill")
    sheets = {w.notebook: w.id for w in catalogue.WORKSHEETS}
    out = []
    for nb, title in notebooks.NOTEBOOK_TITLES.items():
        ids, drill_ids, bank = exercises.get(nb, ()), drills.get(nb, ()), QUIZZES.get(nb)
        if ids or drill_ids or bank or nb in sheets:
            out.append({"notebook": nb, "title": title, "exercises": list(ids), "drills": list(drill_ids),
                        "quiz": nb if bank else None, "questions": [q["id"] for q in bank or ()],
                        "worksheet": sheets.get(nb)})
    return {"notebooks": out}


def show_progress() -> None:
    """Show the learner's progress: per notebook, exercises solved / total, drills passed, the
    quiz's first-try score and the worksheet's cases, as a table and a small bar chart (drawn wherever it runs). In JupyterLab
    the numbers come from the progress file; on a static page, from the reader's browser.
   """
    from IPython.display import display

    display(ProgressView(progress_summary(QUIZZES)))
