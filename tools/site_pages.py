"""What a static page can do, decided from what its outputs declare (posenc/ui/declare.py).

tools/build_site.py runs a notebook, then hands it here before exporting it:

* an unanswered exercise (a verdict declaring its rule) becomes an answer box, graded in the
  page by tools/site/grader.js with that very rule, and the notebook's instruction to replace
  ``None`` and run the cell becomes the page's (:data:`PAGE_INSTRUCTION`); an exercise the page
  cannot grade (a drill, whose answer is a function; a verdict without a rule) becomes the one
  line saying that running it needs JupyterLab (:data:`DRILL_HINT`, :data:`KERNEL_HINT`);
* the quiz, the worksheet and the progress table become the page's own HTML, rendered from their
  declarations by the modules that render them in the kernel (``page_html`` of
  :mod:`posenc.ui.quiz`, :mod:`posenc.ui.worksheet`, :mod:`posenc.ui.progress`);
  tools/site/course.js fills in the reader's numbers and verdicts (kept in the reader's browser,
  ``localStorage``, by tools/site/record.js) and writes no text of its own;
* of every other widget, only what a declaration says works on a page keeps working (each
  explorer's frame grid — its main slider, Play button and the grid's other controls — whose
  frames were rendered at build time); every
  other input is disabled, and the widget gets one line saying so (an explorer's line names its
  main slider; a widget may declare its own line, e.g. the training panel);
* frames (PNG images held as ``data:`` URLs) are stored as 256-colour images (lossless WebP).

Pure functions of a notebook node; tests/test_build_site.py and the browser suite test them.
"""
from __future__ import annotations

import base64
import html
import io
import re

from posenc.ui import progress, quiz, worksheet
from posenc.ui.declare import EXERCISE, EXPLORER, PROGRESS, QUIZ, STATIC, WORKSHEET, data_attr, fill, verdict_looks

WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
REF = "IPY_MODEL_"
#: The one line of a widget none of whose inputs work on a page.
HINT_NONE = "静态网页：这里的控件要在 JupyterLab 里运行笔记本才能用。"
#: The CSS class of every such line.
HINT_CLASS = "posenc-static-hint"
#: What an answer box says before anything is typed (and when 「检查」 finds it empty).
EXERCISE_PROMPT = "在框里写下你的答案，按回车或「检查」：判分规则和 JupyterLab 里完全一样。"
#: What stands on a page instead of a drill's verdict (the answer is a function: only a kernel runs it).
DRILL_HINT = ("静态网页：手写练习要在 JupyterLab 里运行：补全上面的函数，运行这一格，检查函数会在几组随机输入上"
              "跑你的函数并指出错在哪里。完整解答在下面。")
#: What stands instead of any other exercise the page cannot grade (its verdict declares no rule).
KERNEL_HINT = "静态网页：这道题要在 JupyterLab 里运行这一格才能判分。"
#: The notebooks' instruction for an exercise cell (「每题把 `None` 换成你的答案再运行」, a
#: parenthesis allowed before 再运行), and what a page with answer boxes says instead.
KERNEL_INSTRUCTION = re.compile(r"把\s*`None`\s*换成你的答案(?P<aside>（[^）]*）)?\s*再运行")
PAGE_INSTRUCTION = "在下面的框里写下你的答案{aside}、按回车或「检查」"


def explorer_hint(decl: dict) -> str:
    """An explorer's line: which controls work (its frame grid: the main slider and the grid's
    other axes) and, for each one some of whose values have frames, which of them."""
    if not decl.get("main"):
        return HINT_NONE
    axes = [*decl.get("grid", ()), {"name": decl["main"], "frames": decl["frames"], "values": decl["values"]}]
    notes = []
    for a in axes:
        if a["frames"] >= a["values"]:
            continue
        if a.get("shown"):
            notes.append(f"{a['name']} 取 {'、'.join(a['shown'])}")
        else:
            notes.append(f"{a['name']} 的 {a['values']} 个取值里均匀取了 {a['frames']} 个")
    note = f"（{'；'.join(notes)}）" if notes else ""
    names = "、".join(a["name"] for a in axes)
    if decl["controls"]:
        return f"静态网页：{names} 能拖动{note}，换的是构建网页时画好的图；其余控件要在 JupyterLab 里运行笔记本才能用。"
    return f"静态网页：{names} 的每个位置都是构建网页时画好的图{note}；要重新计算，请在 JupyterLab 里运行笔记本。"


def hint_html(text: str, **data) -> str:
    attrs = "".join(f' data-{k}="{html.escape(str(v))}"' for k, v in data.items())
    return f'<div class="{HINT_CLASS}"{attrs}>{html.escape(text)}</div>'


def _html_output(markup: str, plain: str = "") -> dict:
    import nbformat

    return nbformat.v4.new_output("display_data", data={"text/html": markup, "text/plain": plain or " "})


# ---------------------------------------------------------------------------
# exercises, quiz, worksheet, progress: the page's own HTML
# ---------------------------------------------------------------------------
def _example(rule: dict) -> str:
    read, shape = rule["read"], rule.get("shape") or []
    if read == "number":
        if not shape:
            return "一个数，例如 0.25、2 ** -2 或 sin(4)"
        if len(shape) == 1:
            return f"{shape[0]} 个数，例如 [{', '.join(['0.1'] * min(shape[0], 3))}{', …' if shape[0] > 3 else ''}]"
        return "嵌套列表，例如 [[a, b], [c, d]]"
    if read == "int":
        return "一个整数"
    if read in ("ints", "int_list"):
        return "一串整数，例如 [0, 2]"
    return ""


def exercise_html(decl: dict, notebook: str) -> str:
    """The answer box of one exercise: its rule in a data attribute, an input of the rule's kind
    (text; a choice's options as buttons; letters as boxes), a check button, and the verdict as
    the kernel shows it (:func:`~posenc.ui.declare.verdict_looks`), first with
    :data:`EXERCISE_PROMPT`."""
    rule = decl["rule"]
    read = rule["read"]
    looks = verdict_looks()
    common = (f'class="posenc-exercise" data-exercise="{html.escape(decl["exercise"])}" '
              f'data-notebook="{html.escape(notebook)}" {data_attr("rule", rule)} {data_attr("verdicts", looks)} '
              f'data-prompt="{html.escape(EXERCISE_PROMPT)}"')
    if read == "choice":
        options = (rule.get("valid") or {}).get("options")
        if not options:
            raise ValueError(f"{decl['exercise']}: a choice without options cannot be offered on a page")
        items = "".join(
            f'<label class="posenc-option"><input type="radio" name="{html.escape(decl["exercise"])}" '
            f'{data_attr("option", o)}> {html.escape(_option_text(o))}</label>' for o in options)
        field = f'<div class="posenc-options" role="radiogroup">{items}</div>'
    elif read == "letters":
        items = "".join(f'<label class="posenc-option"><input type="checkbox" value="{x}"> {x}</label>'
                        for x in rule["letters"])
        field = f'<div class="posenc-options">{items}</div>'
    else:
        field = (f'<input type="text" class="posenc-answer" autocomplete="off" spellcheck="false" '
                 f'aria-label="你的答案" placeholder="{html.escape(_example(rule))}">')
    prompt = fill(looks["pending"], message=html.escape(EXERCISE_PROMPT))
    return (f'<div {common}><div class="posenc-exercise-row"><span class="posenc-exercise-label">你的答案</span>'
            f'{field}<button type="button" class="posenc-check">检查</button></div>'
            f'<div class="posenc-verdict-slot" aria-live="polite">{prompt}</div></div>')


def _option_text(tagged) -> str:
    kind, v = tagged
    if kind == "str":
        return v
    if kind == "bool":
        return "True（是）" if v else "False（否）"
    if kind == "seq":
        return "[" + ", ".join(_option_text(t) for t in v) + "]"
    return str(v)


#: The page's HTML of each widget that declares itself, by its MIME type: rendered by the module
#: that renders it in the kernel.
PAGE_HTML = {QUIZ: quiz.page_html, WORKSHEET: worksheet.page_html, PROGRESS: progress.page_html}


def page_instruction(source: str) -> str:
    """A markdown cell's text with the notebooks' instruction for an exercise cell
    (:data:`KERNEL_INSTRUCTION`) replaced by the page's (:data:`PAGE_INSTRUCTION`)."""
    return KERNEL_INSTRUCTION.sub(lambda m: PAGE_INSTRUCTION.format(aside=m["aside"] or ""), source)


# ---------------------------------------------------------------------------
# a notebook's outputs and widget state
# ---------------------------------------------------------------------------
def widget_state(nb) -> dict:
    return nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})


def refs(x) -> list[str]:
    if isinstance(x, str):
        return [x[len(REF):]] if x.startswith(REF) else []
    if isinstance(x, dict):
        return [r for v in x.values() for r in refs(v)]
    if isinstance(x, (list, tuple)):
        return [r for v in x for r in refs(v)]
    return []


def reachable(state: dict, root: str) -> set:
    seen, todo = set(), [root]
    while todo:
        m = todo.pop()
        if m in seen or m not in state:
            continue
        seen.add(m)
        todo.extend(refs(state[m].get("state", {})))
    return seen


def teach(nb, notebook: str) -> dict:
    """Make the page teach (see the module docstring); returns what it did, for the report."""
    state = widget_state(nb)
    working: set = set()
    roots: list = []            # (output index, model id, its hint) of the widget views of a cell
    report = {"exercises": 0, "drills": 0, "kernel_only": 0, "quizzes": 0, "worksheets": 0, "progress": 0,
              "disabled": 0, "hints": 0, "instructions": 0}
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        outputs = []
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if EXERCISE in data:
                decl = data[EXERCISE]
                if decl.get("drill"):              # its answer is a function: only a kernel runs it
                    outputs.append(_html_output(hint_html(DRILL_HINT, drill=decl["exercise"]), DRILL_HINT))
                    report["drills"] += 1
                elif decl.get("pending") and decl.get("rule"):
                    outputs.append(_html_output(exercise_html(decl, notebook), "answer box"))
                    report["exercises"] += 1
                elif decl.get("pending"):          # no rule: only a kernel grades it
                    outputs.append(_html_output(hint_html(KERNEL_HINT, exercise=decl["exercise"]), KERNEL_HINT))
                    report["kernel_only"] += 1
                else:
                    data.pop(EXERCISE)
                    outputs.append(out)
                continue
            for mime, key in ((QUIZ, "quizzes"), (WORKSHEET, "worksheets"), (PROGRESS, "progress")):
                if mime in data:
                    outputs.append(_html_output(PAGE_HTML[mime](data[mime])))
                    report[key] += 1
                    break
            else:
                if WIDGET_VIEW in data:
                    decl = data.pop(EXPLORER, None)
                    own = data.pop(STATIC, None)
                    if decl is not None:
                        working |= {m for m in (decl.get("main_model"), decl.get("play_model")) if m}
                        working |= {a["model"] for a in decl.get("grid", ())}
                        report.setdefault("explorers", []).append(decl)
                        hint = explorer_hint(decl)
                    else:
                        hint = (own or {}).get("hint") or HINT_NONE
                    roots.append((len(outputs), data[WIDGET_VIEW]["model_id"], hint))
                    outputs.append(out)
                else:
                    outputs.append(out)
        # a line before each widget whose inputs are off (inserted from the end: indices hold)
        for index, model, hint in reversed(roots):
            off = [m for m in reachable(state, model) if "disabled" in state[m].get("state", {}) and m not in working]
            if off:
                outputs.insert(index, _html_output(hint_html(hint), hint))
                report["hints"] += 1
        roots = []
        cell.outputs = outputs
    if report["exercises"]:
        for cell in nb.cells:
            if cell.cell_type == "markdown" and KERNEL_INSTRUCTION.search(cell.source):
                cell.source = page_instruction(cell.source)
                report["instructions"] += 1
    for m, model in state.items():
        s = model.get("state", {})
        if "disabled" in s and m not in working and not s["disabled"]:
            s["disabled"] = True
            report["disabled"] += 1
    return report


#: The largest change of one colour channel (of 255) a 256-colour frame may make.
MAX_CHANNEL_ERROR = 12


def palette_image(png: bytes):
    """``png`` as a Pillow image of at most 256 colours: an image that has no more keeps every
    pixel exactly (its own colours as the palette); one that has more is reduced by Pillow's
    maximum coverage quantizer without dithering (measured on the course's explorers: no channel
    moves by more than 8 of 255, the mean change is under 0.4; tests bound it at
    :data:`MAX_CHANNEL_ERROR`)."""
    import numpy as np
    from PIL import Image

    img = Image.open(io.BytesIO(png)).convert("RGB")
    if img.getcolors(256) is None:          # more than 256 colours (Pillow counts them in C)
        return img.quantize(colors=256, method=Image.Quantize.MAXCOVERAGE, dither=Image.Dither.NONE)
    arr = np.asarray(img)
    keys = (arr[..., 0].astype(np.uint32) << 16) | (arr[..., 1].astype(np.uint32) << 8) | arr[..., 2]
    colours, index = np.unique(keys.ravel(), return_inverse=True)
    quant = Image.fromarray(index.reshape(keys.shape).astype(np.uint8), mode="P")
    quant.putpalette([int(v) for c in colours for v in ((c >> 16) & 255, (c >> 8) & 255, c & 255)])
    return quant


def palette_png(png: bytes) -> bytes:
    """``png`` as a PNG of at most 256 colours (:func:`palette_image`)."""
    out = io.BytesIO()
    palette_image(png).save(out, format="png", optimize=True)
    return out.getvalue()


DATA_PNG = b"data:image/png;base64,"


def frame_image(png: bytes) -> bytes:
    """A frame as a page stores it: :func:`palette_image`'s 256 colours, encoded as lossless
    WebP (the same pixels, about a sixth smaller than the 256-colour PNG and quicker to make;
    every browser the widgets run in decodes it)."""
    out = io.BytesIO()
    palette_image(png).save(out, format="webp", lossless=True, quality=50, method=4)
    return out.getvalue()


def compress_frames(nb) -> dict:
    """Every Image widget holding a PNG ``data:`` URL holds the image itself (format "webp"),
    256 colours (:func:`frame_image`); returns {"images", "bytes_before", "bytes_after"} (the
    state's base64 text)."""
    state = widget_state(nb)
    report = {"images": 0, "bytes_before": 0, "bytes_after": 0}
    for model in state.values():
        if model.get("model_name") != "ImageModel" or model.get("state", {}).get("format") != "url":
            continue
        for buf in model.get("buffers", []):
            if buf.get("path") != ["value"]:
                continue
            raw = base64.b64decode(buf["data"])
            if not raw.startswith(DATA_PNG):
                continue
            image = frame_image(base64.b64decode(raw[len(DATA_PNG):]))
            report["bytes_before"] += len(buf["data"])
            buf["data"] = base64.b64encode(image).decode()
            report["bytes_after"] += len(buf["data"])
            model["state"]["format"] = "webp"
            report["images"] += 1
    return report
