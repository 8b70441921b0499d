"""Generate the contents page, the navigation bars and the README's notebook list.

Run from the repository root after adding or renaming a notebook:

    python tools/build_contents.py          # rewrite what is out of date
    python tools/build_contents.py --check  # exit 1 if anything is out of date (used by the tests)

Sources of truth: the notebooks' file names (NN_ascii_name.ipynb, in order), the first
"# " heading and first paragraph of each notebook's first markdown cell, and each
notebook's metadata ``"posenc": {"requires": ["04"], "minutes": 30}`` (what to read first
and a time estimate). Which notebooks have sliders is read from their code cells.
"""
from __future__ import annotations

import argparse
import pathlib
import re
import sys

import nbformat

from strip_notebooks import kernel_metadata   # tools/ is on sys.path when this runs as a script

ROOT = pathlib.Path(__file__).resolve().parents[1]
NB_DIR = ROOT / "notebooks"
INDEX = "00_index.ipynb"
NAV_TAG = "navigation"
README_START, README_END = "<!-- contents:start -->", "<!-- contents:end -->"
#: A code cell that builds an explorer (a figure with sliders): ``pl.RopeExplorer(...)``.
EXPLORER_CALL = re.compile(r"\bpl\.[A-Z]\w*Explorer\(")


def chapters() -> list[pathlib.Path]:
    return sorted(p for p in NB_DIR.glob("[0-9][0-9]_*.ipynb") if p.name != INDEX)


def title_and_summary(path: pathlib.Path) -> tuple[str, str]:
    nb = nbformat.read(path, as_version=4)
    first = next(c for c in nb.cells if c.cell_type == "markdown")
    lines = first.source.splitlines()
    heading = next(line for line in lines if line.startswith("# "))
    title = heading[2:].strip()
    rest = "\n".join(lines[lines.index(heading) + 1:]).strip()
    summary = rest.split("\n\n")[0].replace("\n", " ").strip() if rest else ""
    return title, summary


def course_info(path: pathlib.Path) -> dict:
    """The notebook's ``posenc`` metadata: ``requires`` (notebook numbers) and ``minutes``."""
    nb = nbformat.read(path, as_version=4)
    info = dict(nb.metadata.get("posenc", {}))
    requires = [str(r) for r in info.get("requires", [])]
    minutes = int(info.get("minutes", 0))
    if not minutes:
        raise SystemExit(f"{path.name}: set metadata posenc.minutes (a time estimate)")
    has_sliders = any(EXPLORER_CALL.search(c.source) for c in nb.cells if c.cell_type == "code")
    return {"requires": requires, "minutes": minutes, "sliders": has_sliders}


def requires_text(info: dict) -> str:
    return number_ranges(info["requires"]) if info["requires"] else "无"


def number_ranges(numbers) -> str:
    """["01", "02", "03", "05"] -> "01–03、05"."""
    out, run = [], []
    for n in numbers:
        if run and int(n) != int(run[-1]) + 1:
            out.append(run[0] if len(run) == 1 else f"{run[0]}–{run[-1]}")
            run = []
        run.append(n)
    if run:
        out.append(run[0] if len(run) == 1 else f"{run[0]}–{run[-1]}")
    return "、".join(out)


def index_notebook(items) -> nbformat.NotebookNode:
    sliders = [path.name[:2] for path, (_, _, info) in items if info["sliders"]]
    total = sum(info["minutes"] for _, (_, _, info) in items)
    lines = [
        "# 位置编码 (Positional Encoding) 交互课程 · 目录",
        "",
        "按顺序读：从自注意力为什么分不清语序，到手算、时钟直觉、相对位置、可学习编码，"
        "再到相对位置编码家族、RoPE、ALiBi 与外推、上下文扩展，最后用一篇小结把答案说出口。"
        f"带滑块 (slider) 的篇目：{number_ranges(sliders)}；每一篇都有可重跑的计算和带提示的练习。"
        f"全部读完、跑完、做完练习大约 {total // 60} 小时 {total % 60} 分钟。",
        "",
        "| # | 笔记本 | 先读 | 用时 |",
        "|---|---|---|---|",
    ]
    for path, (title, summary, info) in items:
        lines.append(f"| {path.name[:2]} | [{title}]({path.name}) | {requires_text(info)} | "
                     f"约 {info['minutes']} 分钟 |")
    lines.append("")
    for path, (title, summary, info) in items:
        if summary:
            lines.append(f"**{path.name[:2]}. {title}** — {summary}")
            lines.append("")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("\n".join(lines).rstrip() + "\n", id="contents")]
    nb.metadata.update(kernel_metadata())   # what the kernel writes on open: no unsaved-changes dot
    # For maintainers, not readers: where this page comes from.
    nb.metadata["posenc"] = {"generated_by": "tools/build_contents.py (do not edit by hand)"}
    return nb


def nav_markdown(prev, nxt) -> str:
    parts = [f"[← 上一篇：{prev[1]}]({prev[0]})" if prev else "← 上一篇：无",
             f"[目录]({INDEX})",
             f"[下一篇：{nxt[1]} →]({nxt[0]})" if nxt else "下一篇：无 →"]
    return "---\n" + " | ".join(parts)


def with_navigation(path, prev, nxt) -> str:
    nb = nbformat.read(path, as_version=4)
    cells = [c for c in nb.cells if NAV_TAG not in c.get("metadata", {}).get("tags", [])]
    nav = nbformat.v4.new_markdown_cell(nav_markdown(prev, nxt), id="navigation")
    nav.metadata["tags"] = [NAV_TAG]
    nb.cells = cells + [nav]
    return nbformat.writes(nb) + "\n"


def readme_block(items) -> str:
    rows = ["| # | 笔记本 (notebook) | 先读 | 用时 | 内容 |", "|---|---|---|---|---|"]
    for path, (title, summary, info) in items:
        # the summaries' links are relative to notebooks/; the README sits one level up
        summary = re.sub(r"\]\((?![a-z]+:|/)([^)]+)\)", r"](notebooks/\1)", summary)
        rows.append(f"| {path.name[:2]} | [{title}](notebooks/{path.name}) | {requires_text(info)} | "
                    f"约 {info['minutes']} 分钟 | {summary} |")
    return "\n".join([README_START, *rows, README_END])


def planned() -> dict[pathlib.Path, str]:
    items = [(p, (*title_and_summary(p), course_info(p))) for p in chapters()]
    out = {NB_DIR / INDEX: nbformat.writes(index_notebook(items)) + "\n"}
    for j, (path, _) in enumerate(items):
        prev = (items[j - 1][0].name, items[j - 1][1][0]) if j > 0 else None
        nxt = (items[j + 1][0].name, items[j + 1][1][0]) if j + 1 < len(items) else None
        out[path] = with_navigation(path, prev, nxt)
    readme = ROOT / "README.md"
    text = readme.read_text(encoding="utf-8")
    pattern = re.compile(re.escape(README_START) + ".*?" + re.escape(README_END), re.S)
    if not pattern.search(text):
        raise SystemExit(f"README.md lacks the {README_START} … {README_END} markers")
    out[readme] = pattern.sub(lambda _: readme_block(items), text)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report what is out of date")
    args = parser.parse_args(argv)
    stale = []
    for path, text in planned().items():
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            stale.append(path.relative_to(ROOT))
            if not args.check:
                path.write_text(text, encoding="utf-8")
    if args.check and stale:
        print("out of date (run python tools/build_contents.py):", *stale, sep="\n  ")
        return 1
    for p in stale:
        print(f"wrote {p}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
