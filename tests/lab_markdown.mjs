// Markdown as JupyterLab 4.6 renders it, for tests/test_markdown_parity.py.
//
// JupyterLab renders a markdown cell in two steps (packages/rendermime/src/renderers.ts,
// renderMarkdown): it first hides every TeX span from the markdown parser (latex.ts, removeMath:
// each $…$, $$…$$, \\(…\\), \\[…\\] and \begin{…}…\end{…} becomes a placeholder @@N@@), then
// parses the rest with marked as @jupyterlab/markedparser-extension configures it: gfm on, the
// plugins marked-gfm-heading-id and marked-mangle, a renderer that only changes code blocks. So an
// underscore inside $…$ is safe, and an underscore in plain text may open emphasis.
//
// The math hiding below is written from that behaviour (not copied): delimiters must pair, braces
// inside must balance, a span never crosses a blank line, and a $ inside a code span or a fenced
// block is no delimiter. tests/browser/test_links.py renders every cell with JupyterLab's own
// renderer and holds this file equal to it.
//
// stdin: a JSON list of markdown sources. stdout: a JSON list, per source
//   {tags: ["em", "strong", …] in document order, underscore: [raw of each emphasis opened by _]}.
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, "..", "tools", "package.json"));
const load = (name) => import(require.resolve(name));

const CODE_DOLLAR = "\u0000";   // a $ inside code while math is looked for

/** Hide `$` inside fenced blocks and code spans (they are code, not math). */
function maskCode(text) {
  if (!text.includes("`") && !text.includes("~~~")) return text;
  text = text.replace(/^(`{3,}|~{3,})[^`\n]*\n[\s\S]*?^\1[`~]*$/gm, (m) => m.replaceAll("$", CODE_DOLLAR));
  return text.replace(/(^|[^\\])(`+)([^\n]*?[^`\n])\2(?!`)/gm, (m) => m.replaceAll("$", CODE_DOLLAR));
}

const TOKEN = /\$\$?|\\(?:begin|end)\{[a-z]*\*?\}|\\[{}$]|[{}]|(?:\n\s*)+|@@\d+@@|\\\\[()[\]]/gi;

/** The text marked sees: every math span replaced by @@N@@ (N counts from 0). */
export function hideMath(source) {
  const text = maskCode(source.replace(/\r\n?/g, "\n"));
  const pieces = [];           // alternating: plain text, token, plain text, token, …
  let at = 0;
  for (const m of text.matchAll(TOKEN)) {
    pieces.push(text.slice(at, m.index), m[0]);
    at = m.index + m[0].length;
  }
  pieces.push(text.slice(at));

  let count = 0;
  const collapse = (from, to) => {          // pieces[from..to] (tokens at both ends) -> one marker
    for (let k = from + 1; k <= to; k++) pieces[k] = "";
    pieces[from] = `@@${count++}@@`;
  };
  let open = null, close = null, depth = 0, candidate = null;
  for (let i = 1; i < pieces.length; i += 2) {
    const tok = pieces[i];
    if (tok.startsWith("@@")) {             // a marker already in the text is kept aside too
      pieces[i] = `@@${count++}@@`;
      continue;
    }
    if (open === null) {
      if (tok === "$" || tok === "$$") [open, close] = [i, tok];
      else if (tok === "\\\\(" || tok === "\\\\[") [open, close] = [i, tok === "\\\\(" ? "\\\\)" : "\\\\]"];
      else if (/^\\begin/i.test(tok)) [open, close] = [i, "\\end" + tok.slice(6)];
      else continue;
      depth = 0; candidate = null;
    } else if (tok === close) {
      if (depth > 0) candidate = i;
      else { collapse(open, i); open = null; }
    } else if (/\n[^]*\n/.test(tok)) {      // a blank line: no math across paragraphs
      if (candidate !== null) collapse(open, candidate);
      open = null;
    } else if (tok === "{") depth++;
    else if (tok === "}" && depth > 0) depth--;
  }
  if (open !== null && candidate !== null) collapse(open, candidate);
  return pieces.join("").replaceAll(CODE_DOLLAR, "$");
}

async function parser() {
  const { Marked } = await load("marked");
  const { gfmHeadingId } = await load("marked-gfm-heading-id");
  const { mangle } = await load("marked-mangle");
  const marked = new Marked({ gfm: true });
  marked.use(gfmHeadingId(), mangle());
  return marked;
}

function walk(tokens, visit) {
  for (const t of tokens || []) {
    visit(t);
    walk(t.tokens, visit);
    if (t.items) walk(t.items, visit);
    if (t.header) t.header.forEach((c) => walk(c.tokens, visit));
    if (t.rows) t.rows.forEach((r) => r.forEach((c) => walk(c.tokens, visit)));
  }
}

const marked = await parser();
const sources = JSON.parse(readFileSync(0, "utf8"));
const out = [];
for (const source of sources) {
  const text = hideMath(source);
  const html = marked.parse(text);
  const tags = [...html.matchAll(/<(em|strong)>/g)].map((m) => m[1]);
  const underscore = [];
  walk(marked.lexer(text), (t) => {
    if ((t.type === "em" || t.type === "strong") && t.raw.startsWith("_")) underscore.push(t.raw);
  });
  out.push({ tags, underscore });
}
process.stdout.write(JSON.stringify(out));
