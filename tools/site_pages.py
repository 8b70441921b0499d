"""What a static page can do, decided from what its outputs declare (posenc/ui/declare.py).

tools/build_site.py runs a notebook, then hands it here before exporting it:

* an unanswered exercise (a verdict declaring its rule) becomes an answer box, graded in the
  page by tools/site/grader.js with that very rule, and the notebook's instruction to replace
  ``None`` and run the cell is told the page's way (:func:`page_prompt`);
* the quiz, the worksheet and the progress table become the page's own HTML, driven by
  tools/site/course.js from their declarations (the reader's answers and progress are kept in
  the reader's browser, ``localStorage``);
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
import json
import re

from posenc.ui.declare import EXERCISE, EXPLORER, PROGRESS, QUIZ, STATIC, WORKSHEET

WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
REF = "IPY_MODEL_"
#: The one line of a widget none of whose inputs work on a page.
HINT_NONE = "静态网页：这里的控件要在 JupyterLab 里运行笔记本才能用。"
#: The CSS class of every such line.
HINT_CLASS = "posenc-static-hint"
#: What an answer box says before anything is typed.
EXERCISE_PROMPT = "在框里写下你的答案，按回车或「检查」：判分规则和 JupyterLab 里完全一样。"
#: The notebooks' instruction for their exercises (to edit a cell and run it), and what a page
#: with answer boxes says in its place.
NOTEBOOK_PROMPT = re.compile(r"每题把 `None` 换成你的答案(?:（[^）]*）)?再运行")
PAGE_PROMPT = "每题在下面的答案框里写下你的答案，按回车或「检查」判分"


def page_prompt(markdown: str) -> str:
    """``markdown`` with the notebooks' exercise instruction (「每题把 `None` 换成你的答案再运行」)
    told the page's way: a page has answer boxes, no cell to edit and run (「再运行」 later in
    that line becomes 「再作答」)."""
    def line(text):
        m = NOTEBOOK_PROMPT.search(text)
        return text if m is None else text[:m.start()] + PAGE_PROMPT + text[m.end():].replace("再运行", "再作答")

    return "\n".join(line(x) for x in markdown.split("\n"))


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


def _attr(data) -> str:
    return html.escape(json.dumps(data, ensure_ascii=False, separators=(",", ":")), quote=True)


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
    (text; a choice's options as buttons; letters as boxes), a check button, the verdict line."""
    rule = decl["rule"]
    read = rule["read"]
    common = (f'class="posenc-exercise" data-exercise="{html.escape(decl["exercise"])}" '
              f'data-notebook="{html.escape(notebook)}" data-rule="{_attr(rule)}"')
    if read == "choice":
        options = (rule.get("valid") or {}).get("options")
        if not options:
            raise ValueError(f"{decl['exercise']}: a choice without options cannot be offered on a page")
        items = "".join(
            f'<label class="posenc-option"><input type="radio" name="{html.escape(decl["exercise"])}" '
            f'data-option="{_attr(o)}"> {html.escape(_option_text(o))}</label>' for o in options)
        field = f'<div class="posenc-options" role="radiogroup">{items}</div>'
    elif read == "letters":
        items = "".join(f'<label class="posenc-option"><input type="checkbox" value="{x}"> {x}</label>'
                        for x in rule["letters"])
        field = f'<div class="posenc-options">{items}</div>'
    else:
        field = (f'<input type="text" class="posenc-answer" autocomplete="off" spellcheck="false" '
                 f'aria-label="你的答案" placeholder="{html.escape(_example(rule))}">')
    return (f'<div {common}><div class="posenc-exercise-row"><span class="posenc-exercise-label">你的答案</span>'
            f'{field}<button type="button" class="posenc-check">检查</button></div>'
            f'<div class="posenc-verdict posenc-verdict-pending" aria-live="polite">{html.escape(EXERCISE_PROMPT)}</div></div>')


def _option_text(tagged) -> str:
    kind, v = tagged
    if kind == "str":
        return v
    if kind == "bool":
        return "True（是）" if v else "False（否）"
    if kind == "seq":
        return "[" + ", ".join(_option_text(t) for t in v) + "]"
    return str(v)


def quiz_html(decl: dict) -> str:
    qs = []
    for n, q in enumerate(decl["questions"]):
        opts = "".join(f'<label class="posenc-option"><input type="radio" name="{html.escape(decl["name"])}-{n}" '
                       f'value="{j}"> {html.escape(o)}</label>' for j, o in enumerate(q["options"]))
        qs.append(f'<div class="posenc-quiz-question" data-n="{n}"><b>{n + 1}. {html.escape(q["shown"])}</b>'
                  f'<div class="posenc-options" role="radiogroup">{opts}</div><div class="posenc-quiz-feedback" aria-live="polite"></div></div>')
    return (f'<div class="posenc-quiz posenc-page-quiz" data-quiz="{_attr(decl)}">{"".join(qs)}'
            f'<div class="posenc-quiz-score"></div></div>')


def worksheet_html(decl: dict) -> str:
    return (f'<div class="posenc-worksheet posenc-page-worksheet" data-worksheet="{_attr(decl)}">'
            f'<div class="posenc-ws-header"></div><div class="posenc-ws-grid"></div>'
            f'<div class="posenc-worksheet-messages" aria-live="polite"></div>'
            f'<button type="button" class="posenc-ws-new">换一题</button></div>')


def progress_html(decl: dict) -> str:
    return (f'<div class="posenc-progress-page" data-progress="{_attr(decl)}">'
            f'<div class="posenc-progress-table-box"></div><div class="posenc-progress-chart-box"></div>'
            f'<p class="posenc-progress-note">这张表读的是<b>你这个浏览器</b>里记下的进度：在静态网页里做的练习和自测题都记在这里'
            f'（不上传到任何地方）；在 JupyterLab 里做的记在你自己电脑上的进度文件里。</p>'
            f'<button type="button" class="posenc-progress-reset">清空这个浏览器里的进度</button></div>')


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
    report = {"exercises": 0, "quizzes": 0, "worksheets": 0, "progress": 0, "disabled": 0, "hints": 0}
    for ci, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        outputs = []
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if EXERCISE in data:
                decl = data[EXERCISE]
                if decl.get("pending") and decl.get("rule"):
                    outputs.append(_html_output(exercise_html(decl, notebook), "answer box"))
                    report["exercises"] += 1
                else:
                    data.pop(EXERCISE)
                    outputs.append(out)
                continue
            for mime, make, key in ((QUIZ, quiz_html, "quizzes"), (WORKSHEET, worksheet_html, "worksheets"),
                                    (PROGRESS, progress_html, "progress")):
                if mime in data:
                    outputs.append(_html_output(make(data[mime])))
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
    for m, model in state.items():
        s = model.get("state", {})
        if "disabled" in s and m not in working and not s["disabled"]:
            s["disabled"] = True
            report["disabled"] += 1
    if report["exercises"]:
        for cell in nb.cells:
            if cell.cell_type == "markdown" and NOTEBOOK_PROMPT.search(cell.source):
                cell.source = page_prompt(cell.source)
                report["prompts"] = report.get("prompts", 0) + 1
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
