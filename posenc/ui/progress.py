"""The learner's progress as a table and a small bar chart: per notebook, exercises solved and
the quiz's first-try score, read from the learner's record (:mod:`posenc.course.progress`)
against the exercises and quizzes the notebooks hold.
"""
from __future__ import annotations

import numpy as np

from ..course import notebooks
from ..exercises import catalogue
from ..course.progress import load_progress, progress_path
from ..course.quiz_banks import QUIZZES
from ..validate import bilingual
from .look import figure_style, label, new_axes


def progress_summary(quizzes: dict) -> list[dict]:
    """One row per notebook with exercises or a quiz (``quizzes``: notebook -> its question
    bank, :data:`posenc.course.quiz_banks.QUIZZES`): ``notebook``, ``title``, ``solved``, ``total``
    (exercises), ``quiz_right``, ``quiz_total`` (first-try score; total 0 when the notebook has
    no quiz) and ``quiz_answered``."""
    data = load_progress()
    rows = []
    exercises = catalogue.EXERCISES
    for nb, title in notebooks.NOTEBOOK_TITLES.items():
        ids = exercises.get(nb, ())
        bank = quizzes.get(nb)
        if not ids and not bank:
            continue
        solved = sum(bool(data["exercises"].get(e, {}).get("solved")) for e in ids)
        texts = [q["question"] for q in bank or ()]
        asked = data["quiz"].get(nb, {})
        rows.append({"notebook": nb, "title": title, "solved": solved, "total": len(ids),
                     "quiz_right": sum(bool(asked.get(t, {}).get("right")) for t in texts),
                     "quiz_answered": sum(t in asked for t in texts), "quiz_total": len(texts)})
    return rows


def plot_progress(rows, ax=None):
    """Horizontal bars per notebook: exercises solved / total and, where the notebook has a
    quiz, its first-try score / questions (both as a share, the counts written beside).
    Every text is at least 9 pt (12.5 px at the course's 100 dpi).
    """
    rows = list(rows)
    if not rows:
        raise ValueError(bilingual("rows must not be empty", "rows 不能为空"))
    n = len(rows)
    with figure_style():
        fig, ax = new_axes(ax, (6.8, 0.32 * n + 1.2))
        y = np.arange(n)[::-1]
        ex = [r["solved"] / r["total"] if r["total"] else 0.0 for r in rows]
        qz = [r["quiz_right"] / r["quiz_total"] if r["quiz_total"] else np.nan for r in rows]
        ax.barh(y + 0.18, ex, height=0.36, color="C0", label=label("练习做对", "exercises solved"))
        ax.barh(y - 0.18, np.nan_to_num(qz), height=0.36, color="C1",
                label=label("自测题首次答对", "quiz, first try"))
        for yy, r, e, q in zip(y, rows, ex, qz):
            if r["total"]:
                ax.text(e + 0.01, yy + 0.18, f"{r['solved']}/{r['total']}", va="center", fontsize=9)
            if r["quiz_total"]:
                ax.text(q + 0.01, yy - 0.18, f"{r['quiz_right']}/{r['quiz_total']}", va="center", fontsize=9)
        ax.set_yticks(y, [r["notebook"][:2] for r in rows])
        ax.set_xlim(0, 1.15)
        ax.set_xticks([0, 0.25, 0.5, 0.75, 1.0], ["0", "25%", "50%", "75%", "100%"])
        ax.set_xlabel(label("完成比例", "share done"))
        ax.set_ylabel(label("笔记本", "notebook"))
        ax.legend(loc="lower right", fontsize=9, frameon=False, bbox_to_anchor=(1.0, 1.0), ncol=2)
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
        lines = ["| 笔记本 | 练习（做对 / 共） | 自测题首次作答（答对 / 共） |", "|---|---|---|"]
        for r in self.rows:
            quiz = f"{r['quiz_right']} / {r['quiz_total']}（已答 {r['quiz_answered']}）" if r["quiz_total"] else "—"
            lines.append(f"| [{r['notebook'][:2]} {r['title']}]({r['notebook']}.ipynb) | "
                         f"{r['solved']} / {r['total']} | {quiz} |")
        solved, total = sum(r["solved"] for r in self.rows), sum(r["total"] for r in self.rows)
        lines.append(f"\n共做对 {solved} / {total} 道练习。进度只存在这台电脑上：`{progress_path()}`。")
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
    """Per notebook with exercises or a quiz: its stem, title, exercise keys, quiz name and
    question texts (what :func:`progress_summary` counts)."""
    exercises = catalogue.EXERCISES
    out = []
    for nb, title in notebooks.NOTEBOOK_TITLES.items():
        ids, bank = exercises.get(nb, ()), QUIZZES.get(nb)
        if ids or bank:
            out.append({"notebook": nb, "title": title, "exercises": list(ids),
                        "quiz": nb if bank else None, "questions": [q["question"] for q in bank or ()]})
    return {"notebooks": out}


def show_progress() -> None:
    """Show the learner's progress: per notebook, exercises solved / total and the quiz's
    first-try score, as a table and a small bar chart (drawn wherever it runs). In JupyterLab
    the numbers come from the progress file; on a static page, from the reader's browser.
   """
    from IPython.display import display

    display(ProgressView(progress_summary(QUIZZES)))
