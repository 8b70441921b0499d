"""JavaScript that tests/browser/test_jupyterlab.py runs in JupyterLab's page (``window.__nb`` is
the NotebookPanel under test), and the control kinds it looks for."""
from __future__ import annotations

#: The most elements with Chinese text whose fonts are asked of Chromium (JS_MARK_CJK marks them).
MAX_CJK_NODES = 60


JS_READY_STATE = """
(path) => {
  const app = window.jupyterapp;
  if (!app) return 'window.jupyterapp missing (is --expose-app-in-browser in effect?)';
  const ws = Array.from(app.shell.widgets('main')).map(w => w.context ? w.context.path : w.id);
  const w = Array.from(app.shell.widgets('main')).find(w => w.context && w.context.path === path);
  const dialogs = Array.from(document.querySelectorAll('.jp-Dialog')).map(d => d.innerText.slice(0, 300));
  let k = null;
  if (w && w.sessionContext) {
    const kk = w.sessionContext.session && w.sessionContext.session.kernel;
    k = kk ? {status: kk.status, connection: kk.connectionStatus, name: kk.name} : 'no kernel';
  }
  return {openWidgets: ws, ready: w ? w.context.isReady : null, kernel: k, dialogs};
}
"""

#: After the kernel is ready: JupyterLab has copied the kernel's spec and ``language_info``
#: (kernel_info reply) into the notebook; is the notebook marked modified?
JS_OPENED_CLEAN = """
async () => {
  const w = window.__nb, kernel = w.sessionContext.session.kernel;
  await Promise.all([kernel.info, kernel.spec]);
  const m = w.context.model;
  // the panel's handlers of those promises write the metadata: wait for them, not for a time
  await new Promise(resolve => { const tick = () => (m.getMetadata('language_info') && m.getMetadata('kernelspec'))
                                                  ? resolve() : requestAnimationFrame(tick); tick(); });
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  return {dirty: m.dirty, kernelspec: m.getMetadata('kernelspec'), language_info: m.getMetadata('language_info')};
}
"""

JS_PREPARE = """
async () => {
  const w = window.__nb, app = window.jupyterapp;
  app.shell.activateById(w.id);
  // kernel messages that belong to no cell (widget callbacks run on comm messages)
  window.__iopub = [];
  w.sessionContext.iopubMessage.connect((_, msg) => {
    const t = msg.header.msg_type, c = msg.content || {};
    const parent = (msg.parent_header || {}).msg_type;
    if (parent === 'execute_request') return;  // these land in the cell outputs
    if (t === 'error') window.__iopub.push({parent, kind: 'error', text: c.ename + ': ' + c.evalue + '\\n' + (c.traceback || []).join('\\n')});
    else if (t === 'stream' && c.name === 'stderr') window.__iopub.push({parent, kind: 'stderr', text: c.text});
  });
  await app.commands.execute('notebook:clear-all-cell-outputs');
  const cells = w.content.model.toJSON().cells;
  return {
    windowingMode: w.content.notebookConfig.windowingMode,
    leftover: cells.filter(c => c.cell_type === 'code' && (c.execution_count != null || c.outputs.length)).length,
  };
}
"""

JS_RUN_ALL = """
() => {
  window.__runErr = null;
  window.jupyterapp.commands.execute('notebook:run-all-cells')
    .catch(e => { window.__runErr = String(e && e.stack || e); });
}
"""

JS_CELLS = """
() => {
  const w = window.__nb;
  const k = w.sessionContext.session && w.sessionContext.session.kernel;
  const cells = w.content.model.cells;
  const out = [];
  const js = w.content.model.toJSON().cells;
  for (let i = 0; i < cells.length; i++) {
    const c = cells.get(i), j = js[i];
    out.push({
      index: i, type: j.cell_type,
      source: Array.isArray(j.source) ? j.source.join('') : j.source,
      execution_count: j.execution_count === undefined ? null : j.execution_count,
      state: c.type === 'code' ? c.executionState : null,
      outputs: j.outputs || [],
    });
  }
  return {kernel: k ? k.status : 'no kernel', runErr: window.__runErr, cells: out};
}
"""

# every widget-view output of the model has its widget view in the DOM, and
# every explorer has loaded its figures
JS_WIDGETS_RENDERED = """
() => {
  const w = window.__nb;
  let expected = 0, rendered = 0;
  for (const cell of w.content.widgets) {
    if (cell.model.type !== 'code' || !cell.outputArea) continue;
    const outs = cell.model.outputs;
    for (let i = 0; i < outs.length; i++) {
      const data = outs.get(i).data || {};
      if (!data['application/vnd.jupyter.widget-view+json']) continue;
      expected++;
      const child = cell.outputArea.widgets[i];
      if (child && child.node.querySelector('.jupyter-widgets')) rendered++;
    }
  }
  if (rendered < expected) return false;
  const figsReady = Array.from(w.node.querySelectorAll('.posenc-explorer')).every(ex => {
    const imgs = Array.from(ex.querySelectorAll('img.posenc-figure'));
    return imgs.length && imgs.every(i => i.complete && i.naturalWidth > 0);
  });
  return figsReady ? {expected, rendered} : false;
}
"""

JS_WIDGET_ERRORS = """
() => Array.from(window.__nb.node.querySelectorAll('.jp-OutputArea-output'))
  .filter(o => /Error displaying widget/.test(o.textContent))
  .map(o => o.textContent.slice(0, 200))
"""

JS_EXPLORERS = """
() => Array.from(window.__nb.node.querySelectorAll('.posenc-explorer')).map((ex, i) => {
  const r = ex.getBoundingClientRect();
  const names = Array.from(ex.classList).filter(c => c.startsWith('posenc-explorer-')).map(c => c.slice(16));
  const label = el => { const l = el.querySelector('.widget-label, .widget-label-basic');
                        return ((l && l.textContent) || el.textContent || '').trim().slice(0, 40); };
  const sliders = Array.from(ex.querySelectorAll('.widget-slider')).map(s => {
    const h = s.querySelector('.noUi-handle');
    return {label: label(s), hasHandle: !!h,
            disabled: !!(s.querySelector('.noUi-target[disabled]') || (h && h.hasAttribute('disabled')))};
  });
  const checkboxes = Array.from(ex.querySelectorAll('.widget-checkbox')).map(c => {
    const inp = c.querySelector('input[type=checkbox]');
    return {label: label(c), hasHandle: !!inp, disabled: !inp || inp.disabled};
  });
  const dropdowns = Array.from(ex.querySelectorAll('.widget-dropdown')).map(d => {
    const sel = d.querySelector('select');
    return {label: label(d), hasHandle: !!sel, disabled: !sel || sel.disabled || sel.options.length < 2};
  });
  const toggles = Array.from(ex.querySelectorAll('.widget-toggle-buttons')).map(t => {
    const b = t.querySelector('button:not(.mod-active)');
    return {label: label(t), hasHandle: !!b, disabled: !b || b.disabled};
  });
  return {index: i, name: names[0] || null, classes: ex.className, width: r.width, height: r.height,
          figures: ex.querySelectorAll('img.posenc-figure').length, sliders, checkboxes, dropdowns, toggles};
})
"""

# pixel digest of every figure of an explorer (waits for the current src to decode)
JS_FIGURE_DIGESTS = """
async (ex) => {
  const imgs = Array.from(ex.querySelectorAll('img.posenc-figure'));
  const out = [];
  for (const img of imgs) {
    try { await img.decode(); } catch (e) {}
    if (!img.complete || !img.naturalWidth) { out.push({src: img.src, ok: false}); continue; }
    const c = document.createElement('canvas');
    c.width = img.naturalWidth; c.height = img.naturalHeight;
    const ctx = c.getContext('2d', {willReadFrequently: true});
    ctx.drawImage(img, 0, 0);
    const d = ctx.getImageData(0, 0, c.width, c.height).data;
    let h = 2166136261 >>> 0, other = 0;
    for (let i = 0; i < d.length; i++) h = Math.imul(h ^ d[i], 16777619) >>> 0;
    for (let i = 0; i < d.length; i += 4)
      if (d[i] !== d[0] || d[i+1] !== d[1] || d[i+2] !== d[2] || d[i+3] !== d[3]) other++;
    out.push({src: img.src, ok: true, hash: h, w: c.width, h: c.height, nonBackground: other / (d.length / 4)});
  }
  return out;
}
"""

# MutationObserver on the explorer: a figure's new src, or a new figure element (the
# frames' Stack switches to another image) + keydown stamp (capture phase on the
# document: the first moment the page sees the key press).
JS_OBSERVE = """
(ex) => {
  if (!window.__kd) {
    window.__kd = {t: null};
    document.addEventListener('keydown', () => { window.__kd.t = performance.now(); }, true);
  }
  if (window.__obs) window.__obs.disconnect();
  window.__mut = [];
  // (a new <img> gets its classes a moment after it is inserted: any image counts)
  const isFig = n => n.nodeType === 1 && (n.tagName === 'IMG' || !!n.querySelector('img'));
  window.__obs = new MutationObserver(ms => {
    const t = performance.now();
    for (const m of ms) {
      if (m.type === 'attributes' ? m.target.matches('img.posenc-figure') : Array.from(m.addedNodes).some(isFig))
        window.__mut.push({t, kind: m.type});
    }
  });
  window.__obs.observe(ex, {subtree: true, childList: true, attributes: true, attributeFilter: ['src']});
}
"""

JS_ARM = "() => { window.__mut = []; window.__kd.t = null; }"

# state of a control's focusable element and the key that moves it one step
JS_CONTROL_STATE = """
(el) => {
  const focused = document.activeElement === el;
  if (el.classList.contains('noUi-handle')) {
    const now = parseFloat(el.getAttribute('aria-valuenow')), max = parseFloat(el.getAttribute('aria-valuemax'));
    return {focused, text: el.getAttribute('aria-valuetext'), key: now >= max ? 'ArrowLeft' : 'ArrowRight'};
  }
  if (el.tagName === 'SELECT')  // keys do not change a closed <select> in headless Chromium
    return {focused, text: el.value, option: el.selectedIndex >= el.options.length - 1 ? el.selectedIndex - 1 : el.selectedIndex + 1};
  return {focused, text: String(el.checked), key: 'Space'};
}
"""

# what the user's pick in the open list does: new selection + 'change' event,
# stamped like a keydown
JS_SELECT_OPTION = """
(el, index) => {
  el.selectedIndex = index;
  window.__kd.t = performance.now();
  el.dispatchEvent(new Event('change', {bubbles: true}));
}
"""

# slider: the handle; checkbox: the input; dropdown: the <select>; toggle buttons (a checkbox
# in a frame grid): the button not pressed
CONTROL_KINDS = (
    ("sliders", ".widget-slider", ".noUi-handle"),
    ("checkboxes", ".widget-checkbox", "input[type=checkbox]"),
    ("dropdowns", ".widget-dropdown", "select"),
    ("toggles", ".widget-toggle-buttons", "button:not(.mod-active)"),
)

JS_MARK_CJK = f"""
() => {{
  const re = /[\\u3400-\\u4dbf\\u4e00-\\u9fff\\uf900-\\ufaff]/g;
  const els = new Map();
  const tw = document.createTreeWalker(window.__nb.node, NodeFilter.SHOW_TEXT);
  let n;
  while ((n = tw.nextNode())) {{
    const m = n.nodeValue.match(re);
    if (!m) continue;
    const el = n.parentElement;
    if (!el || !el.getClientRects().length || getComputedStyle(el).visibility === 'hidden') continue;
    if (el.closest('details:not([open])') && !el.closest('summary')) continue;   // folded: not drawn, no font asked
    els.set(el, (els.get(el) || 0) + m.length);
  }}
  const out = [];
  for (const [el, count] of els) {{
    if (out.length >= {MAX_CJK_NODES}) break;
    el.setAttribute('data-posenc-cjk', String(out.length));
    out.push({{i: out.length, count, tag: el.tagName, text: el.textContent.trim().slice(0, 60)}});
  }}
  return {{total: els.size, marked: out}};
}}
"""
