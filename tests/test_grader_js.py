"""The static page grades with the kernel's rules: tools/site/grader.js, run by node, gives every
exercise of every notebook (every worksheet box of a few cases, every option of every quiz
question) the very verdict the kernel's pipeline gives (posenc/exercises/rule.py) for the same typed answer: the right answer, each slip's
value, a too coarse rounding, a wrong answer, refused input, a decimal comma, infinities, every
option of a choice and every set of letters.

The rules come from the notebooks' own exercise cells (run with ``answer = None``); the answers
are made from the rules (their right values and slip tables) as a learner would type them.
"""
import itertools
import json
import math
import pathlib
import shutil
import subprocess

import pytest

from posenc.exercises.reading import read_text
from posenc.exercises.rule import Rule, grade_with
from posenc.exercises.worksheet import PARTS, box_rule, draw_case
from test_exercise_solutions import TRAINS, WITH_EXERCISES, exercise_cells, run_cell

ROOT = pathlib.Path(__file__).resolve().parents[1]
GRADER = ROOT / "tools" / "site" / "grader.js"

RUNNER = """
const g = require(process.argv[1]);
const cases = JSON.parse(require("fs").readFileSync(process.argv[2], "utf8"));
const out = cases.map(c => { const v = g.grade(c.rule, c.answer); return [v.ok, v.kind, v.message]; });
process.stdout.write(JSON.stringify(out));
"""


def node() -> str:
    path = shutil.which("node")
    if path is None:
        pytest.skip("node not installed (apt-get install -y nodejs)")
    return path


def typed(x) -> str:
    """A value as a learner types it: floats by repr (exact), lists in brackets."""
    if isinstance(x, list):
        return "[" + ", ".join(typed(v) for v in x) + "]"
    if isinstance(x, float) and x.is_integer():
        return str(int(x))
    return repr(x) if isinstance(x, float) else str(x)


def _map(x, f):
    return [_map(v, f) for v in x] if isinstance(x, list) else f(x)


def coarse(x):
    """x rounded to 2 significant digits."""
    return _map(x, lambda v: float(f"{v:.2g}"))


def answers(rule: dict) -> list:
    """What learners type for this rule: right, each slip, rounding, wrong, refused, edge cases."""
    read, right = rule["read"], rule["right"]
    out = ["abc", "", "1e", "[1, 2", "sin(", "none"]
    if read == "choice":
        options = (rule["valid"] or {}).get("options") or [right] + [s["value"] for s in rule["slips"]]
        return [o for o in options] + [["str", "abc"]]
    if read == "letters":
        letters = rule["letters"]
        subsets = ["".join(c) for n in range(len(letters) + 1) for c in itertools.combinations(letters, n)]
        return out + subsets + ["".join(reversed(right)).upper(), "a, b", "无", "xyz", ", ".join(right)]
    if right is not None:
        out += [typed(right), typed(coarse(right)), typed(_map(right, lambda v: v * 1.37 + 0.123))]
        if read == "number":
            out += [typed(_map(right, lambda v: round(v, 1))), typed(_map(right, lambda v: math.trunc(v * 100) / 100)),
                    typed(_map(right, lambda v: v * 1.015)), typed(_map(right, lambda v: -v))]
            if not isinstance(right, list):
                out += [f"{right:.4f}".replace(".", ","), f"{right:.4f}", f"({right!r}) * 1", f"{right:.4f}".replace("-", "−")]
        if read == "int":
            out += [typed(right + 1), typed(right - 1), f"{right}.0", f"{right}.5", f"[{right}]", f"{right},5"]
    step = 10.0 ** -rule["decimals"] if rule.get("decimals") is not None else None
    for s in rule["slips"]:
        if "value" in s and "at" not in s:
            out.append(typed(s["value"]))
            if read == "number" and not isinstance(s["value"], list):
                out.append(f"{s['value']:.3f}")
                if step:                    # inside the asked precision, outside 3 significant digits
                    out += [typed(s["value"] + 0.6 * step), typed(s["value"] - 0.95 * step)]
    if read == "number" and right is not None and step:
        out += [typed(_map(right, lambda v: v + 0.95 * step)), typed(_map(right, lambda v: v + 1.05 * step))]
    for key in list(rule.get("by_value") or {})[:20] + list(rule.get("wrong_by_value") or {})[:20]:
        out.append(key)
    if rule["read"] in ("int_list", "ints") and right is not None:
        out += [typed(right[:-1]), typed(right + [0]), ", ".join(map(str, right)), str(right[0])]
    if rule.get("infinite"):
        out += ["-inf", "inf", "float('-inf')", "−∞", "-math.inf"]
    return out


def both(cases: list[tuple[dict, object]]) -> tuple[list, list]:
    """(kernel verdicts, page verdicts) as [ok, kind, message] for (rule JSON, answer) pairs."""
    kernel = []
    for rule, answer in cases:
        r = Rule(**{k: (tuple(v) if k in ("shape", "slips", "wrong_at", "none_words") and v is not None else v)
                    for k, v in rule.items()})
        if rule["read"] == "choice" and isinstance(answer, list):     # a choice button: the tagged option
            from posenc.exercises.reading import normalise  # noqa: F401  (the kernel's own reading)
            value = _untag(answer)
        else:
            value = answer
        v = grade_with(r, value)
        kernel.append([v.ok, v.kind, v.message])
    return kernel, page(cases)


def _untag(tagged):
    kind, v = tagged
    if kind == "seq":
        return [_untag(t) for t in v]
    return v


def page(cases) -> list:
    import tempfile

    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False, encoding="utf-8") as f:
        json.dump([{"rule": r, "answer": a} for r, a in cases], f, ensure_ascii=False)
    out = subprocess.run([node(), "-e", RUNNER, str(GRADER), f.name], capture_output=True, text=True, check=True)
    pathlib.Path(f.name).unlink()
    return json.loads(out.stdout)


def notebook_rules(path) -> list[dict]:
    return [run_cell(cell, None).rule.to_json() for cell in exercise_cells(path)]


def assert_same(cases):
    kernel, js = both(cases)
    assert len(js) == len(kernel)
    diffs = [(r["expected"][:30], a, k, j) for (r, a), k, j in zip(cases, kernel, js) if k != j]
    assert not diffs, "\n".join(map(repr, diffs[:10]))
    return kernel


@pytest.mark.parametrize("path", [pytest.param(p, marks=pytest.mark.slow) if p.stem in TRAINS else p
                                  for p in WITH_EXERCISES], ids=lambda p: p.stem[:2])
def test_the_page_gives_every_exercise_the_kernels_verdict(path):
    cases = [(rule, a) for rule in notebook_rules(path) for a in answers(rule)]
    verdicts = assert_same(cases)
    kinds = {k for _, k, _ in verdicts}
    assert {"right", "refused"} <= kinds, kinds             # the answers reach the pipeline's ends
    if any(r["slips"] or r["sign"] or r["by_value"] for r, _ in cases):
        assert "slip" in kinds


def test_the_worksheet_boxes_get_the_kernels_verdict():
    cases = []
    for seed in range(4):
        case = draw_case(seed)
        for part in PARTS:
            for row in range(3):
                for dim in range(case.d_model):
                    rule = box_rule(case, part, row, dim).to_json()
                    cases += [(rule, a) for a in answers(rule)]
    verdicts = assert_same(cases)
    assert {"right", "slip", "rounding", "wrong", "refused"} <= {k for _, k, _ in verdicts}


def test_every_pick_of_every_quiz_gets_the_kernels_verdict():
    """Each question's rule as its page declares it, fed every option as the page's radio button
    carries it: the verdict is the kernel quiz's own (pl.Quiz.verdict) for that pick."""
    import posenc_lib as pl
    from posenc.course.quiz_banks import QUIZZES

    cases, kernel = [], []
    for bank in QUIZZES.values():
        quiz = pl.Quiz(bank)
        for n, q in enumerate(quiz.declaration()["questions"]):
            for j in range(len(q["options"])):
                quiz.radios[n].index = j
                v = quiz.verdict(n)
                kernel.append([v.ok, v.kind, v.message])
                cases.append((q["rule"], ["num", j]))
    assert page(cases) == kernel
    assert len(kernel) == sum(len(q["options"]) for bank in QUIZZES.values() for q in bank)
    assert {k for _, k, _ in kernel} == {"right", "slip"}


def test_the_two_readers_of_typed_text_agree():
    texts = ["0.8415", "[0.8415, -0.5403]", "0.1, 0.2", "sin(4)", "2 ** -2", "-2**2", "[[1,0],[0,1]]", "−0.5",
             "abc", "", " 3 ", "1e-3", "float('-inf')", "-inf", "math.pi/2", "0x10", "1_000", "(1+2)*3",
             "[1,2,]", "np.sqrt(2)/2", "log(0)", "1/0", "(-8)**0.5", "10**400", "π", "2π", "1,5", "[1, [2, 3]]",
             "cos(100 * 10000 ** (-2 / 4))", "+.5e+1", "１", "-(-(3))", "2**-1**2"]
    script = ("const g = require(process.argv[1]); const t = JSON.parse(process.argv[2]);"
              "process.stdout.write(JSON.stringify(t.map(x => { const v = g.readText(x);"
              " return (typeof v === 'number' && !isFinite(v)) ? String(v) : v; })))")
    out = subprocess.run([node(), "-e", script, str(GRADER), json.dumps(texts)], capture_output=True, text=True, check=True)
    js = json.loads(out.stdout)

    def plain(v):
        if isinstance(v, float) and math.isinf(v):
            return "Infinity" if v > 0 else "-Infinity"
        return _map(v, lambda x: x) if isinstance(v, list) else v

    for text, got in zip(texts, js):
        want = plain(read_text(text))
        assert got == want, (text, got, want)


def test_the_number_helpers_agree_with_pythons():
    """Python's round (ties to even), f"{x:.1f}" (ties to even), f"{x:.6g}" and the precision
    rule's tolerance, on values that include exact ties and powers of ten."""
    import random

    from posenc.exercises.verdict import tolerance

    rng = random.Random(0)
    halves = [k + 0.5 for k in range(-6, 6)]
    ties = [1.25, 2.25, 0.125 * 10, 12.5, -1.25, 0.05 * 100, 1.35]
    floats = [rng.uniform(-1e4, 1e4) for _ in range(200)] + [10.0 ** e for e in range(-8, 9)] + \
             [rng.uniform(-1, 1) * 10.0 ** rng.randint(-7, 7) for _ in range(200)] + [0.0, 1e21, -0.5]
    script = ("const g = require(process.argv[1]); const d = JSON.parse(process.argv[2]);"
              "process.stdout.write(JSON.stringify({r: d.halves.map(g.roundHalfEven), f: d.ties.map(x => g.fixed(x, 1)),"
              " g: d.floats.map(g.formatG6), t: d.floats.map(x => [g.tolerance(x, null), g.tolerance(x, 4)])}))")
    data = {"halves": halves, "ties": ties, "floats": floats}
    out = subprocess.run([node(), "-e", script, str(GRADER), json.dumps(data)], capture_output=True, text=True, check=True)
    js = json.loads(out.stdout)
    assert js["r"] == [round(x) for x in halves]
    assert js["f"] == [f"{x:.1f}" for x in ties]
    assert js["g"] == [f"{x:.6g}" for x in floats]
    assert [[float(a), float(b)] for a, b in js["t"]] == [[tolerance(x), tolerance(x, 4)] for x in floats]


def test_synthetic_rules_reach_every_branch_the_same_way():
    """Rules made for the purpose: a slip matched only by the asked precision (decimals looser
    than 3 significant digits), an angle off by whole turns, infinities, element slips."""
    from posenc.exercises.rule import rule as make

    rules = [
        make(5.25, decimals=1, slips=[(5.0, "slip five"), (7.77, "slip seven")], expected="e", ok="ok", wrong="w"),
        make(1.0, mod=2 * math.pi, ok="ok", ok_turns="turns {turns}", expected="e", wrong="w"),
        make(None, infinite={"neg": [True, "neg ok"], "pos": [False, "pos no"]}, expected="e", ok="ok", wrong="w"),
        make([3, 4], read="int_list", valid={"length": 2}, expected="e", ok="ok", wrong="w",
             slips=[{"at": 0, "value": 2, "message": "first two"}, {"at": 0, "not": [3, 2], "message": "first other"},
                    ([3, 5], "row five")]),
        make(12, read="int", valid={"range": [0, 20]}, by_value={"7": ["seven a", "seven b"]},
             wrong_by_value={"9": "nine"}, expected="e", ok="ok", wrong="w"),
        make(2, read="int", slips=[(3, "three as written")], expected="e", ok="ok", wrong="w", echo=False),
    ]
    texts = ["5.06", "5.14", "5.2", "5.3", "7.8", "5", "5,25", "1", str(1 + 2 * math.pi), str(1 - 4 * math.pi), "1.5",
             "-inf", "inf", "3", "[3, 4]", "[2, 4]", "[9, 4]", "[3, 5]", "[3, 6]", "[3]", "7", "9", "10", "21", "12.0"]
    verdicts = assert_same([(r.to_json(), t) for r in rules for t in texts])
    messages = {m for _, _, m in verdicts}
    for expected in ("slip five", "turns +1", "turns -2", "neg ok", "pos no", "first two", "first other", "row five",
                     "seven a", "nine"):
        assert any(expected in m for m in messages), expected
    assert "three as written" in messages and "w" in messages     # echo=False: the message as written
