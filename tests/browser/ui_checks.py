"""Checks of what JupyterLab itself shows, shared by the browser tests: the interface language
and the font Chinese is drawn with, and widget labels cut short."""
from __future__ import annotations

JS_UI = r"""
() => ({
  lang: document.documentElement.lang,
  menus: Array.from(document.querySelectorAll('.lm-MenuBar-itemLabel')).map(e => e.textContent),
})
"""

#: Explorer labels cut short: a label (slider description, checkbox text, readout) whose text
#: needs more room than it got (ellipsis or clipping).
JS_TRUNCATED = r"""
() => {
  const out = [];
  const sel = '.posenc-explorer .widget-label, .posenc-explorer .widget-label-basic, ' +
              '.posenc-explorer .widget-readout, .posenc-explorer label, .posenc-training .widget-label';
  for (const el of document.querySelectorAll(sel)) {
    if (!el.offsetParent || !el.textContent.trim()) continue;      // hidden or empty
    if (el.scrollWidth > el.clientWidth + 1)
      out.push({text: el.textContent.trim(), need: el.scrollWidth, got: el.clientWidth,
                explorer: (el.closest('.posenc-explorer') || el.closest('.posenc-training') || {}).className});
  }
  return out;
}
"""


def truncated_labels(page) -> list[str]:
    """A problem line for every explorer label JupyterLab shows cut short."""
    return [f"label cut short: {t['text']!r} needs {t['need']} px, has {t['got']} px ({t['explorer']})"
            for t in page.evaluate(JS_TRUNCATED)]


def fonts_for(page, context, selector: str) -> list[tuple[str, int]]:
    """(font family, glyph count) Chromium used to draw the first node matching ``selector``."""
    cdp = context.new_cdp_session(page)
    try:
        cdp.send("DOM.enable")
        cdp.send("CSS.enable")
        root = cdp.send("DOM.getDocument", {"depth": -1})["root"]["nodeId"]
        node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
        if not node:
            return []
        return [(f["familyName"], f["glyphCount"])
                for f in cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]]
    finally:
        cdp.detach()
