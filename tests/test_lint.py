"""The rules the ecosystem's tools check, run as part of the suite (so CI runs them):

- ``ruff check``: the lint rules of ``[tool.ruff]`` in pyproject.toml, over the package, the
  tools, the tests and the notebooks;
- ``lint-imports``: import-linter's contracts in ``[tool.importlinter]``, the package's layers
  (figures above the UI, the UI above the exercises and the course, these above the math rooms;
  inside the UI the engine beside the quiz, worksheet and progress display) and no cycles.

Each tool is also run once on a copy holding one break of each rule this project relies on, and
must name every one of them: a configuration that silently checks nothing fails here.
"""
import json
import os
import pathlib
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
RUFF = [sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise"]
LINT_IMPORTS = [sys.executable, "-c", "from importlinter.cli import lint_imports_command as c; c()",
                "--no-cache", "--no-logo"]


def run(cmd, cwd) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(cwd)}      # lint-imports finds the package of cwd
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env)


def test_ruff_finds_nothing():
    out = run(RUFF, ROOT)
    assert out.returncode == 0, out.stdout + out.stderr


def test_import_linter_keeps_every_contract():
    out = run(LINT_IMPORTS, ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "0 broken" in out.stdout, out.stdout


def copy_of_the_package(tmp_path) -> pathlib.Path:
    shutil.copytree(ROOT / "posenc", tmp_path / "posenc", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    return tmp_path


def append(path: pathlib.Path, line: str):
    path.write_text(path.read_text(encoding="utf-8") + line + "\n", encoding="utf-8")


def test_each_contract_names_its_break(tmp_path):
    root = copy_of_the_package(tmp_path)
    breaks = {
        "posenc/rope.py": ("from .ui import look", "posenc.rope -> posenc.ui.look"),          # math -> UI
        "posenc/validate.py": ("from . import encoding", "posenc.validate -> posenc.encoding"),  # below the math
        "posenc/ui/engine/spec.py": ("from ...figures import style",                         # engine -> a family
                                     "posenc.ui.engine.spec -> posenc.figures.style"),
        "posenc/ui/engine/canvas.py": ("from .. import quiz", "posenc.ui.engine.canvas -> posenc.ui.quiz"),
        "posenc/exercises/rule.py": ("from ..course import notebooks", "posenc.exercises.rule -> posenc.course.notebooks"),
        "posenc/encoding.py": ("from . import attention", ".encoding -> .attention"),          # a cycle
        "posenc/figures/style.py": ("from . import rope", ".style -> .rope"),                  # a cycle in a folder
    }
    for path, (line, _) in breaks.items():
        append(root / path, line)
    (root / "posenc" / "new_room.py").write_text("X = 1\n", encoding="utf-8")  # placed in no layer
    out = run(LINT_IMPORTS, root)
    assert out.returncode != 0 and "3 broken" in out.stdout, out.stdout
    for path, (_, shown) in breaks.items():
        assert shown in out.stdout, (path, out.stdout)
    assert "- posenc.new_room" in out.stdout, out.stdout


def test_each_lint_rule_this_project_relies_on_names_its_break(tmp_path):
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    files = {
        "posenc/room.py": (
            "import math\n"                                   # F401 unused import
            "f = lambda x: x  # noqa: E731\n"                 # RUF100: a noqa no configured rule needs
            "print(f'no placeholder', undefined_name)\n"      # F541, F821
            "print(f.__code__._private)\n"                    # SLF001 outside the engine
            "import matplotlib.pyplot as plt  # noqa: E402\n"
            "plt.gca()\n"),                                     # TID251: pyplot's current axes
        "posenc/ui/engine/room.py": "def f(x):\n    return x._private\n",          # the engine may
        "tools/tool.py": "import sys\n\nsys.path.insert(0, 'tests')\n",            # TID251
        "tests/reference.py": '"""References."""\nimport numpy as np\n\n\ndef dot(a, b):\n    return np.dot(a, b)\n',
        "tests/test_x.py": "import numpy as np\n\n\ndef test_x(ex):\n    assert np.ones(1)[0] == ex._private\n",
        "notebooks/01_x.ipynb": json.dumps({                                           # TID251 in a cell
            "cells": [{"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
                       "source": ["from ipywidgets import interact\n", "interact(print, x=1)"]}],
            "metadata": {"language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5}),
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    out = run(RUFF, tmp_path)
    found = {(line.split(":")[0], line.split(": ", 1)[1].split()[0]) for line in out.stdout.splitlines()
             if line.count(":") >= 3}
    assert found == {("posenc/room.py", "F401"), ("posenc/room.py", "TID251"), ("posenc/room.py", "RUF100"), ("posenc/room.py", "F541"),
                     ("posenc/room.py", "F821"), ("posenc/room.py", "SLF001"), ("tools/tool.py", "TID251"),
                     ("tests/reference.py", "TID253"), ("tests/reference.py", "D103"),
                     ("notebooks/01_x.ipynb", "TID251")}, out.stdout
