"""posenc_lib.py is a map over the posenc package, and the package keeps its shape.

``import posenc_lib`` stays light and torch-free; ``__all__`` (built from the facade's imports)
resolves, each name to the room it is imported from; the one
``EXPLORERS`` dict lives in the facade and nowhere else; no file grows past ~700 lines or by
appended sections; torch classes are ordinary module-level classes (a trained model pickles).
How the rooms import each other (layers, no cycles) is import-linter's contracts in
pyproject.toml, run by tests/test_lint.py.
"""
import ast
import io
import pathlib
import pickle
import re
import subprocess
import sys

import pytest

import posenc_lib as pl

ROOT = pathlib.Path(__file__).resolve().parents[1]
FACADE = ROOT / "posenc_lib.py"
PACKAGE = ROOT / "posenc"
MODULES = sorted(PACKAGE.rglob("*.py"))


def facade_tree() -> ast.Module:
    return ast.parse(FACADE.read_text(encoding="utf-8"))


# ---------------------------------------------------------------------------
# Import cost
# ---------------------------------------------------------------------------
def test_import_does_not_load_torch():
    code = "import sys, posenc_lib; posenc_lib.sinusoidal_encoding(3, 4); print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_star_import_does_not_load_torch():
    """``from posenc_lib import *`` looks up every name in ``__all__``; none of them needs torch."""
    code = "import sys\nfrom posenc_lib import *\nprint('torch' in sys.modules, callable(rope_frequencies))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False True"


_IMPORTED_PACKAGES = """
import sys
before = set(sys.modules)
import posenc_lib
print(" ".join(sorted({m.split(".")[0] for m in set(sys.modules) - before})))
print(" ".join(sorted(sys.stdlib_module_names)))
"""


def test_import_loads_numpy_and_the_standard_library_only():
    """In a fresh interpreter, ``import posenc_lib`` loads numpy and modules of the standard
    library, nothing else: matplotlib, ipywidgets, IPython and torch load on first use (which
    modules load is structure; how long they take is tools/benchmark.py's business)."""
    out = subprocess.run([sys.executable, "-c", _IMPORTED_PACKAGES], capture_output=True, text=True, check=True)
    loaded, stdlib = (set(line.split()) for line in out.stdout.splitlines())
    third_party = loaded - stdlib - {"posenc", "posenc_lib"}
    assert third_party == {"numpy"}, third_party


# ---------------------------------------------------------------------------
# __all__ and re-exports
# ---------------------------------------------------------------------------
def test_all_has_no_duplicates_and_every_name_resolves():
    assert len(pl.__all__) == len(set(pl.__all__)), [n for n in pl.__all__ if pl.__all__.count(n) > 1]
    for name in pl.__all__:
        assert getattr(pl, name) is not None, name


def facade_reexports() -> dict:
    """Name -> posenc module, for every ``from posenc... import name`` in posenc_lib.py."""
    names = {}
    for node in facade_tree().body:
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "posenc":
            for alias in node.names:
                names[alias.asname or alias.name] = node.module
    return names


def test_all_is_the_facades_imports_and_explorers_and_the_lazy_names_are_in_dir():
    names = facade_reexports()
    assert len(names) > 50, "the facade's imports were not found"
    assert set(pl.__all__) == set(names) | {"EXPLORERS"}
    assert set(pl._LAZY) <= set(dir(pl)) and not set(pl._LAZY) & set(pl.__all__)
    assert not [n for n in names if n.startswith("_") and n != "__version__"], "private names re-exported"
    for name, module in names.items():                  # each is defined in the room it comes from
        obj = getattr(pl, name)
        home = getattr(obj, "__module__", None)
        if home is not None and name != "__version__" and callable(obj):
            assert home == module, f"{name} comes from {module} but is defined in {home}"
    for name, module in pl._LAZY.items():
        assert getattr(pl, name).__module__ == module


def test_position_limit_error_needs_no_torch():
    code = "import sys, posenc_lib as pl; assert issubclass(pl.PositionLimitError, IndexError); print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
    import posenc.torch_layers as layers

    assert layers.check_position_limit.__module__ == "posenc.position_limit"


# ---------------------------------------------------------------------------
# EXPLORERS: one dict literal, never mutated
# ---------------------------------------------------------------------------
def test_explorers_is_assigned_once_and_keyed_by_each_spec_name():
    assigned = [node for node in ast.walk(facade_tree())
                if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign))
                and any(isinstance(t, ast.Name) and t.id == "EXPLORERS"
                        for t in (node.targets if isinstance(node, ast.Assign) else [node.target]))]
    assert len(assigned) == 1
    assert all(name == cls.spec.name for name, cls in pl.EXPLORERS.items())
    assert len(set(pl.EXPLORERS.values())) == len(pl.EXPLORERS) == 14


def test_explorers_is_never_mutated():
    mutation = re.compile(r"EXPLORERS\s*\[|EXPLORERS\s*\.\s*(update|setdefault|pop|popitem|clear)\b|"
                          r"EXPLORERS\s*(\|=|=)")
    offenders = []
    for path in MODULES + [FACADE]:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if mutation.search(line) and not (path == FACADE and line.startswith("EXPLORERS = {")):
                offenders.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not offenders, offenders


# ---------------------------------------------------------------------------
# The package's shape
# ---------------------------------------------------------------------------
def test_no_module_imports_an_underscore_name_from_another():
    """A name another module needs is public: ``from x import _y`` appears nowhere in the package
    or the tools (a module's own underscore names stay its own)."""
    offenders = []
    for path in MODULES + [FACADE, *sorted((ROOT / "tools").glob("*.py"))]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                offenders += [f"{path.relative_to(ROOT)}:{node.lineno} {a.name}" for a in node.names
                              if a.name.startswith("_") and not a.name.startswith("__")]
    assert not offenders, offenders


def test_no_file_in_the_package_is_over_700_lines():
    long = {str(p.relative_to(ROOT)): n for p in MODULES
            if (n := p.read_text(encoding="utf-8").count("\n")) > 700}
    assert not long, long


def test_no_section_markers_naming_notebooks_or_authors():
    marker = re.compile(r"^\s*#.*(={3,}|-{3,}).*\b(section|additions?|notebook|nb ?\d+|seed)\b|"
                        r"\b(section|additions?)\b.*={3,}", re.IGNORECASE)
    found = [f"{p.relative_to(ROOT)}:{n}: {line.strip()}" for p in MODULES + [FACADE]
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if marker.search(line)]
    assert not found, found


# ---------------------------------------------------------------------------
# Torch classes are ordinary module-level classes
# ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def trained_model_and_batch():
    run = pl.train_order_model("rope", steps=5, n_train=32, n_test=32)
    data = pl.make_bite_dataset(16, seed=0, split="test")
    return run.model, data


def test_torch_save_and_load_round_trip_a_trained_order_model(trained_model_and_batch):
    import torch

    model, data = trained_model_and_batch
    buf = io.BytesIO()
    torch.save(model, buf)
    buf.seek(0)
    copy = torch.load(buf, weights_only=False)
    assert type(copy) is pl.OrderModel and copy is not model
    with torch.no_grad():
        assert torch.equal(copy(data.tokens, data.mask), model(data.tokens, data.mask))


def test_pickle_round_trips_a_trained_order_model(trained_model_and_batch):
    import torch

    model, data = trained_model_and_batch
    copy = pickle.loads(pickle.dumps(model))
    assert type(copy) is pl.OrderModel
    with torch.no_grad():
        assert torch.equal(copy(data.tokens, data.mask), model(data.tokens, data.mask))


# ---------------------------------------------------------------------------
# Notebooks build explorers by their class (Shift-Tab shows its signature)
# ---------------------------------------------------------------------------
def test_notebooks_build_explorers_by_class_not_through_the_dict():
    import json

    import build_contents   # tools/build_contents.py (pyproject puts tools/ on the test path)

    classes = {cls.__name__ for cls in pl.EXPLORERS.values()}
    used = set()
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        code = ["".join(c["source"]) for c in json.loads(path.read_text(encoding="utf-8"))["cells"]
                if c["cell_type"] == "code"]
        assert not [c for c in code if "EXPLORERS[" in c], f"{path.name}: build explorers as pl.<Name>Explorer(...)"
        mine = {m.group(1) for c in code for m in re.finditer(r"\bpl\.(\w+Explorer)\(", c)}
        assert mine <= classes, f"{path.name}: unknown explorers {mine - classes}"
        if path.name != build_contents.INDEX and path.name[:2].isdigit():   # the contents page's "sliders" mark
            assert build_contents.course_info(path)["sliders"] == bool(mine), path.name
        used |= mine
    assert used == classes, f"explorers no notebook builds: {classes - used}"


# ---------------------------------------------------------------------------
# Where a reader first meets each public name: declared in posenc/course/introduced.py
# ---------------------------------------------------------------------------
def public_definitions() -> dict:
    """Every public function and class of posenc_lib (its ``__all__`` and lazy names)."""
    import inspect

    objs = {name: getattr(pl, name) for name in [*pl.__all__, *pl._LAZY]}
    return {name: obj for name, obj in objs.items() if inspect.isfunction(inspect.unwrap(obj)) or inspect.isclass(obj)}


def test_every_public_name_is_declared_once_under_a_notebook():
    from posenc.course.introduced import INFRASTRUCTURE, INTRODUCED

    declared = [name for names in INTRODUCED.values() for name in names]
    assert len(declared) > 200, "the registry was not read"
    assert len(declared) == len(set(declared)), sorted({n for n in declared if declared.count(n) > 1})
    public = public_definitions()
    assert set(declared) <= set(public) and INFRASTRUCTURE <= set(public), \
        sorted((set(declared) | INFRASTRUCTURE) - set(public))
    undeclared = set(public) - set(declared) - INFRASTRUCTURE
    assert not undeclared, ("add to posenc/course/introduced.py, under the notebook that first uses it: "
                            f"{sorted(undeclared)}")
    notebooks = sorted(p.stem for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    assert list(INTRODUCED) == [n for n in notebooks if n in INTRODUCED], "unknown notebooks, or not in course order"


def test_each_notebook_uses_the_names_it_introduces():
    """A name counts as used where the notebook mentions it (code or text), a result class where
    a function returning it is mentioned, a ``plot_*`` where the explorer of its figure family
    (its module) is built."""
    import json

    from posenc.course import catalogue
    from posenc.course.introduced import INTRODUCED

    public = public_definitions()
    checked_in = {}                   # check function -> notebooks declaring an exercise it grades
    for e in catalogue.EXERCISES:
        checked_in.setdefault(e.check.__name__, set()).add(e.notebook)
    returns = {}                      # class name -> public functions returning it
    for name, obj in public.items():
        returns.setdefault(str(getattr(obj, "__annotations__", {}).get("return", "")), []).append(name)
    problems = []
    for notebook, names in INTRODUCED.items():
        cells = json.loads((ROOT / "notebooks" / f"{notebook}.ipynb").read_text(encoding="utf-8"))["cells"]
        text = "\n".join("".join(c["source"]) for c in cells)
        built = {public[m.group(1)].__module__ for m in re.finditer(r"\bpl\.(\w+Explorer)\(", text) if m.group(1) in public}

        def mentioned(n, text=text):
            return re.search(rf"(?<![\w.])(pl\.)?{n}\b", text) is not None

        for name in names:
            if not (mentioned(name) or notebook in checked_in.get(name, ())
                    or any(mentioned(f) for f in returns.get(name, []))
                    or name.startswith("plot_") and public[name].__module__ in built):
                problems.append(f"{name}: declared as introduced in {notebook}, which never uses it")
    assert not problems, "\n".join(problems)
