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


def _kernel_websocket_without_nagle():
    """The kernel's websocket with TCP_NODELAY (``c.ServerApp.kernel_websocket_connection_class``).

    jupyter_server leaves Nagle's algorithm on for it (tornado's default): while an explorer's
    frames stream to the browser, a small message written behind a large one waits for the
    browser's delayed ACK, up to 40 ms. Measured here on 12's rope_2d during a fill: a reader's
    arrow key took 58-76 ms to a painted figure with Nagle, 28-37 ms without, every message of
    the kernel sent on time in both. None where jupyter_server has no such class (an older one).
    """
    try:
        from jupyter_server.services.kernels.connection.channels import ZMQChannelsWebsocketConnection
    except ImportError:
        return None

    class NoDelayConnection(ZMQChannelsWebsocketConnection):
        """A kernel's websocket connection that sends each message at once (TCP_NODELAY)."""

        def connect(self, *args, **kwargs):
            self.websocket_handler.set_nodelay(True)
            return super().connect(*args, **kwargs)

    return NoDelayConnection


_no_delay = _kernel_websocket_without_nagle()
if _no_delay is not None:
    c.ServerApp.kernel_websocket_connection_class = _no_delay
