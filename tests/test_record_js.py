"""The static page keeps the reader's record in the kernel file's layout: tools/site/record.js,
run by node, migrates a version-1 record exactly as posenc.course.progress.migrate does (every key
today's course could write, and keys no declaration knows), the same events (answers, quiz
picks, worksheet boxes, a reset) recorded on both sides give the same record, and the progress
table's counts of a record are the kernel's (posenc.ui.progress.summary and totals)."""
import json
import pathlib
import shutil
import subprocess

import pytest

from posenc.course import progress

ROOT = pathlib.Path(__file__).resolve().parents[1]
RECORD = ROOT / "tools" / "site" / "record.js"
V1_FILE = ROOT / "tests" / "data" / "progress_v1_every_key.json"


def node() -> str:
    path = shutil.which("node")
    if path is None:
        pytest.skip("node not installed (apt-get install -y nodejs)")
    return path


RUNNER = r"""
require(process.argv[1]);
const R = globalThis.PosencRecord, input = JSON.parse(require('fs').readFileSync(process.argv[2], 'utf8'));
const out = {migrated: input.records.map(r => R.migrate(r, input.table))};
const mem = {}, storage = {getItem: k => (k in mem ? mem[k] : null), setItem: (k, v) => { mem[k] = v; }};
mem.key = JSON.stringify(input.start);
const store = new R.Store(storage, 'key', input.table);
for (const [kind, ...args] of input.events) {
  if (kind === 'check') store.recordCheck(...args);
  if (kind === 'quiz') store.recordQuiz(...args);
  if (kind === 'worksheet') store.recordWorksheet(...args);
  if (kind === 'reset') store.reset();
}
out.after = JSON.parse(mem.key);
out.cases = R.worksheetCases(out.after, 'pe-table');
out.summary = input.decl ? R.summary(input.decl, out.after) : null;
out.totals = out.summary ? R.totals(out.summary) : null;
console.log(JSON.stringify(out));
"""


def _run(tmp_path, records, start, events, decl=None):
    table = progress.v1_table()
    f = tmp_path / "input.json"
    f.write_text(json.dumps({"records": records, "table": {k: table[k] for k in ("exercises", "quiz")},
                             "start": start, "events": events, "decl": decl}, ensure_ascii=False), encoding="utf-8")
    done = subprocess.run([node(), "-e", RUNNER, str(RECORD), str(f)], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def test_the_page_migrates_a_version_1_record_as_the_kernel_does(tmp_path):
    every = json.loads(V1_FILE.read_text(encoding="utf-8"))
    odd = {"version": 1,
           "exercises": {"check_pe(pos=7, d_model=2, base=10000, word=None)": {"solved": True, "first": "正确", "attempts": 1},
                         "check_raster_offset(cols=12)": {"solved": False, "first": "再想想", "attempts": 4}},
           "quiz": {"quiz": {"一个没有题库的问题？": {"first": 0, "right": False}},
                    "13_summary_interview": {"一道改写前的题？": {"first": 2, "right": True}}}}
    records = [every, odd, progress.empty()]
    out = _run(tmp_path, records, progress.empty(), [])
    assert out["migrated"] == [progress.migrate(r) for r in records]
    assert out["migrated"][0]["legacy"] == {} and len(out["migrated"][0]["exercises"]) == 52


def test_the_same_events_give_the_same_record(tmp_path, monkeypatch):
    start = json.loads(V1_FILE.read_text(encoding="utf-8"))           # a version-1 record in the browser
    events = [["check", "rope-angle", False], ["check", "rope-angle", True], ["check", "raster-offset", True],
              ["quiz", "alibi-reach", 1, False], ["quiz", "alibi-reach", 2, True],
              ["worksheet", "pe-table", "猫咬狗|start=1", 2, "pe-0-0", True],
              ["worksheet", "pe-table", "猫咬狗|start=1", 2, "pe-0-1", False],
              ["worksheet", "pe-table", "猫咬狗|start=1", 2, "pe-0-1", True],
              ["worksheet", "pe-table", "狗咬猫|start=0", 2, "pe-0-0", False]]
    path = tmp_path / "progress.json"
    path.write_text(json.dumps(start, ensure_ascii=False), encoding="utf-8")
    monkeypatch.setenv("POSENC_PROGRESS", str(path))
    progress._WARNED.clear()
    for kind, *args in events:
        if kind == "check":
            progress.record_check(args[0], args[1])
        elif kind == "quiz":
            progress.record_quiz(*args)
        else:
            progress.record_worksheet(*args)
    kernel = json.loads(path.read_text(encoding="utf-8"))
    page = _run(tmp_path, [], start, events)
    assert page["after"] == kernel
    assert page["cases"] == list(progress.worksheet_cases(kernel, "pe-table")) == [1, 2]


def _record_kernel(events):
    for kind, *args in events:
        if kind == "check":
            progress.record_check(args[0], args[1])
        elif kind == "quiz":
            progress.record_quiz(*args)
        elif kind == "reset":
            progress.reset_progress(confirm=True)
        else:
            progress.record_worksheet(*args)


def test_the_page_counts_a_record_as_the_kernels_progress_table(tmp_path, monkeypatch):
    """Every exercise and drill of the course solved or tried, quiz picks right and wrong, worksheet
    cases done and tried: the page's rows and totals are the kernel's (and a reset on both sides
    gives the same empty record)."""
    from posenc.course import catalogue
    from posenc.ui import progress as view

    decl = view.declaration()
    rope = next(nb for nb in decl["notebooks"] if nb["notebook"] == "07_rope")
    rope["drills"] = rope["drills"] or ["drill-a", "drill-b"]       # drills counted, whether or not declared yet
    events = [["check", e.id, k % 3 != 0] for k, e in enumerate(catalogue.EXERCISES)]
    events += [["check", d, k == 0] for k, d in enumerate(rope["drills"])]
    events += [["quiz", q, k % 4, k % 2 == 0] for k, nb in enumerate(decl["notebooks"]) for q in nb["questions"]]
    events += [["worksheet", "pe-table", "a|start=1", 2, "pe-0-0", True], ["worksheet", "pe-table", "a|start=1", 2, "pe-0-1", True],
               ["worksheet", "pe-table", "b|start=0", 2, "pe-0-0", False]]
    start = json.loads(V1_FILE.read_text(encoding="utf-8"))
    path = tmp_path / "progress.json"
    path.write_text(json.dumps(start, ensure_ascii=False), encoding="utf-8")
    monkeypatch.setenv("POSENC_PROGRESS", str(path))
    progress._WARNED.clear()
    _record_kernel(events)
    kernel = json.loads(path.read_text(encoding="utf-8"))
    page = _run(tmp_path, [], start, events, decl)
    assert page["after"] == kernel
    rows = view.summary(decl, kernel)
    assert page["summary"] == rows
    assert [r["drills_total"] for r in rows if r["notebook"] == "07_rope"][0] >= 2 and page["totals"]["drills_passed"] >= 1
    assert page["totals"] == view.totals(rows)
    assert {r["notebook"]: (r["worksheet_done"], r["worksheet_tried"]) for r in rows if r["worksheet"]} == \
        {"02_sinusoidal_hand_calculation": (1, 2)}
    assert 0 < page["totals"]["solved"] < page["totals"]["total"] and any(r["quiz_right"] for r in rows)
    _record_kernel([["reset"]])
    page = _run(tmp_path, [], start, events + [["reset"]], decl)
    assert page["after"] == json.loads(path.read_text(encoding="utf-8")) == progress.empty()
