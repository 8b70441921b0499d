"""Generate the contents page, the navigation bars, the README's notebook list and the summary's
list of drills (the cell tagged ``drill-list``: each declared drill, its minutes and a link).

Run from the repository root after adding or renaming a notebook:

    python tools/build_contents.py          # rewrite what is out of date
    python tools/build_contents.py --check  # exit 1 if anything is out of date (used by the tests)

Sources of truth: the notebooks' file names (NN_ascii_name.ipynb, in order), the first
"# " heading and first paragraph of each notebook's first markdown cell, and what each
notebook contains. Two things are derived here and written into each notebook's metadata
``"posenc": {"requires": [...], "minutes": ...}`` (the tests check the stored values equal
the derivation):

- ``requires`` (先读): the earlier notebooks whose helpers its code calls (where a reader first
  meets each public ``pl.*`` name is declared in ``posenc/course/introduced.py``; the setup,
  text-table and generic check helpers every notebook uses do not count), plus the concepts it
  uses without calling a helper, listed in :data:`CONCEPT_REFERENCES`. A helper introduced in a
  *later* notebook is a forward reference: the build stops and names it.
- ``minutes`` (用时): :func:`estimate_minutes`, a rule from what there is to read, run and do
  (:data:`READING_RULE`), said in words on the contents page.

Which notebooks have sliders is read from their code cells.

The contents page also lists the routes of :data:`ROUTES` (which sections to read, in which
order, for an interview in 30 minutes or a 3-hour crash course; their minutes come from the
same rule, applied to those sections' cells) and ends with one code cell, the learner's
progress (:data:`PROGRESS_CELL`).

Why the contents page still starts a kernel when it opens (checked in JupyterLab 4.6.6's
``SessionContext``): JupyterLab starts the kernel a notebook's ``kernelspec`` (or
``language_info``) names whatever its cells hold; whether to start one at all
(``kernelPreference.shouldStart``) comes from the notebook widget factory, i.e. the
server-wide ``LabServerApp.notebook_starts_kernel`` (which would leave every notebook without a
kernel until the learner picks one), not from the notebook. A notebook without ``kernelspec``
and ``language_info`` gets no kernel but the 「选择内核」 dialog on every open under JupyterLab's
default settings (``getDefaultKernel`` finds no name and no language), and the default kernel
anyway once a learner ticks 「总是启动首选内核」 (``autoStartDefaultKernel``). Both measured in
tests/browser/test_contents_page.py. So the page keeps its kernel metadata: it opens with no
dialog, and the kernel it starts imports nothing until the progress cell is run.
"""
from __future__ import annotations

import argparse
import json
import math
import pathlib
import re
import subprocess
import sys

import nbformat

from strip_notebooks import kernel_metadata   # tools/ is on sys.path when this runs as a script

ROOT = pathlib.Path(__file__).resolve().parents[1]
NB_DIR = ROOT / "notebooks"
INDEX = "00_index.ipynb"
#: The contents page's only code cell: the learner's progress (posenc.course.progress, shown by posenc.ui.progress).
PROGRESS_CELL = "import posenc_lib as pl\n\npl.show_progress()"
NAV_TAG = "navigation"
#: The cell of the summary notebook that lists the drills (filled by :func:`drill_list_markdown`).
DRILL_LIST_TAG = "drill-list"
#: A drill's cell: ``pl.check("drill-…", fn)``; the markdown cell before it starts with the drill's heading.
DRILL_CALL = re.compile(r'\bpl\.check\(\s*"(drill-[a-z0-9-]+)"')
README_START, README_END = "<!-- contents:start -->", "<!-- contents:end -->"
#: A code cell that builds an explorer (a figure with sliders): ``pl.RopeExplorer(...)``.
EXPLORER_CALL = re.compile(r"\bpl\.[A-Z]\w*Explorer\(")
#: A widget a reader drives: an explorer, the training panel or a worksheet.
INTERACTIVE_CALL = re.compile(r"\bpl\.[A-Z]\w*(?:Explorer|Panel|Worksheet)\(")
#: A slow cell the reader waits for (training, fitting), shown with a progress bar.
SLOW_CALL = re.compile(r"\bpl\.progress_bar\(")
#: A self-check quiz: ``pl.Quiz(pl.BANK)``; each question of the bank counts.
QUIZ_CALL = re.compile(r"\bpl\.Quiz\(\s*pl\.(\w+)")
PL_NAME = re.compile(r"\bpl\.([A-Za-z_]\w*)")

#: Concepts a notebook uses from an earlier one without calling that notebook's helpers:
#: notebook -> {earlier notebook: what it uses}. The ``pl.*`` names its code calls add the rest.
CONCEPT_REFERENCES = {
    "02": {"01": "加上位置编码就打破置换等变（第 7 节）"},
    "03": {"02": "正弦公式 PE[pos, 2i] = sin(pos·w_i)"},
    "04": {"03": "钟面上的指针与转向"},
    "05": {"01": "不看语序的模型只看到字的多重集", "04": "PE(m)·PE(n) 只依赖 n − m"},
    "06": {"04": "R_k、随机 W_q、W_k 之后的分数", "05": "可学习位置表在 max_len 之外没有行"},
    "07": {"04": "R_k 与符号约定", "06": "相对位置编码家族"},
    "08": {"05": "谁咬谁任务与长度外推", "07": "RoPE"},
    "09": {"07": "RoPE 的每一对按 pos·w_i 转", "08": "外推实验"},
    "10": {"07": "RoPE、rotate_half 与 partial rotary", "09": "PI、NTK-aware、动态 NTK、YaRN 与 llama3 缩放"},
    "11": {"07": "RoPE 的分数只依赖偏移 k = n − m", "09": "没见过的角度与按当前长度变的频率",
           "10": "KV cache、滑动窗口与 GPT-NeoX 的部分旋转"},
    "12": {"07": "RoPE 的分数只依赖偏移", "08": "ALiBi 与 anywhere 任务", "09": "第 6 节的因果 NoPE 实验"},
    "13": {"01": "置换等变与不变", "02": "正弦公式", "03": "时钟指针、base 的作用", "04": "R_k 与点积",
           "05": "可学习表与能算 ≠ 泛化", "06": "相对位置编码家族与 T5 的桶", "07": "RoPE",
           "08": "ALiBi 与它的视野", "09": "PI、NTK-aware、YaRN 与 base 的下界", "10": "KV cache、GQA 与 MLA",
           "11": "位置编号的工程细节", "12": "逐层探针、NoPE 与二维位置"},   # the answer sheet links to each
}

#: How the time estimate is made (:func:`estimate_minutes`), and said on the contents page: what a
#: careful reader spends time on, counted. The reading speeds and the per-formula and per-line
#: minutes were fitted (least squares, then rounded) to an independent careful read of the course
#: at :data:`CALIBRATION`'s commit, with fixed minutes per explorer, exercise, slow cell and quiz
#: question; ``python tools/build_contents.py --calibrate`` prints that fit and each notebook's error.
READING_RULE = {
    "cjk_per_minute": 120,        # Chinese characters of narrative, read carefully
    "words_per_minute": 80,       # English words (terms, code names in prose)
    "per_formula": 0.1,           # a formula in the text: a $…$ span or a relation (=, ≈, ≤, ≥, ≠) outside one
    "per_code_line": 0.03,        # a line of code read (not blank, not a comment), its output with it
    "per_interactive": 4,         # an explorer, the training panel or the worksheet, tried as the text suggests
    "per_exercise": 3,            # one exercise (a pl.check call), worked out by hand first
    "drill_factor": 1.5,          # a drill: the minutes an interview allows it (declared), times this
    "per_slow_cell": 1,           # waiting for a cell with a progress bar (training, fits)
    "per_quiz_question": 1,       # one question of a self-check quiz
}

#: The careful read the rule is calibrated on: minutes per notebook of the course at ``commit``
#: (a careful graduate student reading every line, running every cell, doing every exercise; the
#: review reported in issue 40), and what it says about the read.
CALIBRATION = {
    "commit": "7e45ea3",
    "minutes": {"01": 45, "02": 55, "03": 60, "04": 80, "05": 65, "06": 65, "07": 90, "08": 65, "09": 110,
                "10": 60, "11": 100, "12": 70, "13": 40},
}

#: A formula in prose: a ``$…$`` / ``$$…$$`` span, or a relation written outside one (and outside code).
MATH_SPAN = re.compile(r"\$\$.+?\$\$|\$[^$\n]+\$", re.S)
RELATION = re.compile(r"[=≈≤≥≠]")
#: The id an exercise cell names: ``pl.check("drill-rope-interleaved", …)``.
CHECK_ID = re.compile(r"""\bpl\.check\(\s*["']([a-z0-9-]+)["']""")


def formula_count(prose: str) -> int:
    """Formulas in markdown: each ``$…$`` span, and each relation sign outside the spans, code and HTML tags."""
    rest = re.sub(r"<[^>]+>", " ", re.sub(r"`[^`]*`", " ", MATH_SPAN.sub(" ", prose)))
    return len(MATH_SPAN.findall(prose)) + len(RELATION.findall(rest))


def code_lines(source: str) -> int:
    """Lines of code a reader reads: not blank, not a comment."""
    return sum(1 for line in source.splitlines() if line.strip() and not line.strip().startswith("#"))


def chapters() -> list[pathlib.Path]:
    return sorted(p for p in NB_DIR.glob("[0-9][0-9]_*.ipynb") if p.name != INDEX)


def title_and_summary(path: pathlib.Path) -> tuple[str, str]:
    nb = nbformat.read(path, as_version=4)
    first = next(c for c in nb.cells if c.cell_type == "markdown")
    lines = first.source.splitlines()
    heading = next(line for line in lines if line.startswith("# "))
    title = heading[2:].strip()
    rest = "\n".join(lines[lines.index(heading) + 1:]).strip()
    summary = rest.split("\n\n")[0].replace("\n", " ").strip() if rest else ""
    return title, summary


def course_info(path: pathlib.Path) -> dict:
    """The notebook's stored ``posenc`` metadata: ``requires`` (notebook numbers), ``minutes``,
    and whether it has sliders (read from its code cells)."""
    nb = nbformat.read(path, as_version=4)
    info = dict(nb.metadata.get("posenc", {}))
    requires = [str(r) for r in info.get("requires", [])]
    minutes = int(info.get("minutes", 0))
    has_sliders = any(EXPLORER_CALL.search(c.source) for c in nb.cells if c.cell_type == "code")
    return {"requires": requires, "minutes": minutes, "sliders": has_sliders}


def introduced_in() -> dict[str, str]:
    """Every public ``pl.*`` name -> the number of the notebook that introduces it, as
    ``posenc/course/introduced.py`` declares, leaving out the names every notebook uses
    (its ``INFRASTRUCTURE``: using them is not a prerequisite)."""
    from posenc.course.introduced import INFRASTRUCTURE, first_met   # installed (requirements.txt's ``-e .``)

    return {name: notebook[:2] for name, notebook in first_met().items() if name not in INFRASTRUCTURE}


def derived_requires(path: pathlib.Path, introduced: dict[str, str]) -> list[str]:
    """The earlier notebooks ``path`` uses: those introducing the ``pl.*`` names its code calls,
    plus its :data:`CONCEPT_REFERENCES`. Raises SystemExit on a forward reference."""
    me = path.name[:2]
    nb = nbformat.read(path, as_version=4)
    used = {m.group(1) for c in nb.cells if c.cell_type == "code" for m in PL_NAME.finditer(c.source)}
    need = set(CONCEPT_REFERENCES.get(me, {}))
    for name in sorted(used):
        home = introduced.get(name)
        if home is None or home == me:
            continue
        if home > me:
            raise SystemExit(f"{path.name}: uses pl.{name}, introduced in notebook {home} (later): "
                             "a forward reference; introduce it here or move the use")
        need.add(home)
    later = sorted(n for n in need if n >= me)
    if later:
        raise SystemExit(f"{path.name}: CONCEPT_REFERENCES names later notebooks {later}")
    return sorted(need)


def reading_stats(path: pathlib.Path) -> dict:
    """What a reader reads, runs and does in a notebook: the counts :func:`estimate_minutes` uses
    (a drill-list cell counted as it will be filled, so one run of this script settles)."""
    nb = nbformat.read(path, as_version=4)
    filled = lambda c: drill_list_markdown() if DRILL_LIST_TAG in c.get("metadata", {}).get("tags", []) else c.source
    return cell_stats([(c.cell_type, filled(c)) for c in nb.cells])


#: An exercise cell before the registry (the calibration's commit): ``pl.check_pe(answer, …)``.
LEGACY_CHECK = re.compile(r"\bpl\.check_\w+\(")


def cell_stats(cells, legacy_checks: bool = False) -> dict:
    """:func:`reading_stats` of some cells, given as ``(cell_type, source)`` pairs. Exercises and
    drills are told apart by the ids their ``pl.check`` calls name (posenc/course/catalogue.py);
    ``legacy_checks`` counts the ``pl.check_*`` calls of notebooks from before the registry."""
    from posenc.course import catalogue   # installed (requirements.txt's ``-e .``)

    prose = "\n".join(src for kind, src in cells if kind == "markdown")
    code = [src for kind, src in cells if kind == "code"]
    quiz_questions = 0
    for bank in {m.group(1) for c in code for m in QUIZ_CALL.finditer(c)}:
        import posenc_lib

        quiz_questions += len(getattr(posenc_lib, bank))
    asked = [catalogue.exercise(m.group(1)) for c in code for m in CHECK_ID.finditer(c)]
    if legacy_checks:
        asked = [catalogue.Exercise("legacy", "", len) for c in code for _ in LEGACY_CHECK.finditer(c)]
    return {
        "cjk": len(re.findall(r"[\u4e00-\u9fff]", prose)),
        "words": len(re.findall(r"[A-Za-z]+", prose)),
        "formulas": formula_count(prose),
        "code_lines": sum(code_lines(c) for c in code),
        "interactive": sum(len(INTERACTIVE_CALL.findall(c)) for c in code),
        "exercises": sum(e.kind == "exercise" for e in asked),
        "drill_minutes": sum(e.minutes or 0 for e in asked if e.kind == "drill"),
        "slow_cells": sum(1 for c in code if SLOW_CALL.search(c)),
        "quiz_questions": quiz_questions,
    }


def raw_minutes(stats: dict, rule: dict = READING_RULE) -> float:
    """:func:`estimate_minutes` before rounding."""
    return (stats["cjk"] / rule["cjk_per_minute"] + stats["words"] / rule["words_per_minute"]
            + stats["formulas"] * rule["per_formula"] + stats["code_lines"] * rule["per_code_line"]
            + stats["interactive"] * rule["per_interactive"] + stats["exercises"] * rule["per_exercise"]
            + stats["drill_minutes"] * rule["drill_factor"] + stats["slow_cells"] * rule["per_slow_cell"]
            + stats["quiz_questions"] * rule["per_quiz_question"])


def estimate_minutes(stats: dict, rule: dict = READING_RULE) -> int:
    """Minutes for a careful reader who reads the text and every output, works through every
    formula, tries each explorer and does each exercise and drill: prose at ``cjk_per_minute``
    Chinese characters and ``words_per_minute`` English words, minutes per formula and per line
    of code, fixed minutes per explorer, exercise, slow cell and quiz question, a drill's declared
    minutes times ``drill_factor``; rounded to the nearest 5 minutes (at least 5)."""
    return max(5, 5 * math.floor(raw_minutes(stats, rule) / 5 + 0.5))


def calibration_rows(rule: dict = READING_RULE) -> list[dict]:
    """Per notebook of :data:`CALIBRATION`'s commit (read from git): the careful read's minutes,
    the rule's and the error. Needs the repository's history (None when it is missing)."""
    commit, minutes = CALIBRATION["commit"], CALIBRATION["minutes"]
    try:
        files = subprocess.run(["git", "ls-tree", "--name-only", commit, "notebooks/"], cwd=ROOT, check=True,
                               capture_output=True, text=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        return None
    rows = []
    for f in files:
        number = pathlib.PurePath(f).name[:2]
        if number not in minutes:
            continue
        cells = json.loads(subprocess.run(["git", "show", f"{commit}:{f}"], cwd=ROOT, check=True,
                                          capture_output=True, text=True).stdout)["cells"]
        stats = cell_stats([(c["cell_type"], "".join(c["source"])) for c in cells], legacy_checks=True)
        rows.append({"notebook": number, "read": minutes[number], "rule": estimate_minutes(stats, rule),
                     "raw": raw_minutes(stats, rule), "stats": stats})
    return rows


#: Routes through the course besides the full order: (name, what it is for, minutes it
#: promises, steps). A step is (notebook number, section numbers to read; () = the whole
#: notebook). The contents page and the README list them with each step's notebook title and
#: section headings and the minutes :func:`estimate_minutes` gives the sections' cells (their
#: drills left out: :func:`without_drills`); the tests check that every section exists and that
#: a route keeps its promise.
ROUTES = (
    ("面试前 30 分钟", "先读最后一篇的答题卡（一句话版、1 分钟版、加分点、要改准的说法、常被追问的数字），"
     "再看两篇的「面试怎么答」", 30,
     (("13", ("1", "2", "3", "4", "5")), ("06", ("7",)), ("09", ("7",)))),
    ("3 小时速成", "每篇只读讲核心的几节，按这个顺序；最后用小结篇把答案说出口", 180,
     (("01", ("1", "7")), ("02", ("1", "2")), ("03", ("1",)), ("04", ("1", "4")),
      ("05", ("6",)), ("06", ("4",)), ("07", ("1", "2", "3", "7")),
      ("08", ("1",)), ("09", ("1", "3")), ("10", ("4",)), ("11", ("1",)),
      ("12", ("2",)), ("13", ("1", "2", "3", "4", "5")))),
)
#: A markdown link, whose text alone is kept when a heading is quoted in a route.
LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
#: A section heading: "## 3. 标题".
SECTION = re.compile(r"^## (\d+)\. (.+)$")


def sections(path: pathlib.Path) -> dict[str, tuple[str, list, str | None]]:
    """Numbered sections of a notebook: number -> (heading, its cells as (cell_type, source)
    pairs, the id of the cell its heading begins or None); a markdown cell is split at its "## "
    lines, so each part counts for its section."""
    nb = nbformat.read(path, as_version=4)
    out, current = {}, None
    for cell in nb.cells:
        chunks = [[]]
        for line in cell.source.splitlines() if cell.cell_type == "markdown" else [cell.source]:
            if cell.cell_type == "markdown" and line.startswith("## ") and chunks[-1]:
                chunks.append([])
            chunks[-1].append(line)
        for k, chunk in enumerate(chunks):
            head = SECTION.match(chunk[0]) if cell.cell_type == "markdown" and chunk else None
            if cell.cell_type == "markdown" and chunk and chunk[0].startswith("## "):
                current = head.group(1) if head else None
                if head:
                    out[current] = (head.group(2).strip(), [], cell.get("id") if k == 0 else None)
            if current is not None:
                out[current][1].append((cell.cell_type, "\n".join(chunk)))
    return out


def plain(heading: str) -> str:
    """A heading without its links (their text stays): 「从[第 04 篇](…)的旋转」 -> 「从第 04 篇的旋转」."""
    return LINK.sub(r"\1", heading)


def without_drills(cells: list) -> list:
    """``(cell_type, source)`` pairs without the drills: each drill's cell (``pl.check("drill-…")``)
    and the markdown cells beside it, its task and its folded solution. A route reads a section;
    its drills are practice (the summary lists them with their minutes)."""
    drills = {i for i, (kind, src) in enumerate(cells) if kind == "code" and DRILL_CALL.search(src)}
    beside = {j for i in drills for j in (i - 1, i + 1) if 0 <= j < len(cells) and cells[j][0] == "markdown"}
    return [c for i, c in enumerate(cells) if i not in drills | beside]


def route_steps(route) -> list[dict]:
    """The steps of a route: notebook path, title, the sections (number, heading) and their
    minutes. Raises SystemExit when a step names a notebook or section that is not there, or a
    section whose heading does not begin a cell (a route links to that cell: :func:`cell_link`)."""
    steps = []
    for number, wanted in route[3]:
        path = next((p for p in chapters() if p.name[:2] == number), None)
        if path is None:
            raise SystemExit(f"route {route[0]}: no notebook {number}")
        found = sections(path)
        missing = [n for n in wanted if n not in found]
        if missing:
            raise SystemExit(f"route {route[0]}: {path.name} has no section {missing}")
        inside = [n for n in wanted if found[n][2] is None]
        if inside:
            raise SystemExit(f"route {route[0]}: {path.name}: the heading of section {inside} does not "
                             "begin its cell (split the cell there: a link lands on a cell)")
        cells = without_drills([c for n in wanted for c in found[n][1]])
        stats = cell_stats(cells) if wanted else reading_stats(path)
        steps.append({"path": path, "title": title_and_summary(path)[0],
                      "sections": [(n, found[n][0], found[n][2]) for n in wanted], "stats": stats})
    return steps


def route_minutes(steps) -> int:
    """The route's minutes: :func:`estimate_minutes` of all its sections' cells together."""
    total = {k: sum(s["stats"][k] for s in steps) for k in steps[0]["stats"]}
    return estimate_minutes(total)


def cell_link(target: str, cell_id: str) -> str:
    """A link that lands on a heading in JupyterLab and on the static page: to the cell the
    heading begins, ``target#cell-id=<id>``. JupyterLab 4.6 scrolls to a cell by its id
    (``Notebook.setFragment``, docs/user/urls) and nbconvert gives every cell that id
    (``id="cell-id=<id>"``); a link by heading text (``#7.-远程衰减``) does not land in JupyterLab:
    the link handler passes the percent-encoded fragment (every Chinese heading fails) and looks it
    up before a newly opened notebook has rendered its headings (jupyterlab#15207)."""
    return f"{target}#cell-id={cell_id}"


def routes_markdown(items, link_prefix: str = "") -> list[str]:
    """The routes as markdown lines: each route's steps in order, every section a link to the
    cell its heading begins (:func:`cell_link`), then the full course."""
    lines = []
    for route in ROUTES:
        steps = route_steps(route)
        lines.append(f"- **{route[0]}**（约 {route_minutes(steps)} 分钟）：{route[1]}。")
        for s in steps:
            target = f"{link_prefix}{s['path'].name}"
            where = "、".join(f"[§{n} {plain(h)}]({cell_link(target, cid)})" for n, h, cid in s["sections"]) or "全篇"
            lines.append(f"  - {s['path'].name[:2]} [{s['title']}]({target})：{where}")
    total = sum(info["minutes"] for _, (_, _, info) in items)
    from posenc.course import catalogue

    drills = catalogue.for_kind("drill")
    hands = 5 * math.floor(sum(d.minutes or 0 for d in drills) * READING_RULE["drill_factor"] / 5 + 0.5)
    lines.append(f"- **完整课程**（约 {total // 60} 小时 {total % 60} 分钟）：按下表从 01 读到 "
                 f"{items[-1][0].name[:2]}，每篇读完、跑完、做完练习；其中 {len(drills)} 道手写代码题约 "
                 f"{hands // 60} 小时 {hands % 60} 分钟，第一遍可以先跳过，面试前再回来写。")
    return lines


def rule_text(rule: dict = READING_RULE) -> str:
    """The time estimate's rule in words, for the contents page."""
    num = lambda x: f"{x:g}"
    return (f"用时按同一条规则估算（tools/build_contents.py 的 estimate_minutes）：正文每分钟读 "
            f"{num(rule['cjk_per_minute'])} 个汉字、{num(rule['words_per_minute'])} 个英文词，每个公式（$…$ 或等号、约等号）"
            f"{num(rule['per_formula'])} 分钟，每行代码连同输出 {num(rule['per_code_line'])} 分钟；每个探索器、训练面板或练习纸 "
            f"{num(rule['per_interactive'])} 分钟，每道练习 {num(rule['per_exercise'])} 分钟，每道手写代码题按面试给它的时间的 "
            f"{num(rule['drill_factor'])} 倍，每个带进度条的慢单元格 {num(rule['per_slow_cell'])} 分钟，自测题每题 "
            f"{num(rule['per_quiz_question'])} 分钟；合计后取到 5 分钟的整数倍。这是认真读每一行、推每一个公式、动手拖滑块、"
            "先想再答练习的读者的用时：读速和每个公式、每行代码的分钟数，是对照一位认真的读者逐篇读完上一版课程的实测用时"
            "拟合再取整的（`python tools/build_contents.py --calibrate` 打印对照表：13 篇合计相差 3%，逐篇的中位误差 8%）。")


def requires_text(info: dict) -> str:
    return number_ranges(info["requires"]) if info["requires"] else "无"


def number_ranges(numbers) -> str:
    """["01", "02", "03", "05", "07", "08"] -> "01–03、05、07、08": a dash for three or more in a row."""
    out, run = [], []

    def close():
        out.extend([f"{run[0]}–{run[-1]}"] if len(run) > 2 else run)

    for n in numbers:
        if run and int(n) != int(run[-1]) + 1:
            close()
            run = []
        run.append(n)
    if run:
        close()
    return "、".join(out)


def index_notebook(items) -> nbformat.NotebookNode:
    sliders = [path.name[:2] for path, (_, _, info) in items if info["sliders"]]
    total = sum(info["minutes"] for _, (_, _, info) in items)
    lines = [
        "# 位置编码 (Positional Encoding) 交互课程 · 目录",
        "",
        "按顺序读：从自注意力为什么分不清语序，到手算、时钟直觉、相对位置、可学习编码，"
        "再到相对位置编码家族、RoPE、ALiBi 与外推、上下文扩展，最后用一篇小结把答案说出口。"
        f"带滑块 (slider) 的篇目：{number_ranges(sliders)}；每一篇都有可重跑的计算和带提示的练习。"
        f"全部读完、跑完、做完练习大约 {total // 60} 小时 {total % 60} 分钟。",
        "",
        "「先读」列出一篇真正用到的前面各篇：它的代码调用了哪一篇引入的函数，"
        "以及它直接引用的概念。" + rule_text(),
        "",
        "## 路线 (routes)",
        "",
        "时间不够时按路线读；用时按上面同一条规则，只算路线里那几节（不含其中的手写练习）。",
        "",
        *routes_markdown(items),
        "",
        "## 全部篇目",
        "",
        "| # | 笔记本 | 先读 | 用时 |",
        "|---|---|---|---|",
    ]
    for path, (title, _, info) in items:
        lines.append(f"| {path.name[:2]} | [{title}]({path.name}) | {requires_text(info)} | "
                     f"约 {info['minutes']} 分钟 |")
    lines.append("")
    for path, (title, summary, _) in items:
        if summary:
            lines.append(f"**{path.name[:2]}. {title}** — {summary}")
            lines.append("")
    nb = nbformat.v4.new_notebook()
    progress = nbformat.v4.new_markdown_cell(
        "## 我的进度\n\n每篇的练习做对了几道、自测题第一次选对了几道。在 JupyterLab 里运行下面的单元格就会列出来"
        "（记录在你自己电脑上的进度文件里）；在静态网页上这张表直接显示，读的是你这个浏览器里记下的进度。",
        id="progress-intro")
    nb.cells = [nbformat.v4.new_markdown_cell("\n".join(lines).rstrip() + "\n", id="contents"),
                progress, nbformat.v4.new_code_cell(PROGRESS_CELL, id="progress")]
    nb.metadata.update(kernel_metadata())   # what the kernel writes on open: no unsaved-changes dot
    # For maintainers, not readers: where this page comes from.
    nb.metadata["posenc"] = {"generated_by": "tools/build_contents.py (do not edit by hand)"}
    return nb


def nav_markdown(prev, nxt) -> str:
    """The bar at the end of a notebook: previous | contents | next; the first notebook has no
    "previous" and the last no "next" (not a dead 「下一篇：无 →」)."""
    parts = ([f"[← 上一篇：{prev[1]}]({prev[0]})"] if prev else []) + [f"[目录]({INDEX})"] \
        + ([f"[下一篇：{nxt[1]} →]({nxt[0]})"] if nxt else [])
    return "---\n" + " | ".join(parts)


def with_navigation(path, prev, nxt, info=None) -> str:
    """The notebook with its navigation bar last and, when ``info`` is given, its derived
    ``posenc`` metadata (``requires``, ``minutes``)."""
    nb = nbformat.read(path, as_version=4)
    if info is not None:
        nb.metadata["posenc"] = {**nb.metadata.get("posenc", {}),
                                 "minutes": info["minutes"], "requires": info["requires"]}
    cells = [c for c in nb.cells if NAV_TAG not in c.get("metadata", {}).get("tags", [])]
    nav = nbformat.v4.new_markdown_cell(nav_markdown(prev, nxt), id="navigation")
    nav.metadata["tags"] = [NAV_TAG]
    nb.cells = cells + [nav]
    return nbformat.writes(nb) + "\n"


def drill_headings() -> dict[str, tuple[str, str]]:
    """Drill id -> the heading of its task (the first line of the markdown cell before the cell
    that calls ``pl.check("<id>", …)``) and that cell's id, read from the notebooks."""
    out = {}
    for path in chapters():
        cells = nbformat.read(path, as_version=4).cells
        for i, cell in enumerate(cells):
            m = DRILL_CALL.search(cell.source) if cell.cell_type == "code" else None
            if m and i > 0 and cells[i - 1].cell_type == "markdown":
                out[m.group(1)] = (cells[i - 1].source.splitlines()[0].lstrip("#").strip(), cells[i - 1].get("id"))
    return out


def drill_list_markdown() -> str:
    """The summary's list of drills, from the declarations (posenc/course/catalogue.py: each
    drill's notebook and the minutes an interview allows) and each drill's heading: one row per
    drill, with a link to the cell its heading begins (:func:`cell_link`)."""
    from posenc.course import catalogue   # installed (requirements.txt's ``-e .``)

    headings, titles = drill_headings(), {p.stem: title_and_summary(p)[0] for p in chapters()}
    rows = ["| 手写什么 | 在哪一篇 | 面试时大约给 |", "|---|---|---|"]
    drills = catalogue.for_kind("drill")
    for e in drills:
        if e.id not in headings:
            raise SystemExit(f"drill {e.id}: no cell in {e.notebook} calls it after a heading")
        heading, cell_id = headings[e.id]
        what = heading.split("：", 1)[-1]
        rows.append(f"| [{what}]({cell_link(e.notebook + '.ipynb', cell_id)}) | 第 {e.notebook[:2]} 篇 {titles[e.notebook]} | "
                    f"{e.minutes:g} 分钟 |")
    total = sum(e.minutes for e in drills)
    return "\n".join(rows + ["", f"共 {len(drills)} 段，合计约 {total:g} 分钟。"])


def with_drill_list(text: str) -> str:
    """A notebook's JSON text with its drill-list cell (tagged :data:`DRILL_LIST_TAG`) refilled."""
    nb = nbformat.reads(text, as_version=4)
    cells = [c for c in nb.cells if DRILL_LIST_TAG in c.get("metadata", {}).get("tags", [])]
    if not cells:
        return text
    for cell in cells:
        cell.source = drill_list_markdown()
    return nbformat.writes(nb) + "\n"


def readme_block(items) -> str:
    rows = ["| # | 笔记本 (notebook) | 先读 | 用时 | 内容 |", "|---|---|---|---|---|"]
    for path, (title, summary, info) in items:
        # the summaries' links are relative to notebooks/; the README sits one level up
        summary = re.sub(r"\]\((?![a-z]+:|/)([^)]+)\)", r"](notebooks/\1)", summary)
        rows.append(f"| {path.name[:2]} | [{title}](notebooks/{path.name}) | {requires_text(info)} | "
                    f"约 {info['minutes']} 分钟 | {summary} |")
    routes = ["", "路线（时间不够时）：", "", *routes_markdown(items, link_prefix="notebooks/")]
    return "\n".join([README_START, *rows, *routes, README_END])


def derived_info(path: pathlib.Path, introduced: dict[str, str]) -> dict:
    """``course_info`` with ``requires`` and ``minutes`` derived from the notebook itself."""
    return {**course_info(path), "requires": derived_requires(path, introduced),
            "minutes": estimate_minutes(reading_stats(path))}


def planned() -> dict[pathlib.Path, str]:
    introduced = introduced_in()
    items = [(p, (*title_and_summary(p), derived_info(p, introduced))) for p in chapters()]
    out = {NB_DIR / INDEX: nbformat.writes(index_notebook(items)) + "\n"}
    for j, (path, (_, _, info)) in enumerate(items):
        prev = (items[j - 1][0].name, items[j - 1][1][0]) if j > 0 else None
        nxt = (items[j + 1][0].name, items[j + 1][1][0]) if j + 1 < len(items) else None
        out[path] = with_drill_list(with_navigation(path, prev, nxt, info))
    readme = ROOT / "README.md"
    text = readme.read_text(encoding="utf-8")
    pattern = re.compile(re.escape(README_START) + ".*?" + re.escape(README_END), re.S)
    if not pattern.search(text):
        raise SystemExit(f"README.md lacks the {README_START} … {README_END} markers")
    out[readme] = pattern.sub(lambda _: readme_block(items), text)
    return out


def calibrate() -> int:
    """Print, per notebook of :data:`CALIBRATION`'s commit, the careful read's minutes and the rule's,
    then the least-squares fit of the reading scale and the minutes per formula and per line of code
    with the rule's fixed minutes per explorer, exercise, slow cell and quiz question held."""
    import numpy as np

    rows = calibration_rows()
    if rows is None:
        print(f"calibrate: needs the git history (commit {CALIBRATION['commit']})")
        return 1
    print("notebook  careful read  rule  error")
    for r in rows:
        print(f"{r['notebook']:>8}  {r['read']:>12}  {r['rule']:>4}  {(r['rule'] - r['read']) / r['read']:+.0%}")
    read, rule = sum(r["read"] for r in rows), sum(r["rule"] for r in rows)
    errors = sorted(abs(r["rule"] - r["read"]) / r["read"] for r in rows)
    print(f"total: careful read {read} min, rule {rule} min ({(rule - read) / read:+.1%}); "
          f"median |error| {errors[len(errors) // 2]:.0%}, largest {errors[-1]:.0%}")
    R = READING_RULE
    held = np.array([raw_minutes({**r["stats"], "cjk": 0, "words": 0, "formulas": 0, "code_lines": 0}) for r in rows])
    X = np.array([[r["stats"]["cjk"] / 300 + r["stats"]["words"] / 200, r["stats"]["formulas"], r["stats"]["code_lines"]]
                  for r in rows])
    fit = np.linalg.lstsq(X, np.array([r["read"] for r in rows]) - held, rcond=None)[0]
    print(f"fit with the fixed minutes held: {300 / fit[0]:.0f} characters and {200 / fit[0]:.0f} words per minute, "
          f"{fit[1]:.3f} min per formula, {fit[2]:.3f} min per code line "
          f"(the rule: {R['cjk_per_minute']}, {R['words_per_minute']}, {R['per_formula']}, {R['per_code_line']})")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report what is out of date")
    parser.add_argument("--calibrate", action="store_true",
                        help="print the time rule against the careful read it is calibrated on, and a fresh fit")
    args = parser.parse_args(argv)
    if args.calibrate:
        return calibrate()
    stale = []
    for path, text in planned().items():
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            stale.append(path.relative_to(ROOT))
            if not args.check:
                path.write_text(text, encoding="utf-8")
    if args.check and stale:
        print("out of date (run python tools/build_contents.py):", *stale, sep="\n  ")
        return 1
    for p in stale:
        print(f"wrote {p}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
