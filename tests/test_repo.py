"""The repository keeps its promises: README commands, links, stripped notebooks, generated pages."""
import json
import pathlib
import re
import subprocess
import sys

import pytest

# tools/ is on the test path (pyproject.toml's pythonpath)
import make_figures
import strip_notebooks

ROOT = pathlib.Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
CHAPTERS = [p for p in NOTEBOOKS if p.name != "00_index.ipynb"]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)|<img[^>]+src=[\"']([^\"']+)[\"']")


def readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.findall(r"```bash\n(.+?)\n```", text)


def test_readme_gives_two_commands_and_ci_runs_the_test_one():
    open_cmd, test_cmd = readme_commands()[:2]
    assert "requirements.txt" in open_cmd and "jupyter lab" in open_cmd
    assert "requirements-dev.txt" in test_cmd and "pytest" in test_cmd
    ci_lines = [line.strip() for line in (ROOT / ".ci/run").read_text().splitlines()
                if line.strip() and not line.lstrip().startswith("#")]
    assert ci_lines[-1] == test_cmd, "the last command of .ci/run must be the README's test command"
    # CI sets CI itself (a missing browser fails instead of skipping), whatever the host sets
    assert "export CI=true" in ci_lines[:-1], ".ci/run must export CI=true before the tests"
    # JupyterLab opens the contents notebook, with its settings override (Chinese UI) from the repo
    config = lab_config(re.search(r"--config=(\S+)", open_cmd).group(1))
    assert config.ServerApp.root_dir == str(ROOT)
    opened = config.LabApp.default_url.removeprefix("/lab/tree/")
    assert (ROOT / opened).is_file(), opened
    # the server appends "?token=..." to this path in the URL it prints: a query here breaks it
    assert "?" not in config.LabApp.default_url
    overrides = json.loads((pathlib.Path(config.LabApp.app_settings_dir) / "overrides.json").read_text(encoding="utf-8"))
    assert overrides["@jupyterlab/translation-extension:plugin"]["locale"] == "zh_CN"
    assert "jupyterlab-language-pack-zh-CN" in (ROOT / "requirements.txt").read_text()


def test_the_course_jupyterlab_shuts_unused_kernels_down():
    """A route opens one notebook after another, each with its kernel: a closed tab takes its
    kernel with it (JupyterLab's kernelShutdown), and the server shuts down a kernel idle for 20-30
    minutes with no tab connected, checking every minute or so; the README says how long. (The
    server really culls with these values: tests/browser/test_links.py reads its log.)"""
    config = lab_config(re.search(r"--config=(\S+)", readme_commands()[0]).group(1))
    kernels = config.MappingKernelManager
    assert 20 * 60 <= kernels.cull_idle_timeout <= 30 * 60 and 0 < kernels.cull_interval <= 120
    assert kernels.cull_connected is False       # an open tab's sliders keep their kernel
    assert "cull_busy" not in kernels             # a training run is never cut off
    assert f"{kernels.cull_idle_timeout // 60} 分钟没有动静的内核" in (ROOT / "README.md").read_text(encoding="utf-8")
    overrides = json.loads((pathlib.Path(config.LabApp.app_settings_dir) / "overrides.json").read_text(encoding="utf-8"))
    assert overrides["@jupyterlab/notebook-extension:tracker"]["kernelShutdown"] is True


def test_the_course_jupyterlab_sends_kernel_messages_without_nagle_s_delay():
    """The kernel's websocket gets TCP_NODELAY when it connects (tornado leaves Nagle's
    algorithm on: during a frame fill a small message behind a large one waited for the
    browser's delayed ACK, up to 40 ms); everything else is jupyter_server's connection."""
    from unittest import mock

    from jupyter_server.services.kernels.connection.channels import ZMQChannelsWebsocketConnection

    config = lab_config(re.search(r"--config=(\S+)", readme_commands()[0]).group(1))
    cls = config.ServerApp.kernel_websocket_connection_class
    assert issubclass(cls, ZMQChannelsWebsocketConnection) and cls is not ZMQChannelsWebsocketConnection
    calls = []

    class Handler:
        def set_nodelay(self, value):
            calls.append(("nodelay", value))

    conn = cls.__new__(cls)
    conn._trait_values["websocket_handler"] = Handler()   # a stub: the trait wants a real handler
    with mock.patch.object(ZMQChannelsWebsocketConnection, "connect", lambda self: calls.append("connect") or "done"):
        assert conn.connect() == "done"
    assert calls == [("nodelay", True), "connect"]


def lab_config(path: str):
    """The README's JupyterLab config file, loaded the way Jupyter loads it (traitlets), from
    another working directory: its paths must not depend on where the server is started."""
    from traitlets.config.loader import PyFileConfigLoader

    full = (ROOT / path).resolve()
    return PyFileConfigLoader(full.name, path=str(full.parent)).load_config()


def test_torch_is_pinned_and_the_module_is_installed_editable():
    reqs = (ROOT / "requirements.txt").read_text().split()
    assert "torch==2.13.0" in reqs and "-e" in reqs
    assert 'py-modules = ["posenc_lib"]' in (ROOT / "pyproject.toml").read_text()


def markdown_sources():
    yield ROOT / "README.md", (ROOT / "README.md").read_text(encoding="utf-8")
    for path in NOTEBOOKS:
        nb = json.loads(path.read_text(encoding="utf-8"))
        for cell in nb["cells"]:
            if cell["cell_type"] == "markdown":
                yield path, "".join(cell["source"])


def test_every_relative_link_resolves():
    checked = 0
    for path, text in markdown_sources():
        for m in LINK.finditer(text):
            target = (m.group(1) or m.group(2)).split("#")[0]
            if not target or re.match(r"^[a-z]+:", target):
                continue
            assert (path.parent / target).exists(), f"{path.name}: broken link {target}"
            checked += 1
    assert checked > 0


def test_notebooks_are_stored_without_outputs():
    for path in NOTEBOOKS:
        nb = json.loads(path.read_text(encoding="utf-8"))
        for cell in nb["cells"]:
            if cell["cell_type"] == "code":
                assert cell["outputs"] == [] and cell["execution_count"] is None, \
                    f"{path.name} has outputs: run python tools/strip_notebooks.py"
        assert "widgets" not in nb["metadata"], path.name



def test_notebooks_hold_the_metadata_the_kernel_writes_when_opened():
    """JupyterLab writes the kernel's ``kernelspec`` and ``language_info`` into a notebook once
    the kernel starts; a notebook holding anything else shows the unsaved-changes dot before
    the reader did a thing (the browser suite checks the dot itself)."""
    expected = strip_notebooks.kernel_metadata()
    assert set(expected["language_info"]) >= {"name", "version", "mimetype", "codemirror_mode"}
    for path in NOTEBOOKS:
        meta = json.loads(path.read_text(encoding="utf-8"))["metadata"]
        stored = {key: meta.get(key) for key in expected}
        assert stored == expected, f"{path.name}: run python tools/strip_notebooks.py"


@pytest.mark.slow
def test_strip_notebooks_writes_what_a_real_kernel_reports():
    """The metadata tools/strip_notebooks.py writes equals a real kernel's ``kernel_info``
    reply and the installed kernel spec (what JupyterLab copies into the notebook)."""
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import start_new_kernel

    km, kc = start_new_kernel(kernel_name="python3")
    try:
        language_info = kc.kernel_info(reply=True, timeout=60)["content"]["language_info"]
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    spec = KernelSpecManager().get_kernel_spec("python3")
    assert strip_notebooks.kernel_metadata() == {
        "kernelspec": {"name": "python3", "display_name": spec.display_name, "language": spec.language},
        "language_info": language_info}


@pytest.mark.slow
def test_contents_navigation_and_readme_list_are_up_to_date():
    out = subprocess.run([sys.executable, "tools/build_contents.py", "--check"], cwd=ROOT,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


def test_static_figures_exist():
    for name in make_figures.FIGURES:
        assert (ROOT / "images" / name).stat().st_size > 1000, name


def test_readme_images_exist_and_every_image_is_shown():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    shown = set(re.findall(r"\]\((images/[^)]+\.png)\)", readme))
    assert shown, "the README shows images"
    on_disk = {p.relative_to(ROOT).as_posix() for p in (ROOT / "images").rglob("*.png")}
    assert shown - on_disk == set(), "README points at missing images"
    assert on_disk - shown == set(), "images nobody sees: show them in the README or delete them"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_notebook_skeleton(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    cells = nb["cells"]
    md = ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]
    code = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
    assert md[0].lstrip().startswith("# "), "starts with a title"
    assert re.search(r"^\d\d_[a-z0-9_]+\.ipynb$", path.name), "ASCII file name"
    assert "import posenc_lib" in code[0] or "posenc_lib" in code[0], "first code cell is the setup cell"
    assert any(re.search(r"^#+ .*小结", m, re.M) for m in md), "has a 小结 section"
    assert any(re.search(r"^#+ .*练习", m, re.M) for m in md), "has a 练习 section"
    assert any("pl.check(" in c for c in code), "exercises use pl.check with a declared id"
    assert "navigation" in cells[-1].get("metadata", {}).get("tags", []), "ends with the navigation bar"
    # no sys.path edit, no ipywidgets.interact in a code cell: ruff's banned APIs (pyproject.toml)


@pytest.mark.slow
def test_the_readme_open_command_starts_jupyterlab_as_root_too(tmp_path):
    """The README's launch (its config file, no --allow-root) starts the server whoever runs it:
    as root (a container, and this suite's CI) JupyterLab would otherwise exit with «Running as
    root is not recommended». Waits for the server's own 'is running at' line, never a fixed time."""
    import os
    import socket

    open_cmd = readme_commands()[0]
    config = re.search(r"--config=(\S+)", open_cmd).group(1)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cmd = [sys.executable, "-m", "jupyter", "lab", f"--config={config}", "--no-browser", "--ip=127.0.0.1",
           f"--port={port}", "--ServerApp.token=readme-test"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, "JUPYTER_RUNTIME_DIR": str(tmp_path)})
    lines = []
    try:
        for line in proc.stdout:            # ends when the server exits
            lines.append(line)
            if "is running at" in line or "Use Control-C to stop" in line:
                break
        running = proc.poll() is None
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    assert running, "".join(lines[-20:])
    assert not any("Running as root is not recommended" in line for line in lines)
