"""Where a live press's reply spends its time between the kernel and the page, hop by hop
(``python tools/benchmark.py --only reply``; JupyterLab + headless Chromium).

Each press of a live control (an arrow key, :func:`live_metrics.live_press`) is joined with
what four places recorded, all as wall-clock ms after the keydown:

* the kernel: its redraw (:data:`live_metrics.KERNEL_TIMING`) and, from ipykernel's IOPub
  thread, each message queued for it and actually sent (:data:`KERNEL_IO`);
* the server: jupyter_server's ``handle_outgoing_message``, in and out, for each message from
  the kernel to the websocket (:data:`SERVER_HOOK`, in the server's config file);
* Chromium: each websocket frame the page received (CDP ``Network.webSocketFrameReceived``,
  on the wall clock through the handshake's ``wallTime``, :class:`WebSocketFrames`);
* the page: the figure's new ``src`` and the first frame that shows it.

The reply's first message (the kernel's status) and the figure's message (the largest one) are
followed separately (:func:`join`). For 02's ``word_0`` here (README: 30 steps, medians) Chromium had
the figure's message 6.2 ms after the server wrote it, and the page showed it 9.8 ms after its ``src``.
"""
from __future__ import annotations

import json
import os

#: The environment variable that names the file :data:`SERVER_HOOK` appends to.
SERVER_LOG_ENV = "POSENC_REPLY_LOG"

#: Python for the server's config file: one line ``t_in t_out bytes`` (wall-clock ms) per message
#: from a kernel to a websocket, appended to the file named by :data:`SERVER_LOG_ENV`.
SERVER_HOOK = f"""
import os as _os, time as _time
if _os.environ.get({SERVER_LOG_ENV!r}):
    from jupyter_server.services.kernels.connection import channels as _channels
    _posenc_log = open(_os.environ[{SERVER_LOG_ENV!r}], "a")
    _posenc_outgoing = _channels.ZMQChannelsWebsocketConnection.handle_outgoing_message

    def _posenc_timed_outgoing(self, stream, msg):
        t_in = _time.time() * 1000
        try:
            return _posenc_outgoing(self, stream, msg)
        finally:
            size = sum(len(p.bytes if hasattr(p, "bytes") else p) for p in msg)
            _posenc_log.write(f"{{t_in:.3f}} {{_time.time() * 1000:.3f}} {{size}}\\n")
            _posenc_log.flush()
    _channels.ZMQChannelsWebsocketConnection.handle_outgoing_message = _posenc_timed_outgoing
"""

#: Run in the kernel: ``__posenc_io`` gets ``[kind, t_ms, bytes]`` for each message the IOPub
#: thread is given (``"queued"``: the kernel's code hands it over) and sends (``"sent"``; the
#: figure's hop counts from this one).
KERNEL_IO = """
def __posenc_io_timing():
    import time
    from ipykernel import iostream
    log = []
    cls = iostream.IOPubThread
    if getattr(cls.send_multipart, '__posenc_timed', False):
        return __posenc_io

    def size(msg):
        return sum(len(p.bytes if hasattr(p, 'bytes') else p) for p in msg)

    def wrap(fn, kind):
        def timed(self, msg, *a, **k):
            log.append([kind, time.time() * 1000, size(msg)])
            return fn(self, msg, *a, **k)
        timed.__posenc_timed = True
        return timed
    cls.send_multipart = wrap(cls.send_multipart, 'queued')
    cls._really_send = wrap(cls._really_send, 'sent')
    return log

__posenc_io = __posenc_io_timing()
"""

#: The hops of a reply, in order: (name, what it is).
HOPS = [
    ("arrival", "keydown -> the kernel's widget has the message"),
    ("first_server", "-> the server has the kernel's first reply message"),
    ("first_page", "-> Chromium has it"),
    ("redraw_end", "-> the kernel's redraw returns"),
    ("figure_sent", "-> the IOPub thread sends the figure's message"),
    ("figure_server_in", "-> the server has it"),
    ("figure_server_out", "-> the server has written it to the websocket"),
    ("figure_page", "-> Chromium has it"),
    ("src", "-> the page's figure has the new src"),
    ("painted", "-> the first frame that shows it"),
]


class WebSocketFrames:
    """The websocket frames a page receives, as ``(wall-clock ms, payload chars)``
    (:attr:`frames`). Listen before the notebook opens (the handshake gives the clock)."""

    def __init__(self, page):
        self.frames: list = []
        self._offset: dict = {}   # request id -> wall-clock s minus monotonic s
        cdp = page.context.new_cdp_session(page)
        cdp.on("Network.webSocketWillSendHandshakeRequest",
               lambda p: self._offset.__setitem__(p["requestId"], p["wallTime"] - p["timestamp"]))
        cdp.on("Network.webSocketFrameReceived", self._received)
        cdp.send("Network.enable")

    def _received(self, p) -> None:
        offset = self._offset.get(p["requestId"])
        if offset is not None:
            self.frames.append(((p["timestamp"] + offset) * 1000, len(p["response"].get("payloadData", ""))))


def join(t0: float, redraw: dict | None, kernel_io: list, server: list, frames: list, src_ms: float,
         painted_ms: float, window_ms: float = 250.0) -> dict | None:
    """One press's hops (ms after the keydown at wall-clock ms ``t0``; the names of :data:`HOPS`).
    ``redraw``: the kernel's record of the redraw (``t`` s, ``ms``, ``entered`` s); ``kernel_io``:
    ``[kind, t_ms, bytes]``; ``server``: ``(t_in, t_out, bytes)``; ``frames``: ``(t_ms, chars)``;
    each within ``window_ms`` after the keydown counts. The figure's message is the largest in
    each place; the first reply is the first. None when a place recorded nothing."""
    def within(xs, at):
        return [x for x in xs if t0 <= at(x) <= t0 + window_ms]

    sent = within([x for x in kernel_io if x[0] == "sent"], lambda x: x[1])
    srv = within(server, lambda x: x[0])
    page = within(frames, lambda x: x[0])
    if redraw is None or not (sent and srv and page):
        return None
    fig_sent, fig_srv, fig_page = (max(xs, key=lambda x: x[-1]) for xs in (sent, srv, page))
    entered = redraw.get("entered")
    return {"arrival": (entered if entered is not None else redraw["t"]) * 1000 - t0,
            "first_server": srv[0][0] - t0, "first_page": page[0][0] - t0,
            "redraw_end": redraw["t"] * 1000 + redraw["ms"] - t0,
            "figure_sent": fig_sent[1] - t0, "figure_server_in": fig_srv[0] - t0,
            "figure_server_out": fig_srv[1] - t0, "figure_page": fig_page[0] - t0,
            "src": src_ms, "painted": painted_ms}


def measure(page, lab, rel: str, server_log: str, presses: int = 30, control: str | None = None) -> list[dict]:
    """Open notebook ``rel`` and press the first live control of its first explorer that has
    one (or the one labelled ``control``) ``presses`` times, the kernel idle (0.35 s apart);
    returns each press's hops (:func:`join`) with the explorer and control."""
    import live_metrics as lm
    from drag_metrics import JS_SAMPLER, install_helpers, wait_frames
    from lab_session import explorers, kernel_exec, kernel_value, open_notebook

    ws = WebSocketFrames(page)
    open_notebook(page, lab, rel)
    install_helpers(page)
    lm.install_timing(page)
    kernel_exec(page, KERNEL_IO)
    loc, found = explorers(page)
    candidates = [(i, name, c) for i, name in enumerate(found)
                  for c in page.evaluate(lm.JS_LIVE_CONTROLS, loc.nth(i).element_handle())
                  if control is None or c[2].startswith(control)]
    # the first a reader can move (a greyed-out one is enabled by a dropdown, as live_metrics does)
    for i, name, (kind, j, label) in candidates:  # noqa: B007 - the one chosen is used after the loop
        ex = loc.nth(i)
        wait_frames(page, name)
        ex.scroll_into_view_if_needed()
        page.evaluate(JS_SAMPLER, [ex.element_handle(), None])
        if lm.enable_control(page, ex, kind, j) is not None:
            break
    else:
        raise LookupError(f"{rel}: no live control {control or ''} that can be moved")
    for _ in range(3):
        lm.live_press(page, ex, kind, j)
        page.wait_for_timeout(350)
    done = []
    for _ in range(presses):
        page.wait_for_timeout(350)
        done.append(lm.live_press(page, ex, kind, j))
    page.wait_for_timeout(300)
    records = lm.kernel_times(page, done[0]["t0"] / 1000 - 1)
    kernel_io = json.loads(kernel_value(page, "__import__('json').dumps(__posenc_io)"))
    with open(server_log) as f:
        server = [tuple(map(float, line.split())) for line in f if line.strip()]
    rows = []
    for p in done:
        redraw = lm.first_redraw(records, name, p["t0"] / 1000)
        row = join(p["t0"], redraw, kernel_io, server, ws.frames, p["src_ms"], p["painted_ms"])
        if row is not None:
            rows.append({"explorer": name, "control": label, **row})
    return rows


def bench_reply(notebooks: list[str], presses: int, control: str | None = None) -> dict:
    """:func:`measure` for each notebook, a fresh kernel and browser context each, one server
    (its log is read by time: one notebook is open at a time); {notebook: rows}."""
    import contextlib
    import tempfile

    import lab_session
    from bench_lab import ROOT, lab_notebooks

    out = {}
    with contextlib.ExitStack() as stack:
        log = os.path.join(stack.enter_context(tempfile.TemporaryDirectory(prefix="posenc-reply-")), "server.log")
        open(log, "w").close()
        lab = stack.enter_context(lab_session.jupyterlab(root=ROOT, env_extra={"PYTHONPATH": str(ROOT), SERVER_LOG_ENV: log},
                                                         server_config=SERVER_HOOK))
        browser = stack.enter_context(lab_session.chromium())
        for nb in lab_notebooks(notebooks, any_explorer=True):
            ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
            page = ctx.new_page()
            try:
                out[nb] = measure(page, lab, f"notebooks/{nb}", log, presses, control)
            finally:
                lab_session.close_notebook(page, lab)
                ctx.close()
    return out


def table(results: dict) -> list[str]:
    """Markdown: per notebook's control, each hop's median and p90 (ms after the keydown)."""
    from live_metrics import median_p90

    lines = ["| notebook | control | n | " + " | ".join(name for name, _ in HOPS) + " |",
             "|---|---|---:|" + "---:|" * len(HOPS)]
    for nb, rows in results.items():
        if not rows:
            lines.append(f"| {nb} | - | 0 |" + " |" * len(HOPS))
            continue
        cells = ["{:.1f} / {:.1f}".format(*median_p90(r[name] for r in rows)) for name, _ in HOPS]
        lines.append(f"| {nb} | {rows[0]['explorer']}.{rows[0]['control']} | {len(rows)} | " + " | ".join(cells) + " |")
    return lines
