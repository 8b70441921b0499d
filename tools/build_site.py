"""Build the static edition: every notebook run and exported as a web page that any browser
opens with no install, no kernel and no network; each explorer's main slider still moves.

Run from the repository root (Node.js and npm are needed once, for ``npm ci`` in tools/)::

    python tools/build_site.py                      # the whole course into site/
    python tools/build_site.py --out /tmp/s 02 07   # some notebooks (a number or a path each)

Then serve the folder: ``python -m http.server -d site`` (or copy it to any static host).

The builder owns the static edition: what a page can do is decided here, from what the
notebook's outputs declare (posenc/ui/declare.py), never by the widgets themselves. Per notebook:

1. Runs it with nbclient in a fresh kernel, with the widget state stored, its own empty
   progress file (``POSENC_PROGRESS`` in a temporary folder: nothing of the builder's record or
   home reaches a page) and ``POSENC_STATIC_FRAMES=N`` (:mod:`posenc.ui.engine.static`: every
   explorer renders at most ``N`` frames of its main slider at construction).
2. Teaches (tools/site_pages.py): unanswered exercises become answer boxes graded in the page
   with their own rules (tools/site/grader.js), the quiz, the worksheet and the progress table
   become the page's own HTML (tools/site/course.js, answers and progress in the reader's
   browser), every input no declaration makes work is disabled under one line saying so, and
   frames become 256-colour PNG bytes.
3. Keeps only the widgets a page shows (those its outputs display, what they refer to, and the
   browser-side links between them): closed and replaced widgets (dropped frames) go.
4. Exports it with nbconvert (``tools/site/templates/posenc_site``: JupyterLab's look, the
   course's Chinese typography, a contents bar, KaTeX for ``$…$``); ``NN_x.ipynb`` links
   become ``NN_x.html`` (anchors kept).
5. If the page is over :data:`PAGE_BUDGET`, computes from the measured frame sizes the
   largest ``N`` that fits and runs the notebook again with it.

RequireJS, the widget HTML manager and KaTeX come from ``tools/package.json`` (pinned in
``tools/package-lock.json``; ``npm ci`` runs when node_modules does not match the lock) and
are copied into ``<out>/static/vendor/``: pages refer to them by relative paths only.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import hashlib
import html as html_lib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import site_pages  # tools/site_pages.py: what a page can do, from what its outputs declare
from posenc.course.progress import V1_TABLE

ROOT = Path(__file__).resolve().parents[1]
TOOLS = ROOT / "tools"
NB_DIR = ROOT / "notebooks"
ASSETS = TOOLS / "site"
INDEX_STEM = "00_index"
STATIC_ENV = "POSENC_STATIC_FRAMES"   # posenc/ui/engine/static.py
#: Most bytes one page may take, and the whole site.
PAGE_BUDGET = 6 * 10**6
SITE_BUDGET = 40 * 10**6
#: Frames per explorer tried first; fewer only where a page would be over its budget.
DEFAULT_FRAMES = 64
#: Room left under the budget when N is computed from measured sizes (estimates are close, not exact).
MARGIN = 0.96
CELL_TIMEOUT = 900  # s, one cell (05/08/09 train small models)
WIDGET_STATE, WIDGET_VIEW, REF = site_pages.WIDGET_STATE, site_pages.WIDGET_VIEW, site_pages.REF
LINK_MODELS = {"LinkModel", "DirectionalLinkModel"}
#: Files copied from tools/node_modules into <out>/static/vendor (source glob -> folder).
VENDOR = [
    ("requirejs/require.js", "."),
    ("@jupyter-widgets/html-manager/dist/libembed-amd.js", "html-manager"),
    ("@jupyter-widgets/html-manager/dist/*.woff2", "html-manager"),
    ("@jupyter-widgets/html-manager/dist/*.woff", "html-manager"),
    ("@jupyter-widgets/html-manager/dist/*.ttf", "html-manager"),
    ("@jupyter-widgets/html-manager/dist/*.eot", "html-manager"),
    ("@jupyter-widgets/html-manager/dist/*.svg", "html-manager"),
    ("@jupyter-widgets/html-manager/dist/embed.js.LICENSE.txt", "html-manager"),
    ("katex/dist/katex.min.js", "katex"),
    ("katex/dist/katex.min.css", "katex"),
    ("katex/dist/contrib/auto-render.min.js", "katex/contrib"),
    ("katex/dist/fonts/*", "katex/fonts"),
    ("katex/LICENSE", "katex"),
]
_LINK = re.compile(r'(?P<attr>\bhref=)(?P<q>["\'])(?P<path>(?![a-z][a-z0-9+.-]*:|/|#)[^"\'#?]*?)'
                   r'\.ipynb(?P<rest>[#?][^"\']*)?(?P=q)', re.I)
_VENDORED_TAG = re.compile(r"<(?:script|link)\b[^>]*>", re.I)
_SRI = re.compile(r'\s+(?:integrity|crossorigin)(?:=(?:"[^"]*"|\'[^\']*\'|[^\s>]*))?', re.I)


# ---------------------------------------------------------------------------
# pure functions (tested in tests/test_build_site.py)

def rewrite_links(html: str) -> str:
    """Every relative ``href`` to a notebook (``NN_x.ipynb``, ``NN_x.ipynb#anchor``) -> the same
    path with ``.html``; absolute URLs, anchors within the page and other files stay."""
    return _LINK.sub(lambda m: f"{m['attr']}{m['q']}{m['path']}.html{m['rest'] or ''}{m['q']}", html)


def drop_sri(html: str) -> str:
    """No ``integrity`` / ``crossorigin`` attribute on script and link tags: the files are the
    site's own copies (with them Chromium refuses a local copy)."""
    return _VENDORED_TAG.sub(lambda m: _SRI.sub("", m[0]), html)


def reachable_widgets(state: dict, roots) -> set[str]:
    """The model ids a page needs: ``roots`` (the views its outputs display), every model they
    refer to (``IPY_MODEL_<id>`` anywhere in a state), and every browser-side link (jslink,
    jsdlink) between models kept, with what it refers to; repeated until nothing is added."""
    refs = site_pages.refs
    keep, todo = set(), [r for r in roots if r in state]
    while True:
        while todo:
            m = todo.pop()
            if m not in keep:
                keep.add(m)
                todo.extend(r for r in refs(state[m].get("state", {})) if r in state)
        links = [m for m, s in state.items() if m not in keep and s.get("model_name") in LINK_MODELS
                 and refs(s.get("state", {})) and all(r in keep for r in refs(s.get("state", {})))]
        if not links:
            return keep
        todo.extend(links)


def frames_for_budget(page_bytes: int, explorers: list[dict], budget: int = PAGE_BUDGET,
                      margin: float = MARGIN) -> int | None:
    """The largest count N (>= 3) of a main slider's values whose page is estimated to fit
    ``margin * budget``: the page less its frames, plus for each explorer its bytes per frame
    times the frames it holds per main-slider value (its grid's other axes) times min(its main
    slider's ``cap``, N). ``explorers``: rows of :func:`frame_sets` (``bytes``, ``frames``: all
    of them, ``main``: main-slider values held, ``cap``). None: even N = 3 would not fit."""
    fixed = page_bytes - sum(e["bytes"] for e in explorers)
    per = [(e["bytes"] / e["frames"], e["frames"] // e["main"], e["cap"]) for e in explorers if e["frames"]]
    best = None
    for n in range(3, max([cap for *_, cap in per], default=3) + 1):
        if fixed + sum(f * grid * min(cap, n) for f, grid, cap in per) <= margin * budget:
            best = n
        else:
            break
    return best


# ---------------------------------------------------------------------------
# widget state

widget_state = site_pages.widget_state


def displayed_views(nb) -> list[str]:
    return [o["data"][WIDGET_VIEW]["model_id"] for c in nb.cells if c.cell_type == "code"
            for o in c.get("outputs", []) if WIDGET_VIEW in o.get("data", {})]


def prune_widgets(nb) -> tuple[int, int]:
    """Keep only :func:`reachable_widgets` in the notebook's stored widget state; returns
    (models before, models kept)."""
    state = widget_state(nb)
    keep = reachable_widgets(state, displayed_views(nb))
    before = len(state)
    for m in [m for m in state if m not in keep]:
        del state[m]
    return before, len(state)


def _model_bytes(model: dict) -> int:
    return len(json.dumps(model))


def frame_sets(nb, explorers: list[dict]) -> list[dict]:
    """One row per explorer with frames on the page (``explorers``: their declarations, from
    :func:`site_pages.teach`): its name, main slider, the frames it holds (``frames``), the main
    slider's values held (``main``), the most it could hold (``cap``) and has (``values``), its
    grid's other axes (``grid``: name and values held) and the bytes of its frames (every
    image and HTML model under its frames' root)."""
    state = widget_state(nb)
    rows = []
    for decl in explorers:
        root = decl.get("frames_model")
        if not root or root not in state:
            continue
        under = site_pages.reachable(state, root)
        images = [m for m in under if state[m].get("model_name") == "ImageModel"]
        held = [m for m in under if state[m].get("model_name") in ("ImageModel", "HTMLModel")]
        grid = [(a["name"], a["frames"]) for a in decl.get("grid", ())]
        per_main = 1
        for _, n in grid:
            per_main *= n
        rows.append({"explorer": decl["name"], "control": decl["main"], "frames": decl["frames"] * per_main,
                     "main": decl["frames"], "cap": decl.get("cap", decl["values"]), "values": decl["values"],
                     "grid": grid, "images": len(images) - 1,     # less the live figure
                     "bytes": sum(_model_bytes(state[m]) for m in held)})
    return rows


# ---------------------------------------------------------------------------
# running and exporting

def execute(path: Path, frames: int, progress_file: Path):
    """Run the notebook in a fresh kernel rendering at most ``frames`` frames per explorer, with
    its own (empty, throw-away) progress file: never the builder's, which no page must show."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    if not any(c.cell_type == "code" for c in nb.cells):
        return nb
    env = {**os.environ, STATIC_ENV: str(frames), "MPLBACKEND": "Agg", "POSENC_PROGRESS": str(progress_file),
           "PYTHONPATH": os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    client = NotebookClient(nb, timeout=CELL_TIMEOUT, kernel_name="python3", store_widget_state=True,
                            resources={"metadata": {"path": str(path.parent)}})
    client.execute(env=env)
    return nb


def page_title(nb, fallback: str) -> str:
    first = next((c for c in nb.cells if c.cell_type == "markdown"), None)
    for line in (first.source.splitlines() if first else []):
        if line.startswith("# "):
            return line[2:].strip()
    return fallback


def _exporter():
    from nbconvert import HTMLExporter

    class SiteExporter(HTMLExporter):
        def _init_resources(self, resources):
            resources = super()._init_resources(resources)
            resources["language_code"] = "zh-CN"   # not an ISO 639-1 code: nbconvert's trait refuses it
            return resources

    return SiteExporter(template_name="posenc_site", extra_template_basedirs=[str(ASSETS / "templates")],
                        require_js_url="static/vendor/require.js")


def export(nb, stem: str, nav: list[dict]) -> str:
    """The page's HTML: the exported notebook with the contents bar, links rewritten."""
    import copy

    nb = copy.deepcopy(nb)
    here = next(p for p in nav if p["stem"] == stem)
    nb.metadata["title"] = here["title"]
    pages = [{"href": f"{p['stem']}.html", "number": p["number"], "title": p["short"],
              "current": p["stem"] == stem} for p in nav]
    resources = {"posenc": {"static": "static", "course": nav_course(), "here": here["short"], "pages": pages}}
    body, _ = _exporter().from_notebook_node(nb, resources=resources)
    return drop_sri(rewrite_links(body))


def nav_course() -> str:
    first = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()[0]
    return first.lstrip("# ").strip()


def nav_entries(paths: list[Path]) -> list[dict]:
    import nbformat

    rows = []
    for p in paths:
        nb = nbformat.read(p, as_version=4)
        title = page_title(nb, p.stem)
        number = "" if p.stem == INDEX_STEM else p.stem[:2]
        rows.append({"stem": p.stem, "number": number, "title": title,
                     "short": "目录" if p.stem == INDEX_STEM else title})
    return rows


# ---------------------------------------------------------------------------
# vendored files

def npm_ci(tools: Path = TOOLS) -> None:
    """``npm ci`` in tools/ unless node_modules was installed from this very lock file.

    Builds may run at once (two pytest-xdist workers, a test run beside a hand build): an
    exclusive lock on ``tools/.npm-ci.lock`` lets one of them install while the others wait,
    and they find the stamp written when they get the lock (two ``npm ci`` in one folder
    remove each other's files: ``ENOTEMPTY``)."""
    import fcntl

    digest = hashlib.sha256((tools / "package-lock.json").read_bytes()).hexdigest()
    stamp = tools / "node_modules" / ".posenc-lock-sha256"
    with open(tools / ".npm-ci.lock", "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        if stamp.exists() and stamp.read_text() == digest:
            return
        npm = shutil.which("npm")
        if npm is None:
            sys.exit("build_site: npm not found (Debian/Ubuntu: apt-get install -y nodejs npm)")
        subprocess.run([npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund"], cwd=tools, check=True)
        stamp.write_text(digest)


def copy_static(out: Path) -> None:
    modules = TOOLS / "node_modules"
    vendor = out / "static" / "vendor"
    for pattern, folder in VENDOR:
        found = sorted(modules.glob(pattern))
        if not found:
            sys.exit(f"build_site: {pattern} not in tools/node_modules (npm ci)")
        (vendor / folder).mkdir(parents=True, exist_ok=True)
        for f in found:
            shutil.copy2(f, vendor / folder / f.name)
    for f in ("course.css", "course.js", "grader.js", "record.js"):
        shutil.copy2(ASSETS / f, out / "static" / f)
    # the frozen table that migrates a reader's version-1 record (posenc/course/progress_v1.json)
    table = json.loads(V1_TABLE.read_text(encoding="utf-8"))
    (out / "static" / "progress-v1-table.js").write_text(
        "window.PosencV1Table = " + json.dumps({k: table[k] for k in ("exercises", "quiz")}, ensure_ascii=False) + ";\n",
        encoding="utf-8")
    if (ROOT / "images").is_dir():
        shutil.copytree(ROOT / "images", out / "images", dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("*.tmp.png"))


# ---------------------------------------------------------------------------
# links

#: An attribute's value ends at the quote it started with (an id may hold the other one: W').
_HREF = re.compile(r'\b(?:href|src)=(["\'])(.+?)\1', re.I)
_ID = re.compile(r'\bid=(["\'])(.+?)\1', re.I)


#: What a browser keeps as written in a link's fragment; it percent-encodes the rest (controls,
#: space, ``"<>` `` and everything beyond ASCII: the URL Standard's fragment percent-encode set).
_FRAGMENT_KEEPS = "".join(map(chr, range(0x21, 0x7F))).translate(str.maketrans("", "", '"<>`'))


def fragment_ids(fragment: str) -> set[str]:
    """The element ids a browser scrolls to for ``href="…#fragment"``: the fragment as the URL
    holds it, then percent-decoded (HTML's "find a potential indicated element")."""
    from urllib.parse import quote, unquote

    held = quote(fragment, safe=_FRAGMENT_KEEPS)
    return {held, unquote(held)}


def internal_links(out: Path) -> list[tuple[str, str]]:
    """(page, target as written, entities decoded) for every relative href/src in the site's pages."""
    rows = []
    for page in sorted(out.glob("*.html")):
        text = page.read_text(encoding="utf-8")
        for _, target in _HREF.findall(text):
            if re.match(r"[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith("//"):
                continue
            rows.append((page.name, html_lib.unescape(target)))
    return rows


def dangling_links(out: Path) -> list[tuple[str, str]]:
    """Internal links whose file (or, for ``page#fragment``, whose element) the site lacks. A
    fragment finds an id as a browser's does (:func:`fragment_ids`): nbconvert writes a heading's
    id percent-encoded but keeps ``(`` and ``'``, so ``#…%28…`` finds nothing in the browser and
    nothing here."""
    from urllib.parse import unquote

    ids: dict[str, set] = {}
    bad = []
    for page, target in internal_links(out):
        path, _, frag = target.partition("#")
        file = (out / page).parent / unquote(path) if path else out / page
        if not file.resolve().is_file():
            bad.append((page, target))
            continue
        if frag and file.suffix == ".html":
            if file not in ids:
                ids[file] = {html_lib.unescape(i) for _, i in _ID.findall(file.read_text(encoding="utf-8"))}
            if not fragment_ids(frag) & ids[file]:
                bad.append((page, target))
    return bad


# ---------------------------------------------------------------------------
# one page, the whole site

def build_page(path: Path, out: Path, nav: list[dict], frames: int = DEFAULT_FRAMES,
               budget: int = PAGE_BUDGET) -> dict:
    """Run, teach (:func:`site_pages.teach`), prune, export and write one page within
    ``budget`` bytes; returns its report row."""
    import tempfile

    start, runs = time.perf_counter(), []
    progress_file = Path(tempfile.mkdtemp(prefix="posenc-build-")) / "progress.json"
    n = frames
    while True:
        nb = execute(path, n, progress_file)
        taught = site_pages.teach(nb, path.stem)
        squeezed = site_pages.compress_frames(nb)
        before, kept = prune_widgets(nb)
        page = export(nb, path.stem, nav)
        size = len(page.encode("utf-8"))
        sets = frame_sets(nb, taught.get("explorers", []))
        runs.append(n)
        if size <= budget or not sets:
            break
        smaller = frames_for_budget(size, sets, budget)
        if smaller is None or smaller >= n:
            smaller = n * 3 // 4 if n * 3 // 4 >= 3 else None
        if smaller is None:
            raise RuntimeError(f"{path.name}: {size} bytes even with {n} frames per explorer")
        n = smaller
    (out / f"{path.stem}.html").write_text(page, encoding="utf-8")
    if path.stem == INDEX_STEM:
        (out / "index.html").write_text(page, encoding="utf-8")
    return {"page": path.stem, "bytes": size, "frames_limit": n, "runs": runs, "widgets": (before, kept),
            "explorers": sets, "taught": {k: v for k, v in taught.items() if k != "explorers"},
            "frames": squeezed, "seconds": time.perf_counter() - start}


def _build_page_job(args):
    return build_page(*args)


def notebook_paths(names) -> list[Path]:
    """Notebook paths from command-line names: a path, a file name, or its number (``07``)."""
    every = sorted(NB_DIR.glob("[0-9][0-9]_*.ipynb"))
    if not names:
        return every
    paths = []
    for name in names:
        p = Path(name)
        if p.suffix == ".ipynb" and p.exists():
            paths.append(p.resolve())
            continue
        hit = [q for q in every if q.stem == name or q.name == name or q.stem[:2] == name.zfill(2)]
        if len(hit) != 1:
            sys.exit(f"build_site: no notebook {name!r} in {NB_DIR}")
        paths.append(hit[0])
    return sorted(set(paths), key=lambda q: q.name)


def build(out: Path, paths: list[Path], frames: int = DEFAULT_FRAMES, jobs: int = 1,
          budget: int = PAGE_BUDGET, log=print) -> dict:
    """Build the pages of ``paths`` into ``out``; returns the report (pages, sizes, times)."""
    start = time.perf_counter()
    npm_ci()
    out.mkdir(parents=True, exist_ok=True)
    copy_static(out)
    nav = nav_entries(paths)
    rows = []
    args = [(p, out, nav, frames, budget) for p in paths]
    if jobs > 1:
        with concurrent.futures.ProcessPoolExecutor(jobs) as pool:
            for row in pool.map(_build_page_job, args):
                rows.append(row)
                log(format_row(row))
    else:
        for a in args:
            rows.append(build_page(*a))
            log(format_row(rows[-1]))
    total = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
    return {"pages": rows, "site_bytes": total, "seconds": time.perf_counter() - start,
            "dangling": dangling_links(out), "built": [p.stem for p in paths]}


def explorer_frames(e: dict) -> str:
    """``clock.pos 40/256 × d_model 2 = 80 frames, 1.8 MB``: what an explorer's frames hold."""
    grid = "".join(f" × {name} {n}" for name, n in e["grid"])
    return f"{e['explorer']}.{e['control']} {e['main']}/{e['values']}{grid} = {e['frames']} frames {e['bytes'] / 1e6:.2f} MB"


def format_row(row: dict) -> str:
    subs = [explorer_frames(e) for e in row["explorers"]]
    return (f"{row['page']:40s} {row['bytes'] / 1e6:6.2f} MB  N={row['frames_limit']:<4d} runs={row['runs']} "
            f"{row['seconds']:5.1f} s  widgets {row['widgets'][1]}/{row['widgets'][0]}  " + ", ".join(subs))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("notebooks", nargs="*", help="notebooks to build (path, file name or number); default: all")
    ap.add_argument("--out", default=str(ROOT / "site"), help="output folder (default: site/)")
    ap.add_argument("--frames", type=int, default=DEFAULT_FRAMES,
                    help=f"frames per explorer to try first (default {DEFAULT_FRAMES})")
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1),
                    help="notebooks run at once, one kernel each (default: 2, or 1 on one core)")
    args = ap.parse_args(argv)
    paths = notebook_paths(args.notebooks)
    report = build(Path(args.out).resolve(), paths, frames=args.frames, jobs=args.jobs)
    print(f"site: {len(report['pages'])} pages, {report['site_bytes'] / 1e6:.1f} MB, {report['seconds']:.0f} s")
    built = {f"{s}.html" for s in report["built"]} | ({"index.html"} if INDEX_STEM in report["built"] else set())
    course = {f"{p.stem}.html" for p in NB_DIR.glob("[0-9][0-9]_*.ipynb")}
    missing = [(p, t) for p, t in report["dangling"] if t.partition("#")[0] not in course - built]
    for page, target in report["dangling"]:
        kind = "not built this time" if (page, target) not in missing else "BROKEN"
        print(f"  link {page} -> {target}: {kind}")
    over = [r["page"] for r in report["pages"] if r["bytes"] > PAGE_BUDGET]
    if report["site_bytes"] > SITE_BUDGET:
        over.append(f"site ({report['site_bytes']} bytes)")
    if over:
        print("over budget: " + ", ".join(over))
    return 1 if missing or over else 0


if __name__ == "__main__":
    sys.exit(main())
