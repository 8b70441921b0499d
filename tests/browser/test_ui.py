"""JupyterLab as the README starts it speaks Chinese: the page language is zh-CN, the menus are
Chinese, and Chromium draws the notebooks' Chinese with Simplified (SC) glyph shapes, not the
Japanese (JP) ones it uses when the page language is "en"."""
from __future__ import annotations

import re
import uuid

import pytest

from ui_checks import JS_UI, fonts_for

pytestmark = [pytest.mark.browser, pytest.mark.slow]
CJK = re.compile(r"[\u4e00-\u9fff]")


def test_jupyterlab_speaks_chinese(lab_server, browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    try:
        workspace = f"posenc-{uuid.uuid4().hex[:12]}"
        page.goto(lab_server.url(f"/lab/workspaces/{workspace}/tree/notebooks/00_index.ipynb"),
                  wait_until="domcontentloaded")
        page.wait_for_selector(".jp-RenderedMarkdown h1", timeout=60_000)
        page.wait_for_selector(".lm-MenuBar-itemLabel", timeout=60_000)
        ui = page.evaluate(JS_UI)
        assert ui["lang"] == "zh-CN", ui
        assert "文件" in ui["menus"] and "帮助" in ui["menus"], ui["menus"]
        heading = page.locator(".jp-RenderedMarkdown h1").first.text_content()
        fonts = fonts_for(page, context, ".jp-RenderedMarkdown h1")
        cjk_chars = len(CJK.findall(heading))
        sc = sum(n for family, n in fonts if re.search(r"CJK SC|\bSC\b|Hans", family))
        jp = sum(n for family, n in fonts if re.search(r"CJK JP|\bJP\b", family))
        print(f"\nJupyterLab UI: lang={ui['lang']}, menus={ui['menus']}, heading fonts={fonts}")
        assert cjk_chars > 0 and sc >= cjk_chars and jp == 0, (heading, fonts)
    finally:
        lab_server.shutdown_kernels()
        context.close()


def test_truncated_label_check_catches_a_cut_label(lab_server, browser):
    """The check the notebook tests run (ui_checks.truncated_labels) on a made-up explorer: a
    label squeezed into 60 px is reported, a label with room is not."""
    from ui_checks import truncated_labels

    context = browser.new_context()
    page = context.new_page()
    try:
        page.set_content("""
          <div class="posenc-explorer">
            <label class="widget-label" style="display:inline-block;width:60px;overflow:hidden;
                   white-space:nowrap;text-overflow:ellipsis">随机投影 W_q, W_k (projection)</label>
            <label class="widget-label" style="display:inline-block;width:400px">d_model</label>
          </div>""")
        problems = truncated_labels(page)
        assert len(problems) == 1 and "随机投影" in problems[0], problems
    finally:
        context.close()


def test_overflow_check_catches_an_explorer_wider_than_its_output(browser):
    """The check the notebook tests run at every extreme control value (ui_checks.wider_than_output)
    on made-up explorers in a 400-px output: a table that scrolls sideways and a figure wider than
    the output are reported; an explorer that fits is not."""
    from ui_checks import wider_than_output

    wide_row = "<td style='white-space:nowrap'>" + "[0.8415, 0.5403, 0.0998, 0.9950] " * 6 + "</td>"
    context = browser.new_context()
    page = context.new_page()
    try:
        page.set_content(f"""
          <div class="jp-OutputArea-output" style="width:400px">
            <div class="posenc-explorer" id="scrolls"><div style="overflow-x:auto"><table><tr>{wide_row}</tr></table></div></div>
          </div>
          <div class="jp-OutputArea-output" style="width:400px">
            <div class="posenc-explorer" id="sticks-out"><img style="width:520px;height:10px"></div>
          </div>
          <div class="jp-OutputArea-output" style="width:400px">
            <div class="posenc-explorer" id="fits"><table><tr><td>[0.8415, 0.5403]</td></tr></table></div>
          </div>""")
        scrolls = wider_than_output(page, page.locator("#scrolls"))
        assert scrolls and "in a 400 px output" in scrolls and "0.8415" in scrolls, scrolls
        assert "needs 520 px" in (wider_than_output(page, page.locator("#sticks-out")) or "")
        assert wider_than_output(page, page.locator("#fits")) is None
    finally:
        context.close()
