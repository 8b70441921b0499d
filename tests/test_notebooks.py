"""What the notebooks' code and outputs must keep. Every call that takes seconds runs inside
``pl.progress_bar`` (the reader must see the kernel is alive): which calls take seconds is read
from the package (``posenc.slow.takes_seconds`` marks them), where they run from the notebooks'
code (AST) -- never from how long a cell took on this machine. The rules a run notebook's outputs
keep (:func:`output_rule_problems`) are applied to the one run of each notebook, in JupyterLab
(tests/browser/test_jupyterlab.py: no error, nothing on stderr, no stall, nothing cites a hidden
source, no unanswered exercise shows 再想想; its kernels write progress to the suite's temporary
POSENC_PROGRESS, see conftest.py).
"""
import ast
import inspect
import json
import pathlib

import pytest

import posenc_lib as pl
from posenc.slow import EVERY_CALL, FIRST_CALL
from test_reader_text import offences

ROOT = pathlib.Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))

#: The facade's names whose call takes seconds: name -> EVERY_CALL or FIRST_CALL (memoised).
SLOW_CALLS = {name: getattr(pl, name).takes_seconds for name in pl.__all__
              if getattr(getattr(pl, name), "takes_seconds", None) in (EVERY_CALL, FIRST_CALL)}


# ---------------------------------------------------------------------------
# The progress rule, read from the code
# ---------------------------------------------------------------------------
class _Unknown(Exception):
    """An argument whose value cannot be known without running the notebook."""


def _value(node, env: dict) -> list:
    """The values ``node`` can take: a literal, ``pl.CONSTANT``, a name bound by an enclosing
    ``for`` / comprehension over literals (one value per iteration), or a tuple / list of those."""
    if isinstance(node, ast.Name) and node.id in env:
        return env[node.id]
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "pl":
        constant = getattr(pl, node.attr, None)
        if constant is None or callable(constant):
            raise _Unknown
        return [constant]
    if isinstance(node, (ast.Tuple, ast.List)):
        items = [_value(e, env) for e in node.elts]
        if any(len(v) != 1 for v in items):
            raise _Unknown
        return [tuple(v[0] for v in items)]
    try:
        return [ast.literal_eval(node)]
    except (ValueError, TypeError, SyntaxError):
        raise _Unknown from None


def _call_keys(name: str, call: ast.Call, env: dict) -> set | None:
    """Every argument set ``call`` makes (bound to the function's signature, defaults filled
    in), or None when an argument is unknown."""
    try:
        args = [_value(a, env) for a in call.args]
        kwargs = {k.arg: _value(k.value, env) for k in call.keywords if k.arg is not None}
        if any(k.arg is None for k in call.keywords) or any(isinstance(a, ast.Starred) for a in call.args):
            raise _Unknown
    except _Unknown:
        return None
    signature = inspect.signature(getattr(pl, name))
    keys, combos = set(), [([], {})]
    for values in args:
        combos = [(a + [v], k) for a, k in combos for v in values]
    for key, values in kwargs.items():
        combos = [(a, {**k, key: v}) for a, k in combos for v in values]
    for a, k in combos:
        bound = signature.bind(*a, **k)
        bound.apply_defaults()
        keys.add((name, repr(sorted(bound.arguments.items()))))
    return keys


def _is_progress(item: ast.withitem) -> bool:
    call = item.context_expr
    return (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "progress_bar"
            and isinstance(call.func.value, ast.Name) and call.func.value.id == "pl")


def _cell_tree(source: str) -> ast.Module:
    """A code cell as Python: IPython magics (``%matplotlib``, ``!pip``) dropped."""
    lines = ["" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines()]
    return ast.parse("\n".join(lines))


def slow_calls_outside_progress(cells: list[tuple[int, str]], slow: dict | None = None) -> list[str]:
    """One line per call of a ``takes_seconds`` function in these (number, code) cells, run in
    order, that does not run inside ``with pl.progress_bar(...)``. A memoised function's call is fine
    outside when an earlier cell made the same call (same arguments) inside a progress bar."""
    slow = SLOW_CALLS if slow is None else slow
    done, problems = set(), []

    def visit(node, env, inside, cell):
        if isinstance(node, ast.With) and any(_is_progress(i) for i in node.items):
            inside = True
        if isinstance(node, (ast.For, ast.comprehension)) and isinstance(node.target, ast.Name):
            try:
                env = {**env, node.target.id: list(_value(node.iter, env)[0])}
            except (_Unknown, TypeError):
                env = {k: v for k, v in env.items() if k != node.target.id}
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            for gen in node.generators:       # the generators bind the names the element uses
                visit(gen, env, inside, cell)
                if isinstance(gen.target, ast.Name):
                    try:
                        env = {**env, gen.target.id: list(_value(gen.iter, env)[0])}
                    except (_Unknown, TypeError):
                        env = {k: v for k, v in env.items() if k != gen.target.id}
            for part in ("elt", "key", "value"):
                if getattr(node, part, None) is not None:
                    visit(getattr(node, part), env, inside, cell)
            return
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in slow
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "pl"):
            name = node.func.attr
            keys = _call_keys(name, node, env)
            if inside:
                done.update(keys or ())
            elif not (slow[name] == FIRST_CALL and keys and keys <= done):
                problems.append(f"cell {cell}, line {node.lineno}: pl.{name}(...) takes seconds and runs "
                                f"outside `with pl.progress_bar(...)`: {ast.unparse(node)[:120]}")
        for child in ast.iter_child_nodes(node):
            visit(child, env, inside, cell)

    for cell, source in cells:
        visit(_cell_tree(source), {}, False, cell)
    return problems


def code_cells(path) -> list[tuple[int, str]]:
    """(cell number, source) of every code cell (read as JSON: nbformat takes seconds to import)."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return [(i, "".join(c["source"])) for i, c in enumerate(cells) if c["cell_type"] == "code"]


def test_the_package_marks_its_slow_calls_and_exports_them():
    """The marks exist where the slow work is (training, tables of trained models) and every
    marked facade name is one the rule knows (notebooks call it as ``pl.name``). A marked
    function the facade does not export (``finetune_order_model``, called by
    ``context_extension_table``) is out of a notebook's reach."""
    import importlib
    import pkgutil

    import posenc

    assert {"train_order_model", "trained_run", "extrapolation_table",
            "context_extension_table"} <= set(SLOW_CALLS), SLOW_CALLS
    assert SLOW_CALLS["trained_run"] == FIRST_CALL and SLOW_CALLS["train_order_model"] == EVERY_CALL
    marked = set()
    for info in pkgutil.walk_packages(posenc.__path__, "posenc."):
        module = importlib.import_module(info.name)
        marked |= {name for name, obj in vars(module).items()
                   if inspect.isfunction(obj) and getattr(obj, "takes_seconds", None) in (EVERY_CALL, FIRST_CALL)}
    assert "finetune_order_model" in marked
    assert marked & set(pl.__all__) == set(SLOW_CALLS), marked ^ set(SLOW_CALLS)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_slow_calls_run_inside_a_progress_bar(path):
    problems = slow_calls_outside_progress(code_cells(path))
    assert not problems, "\n".join(problems)


def test_the_progress_rule_catches_a_slow_call_outside_pl_progress():
    """The rule on cells made for the purpose: a training call outside pl.progress_bar is caught,
    inside it is not; a memoised call repeated with the same arguments (literal, default, or a
    loop over a literal tuple) is fine outside, with other arguments it is caught; a call that
    is slow every time is caught outside even after the same call inside."""
    cells = [
        "%matplotlib inline\nimport posenc_lib as pl",
        "run = pl.trained_run('rope')",                                        # 1: caught
        "with pl.progress_bar(2, '训练') as bar:\n"
        "    runs = {pe: pl.trained_run(pe, seed=0) for pe in ('none', 'sinusoidal')}\n"
        "    rows = pl.extrapolation_table(callback=bar.callback())",
        "for pe in ('none', 'sinusoidal'):\n    print(pl.trained_run(pe).test_accuracy)",   # repeats
        "pl.trained_run('none', seed=0, max_len=None)",                        # repeat, defaults
        "pl.trained_run('none', steps=30)",                                    # 5: other arguments
        "rows = pl.extrapolation_table()",                                     # 6: slow every call
        "pl.trained_run(name)",                                                # 7: unknown argument
    ]
    problems = slow_calls_outside_progress(list(enumerate(cells)))
    assert [p.split(",")[0] for p in problems] == ["cell 1", "cell 5", "cell 6", "cell 7"], problems
    assert "pl.trained_run('rope')" in problems[0] and "pl.extrapolation_table()" in problems[2]
    assert not slow_calls_outside_progress(list(enumerate(cells))[2:5])


# ---------------------------------------------------------------------------
# Each notebook, executed
# ---------------------------------------------------------------------------
def output_text(out) -> str:
    """The text a reader sees in one output (nbformat node or the JSON JupyterLab's model gives)."""
    if out.get("output_type") == "stream":
        text = out.get("text", "")
        return "".join(text) if isinstance(text, list) else text
    data = out.get("data", {})
    return "\n".join("".join(v) if isinstance(v := data[k], list) else str(v)
                     for k in ("text/plain", "text/html", "text/markdown") if k in data)


def output_rule_problems(cells) -> list[str]:
    """The rules a run notebook's outputs keep, for ``cells`` as (index, cell type, source,
    outputs): nothing printed cites a hidden source, and after the 练习 heading no unanswered
    exercise shows 再想想 (a neutral prompt instead). The one run of each notebook applies
    them (tests/browser/test_jupyterlab.py)."""
    cells = list(cells)
    exercises = max((i for i, kind, src, _ in cells if kind == "markdown"
                     and any(line.startswith("## 练习") for line in src.splitlines())), default=len(cells))
    problems = []
    for i, _kind, _src, outputs in cells:
        for out in outputs or ():
            text = output_text(out)
            if offences(text):
                problems.append(f"cell {i} prints text citing a hidden source: {offences(text)}")
            elif i > exercises and "再想想" in text:
                problems.append(f"cell {i}: an unanswered exercise shows 再想想 (it should show a neutral prompt)")
    return problems


def test_the_output_rules_catch_a_citation_and_a_premature_verdict():
    cells = [(0, "markdown", "## 练习", []), (1, "code", "x", [{"output_type": "stream", "name": "stdout",
                                                                   "text": ["再想想 ✗ 你填的是 1"]}])]
    assert output_rule_problems(cells) and not output_rule_problems(cells[1:])


def _printed_markdown_tables(source: str) -> list[int]:
    """Lines where ``print(...)`` is given a ``markdown_table(...)``: the reader would see its pipes."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    return [node.lineno for node in ast.walk(tree)
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "print"
            and any(isinstance(n, ast.Call) and getattr(n.func, "attr", getattr(n.func, "id", None)) == "markdown_table"
                    for arg in node.args for n in ast.walk(arg))]


def test_the_markdown_table_rule_catches_a_printed_table():
    assert _printed_markdown_tables('print(pl.markdown_table(["a"], [[1]]))') == [1]
    assert _printed_markdown_tables('display(Markdown(pl.markdown_table(["a"], [[1]])))') == []


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_markdown_tables_are_rendered_not_printed(path):
    """A table built with ``pl.markdown_table`` goes through ``IPython.display.Markdown`` (as in
    notebook 05), so JupyterLab renders it instead of showing raw pipes."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    bad = [(n, line) for n, cell in enumerate(nb["cells"]) if cell["cell_type"] == "code"
           for line in _printed_markdown_tables("".join(cell["source"]).replace("%matplotlib inline", ""))]
    assert not bad, f"cells printing a markdown table (use display(Markdown(...))): {bad}"
