// The reader's record on a static page: the layout of the kernel's progress file
// (posenc/course/progress.py, version 2), kept in this browser's localStorage, and the migration
// of a version-1 record with the same frozen table (posenc/course/progress_v1.json, copied into the
// site as progress-v1-table.js by tools/build_site.py). tests/test_record_js.py feeds this file and
// posenc.course.progress.migrate the same records and compares. No dependencies; runs in a
// browser and in node.
(function (root) {
  "use strict";
  var VERSION = 2;
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
    this.storage = storage; this.key = key; this.table = table;
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
  function worksheetCases(d, worksheet) {               // progress.worksheet_cases
    var cases = (d.worksheet || {})[worksheet] || {}, done = 0, keys = Object.keys(cases);
    keys.forEach(function (k) {
      var c = cases[k], boxes = Object.keys(c.boxes || {});
      if (c.size > 0 && boxes.length >= c.size && boxes.every(function (b) { return c.boxes[b].right; })) { done += 1; }
    });
    return [done, keys.length];
  }

  root.PosencRecord = { VERSION: VERSION, empty: empty, migrate: migrate, Store: Store, worksheetCases: worksheetCases };
}(typeof window !== "undefined" ? window : globalThis));
