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


#: How far an explorer reaches past the notebook output it is shown in: the right edge of the
#: explorer and of everything in it, and content that a scroll container hides off to the side.
JS_OVERFLOW = r"""
(ex) => {
  const area = ex.closest('.jp-OutputArea-output') || ex.parentElement;
  const limit = area.getBoundingClientRect().right;
  let worst = null;
  for (const el of [ex, ...ex.querySelectorAll('*')]) {
    if (!el.getClientRects().length) continue;
    const r = el.getBoundingClientRect();
    const reach = Math.max(r.right, r.left + el.scrollWidth);
    if (reach > limit + 1 && (!worst || reach >= worst.reach))   // the innermost of equals
      worst = {reach, element: el.tagName.toLowerCase() + '.' + String(el.className).split(' ').slice(-2).join('.'),
               text: (el.textContent || '').trim().slice(0, 50)};
  }
  const a = area.getBoundingClientRect();
  return {output: Math.round(a.width), need: worst ? Math.round(worst.reach - a.left) : null, worst};
}
"""

#: Wait until the explorer is settled after an input: a kernel round trip (a silent empty
#: execute: no cell hook runs) and then ``quietMs`` without a DOM change in the explorer, repeated
#: until one whole round saw no change (the widget may send its new value only after the kernel
#: answered the previous one, so a single round trip can come too early); at most ``maxMs``.
JS_SETTLED = r"""
async ([ex, quietMs, maxMs]) => {
  const k = window.__nb.sessionContext.session.kernel;
  const t0 = performance.now();
  let changed = true, last = t0;
  const obs = new MutationObserver(() => { changed = true; last = performance.now(); });
  obs.observe(ex, {subtree: true, childList: true, attributes: true, characterData: true});
  try {
    while (changed && performance.now() - t0 < maxMs) {
      changed = false;
      await k.requestExecute({code: '', silent: true, store_history: false}).done;
      while (performance.now() - last < quietMs && performance.now() - t0 < maxMs)
        await new Promise(r => setTimeout(r, 50));
    }
  } finally { obs.disconnect(); }
  return !changed;
}
"""


def wider_than_output(page, explorer) -> str | None:
    """A problem line if ``explorer`` (a Locator) reaches past its notebook output, else None."""
    r = page.evaluate(JS_OVERFLOW, explorer.element_handle())
    if r["need"] is None:
        return None
    w = r["worst"]
    return f"needs {r['need']} px in a {r['output']} px output (widest: <{w['element']}> {w['text']!r})"


def overflow_at_extremes(page, explorer) -> list[str]:
    """Move every control of ``explorer`` (a Locator) the way a reader can and report each
    setting at which the explorer is wider than its notebook output: each slider to its last
    position (End key), one after the other (so the last check has them all at the end), then
    each back to its first (Home); each option of a dropdown; both states of a checkbox."""
    ex_el = explorer.element_handle()
    problems = []

    def check(where: str) -> None:
        if not page.evaluate(JS_SETTLED, [ex_el, 250, 10_000]):
            problems.append(f"at {where}: the explorer kept changing for 10 s (not checked)")
            return
        problem = wider_than_output(page, explorer)
        if problem:
            problems.append(f"at {where}: {problem}")

    sliders = explorer.locator(".widget-slider")
    for key in ("End", "Home"):
        for j in range(sliders.count()):
            slider = sliders.nth(j)
            handle = slider.locator(".noUi-handle").first
            if handle.get_attribute("disabled") is not None:
                continue
            handle.focus()
            page.keyboard.press(key)
            check(f"{slider.locator('.widget-label').first.text_content().strip()} = "
                  f"{slider.locator('.widget-readout').first.text_content().strip()} ({key})")
    dropdowns = explorer.locator(".widget-dropdown select")
    for j in range(dropdowns.count()):
        select = dropdowns.nth(j)
        for option in select.locator("option").all_text_contents():
            select.select_option(label=option)
            check(f"dropdown {j} = {option!r}")
    checkboxes = explorer.locator(".widget-checkbox input[type=checkbox]")
    for j in range(checkboxes.count()):
        box = checkboxes.nth(j)
        for _ in range(2):
            box.click()
            check(f"checkbox {j} {'on' if box.is_checked() else 'off'}")
    return problems
