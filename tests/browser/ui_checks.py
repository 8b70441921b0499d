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

#: The explorer after an input, once settled: kernel round trips (a silent empty execute: no
#: cell hook runs), each followed by ``waitMs``, until two in a row (the first one after the
#: input excluded) leave what the reader sees
#: (the explorer's visible text and how far it reaches) unchanged: the widget may send its new
#: value only after the kernel answered the previous one, so one round trip can come too early;
#: frames being filled in hidden images do not count. At most ``maxMs``. Returns
#: {settled, overflow} (overflow as JS_OVERFLOW reports it).
JS_SETTLED = r"""
async ([ex, waitMs, maxMs]) => {
  const k = window.__nb.sessionContext.session.kernel;
  const measure = """ + JS_OVERFLOW.strip() + r""";
  const seen = () => { const o = measure(ex); return [JSON.stringify([ex.innerText, o.need]), o]; };
  const t0 = performance.now();
  let before = null, overflow = null;     // the first round only flushes what was pending
  while (performance.now() - t0 < maxMs) {
    await k.requestExecute({code: '', silent: true, store_history: false}).done;
    await new Promise(r => setTimeout(r, waitMs));
    const [now, o] = seen();
    overflow = o;
    if (now === before) return {settled: true, overflow};
    before = now;
  }
  return {settled: false, overflow};
}
"""


def wider_than_output(page, explorer) -> str | None:
    """A problem line if ``explorer`` (a Locator) reaches past its notebook output, else None."""
    return _overflow_problem(page.evaluate(JS_OVERFLOW, explorer.element_handle()))


def _overflow_problem(r: dict) -> str | None:
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
        r = page.evaluate(JS_SETTLED, [ex_el, 250, 10_000])
        if not r["settled"]:
            problems.append(f"at {where}: what the explorer shows kept changing for 10 s")
        problem = _overflow_problem(r["overflow"])
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
