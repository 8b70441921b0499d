"""The static edition in a real browser: pages built by tools/build_site.py once for this module,
served from 127.0.0.1, opened in headless Chromium with every other request aborted.

It teaches without a kernel: every exercise typed in the page gets the kernel's verdict for the
same typed answer (the rule the page carries, graded again here by the kernel's pipeline), a
worksheet box is checked right and with a named slip and Tab moves on, a quiz question is
answered, and the reader's own progress shows on the contents page after a reload. Every input,
button and slider either changes something visible or is disabled (with the page's one line
above its widget). Nothing of the builder's machine is on a page: not its progress (the build
runs with a progress file under a marked folder, which must stay untouched and unnamed), not its
home or checkout path. At 390 px every figure keeps its natural size in a box that scrolls
sideways, and the page itself is no wider than the screen; at 1,300 px every slider keeps at
least 200 px of track. Each main slider dragged with the mouse shows the frame the kernel draws
for the value its readout shows (within the 256-colour tolerance). Also: no console error or
failed request, zh-CN with a Simplified Chinese font, every internal link resolves, no remote
script, stylesheet or font, and ``file://`` works. Times (ready for a drag) are printed, never
asserted.

Run:  python -m pytest tests/browser/test_static_site.py
"""
from __future__ import annotations

import functools
import json
import os
import re
import shutil
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest

import build_site as bs  # tools/build_site.py (pyproject puts tools/ on the test path)
import site_pages as sp
from static_pages import (FRAMES, JS_FIGURES, JS_FOLLOW, JS_INPUTS, JS_READY, JS_SHOWN_SRC, MARK, PAGES,
                          REMOTE, ROOT, allowed, anchors, css_targets, decoded, drag_to,
                          explorer_steps_notebook, follow_every_anchor, kernel_says, missing, move_control,
                          open_tab, page_control, page_explorers, page_file, platform_fonts, reference_png,
                          settle, shown_figure_png, step_pages, typed, untag, widget_state)

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(2400)]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    if shutil.which("npm") is None:
        missing("npm not installed (apt-get install -y nodejs npm): tools/build_site.py needs it")
    mine = tmp_path_factory.mktemp(MARK) / "progress.json"     # the builder's own record
    mine.write_text(json.dumps({"version": 1, "quiz": {}, "exercises": {
        "check_pe(pos=4, d_model=2, base=10000, word=None)": {"solved": True, "first": "正确", "attempts": 7}}}))
    before = mine.read_bytes()
    out = tmp_path_factory.mktemp("site")
    old = os.environ.get("POSENC_PROGRESS")
    os.environ["POSENC_PROGRESS"] = str(mine)
    steps_page = explorer_steps_notebook(tmp_path_factory.mktemp("steps"))
    try:
        report = bs.build(out, [*bs.notebook_paths(PAGES), steps_page], frames=FRAMES, budget=10**9,
                          log=lambda line: print("[site]", line))
    finally:
        if old is None:
            os.environ.pop("POSENC_PROGRESS")
        else:
            os.environ["POSENC_PROGRESS"] = old
    assert mine.read_bytes() == before, "the build wrote into the builder's own progress file"
    return out, report, mine


@pytest.fixture(scope="module")
def server(site):
    out = site[0]

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(out)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def context(browser):
    ctx = browser.new_context(viewport={"width": 1300, "height": 900}, device_scale_factor=1)
    ctx.set_default_timeout(60_000)
    tabs = []

    def route(r):
        if allowed(r.request.url):
            r.continue_()
        else:
            for t in tabs:
                t.outside.append(r.request.url)
            r.abort()

    ctx.route("**/*", route)
    ctx.tabs = tabs
    yield ctx
    ctx.close()


# ---------------------------------------------------------------------------
# it teaches
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("number", [n for n in PAGES if n != "00"])
def test_every_exercise_gets_the_kernels_verdict(number, site, server, context):
    out = site[0]
    tab = open_tab(context, f"{server}/{page_file(out, number).name}")
    page = tab.page
    boxes = page.locator(".posenc-exercise")
    assert boxes.count() > 0
    for k in range(boxes.count()):
        box = boxes.nth(k)
        box.scroll_into_view_if_needed()
        rule = json.loads(box.get_attribute("data-rule"))
        verdict = box.locator(".posenc-verdict")
        if rule["read"] == "choice":
            options = box.locator("input[type=radio]")
            for j in range(options.count()):
                option = json.loads(options.nth(j).get_attribute("data-option"))
                options.nth(j).check()
                assert verdict.text_content().strip() == kernel_says(rule, untag(option)), (number, k, option)
            continue
        if rule["read"] == "letters":
            right = set(rule["right"])
            for pick in (sorted(right), sorted(set(rule["letters"]) - right)[:1]):
                for c in box.locator("input[type=checkbox]").all():
                    c.set_checked(c.get_attribute("value") in pick)
                box.locator(".posenc-check").click()
                assert verdict.text_content().strip() == kernel_says(rule, "".join(pick)), (number, k, pick)
            continue
        answers = [typed(rule["right"])] if rule["right"] is not None else ["-inf"]
        answers += [typed(s["value"]) for s in rule.get("slips", []) if "value" in s and "at" not in s][:1]
        answers += ["1234.5", "不是数"]
        field = box.locator("input.posenc-answer")
        for text in answers:
            field.fill(text)
            field.press("Enter")
            assert verdict.text_content().strip() == kernel_says(rule, text), (number, k, text)
        field.fill("")                     # checked empty: the page's prompt, never the kernel's
        box.locator(".posenc-check").click()
        assert verdict.text_content().strip() == f"待作答 {sp.EXERCISE_PROMPT}", (number, k)
    tab.check()


def test_a_worksheet_box_is_checked_right_and_with_a_named_slip(site, server, context):
    tab = open_tab(context, f"{server}/{page_file(site[0], '02').name}")
    page = tab.page
    ws = page.locator(".posenc-page-worksheet")
    ws.scroll_into_view_if_needed()
    first, second = ws.locator("input.posenc-worksheet-cell").nth(0), ws.locator("input.posenc-worksheet-cell").nth(1)
    rule = json.loads(first.get_attribute("data-rule"))
    slip = rule["slips"][0]["value"]
    first.fill(f"{slip:.4f}")
    first.press("Tab")
    assert page.evaluate("document.activeElement.getAttribute('data-key')") == second.get_attribute("data-key")
    said = ws.locator(".posenc-worksheet-messages").text_content()
    assert kernel_says(rule, f"{slip:.4f}").split(" ", 2)[2] in said and "已填 1 / " in said
    first.fill(f"{rule['right']:.4f}")
    first.press("Tab")
    said = ws.locator(".posenc-worksheet-messages").text_content()
    assert "对了 1 格" in said and ws.locator(".posenc-ws-mark").first.text_content() == "✓"
    before = ws.locator(".posenc-ws-header").text_content()
    ws.locator(".posenc-ws-new").click()
    assert ws.locator(".posenc-ws-header").text_content() != before and "已填 0 / " in ws.locator(".posenc-worksheet-messages").text_content()
    tab.check()


def test_a_quiz_answer_and_the_readers_progress_show_on_the_contents_page(site, server, context):
    out = site[0]
    tab = open_tab(context, f"{server}/{page_file(out, '11').name}")
    page = tab.page
    quiz = page.locator(".posenc-page-quiz").first
    quiz.scroll_into_view_if_needed()
    questions = quiz.locator(".posenc-quiz-question")
    q0 = questions.first
    rule = json.loads(q0.get_attribute("data-rule"))
    right = rule["right"][1]
    wrong = (right + 1) % q0.locator("input[type=radio]").count()
    q0.locator("input[type=radio]").nth(wrong).check()
    assert q0.locator(".posenc-quiz-feedback").text_content().strip() == kernel_says(rule, wrong)
    q0.locator("input[type=radio]").nth(right).check()
    assert q0.locator(".posenc-quiz-feedback").text_content().strip() == kernel_says(rule, right)
    score = quiz.locator(".posenc-quiz-score").text_content()
    assert f"得分 (score)：1 / {questions.count()}" in score and "首次作答得分 (first try)：0 /" in score
    box = page.locator(".posenc-exercise").first
    rule = json.loads(box.get_attribute("data-rule"))
    box.locator("input.posenc-answer").fill(typed(rule["right"]))
    box.locator(".posenc-check").click()
    contents = open_tab(context, f"{server}/index.html").page
    stem = page_file(out, "11").stem
    for _ in range(2):                     # after a reload too
        progress = contents.locator(".posenc-progress-page")
        progress.scroll_into_view_if_needed()
        row = progress.locator(f"tr[data-notebook='{stem}']")
        cells = row.locator("td").all_text_contents()
        assert cells[1].startswith("1 / ") and cells[3].startswith(f"0 / {questions.count()}（已答 1）"), cells
        # the chart: 11's exercise bar drawn to its share, its count written, the quiz's bar empty
        total = int(cells[1].split(" / ")[1])
        bars = contents.evaluate("""(stem) => ['solved', 'quiz_right'].map(f => {
            const bar = document.getElementById(`posenc-bar-${stem}-${f}`).querySelector('path').getBBox();
            return [bar.width, document.getElementById(`posenc-count-${stem}-${f}`).textContent.trim()]; })""", stem)
        assert bars[0][1] == f"1/{total}" and bars[0][0] > 0 and bars[1] == [0, f"0/{questions.count()}"], bars
        contents.reload()
    contents.once("dialog", lambda d: d.accept())
    contents.locator(".posenc-progress-reset").click()
    assert contents.locator(".posenc-progress-page tr", has_text="11 ").locator("td").nth(1).text_content().startswith("0 / ")
    # a record the page stored before the registry (version 1: keys from a check's arguments, quiz
    # answers by question text) is migrated when read: every solved exercise still counts
    v1 = json.loads((ROOT / "tests" / "data" / "progress_v1_every_key.json").read_text(encoding="utf-8"))
    contents.evaluate("(r) => window.localStorage.setItem('posenc-progress-v1', JSON.stringify(r))", v1)
    contents.reload()
    solved = sum(e["solved"] for e in v1["exercises"].values())
    note = contents.locator(".posenc-progress-page p", has_text="共做对").first.text_content()
    assert f"共做对 {solved} / " in note, note
    tab.check()


# ---------------------------------------------------------------------------
# every control works or is off; nothing local
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("number", PAGES)
def test_every_control_either_changes_something_or_is_off(number, site, server, context):
    tab = open_tab(context, f"{server}/{page_file(site[0], number).name}")
    page = tab.page
    page.wait_for_function(JS_READY, polling=50)
    controls = page.evaluate(JS_INPUTS)
    assert controls or number == "00"
    handle = lambda c: page.locator("input, button, select, textarea, .noUi-target").nth(c["i"])
    for c in controls:
        el = handle(c)
        el.scroll_into_view_if_needed()
        settle(page)
        area = el.locator("xpath=ancestor::div[contains(@class,'jp-OutputArea-output')][1]")
        if c["off"]:
            if c["inExplorer"] or c["tag"] == "BUTTON" or "widget" in c["cls"] or c["tag"] == "INPUT":
                hint = el.locator("xpath=ancestor::div[contains(concat(' ', normalize-space(@class), ' '), ' jp-OutputArea ')][1]"
                                  "//div[contains(@class,'posenc-static-hint')]")
                assert hint.count() >= 1, (number, c)
            continue
        before = area.evaluate("a => a.innerHTML + [...a.querySelectorAll('img')].map(i => i.src).join()")
        if c["tag"] == "INPUT" and c["type"] == "text":
            el.fill("0.5")
            el.press("Enter")
            el.press("Tab")
        elif c["cls"].startswith("noUi-target") or "noUi-target" in c["cls"]:
            el.locator(".noUi-handle").focus()
            page.keyboard.press("End" if c["main"] else "ArrowRight")
            page.keyboard.press("ArrowLeft")
        elif c["type"] == "checkbox":
            el.check()
            grading = el.locator("xpath=ancestor::div[contains(@class,'posenc-exercise')][1]//button")
            if grading.count():
                grading.click()
        elif c["tag"] == "BUTTON" and "posenc-check" in c["cls"]:
            ex = el.locator("xpath=ancestor::div[contains(@class,'posenc-exercise')][1]")
            if ex.locator("input[type=text]").count():
                ex.locator("input[type=text]").fill("7")      # another answer than its field got above
            elif ex.locator("input[type=checkbox]").count():
                box = ex.locator("input[type=checkbox]").first
                box.set_checked(not box.is_checked())
            else:
                ex.locator("input[type=radio]:not(:checked)").first.check()   # a choice grades the pick
            el.click()
        elif c["tag"] == "BUTTON" and "posenc-progress-reset" in c["cls"]:
            page.once("dialog", lambda d: d.dismiss())
            el.click()
            continue                       # it asks first (the dialog is the visible change)
        else:
            el.click()
        settle(page)
        after = area.evaluate("a => a.innerHTML + [...a.querySelectorAll('img')].map(i => i.src).join()")
        assert after != before, (number, c)
    tab.check()


def test_no_page_asks_for_what_it_cannot_do(site):
    """Where an answer box stands, neither the kernel's pending prompt nor the notebooks'
    instruction to replace None and run the cell is on the page: the page's own words are."""
    from posenc.exercises.verdict import PROMPT

    for path in sorted(site[0].glob("*.html")):
        text = path.read_text(encoding="utf-8")
        if 'class="posenc-exercise"' in text:
            assert PROMPT not in text and not re.search(r"None</code>\s*换成", text), path.name
            assert sp.EXERCISE_PROMPT in text, path.name


def test_no_page_holds_anything_of_the_builders_machine(site):
    out, _, mine = site
    home = os.path.expanduser("~")
    for path in sorted(out.glob("*.html")):
        text = path.read_text(encoding="utf-8")
        for local in (MARK, str(mine.parent), str(ROOT), home + "/", "progress.json", "attempts\": 7"):
            assert local not in text, (path.name, local)
        assert not re.search(r"(?<![\w/.])/(?:root|home|tmp|Users)/", text), path.name


# ---------------------------------------------------------------------------
# phone and desktop layout
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("number", ["02", "07"])
def test_on_a_phone_figures_keep_their_size_and_the_page_fits_the_screen(number, site, server, browser):
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True)
    try:
        page = ctx.new_page()
        page.goto(f"{server}/{page_file(site[0], number).name}")
        page.wait_for_function(JS_READY, polling=50)
        # every figure but the live ones (a page never shows them: no kernel draws there)
        images = page.locator(".jp-OutputArea-output img:not(.posenc-live img)")
        assert images.count() > 0
        for k in range(images.count()):
            img = images.nth(k)
            img.scroll_into_view_if_needed()
            page.wait_for_function("(i) => i.complete && i.naturalWidth > 0", arg=img.element_handle())
            m = img.evaluate(JS_FIGURES)
            # the figures' smallest text is 11 px at natural size (tests/test_figures_legibility.py)
            assert m["scale"] * 11 >= 9 or m["scrolls"], (number, k, m)
            if m["natural"] > 390:
                assert m["scrolls"], (number, k, m)
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
    finally:
        ctx.close()


@pytest.mark.parametrize("number", ["02", "07"])
def test_every_slider_keeps_a_track_a_hand_can_use(number, site, server, context):
    page = open_tab(context, f"{server}/{page_file(site[0], number).name}").page
    page.wait_for_function(JS_READY, polling=50)
    tracks = page.locator(".widget-slider .noUi-base")
    assert tracks.count() > 0
    for k in range(tracks.count()):
        tracks.nth(k).scroll_into_view_if_needed()
        settle(page)
        assert tracks.nth(k).bounding_box()["width"] >= 200, (number, k)


# ---------------------------------------------------------------------------
# the main sliders, fonts, links, file://
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("number", ["02", "07"])
def test_main_sliders_show_the_kernels_frames(number, site, server, context, posenc_line):
    path = page_file(site[0], number)
    state = widget_state(path.read_text(encoding="utf-8"))
    tab = open_tab(context, f"{server}/{path.name}")
    page = tab.page
    page.wait_for_function(JS_READY, polling=20)
    posenc_line(f"[static site] {path.name}: {path.stat().st_size / 1e6:.2f} MB, ready for a drag "
                f"{page.evaluate('performance.now()') / 1000:.2f} s after navigation")
    assert page.evaluate("document.documentElement.lang") == "zh-CN"
    for selector in (".jp-MarkdownOutput h1", ".posenc-static-hint"):
        page.locator(selector).first.scroll_into_view_if_needed()
        settle(page)
        fonts = platform_fonts(context, page, selector)
        cjk = [f for f in fonts if "CJK" in f or f.endswith((" SC", " TC", " JP", " KR"))]
        assert cjk and all(f.endswith("SC") or "CJK SC" in f for f in cjk), (selector, fonts)
    views = page.evaluate("""() => [...document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]')]
        .filter(s => s.parentElement.querySelector('.posenc-explorer .posenc-frames')).map(s => JSON.parse(s.textContent).model_id)""")
    roots = page.locator(".posenc-explorer:has(.posenc-frames)")
    assert roots.count() == len(views) > 0
    for k, model in enumerate(views):
        root = roots.nth(k)
        name = next(c[len("posenc-explorer-"):] for c in state[model]["state"]["_dom_classes"] if c.startswith("posenc-explorer-"))
        slider = root.locator(".posenc-frames-main")
        readout = slider.locator(".widget-readout")
        for _ in range(2):   # to the far side of the track, twice
            label0, png0 = readout.text_content(), shown_figure_png(root)
            h, t = slider.locator(".noUi-handle").bounding_box(), slider.locator(".noUi-base").bounding_box()
            src0 = root.evaluate(JS_SHOWN_SRC)
            drag_to(page, slider, 0.15 if h["x"] + h["width"] / 2 > t["x"] + t["width"] / 2 else 0.85)
            page.wait_for_function("([el, old]) => el.textContent !== old", arg=[readout.element_handle(), label0])
            page.wait_for_function(f"([root, old]) => {{ const src = ({JS_SHOWN_SRC})(root); return src !== null && src !== old; }}",
                                   arg=[root.element_handle(), src0])
            label, png = readout.text_content(), shown_figure_png(root)
            want, was = reference_png(name, state, model, label), reference_png(name, state, model, label0)
            # (02's base changes nothing at d_model = 2, its default: a step says to set d_model first)
            assert png != png0 or want == was, f"{name}: the figure did not change ({label0} -> {label})"
            diff = np.abs(decoded(png) - decoded(want))
            assert diff.max() <= sp.MAX_CHANNEL_ERROR, f"{name} at {label}: not the frame for that value"
    tab.check()


def test_every_internal_link_resolves(site):
    out, report, _ = site
    links = bs.internal_links(out)
    assert any(t.endswith(".html") for _, t in links) and any("#" in t for _, t in links)
    built = {f"{s}.html" for s in report["built"]}
    course = {f"{p.stem}.html" for p in bs.NB_DIR.glob("[0-9][0-9]_*.ipynb")}
    broken = [(p, t) for p, t in bs.dangling_links(out) if t.partition("#")[0] not in course - built]
    assert not broken, broken


# ---------------------------------------------------------------------------
# anchors: every link to a place in a page, followed by the browser itself


@pytest.fixture(scope="module")
def every_page(site, tmp_path_factory):
    """Every notebook of the course exported as tools/build_site.py exports it (same template,
    same link rewriting), not run: its anchors are the built site's (a link and a heading, a cell
    and its id, come from the notebook, not from its outputs); served like the site."""
    import nbformat

    out = tmp_path_factory.mktemp("every-page")
    bs.copy_static(out)
    paths = bs.notebook_paths([])
    nav = bs.nav_entries(paths)
    for p in paths:
        html = bs.export(nbformat.read(p, as_version=4), p.stem, nav)
        (out / f"{p.stem}.html").write_text(html, encoding="utf-8")
        if p.stem == bs.INDEX_STEM:
            (out / "index.html").write_text(html, encoding="utf-8")

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(out)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield out, f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_every_anchor_lands_on_its_heading(site, server, every_page, context, browser, posenc_line):
    """Every link to a place in a page (the routes, the answer sheet, links between notebooks and
    within one, the headings' own ¶ links), in the built pages and in every notebook's page, brings
    its heading on screen, uncovered: on a wide screen, and on a phone (where the contents bar
    stays at the top)."""
    out, report, _ = site
    built = anchors(out, {f"{s}.html" for s in report["built"]} | {"index.html"})
    whole = anchors(every_page[0])
    missed = follow_every_anchor(context.new_page(), server, built) + follow_every_anchor(context.new_page(), every_page[1], whole)
    phone = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=1)
    try:
        missed += [("390 px", *m) for m in follow_every_anchor(phone.new_page(), every_page[1], whole)]
    finally:
        phone.close()
    n_built, n_whole = sum(map(len, built.values())), sum(map(len, whole.values()))
    checked = n_built + 2 * n_whole
    posenc_line(f"[static site] anchors: {checked - len(missed)} / {checked} land on their heading ({n_whole} "
                f"in every notebook's page, at 1,300 and 390 px; {n_built} into the built pages {sorted(built)})")
    assert n_whole > 300 and not missed, "\n".join(map(repr, missed[:20]))


def test_a_route_link_lands_once_its_page_has_rendered(site, server, context):
    """The contents page's route links into a built page, clicked: the page loads (formulas
    typeset, widgets drawn) and the section's heading is on screen."""
    out, report, _ = site
    into = anchors(out, {f"{s}.html" for s in report["built"]} - {"00_index.html", "index.html"})
    routes = list(dict.fromkeys(href for target in sorted(into) for source, href in into[target] if source == "index.html"))
    assert routes
    page, missed, errors = context.new_page(), [], []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    # leaving a page aborts the fonts it was still fetching (ERR_ABORTED): not a failure
    page.on("requestfailed", lambda r: errors.append(f"{r.failure} {r.url}") if r.failure != "net::ERR_ABORTED" else None)
    for href in routes:
        page.goto(f"{server}/index.html")
        page.click(f'a[href="{href}"] >> nth=0')
        page.wait_for_url(f"**/{href}")
        page.wait_for_load_state("load")
        page.wait_for_function(JS_READY, polling=50)
        page.wait_for_function("document.fonts.status === 'loaded'")
        result = page.evaluate(JS_FOLLOW, None)
        if result is not True:
            missed.append((href, result))
    assert not missed and not errors, (missed, errors[:5])


def test_no_page_refers_to_a_remote_script_stylesheet_or_font(site):
    out = site[0]
    pages = sorted(out.glob("*.html"))
    assert pages
    for path in pages:
        html = path.read_text(encoding="utf-8")
        tags = re.findall(r"<(?:script|link)\b[^>]*>", html, re.I)
        assert tags
        for tag in tags:
            assert not re.search(r"\b(?:integrity|crossorigin)\b", tag, re.I), (path.name, tag)
            for target in re.findall(r"\b(?:src|href)\s*=\s*[\"']([^\"']*)", tag, re.I):
                assert not REMOTE.match(target), (path.name, tag)
                if target.endswith((".css", ".js")):
                    assert (path.parent / target).is_file(), (path.name, target)
        for body in re.findall(r"<script(?![^>]*type=\"application/[^\"]*json)[^>]*>(.*?)</script>", html, re.S | re.I):
            assert not re.search(r"https?://", body), (path.name, body[:200])
    for path in sorted(out.rglob("*.css")):
        assert not [t for t in css_targets(path.read_text(encoding="utf-8")) if REMOTE.match(t)], path


def test_a_page_opened_from_a_file_works_too(site, browser):
    """file:// (a page opened by double-clicking it): widgets, formulas and fonts load from the
    folder beside it, the main slider still switches the figure and an exercise is graded."""
    path = page_file(site[0], "07")
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    ctx.set_default_timeout(60_000)
    errors = []
    page = ctx.new_page()
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("requestfailed", lambda r: errors.append(f"failed: {r.url}"))
    try:
        page.goto(path.as_uri())
        page.wait_for_function(JS_READY, polling=20)
        assert page.locator(".jp-MarkdownOutput .katex").count() > 0, "no formula typeset"
        root = page.locator(".posenc-explorer:has(.posenc-frames)").first
        slider = root.locator(".posenc-frames-main")
        label0 = slider.locator(".widget-readout").text_content()
        drag_to(page, slider, 0.85)
        page.wait_for_function("([el, old]) => el.textContent !== old",
                               arg=[slider.locator(".widget-readout").element_handle(), label0])
        box = page.locator(".posenc-exercise").first
        box.scroll_into_view_if_needed()
        box.locator("input.posenc-answer").fill("0")
        box.locator(".posenc-check").click()
        assert "你填的是 0" in box.locator(".posenc-verdict").text_content()
        page.wait_for_function("document.fonts.status === 'loaded'")
        assert page.evaluate("[...document.fonts].every(f => f.status !== 'error')")
    finally:
        ctx.close()
    assert not errors, errors[:5]


# ---------------------------------------------------------------------------
# every step the notebooks ask for, on the page
# ---------------------------------------------------------------------------


def test_every_step_the_notebooks_ask_for_moves_the_figure_on_the_page(site, server, context, posenc_line):
    """For every explorer of the course (02 and 07 on their own pages, the others on the steps
    page) and every step its spec declares: a step the page shows is performed as a reader
    does it, each move that changes a control brings a new figure, and at the end of the step
    the figure is the one the kernel draws with the same moves (within the 256-colour
    tolerance); a step the page cannot show has a control that is off, under the page's line."""
    import posenc_lib as pl

    done, off = [], []
    for path in step_pages(site[0]):
        state = widget_state(path.read_text(encoding="utf-8"))
        tab = open_tab(context, f"{server}/{path.name}")
        page = tab.page
        page.wait_for_function(JS_READY, polling=50)
        for root, name, models in page_explorers(page, state):
            root.scroll_into_view_if_needed()
            ref = pl.EXPLORERS[name]()       # every notebook makes its explorer with the defaults
            for k, step in enumerate(ref.spec.steps):
                where = f"{path.stem} {name} step {k + 1}"
                if not step.page:
                    for c in (c for c in step.controls if c not in ref.frame_axes):
                        assert page_control(root, ref, c).evaluate("el => !!el.querySelector('[disabled]')"), (where, c)
                    assert root.locator("xpath=ancestor::div[contains(concat(' ', normalize-space(@class), ' '), "
                                        "' jp-OutputArea ')][1]//div[contains(@class,'posenc-static-hint')]").count()
                    off.append(where)
                    continue
                for control, value in step.moves:
                    before, src = shown_figure_png(root), root.evaluate(JS_SHOWN_SRC)
                    changed = ref.controls[control].value != value
                    move_control(page, page_control(root, ref, control), ref, control, value, models[list(ref.controls).index(control)])
                    ref.controls[control].value = value
                    if changed:
                        page.wait_for_function(f"([root, old]) => {{ const src = ({JS_SHOWN_SRC})(root); "
                                               f"return src !== null && src !== old; }}", arg=[root.element_handle(), src])
                        assert shown_figure_png(root) != before, f"{where}: {control} = {value!r} left the figure as it was"
                ref.refresh(full=True)        # (the kernel's figure for these values, drawn whole)
                diff = np.abs(decoded(shown_figure_png(root)) - decoded(ref.png()))
                assert diff.max() <= sp.MAX_CHANNEL_ERROR, f"{where}: not the kernel's figure for {ref.values}"
                done.append(where)
        tab.check()
    posenc_line(f"[static site] steps performed on the page: {len(done)}; steps that need JupyterLab: {len(off)} "
                f"({', '.join(off)})")
    assert len(done) >= 30


def test_on_a_phone_every_slider_has_a_thumb_sized_track_and_handle_and_a_tap_moves_it(site, server, browser):
    """390 x 844 with touch (Chromium's mobile emulation, touch events): every enabled slider
    of every explorer has its label above it, a track of at least 200 px and a handle of at
    least 24 x 24 px, and a tap on the track away from the handle moves it."""
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True,
                              has_touch=True)
    ctx.set_default_timeout(60_000)
    try:
        for number in ("02", "07"):
            page = ctx.new_page()
            page.goto(f"{server}/{page_file(site[0], number).name}")
            page.wait_for_function(JS_READY, polling=50)
            sliders = page.locator(".posenc-explorer .widget-slider:not(:has(.noUi-target[disabled]))")
            assert sliders.count() > 0
            for j in range(sliders.count()):
                s = sliders.nth(j)
                s.scroll_into_view_if_needed()
                settle(page)
                track, handle = s.locator(".noUi-base").bounding_box(), s.locator(".noUi-handle").bounding_box()
                label = s.locator(".widget-label").bounding_box()
                where = (number, s.locator(".widget-label").text_content())
                assert track["width"] >= 200 and handle["width"] >= 24 and handle["height"] >= 24, (where, track, handle)
                assert label["y"] + label["height"] <= track["y"] + 1, (where, "the label is not above the slider")
                readout = s.locator(".widget-readout")
                before = readout.text_content()
                right = handle["x"] + handle["width"] / 2 < track["x"] + track["width"] / 2
                x = track["x"] + (0.9 if right else 0.1) * track["width"]
                page.touchscreen.tap(x, track["y"] + track["height"] / 2)
                page.wait_for_function("([el, old]) => el.textContent !== old", arg=[readout.element_handle(), before])
            page.close()
    finally:
        ctx.close()
