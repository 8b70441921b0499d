"""The course's JupyterLab: ``python -m jupyter lab --config=.jupyter/jupyter_lab_config.py``.

Jupyter does not read configuration from the folder it is started in, but ``--config=FILE``
loads this file; every path here is relative to the file itself, so the command works from
the repository root and from any other folder (give the path to this file).
"""
from pathlib import Path

c = get_config()  # noqa: F821 (provided by Jupyter when it loads this file)

_here = Path(__file__).resolve().parent
# The repository is the server's root: the file browser reaches README.md and images/ too.
c.ServerApp.root_dir = str(_here.parent)
# JupyterLab settings for every reader (lab-settings/overrides.json): Chinese menus (the zh_CN
# language pack from requirements.txt); a notebook's kernel shut down when its tab is closed
# (kernelShutdown); and windowingMode "defer" (every cell attached once the browser is idle), under
# which a link to a cell (NN_x.ipynb#cell-id=...) lands on it every time, also in a notebook the
# link opens: tests/browser/test_links.py clicks them.
c.LabApp.app_settings_dir = str(_here / "lab-settings")
# Kernels nobody uses stop by themselves: a kernel with no message to or from it for 30 minutes
# and no notebook tab connected (a browser closed while the server runs on) is shut down, checked
# every minute. A kernel whose notebook is open in a tab is left alone (cull_connected): its
# sliders and checks would stop answering with no word.
c.MappingKernelManager.cull_idle_timeout = 30 * 60
c.MappingKernelManager.cull_interval = 60
c.MappingKernelManager.cull_connected = False
# Open the contents page. No query string here: the server appends ``?token=...`` to this
# path in the URL it prints, and a second ``?`` would make that URL fail to log in.
c.LabApp.default_url = "/lab/tree/notebooks/00_index.ipynb"
# Containers and cloud notebooks often run as root: the server would refuse to start
# ("Running as root is not recommended"); on an ordinary account this setting changes nothing.
c.ServerApp.allow_root = True
