// The static edition's page script: the widgets rendered from the page's saved state (the
// vendored @jupyter-widgets/html-manager), formulas ($…$) with the vendored KaTeX, the contents
// bar closed on a narrow screen, and what the builder turned into the page's own HTML
// (tools/site_pages.py): answer boxes graded by grader.js with each exercise's own rule, the
// quiz, the worksheet and the reader's progress, kept in this browser (localStorage, the same
// layout as the kernel's progress file, tools/site/record.js). Nothing is fetched from anywhere but the site itself.
(function () {
  "use strict";
  var G = window.PosencGrader;
  var STORE = "posenc-progress-v1";
  var COLOURS = { right: "#1a7f37", wrong: "#b35900", unreadable: "#b35900", empty: "#999" };

  function esc(s) {
    return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;").replace(/'/g, "&#x27;");
  }
  function data(el, name) { return JSON.parse(el.getAttribute("data-" + name)); }

  // ------------------------------------------------------------- the reader's record
  // (tools/site/record.js: the kernel file's layout, version-1 records migrated on first read)
  var R = window.PosencRecord;
  var store = null;
  try { store = new R.Store(window.localStorage, STORE, window.PosencV1Table); } catch (e) { /* no storage here */ }
  function loadRecord() { return store ? store.load().record : { exercises: {}, quiz: {}, worksheet: {} }; }
  function recordCheck(id, ok) { if (store) { store.recordCheck(id, ok); } }
  function recordQuiz(question, choice, right) { if (store) { store.recordQuiz(question, choice, right); } }
  function recordWorksheet(ws, kase, size, box, right) { if (store) { store.recordWorksheet(ws, kase, size, box, right); } }

  function verdictHTML(v) {                        // Verdict._repr_html_
    var colour = v.kind === "pending" ? "#57606a" : (v.ok ? "#1a7f37" : "#b35900");
    return "<div class='posenc-verdict' style='color:" + colour + "'><b>" + v.head + "</b> " + esc(v.message) + "</div>";
  }

  // ------------------------------------------------------------- exercises
  function exercise(box) {
    var rule = data(box, "rule"), id = box.getAttribute("data-exercise");
    var out = box.querySelector(".posenc-verdict"), text = box.querySelector("input.posenc-answer");
    function answer() {
      if (text) { return text.value.trim() === "" ? null : text.value; }
      if (rule.read === "choice") {
        var picked = box.querySelector("input[type=radio]:checked");
        return picked ? JSON.parse(picked.getAttribute("data-option")) : null;
      }
      var letters = Array.prototype.map.call(box.querySelectorAll("input[type=checkbox]:checked"), function (c) { return c.value; });
      return letters.join("");
    }
    function check() {
      var a = answer();
      if (a === null) { return; }
      var v = G.grade(rule, a);
      out.outerHTML = verdictHTML(v).replace("class='posenc-verdict'", "class='posenc-verdict' aria-live='polite'");
      out = box.querySelector(".posenc-verdict");
      recordCheck(id, v.ok);
    }
    box.querySelector(".posenc-check").addEventListener("click", check);
    if (text) { text.addEventListener("keydown", function (ev) { if (ev.key === "Enter") { check(); } }); }
    if (rule.read === "choice") {
      Array.prototype.forEach.call(box.querySelectorAll("input[type=radio]"), function (r) { r.addEventListener("change", check); });
    }
  }

  // ------------------------------------------------------------- the quiz
  function quiz(box) {
    var decl = data(box, "quiz"), picks = {};
    var score = box.querySelector(".posenc-quiz-score");
    function showScore() {
      var right = 0, answered = 0, first = 0, ever = 0, asked = loadRecord().quiz;
      decl.questions.forEach(function (q, n) {
        if (picks[n] !== undefined) { answered += 1; if (picks[n] === q.answer) { right += 1; } }
        if (Object.prototype.hasOwnProperty.call(asked, q.id)) { ever += 1; if (asked[q.id].right) { first += 1; } }
      });
      var total = decl.questions.length;
      score.innerHTML = decl.score.replace(/\{right\}/g, right).replace(/\{total\}/g, total)
        .replace(/\{answered\}/g, answered).replace(/\{first\}/g, first).replace(/\{ever\}/g, ever);
    }
    Array.prototype.forEach.call(box.querySelectorAll(".posenc-quiz-question"), function (qel) {
      var n = Number(qel.getAttribute("data-n")), q = decl.questions[n], fb = qel.querySelector(".posenc-quiz-feedback");
      Array.prototype.forEach.call(qel.querySelectorAll("input[type=radio]"), function (r) {
        r.addEventListener("change", function () {
          var j = Number(r.value), ok = j === q.answer;
          picks[n] = j;
          fb.innerHTML = verdictHTML({ ok: ok, kind: ok ? "right" : "wrong", head: ok ? "正确 ✓" : "再想想 ✗", message: q.feedback[j] });
          recordQuiz(q.id, j, ok);
          showScore();
        });
      });
    });
    showScore();
  }

  // ------------------------------------------------------------- the worksheet
  var MARKS = { empty: "", right: "✓", wrong: "✗", unreadable: "?" };
  var STATES = { right: "right", refused: "unreadable", slip: "wrong", rounding: "wrong", wrong: "wrong" };
  function worksheet(box) {
    var decl = data(box, "worksheet"), at = 0;
    var header = box.querySelector(".posenc-ws-header"), grid = box.querySelector(".posenc-ws-grid");
    var messages = box.querySelector(".posenc-worksheet-messages");
    function render() {
      var c = decl.cases[at], d = c.d_model, feedback = {}, order = [];
      header.innerHTML = c.header;                 // the builder's own HTML (posenc.ui.worksheet)
      var head = ["词 (pos)"];
      for (var j = 0; j < d; j++) { head.push("PE 第 " + j + " 维"); }
      for (j = 0; j < d; j++) { head.push("输入 第 " + j + " 维"); }
      var cells = head.map(function (h) { return "<b style='white-space:nowrap'>" + esc(h) + "</b>"; });
      c.tokens.forEach(function (tok, r) {
        cells.push("<span style='white-space:nowrap'>" + esc(tok) + "（pos " + c.positions[r] + "）</span>");
        Object.keys(decl.parts).forEach(function (part) {   // DOM order = Tab order: PE boxes, then input boxes
          for (var k = 0; k < d; k++) {
            var key = part + "-" + r + "-" + k;
            order.push(key);
            cells.push("<span class='posenc-ws-box'><input type='text' class='posenc-worksheet-cell posenc-ws-" + key +
                       "' data-key='" + key + "' placeholder='" + esc(decl.parts[part] + "[" + k + "]") +
                       "' autocomplete='off' spellcheck='false'><span class='posenc-ws-mark' data-key='" + key + "'></span></span>");
          }
        });
      });
      grid.style.gridTemplateColumns = "repeat(" + (2 * d + 1) + ", max-content)";
      grid.innerHTML = cells.join("");
      order.forEach(function (key) { feedback[key] = { state: "empty", message: "" }; });
      function show() {
        var typed = order.filter(function (k) { return feedback[k].state !== "empty"; });
        var filled = typed.filter(function (k) { return feedback[k].state === "right" || feedback[k].state === "wrong"; });
        var right = filled.filter(function (k) { return feedback[k].state === "right"; }).length;
        var lines = typed.filter(function (k) { return feedback[k].state !== "right"; }).map(function (k) {
          var fb = feedback[k], p = k.split("-");
          return "<div class='posenc-ws-msg posenc-ws-msg-" + k + "' style='color:" + COLOURS[fb.state] + "'>" + MARKS[fb.state] +
            " " + esc(c.boxes[k].name) + "：" + esc(fb.message) + "</div>";
        });
        messages.innerHTML = "<div>已填 " + filled.length + " / " + order.length + " 格，对了 " + right + " 格。</div>" + lines.join("");
      }
      Array.prototype.forEach.call(grid.querySelectorAll("input"), function (input) {
        input.addEventListener("change", function () {
          var key = input.getAttribute("data-key"), text = input.value;
          if (!text.trim()) { feedback[key] = { state: "empty", message: "" }; } else {
            var v = G.grade(c.boxes[key].rule, text);
            feedback[key] = { state: STATES[v.kind], message: v.message };
            if (v.kind !== "refused") { recordWorksheet(decl.id, c.key, c.size, key, v.ok); }
          }
          var fb = feedback[key];
          grid.querySelector(".posenc-ws-mark[data-key='" + key + "']").innerHTML =
            "<span style='color:" + COLOURS[fb.state] + ";font-weight:bold'>" + MARKS[fb.state] + "</span>";
          show();
        });
      });
      show();
    }
    box.querySelector(".posenc-ws-new").addEventListener("click", function () { at = (at + 1) % decl.cases.length; render(); });
    render();
  }

  // ------------------------------------------------------------- the reader's progress
  function progress(box) {
    var decl = data(box, "progress");
    function render() {
      var rec = loadRecord(), has = function (o, k) { return Object.prototype.hasOwnProperty.call(o, k); };
      var done = function (ids) { return ids.filter(function (e) { return rec.exercises[e] && rec.exercises[e].solved; }).length; };
      var rows = decl.notebooks.map(function (nb) {
        var qr = nb.questions.filter(function (q) { return rec.quiz[q] && rec.quiz[q].right; }).length;
        var qa = nb.questions.filter(function (q) { return has(rec.quiz, q); }).length;
        var ws = nb.worksheet ? R.worksheetCases(rec, nb.worksheet) : null;
        return { nb: nb, solved: done(nb.exercises), total: nb.exercises.length, dp: done(nb.drills), dt: nb.drills.length,
                 qr: qr, qa: qa, qt: nb.questions.length, ws: ws };
      });
      var solved = 0, total = 0, passed = 0, drills = 0;
      var body = rows.map(function (r) {
        solved += r.solved; total += r.total; passed += r.dp; drills += r.dt;
        var q = r.qt ? r.qr + " / " + r.qt + "（已答 " + r.qa + "）" : "—";
        return "<tr><td><a href='" + esc(r.nb.notebook) + ".html'>" + esc(r.nb.notebook.slice(0, 2) + " " + r.nb.title) + "</a></td><td>" +
          (r.total ? r.solved + " / " + r.total : "—") + "</td><td>" + (r.dt ? r.dp + " / " + r.dt : "—") + "</td><td>" + q +
          "</td><td>" + (r.ws ? r.ws[0] + " / " + r.ws[1] : "—") + "</td></tr>";
      }).join("");
      box.querySelector(".posenc-progress-table-box").innerHTML =
        "<table class='posenc-progress-table'><thead><tr><th>笔记本</th><th>练习（做对 / 共）</th><th>手写代码（通过 / 共）</th>" +
        "<th>自测题首次作答（答对 / 共）</th><th>练习纸（做完 / 做过的题）</th></tr></thead><tbody>" +
        body + "</tbody></table><p>共做对 " + solved + " / " + total + " 道练习" + (drills ? "，通过 " + passed + " / " + drills + " 道手写代码" : "") + "。</p>";
      var h = 28, top = 30, width = 640, left = 44, bar = 420;
      var svg = ["<svg class='posenc-progress-svg' role='img' aria-label='进度图' viewBox='0 0 " + width + " " + (top + rows.length * h + 34) +
                 "' width='" + width + "' style='max-width:100%;height:auto;font-size:13px'>",
                 "<rect x='" + left + "' y='6' width='12' height='12' fill='#1f77b4'/><text x='" + (left + 16) + "' y='17'>练习做对</text>",
                 "<rect x='" + (left + 100) + "' y='6' width='12' height='12' fill='#ff7f0e'/><text x='" + (left + 116) + "' y='17'>自测题首次答对</text>"];
      rows.forEach(function (r, i) {
        var y = top + i * h, ex = r.total ? r.solved / r.total : 0, qz = r.qt ? r.qr / r.qt : 0;
        svg.push("<text x='0' y='" + (y + 14) + "'>" + esc(r.nb.notebook.slice(0, 2)) + "</text>");
        svg.push("<rect x='" + left + "' y='" + y + "' width='" + (bar * ex).toFixed(1) + "' height='11' fill='#1f77b4'/>");
        if (r.total) { svg.push("<text x='" + (left + bar * ex + 4).toFixed(1) + "' y='" + (y + 10) + "' font-size='12'>" + r.solved + "/" + r.total + "</text>"); }
        if (r.qt) {
          svg.push("<rect x='" + left + "' y='" + (y + 13) + "' width='" + (bar * qz).toFixed(1) + "' height='11' fill='#ff7f0e'/>");
          svg.push("<text x='" + (left + bar * qz + 4).toFixed(1) + "' y='" + (y + 23) + "' font-size='12'>" + r.qr + "/" + r.qt + "</text>");
        }
      });
      var base = top + rows.length * h + 4;
      [0, 0.25, 0.5, 0.75, 1].forEach(function (t) {
        svg.push("<text x='" + (left + bar * t - 8).toFixed(1) + "' y='" + (base + 16) + "' font-size='12'>" + Math.round(t * 100) + "%</text>");
      });
      svg.push("</svg>");
      box.querySelector(".posenc-progress-chart-box").innerHTML = svg.join("");
    }
    box.querySelector(".posenc-progress-reset").addEventListener("click", function () {
      if (window.confirm("清空这个浏览器里记下的全部练习、自测题和练习纸进度？")) { try { window.localStorage.removeItem(STORE); } catch (e) { /* ignored */ } render(); }
    });
    render();
  }

  function teaching() {
    if (!G) { return; }
    var each = function (sel, f) { Array.prototype.forEach.call(document.querySelectorAll(sel), f); };
    each(".posenc-exercise", exercise);
    each(".posenc-page-quiz", quiz);
    each(".posenc-page-worksheet", worksheet);
    each(".posenc-progress-page", progress);
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
