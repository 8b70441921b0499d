// The reader's record on a static page: the layout of the kernel's progress file
// (posenc/course/progress.py, version 2), kept in this browser's localStorage under KEY, the
// migration of a version-1 record with the same frozen table (posenc/course/progress_v1.json,
// copied into the site as progress-v1-table.js by tools/build_site.py), and the progress table's
// counts (posenc/ui/progress.py summary, totals). tests/test_record_js.py feeds this file and the
// kernel's functions the same records and compares. No dependencies; runs in a browser and in node.
(function (root) {
  "use strict";
  var VERSION = 2;
  // the browser's key, named when the page's record had version 1; kept, so no reader's record is lost
  var KEY = "posenc-progress-v1";
  var has = function (o, k) { return Object.prototype.hasOwnProperty.call(o, k); };

  function empty() { return { version: VERSION, exercises: {}, quiz: {}, worksheet: {}, legacy: {} }; }

  function mergeExercise(into, entry) {            // progress._merge_exercise
    if (!into) { return { solved: entry.solved, first: entry.first, attempts: entry.attempts }; }
    return { solved: !!into.solved || !!entry.solved, first: has(into, "first") ? into.first : entry.first,
             attempts: (into.attempts || 0) + (entry.attempts || 0) };
  }

  function migrate(data, table) {                  // progress.migrate
    if (data.version === VERSION) { return data; }
    var out = empty();
    Object.keys(data.exercises || {}).forEach(function (key) {
      var entry = data.exercises[key], id = has(table.exercises, key) ? table.exercises[key] : null;
      if (id === null) {
        (out.legacy.exercises = out.legacy.exercises || {})[key] = entry;
      } else {
        out.exercises[id] = mergeExercise(out.exercises[id], entry);
      }
    });
    Object.keys(data.quiz || {}).forEach(function (quiz) {
      var known = table.quiz[quiz] || {}, asked = data.quiz[quiz] || {};
      Object.keys(asked).forEach(function (text) {
        var id = has(known, text) ? known[text] : null;
        if (id === null) {
          out.legacy.quiz = out.legacy.quiz || {};
          (out.legacy.quiz[quiz] = out.legacy.quiz[quiz] || {})[text] = asked[text];
        } else if (!has(out.quiz, id)) {
          out.quiz[id] = asked[text];
        }
      });
    });
    return out;
  }

  function fill(d) {                               // a current record with every section
    var e = empty();
    Object.keys(e).forEach(function (k) { if (!has(d, k)) { d[k] = e[k]; } });
    return d;
  }

  function Store(storage, key, table) {
    this.storage = storage; this.key = key || KEY; this.table = table;
  }
  Store.prototype.load = function () {
    try {
      var d = JSON.parse(this.storage.getItem(this.key));
      if (d && typeof d.exercises === "object" && typeof d.quiz === "object") {
        if (typeof d.version === "number" && d.version > VERSION) { return { record: fill(d), writable: false }; }
        return { record: fill(migrate(d, this.table)), writable: true };
      }
    } catch (e) { /* no storage (private mode) or a broken entry: start empty */ }
    return { record: empty(), writable: true };
  };
  Store.prototype.update = function (change) {
    var got = this.load();
    if (!got.writable) { return false; }
    change(got.record);
    try { this.storage.setItem(this.key, JSON.stringify(got.record)); return true; } catch (e) { return false; }
  };
  Store.prototype.recordCheck = function (id, ok) {      // progress.record_check
    return this.update(function (d) {
      var e = d.exercises[id] || (d.exercises[id] = { solved: false, first: ok ? "正确" : "再想想", attempts: 0 });
      e.attempts = (e.attempts || 0) + 1;
      e.solved = !!e.solved || ok;
    });
  };
  Store.prototype.recordQuiz = function (question, choice, right) {   // progress.record_quiz
    return this.update(function (d) { if (!has(d.quiz, question)) { d.quiz[question] = { first: choice, right: right }; } });
  };
  Store.prototype.recordWorksheet = function (worksheet, kase, size, box, right) {   // progress.record_worksheet
    return this.update(function (d) {
      var cases = d.worksheet[worksheet] || (d.worksheet[worksheet] = {});
      var entry = cases[kase] || (cases[kase] = { size: size, boxes: {} });
      var b = entry.boxes[box] || (entry.boxes[box] = { right: false, attempts: 0 });
      b.attempts = (b.attempts || 0) + 1;
      b.right = !!b.right || right;
    });
  };
  Store.prototype.reset = function () {                // progress.reset_progress(confirm=True)
    return this.update(function (d) {
      var e = empty();
      Object.keys(d).forEach(function (k) { delete d[k]; });
      Object.keys(e).forEach(function (k) { d[k] = e[k]; });
    });
  };
  function worksheetCases(d, worksheet) {               // progress.worksheet_cases
    var cases = (d.worksheet || {})[worksheet] || {}, done = 0, keys = Object.keys(cases);
    keys.forEach(function (k) {
      var c = cases[k], boxes = Object.keys(c.boxes || {});
      if (c.size > 0 && boxes.length >= c.size && boxes.every(function (b) { return c.boxes[b].right; })) { done += 1; }
    });
    return [done, keys.length];
  }

  function summary(decl, d) {                         // posenc.ui.progress.summary
    var solved = function (ids) { return ids.filter(function (e) { return !!(d.exercises[e] && d.exercises[e].solved); }).length; };
    return decl.notebooks.map(function (nb) {
      var qs = nb.questions, cases = nb.worksheet ? worksheetCases(d, nb.worksheet) : [null, null];
      return { notebook: nb.notebook, title: nb.title, solved: solved(nb.exercises), total: nb.exercises.length,
               drills_passed: solved(nb.drills), drills_total: nb.drills.length,
               quiz_right: qs.filter(function (q) { return !!(d.quiz[q] && d.quiz[q].right); }).length,
               quiz_answered: qs.filter(function (q) { return has(d.quiz, q); }).length, quiz_total: qs.length,
               worksheet: nb.worksheet, worksheet_done: cases[0], worksheet_tried: cases[1] };
    });
  }
  function totals(rows) {                             // posenc.ui.progress.totals
    var out = {};
    ["solved", "total", "drills_passed", "drills_total"].forEach(function (k) {
      out[k] = rows.reduce(function (n, r) { return n + r[k]; }, 0);
    });
    return out;
  }

  root.PosencRecord = { VERSION: VERSION, KEY: KEY, empty: empty, migrate: migrate, Store: Store,
                        worksheetCases: worksheetCases, summary: summary, totals: totals };
}(typeof window !== "undefined" ? window : globalThis));
