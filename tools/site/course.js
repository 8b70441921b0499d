// The static edition's page script: the widgets rendered from the page's saved state (the
// vendored @jupyter-widgets/html-manager), formulas ($…$) with the vendored KaTeX, the contents
// bar closed on a narrow screen, and the page's own HTML made live. That HTML (answer boxes, the
// quiz, the worksheet, the progress table and chart) and every text in it were rendered by the
// builder from what the notebook's outputs declare, with the Python that renders them in the
// kernel (tools/site_pages.py, posenc/ui/*.py page_html). This script only wires the events and
// fills in what the reader did: a verdict graded by grader.js with the rule the build wrote
// beside the answer (shown through the kernel's own templates), the reader's numbers in the spans
// named for them (data-n), the chart's bars and counts. The reader's record is kept in this
// browser by record.js (the kernel file's layout). Nothing is fetched from anywhere but the site
// itself, and no text shown is written here.
(function () {
  "use strict";
  var G = window.PosencGrader, R = window.PosencRecord;

  function esc(s) {                                 // html.escape
    return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;").replace(/'/g, "&#x27;");
  }
  function data(el, name) { return JSON.parse(el.getAttribute("data-" + name)); }
  function each(root, sel, f) { Array.prototype.forEach.call(root.querySelectorAll(sel), f); }
  function has(o, k) { return Object.prototype.hasOwnProperty.call(o, k); }
  // a template filled as posenc.ui.declare.fill fills it: each {name} -> values[name]
  function fill(template, values) {
    return template.replace(/\{(\w+)\}/g, function (m, k) { return String(values[k]); });
  }
  // the reader's numbers into the spans the build named for them (posenc.ui.declare.Slot)
  function slots(root, values) {
    each(root, "[data-n]", function (el) {
      var v = values[el.getAttribute("data-n")];
      el.textContent = (v === null || v === undefined) ? "" : String(v);
    });
  }
  // a verdict through the kernel's own look (posenc.ui.declare.verdict_looks): right, wrong or pending
  function show(into, looks, look, message) { into.innerHTML = fill(looks[look], { message: esc(message) }); }
  function lookOf(v) { return v.ok ? "right" : "wrong"; }

  // ------------------------------------------------------------- the reader's record (record.js)
  var store = null;
  try { store = new R.Store(window.localStorage, R.KEY, window.PosencV1Table); } catch (e) { /* no storage here */ }
  function record() { return store ? store.load().record : R.empty(); }

  // ------------------------------------------------------------- exercises
  function exercise(box) {
    var rule = data(box, "rule"), looks = data(box, "verdicts"), id = box.getAttribute("data-exercise");
    var out = box.querySelector(".posenc-verdict-slot"), text = box.querySelector("input.posenc-answer");
    function answer() {
      if (text) { return text.value.trim() === "" ? null : text.value; }
      if (rule.read === "choice") {
        var picked = box.querySelector("input[type=radio]:checked");
        return picked ? data(picked, "option") : null;
      }
      return Array.prototype.map.call(box.querySelectorAll("input[type=checkbox]:checked"), function (c) { return c.value; }).join("");
    }
    function check() {
      var a = answer();
      if (a === null) { show(out, looks, "pending", box.getAttribute("data-prompt")); return; }
      var v = G.grade(rule, a);
      show(out, looks, lookOf(v), v.message);
      if (store) { store.recordCheck(id, v.ok); }
    }
    box.querySelector(".posenc-check").addEventListener("click", check);
    if (text) { text.addEventListener("keydown", function (ev) { if (ev.key === "Enter") { check(); } }); }
    if (rule.read === "choice") { each(box, "input[type=radio]", function (r) { r.addEventListener("change", check); }); }
  }

  // ------------------------------------------------------------- the quiz (posenc/ui/quiz.py page_html)
  function quiz(box) {
    var looks = data(box, "verdicts"), picks = {}, score = box.querySelector(".posenc-quiz-score");
    var questions = box.querySelectorAll(".posenc-quiz-question");
    function showScore() {
      var n = { right: 0, answered: 0, first: 0, ever: 0 }, asked = record().quiz;
      Array.prototype.forEach.call(questions, function (q) {
        var id = q.getAttribute("data-question");
        if (has(picks, id)) { n.answered += 1; if (picks[id]) { n.right += 1; } }
        if (has(asked, id)) { n.ever += 1; if (asked[id].right) { n.first += 1; } }
      });
      slots(score, n);
    }
    Array.prototype.forEach.call(questions, function (q) {
      var id = q.getAttribute("data-question"), rule = data(q, "rule"), out = q.querySelector(".posenc-quiz-feedback");
      var radios = q.querySelectorAll("input[type=radio]");
      Array.prototype.forEach.call(radios, function (r, index) {
        r.addEventListener("change", function () {
          var v = G.grade(rule, data(r, "option"));
          picks[id] = v.ok;
          show(out, looks, lookOf(v), v.message);
          if (store) { store.recordQuiz(id, index, v.ok); }
          showScore();
        });
      });
    });
    showScore();
  }

  // ------------------------------------------------------------- the worksheet (posenc/ui/worksheet.py page_html)
  function worksheet(box) {
    var id = box.getAttribute("data-worksheet"), look = data(box, "look"), at = 0;
    var cases = box.querySelectorAll("template.posenc-ws-case"), shown = box.querySelector(".posenc-ws-case-shown");
    function render() {
      var t = cases[at], kase = t.getAttribute("data-case"), size = Number(t.getAttribute("data-size")), said = {};
      shown.innerHTML = "";
      shown.appendChild(t.content.cloneNode(true));
      var inputs = shown.querySelectorAll("input.posenc-worksheet-cell");
      var summary = shown.querySelector(".posenc-ws-summary"), lines = shown.querySelector(".posenc-ws-lines");
      function messages() {                         // posenc.ui.worksheet.messages_html
        var n = { filled: 0, right: 0 }, out = [];
        Array.prototype.forEach.call(inputs, function (input) {
          var key = input.getAttribute("data-key"), s = said[key];
          if (!s || s.state === "empty") { return; }
          if (s.state === "right" || s.state === "wrong") { n.filled += 1; }
          if (s.state === "right") { n.right += 1; return; }
          out.push(fill(look.line, { key: key, colour: look.colours[s.state], mark: look.marks[s.state],
                                     name: esc(input.getAttribute("data-name")), message: esc(s.message) }));
        });
        slots(summary, n);
        lines.innerHTML = out.join("");
      }
      Array.prototype.forEach.call(inputs, function (input) {
        input.addEventListener("change", function () {
          var key = input.getAttribute("data-key"), s = { state: "empty", message: "" };
          if (input.value.trim()) {
            var v = G.grade(data(input, "rule"), input.value);
            s = { state: look.states[v.kind], message: v.message };
            if (store && (s.state === "right" || s.state === "wrong")) { store.recordWorksheet(id, kase, size, key, v.ok); }
          }
          said[key] = s;
          input.parentNode.querySelector(".posenc-ws-mark").innerHTML =
            fill(look.mark, { colour: look.colours[s.state], mark: look.marks[s.state] });
          messages();
        });
      });
      messages();
    }
    box.querySelector(".posenc-ws-new").addEventListener("click", function () { at = (at + 1) % cases.length; render(); });
    render();
  }

  // ------------------------------------------------------------- the reader's progress (posenc/ui/progress.py page_html)
  function pathBox(path) {                          // a bar's rectangle as matplotlib wrote it (drawn full)
    var v = path.getAttribute("d").match(/-?\d+(?:\.\d+)?(?:e[-+]?\d+)?/gi).map(Number), xs = [], ys = [];
    for (var i = 0; i + 1 < v.length; i += 2) { xs.push(v[i]); ys.push(v[i + 1]); }
    return { x: Math.min.apply(null, xs), w: Math.max.apply(null, xs) - Math.min.apply(null, xs),
             y0: Math.min.apply(null, ys), y1: Math.max.apply(null, ys) };
  }
  function progress(box) {
    var decl = data(box, "progress"), chart = data(box, "chart"), full = {};
    chart.parts.forEach(function (p) {
      if (p.bar) { var path = document.getElementById(p.bar).querySelector("path"); full[p.bar] = { path: path, box: pathBox(path) }; }
    });
    function render() {
      var rows = R.summary(decl, record()), by = {};
      rows.forEach(function (r) {
        by[r.notebook] = r;
        var tr = box.querySelector("tr[data-notebook='" + r.notebook + "']");
        if (tr) { slots(tr, r); }
      });
      slots(box.querySelector(".posenc-progress-total"), R.totals(rows));
      chart.parts.forEach(function (p) {          // posenc.ui.progress.plot_progress, with the reader's numbers
        var r = by[p.notebook], text;
        if (p.bar) {
          var b = full[p.bar].box, share = r[p.total] ? r[p.got] / r[p.total] : 0, end = b.x + share * b.w;
          full[p.bar].path.setAttribute("d", "M " + b.x + " " + b.y1 + " L " + end + " " + b.y1 + " L " + end + " " + b.y0 +
                                        " L " + b.x + " " + b.y0 + " z");
          text = document.getElementById(p.count).querySelector("text");
          text.textContent = fill(chart.count, { got: r[p.got], total: r[p.total] });
          text.setAttribute("x", String(b.x + (share + 0.01) * b.w));
        } else {
          text = document.getElementById(p.sheet).querySelector("text");
          text.textContent = r.worksheet_tried ? fill(chart.sheet, { done: r.worksheet_done, tried: r.worksheet_tried }) : "";
        }
      });
    }
    box.querySelector(".posenc-progress-reset").addEventListener("click", function () {
      if (window.confirm(box.getAttribute("data-confirm"))) { if (store) { store.reset(); } render(); }
    });
    render();
  }

  function teaching() {
    if (!G || !R) { return; }
    each(document, ".posenc-exercise", exercise);
    each(document, ".posenc-page-quiz", quiz);
    each(document, ".posenc-page-worksheet", worksheet);
    each(document, ".posenc-progress-page", progress);
  }
  function mathInMarkdown() {
    // one markdown cell per idle moment: the widgets' first render goes first
    if (!window.renderMathInElement) { return; }
    var cells = Array.prototype.slice.call(document.querySelectorAll(".jp-MarkdownOutput"));
    var later = window.requestIdleCallback || function (f) { return window.setTimeout(f, 1); };
    function next() {
      var el = cells.shift();
      if (!el) { return; }
      typeset(el);
      later(next, { timeout: 200 });
    }
    later(next, { timeout: 200 });
  }
  function typeset(el) {
    window.renderMathInElement(el, {
      delimiters: [
        { left: "$$", right: "$$", display: true },
        { left: "\\[", right: "\\]", display: true },
        { left: "$", right: "$", display: false },
        { left: "\\(", right: "\\)", display: false }
      ],
      throwOnError: false
    });
  }
  function contents() {
    var nav = document.querySelector(".posenc-nav-toggle");
    if (nav && window.matchMedia("(max-width: 900px)").matches) { nav.open = false; }
  }
  function widgets() {
    // the widget state the page was saved with: every view rendered with no kernel
    if (!window.require || !document.querySelector('script[type="application/vnd.jupyter.widget-state+json"]')) { return; }
    window.require(["@jupyter-widgets/html-manager/dist/libembed-amd"], function (embed) { embed.renderWidgets(); });
  }
  function ready() {
    contents();
    widgets();          // first: the widget manager loads its bundle while the rest is set up
    teaching();
    mathInMarkdown();
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", ready);
  } else {
    ready();
  }
}());
