"""One notation for the whole course (notebook 04's 符号约定 box): one term per idea, one meaning
per symbol. The test fails when a retired term or a detectable misuse of a reserved symbol
reappears in the markdown of any notebook.

The lists are constants: to retire a term or reserve a symbol, add a row here and say it in
the box (04_relative_position.ipynb, heading 符号约定).
"""
import json
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))

#: Retired words: (pattern, what to write instead).
RETIRED_TERMS = [
    (r"遮挡", "因果掩码 (causal mask) / 掩码：the course's one term for the mask (被掩码遮住 for a masked cell)"),
    (r"遮罩", "因果掩码 (causal mask) / 掩码：the course's one term for the mask"),
    (r"光滑的?表亲", "平滑版本 (a calque of 'smooth cousin')"),
]

#: Reserved symbols used for something else, as far as a pattern can see it: (pattern, rule).
RESERVED_SYMBOLS = [
    (r"(?<![A-Za-z0-9_\\{])R_(?:\{(?:m|n|pos)\}|(?:m|n|pos)(?![\w{]))",
     "R's subscript is always an offset (R_k, R_{−k}): a rotation by a position m, n or pos is "
     "RoPE's, written \\mathcal{R}_{pos} (= R_{−pos}), never R_m / R_n"),
    (r"(?<![A-Za-z_\\])(?:2\s*的幂\s*P\b|2?P\s*个头)",
     "P is the permutation matrix (notebook 01): name the power of two another way"),
    (r"(?<![\w|])n\s*=\s*(?:\|k\||max\(\s*[−-]\s*k)",
     "n is the key position: T5's non-negative distance is δ (notebook 06)"),
    (r"max\(\s*[−-]\s*K\b|min\(\s*K\s*,",
     "K is only a label (key); the clip distance is k_max (code: max_relative)"),
    (r"(?<![\w_])s\s*(?:倍|=\s*(?:L'|L′)\s*/\s*L)|(?<![\w_])(?:缩放|放大|插值)(?:倍数|因子)\s*s(?![\w_])",
     "the scale factor of context extension is ρ (notebook 09); s is ALiBi's slope s_h"),
    (r"(?<![\w\\])h_(?:i|\{i\+1\}|\{d/2\}|j|t|\{t-1\}|0|m|n|a|b)(?![\w{])|\(t,\s*h,\s*w\)|t\s*=\s*h\s*=\s*w",
     "h is only a head (s_h, b_h): RoPE's q_i·κ̄_i is g_i (07), a hidden state or residual vector is x (10, 12), "
     "an RNN state z_t (01), M-RoPE's position ids (t, r, c) (12)"),
    (r"β_\{?(?:fast|slow)",
     "β is only the β-base β = base^(2/d) (09): YaRN's thresholds are written beta_fast / beta_slow"),
    (r"L\s*[（(]?\s*是句长|句长\s*L(?![′'\w])|L（句长",
     "L is the training length (09); a sentence's length is seq_len"),
]


def markdown_cells(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    for n, cell in enumerate(nb["cells"]):
        if cell["cell_type"] == "markdown":
            yield n, "".join(cell["source"])


def offences(text: str) -> list[str]:
    found = []
    for pattern, rule in RETIRED_TERMS + RESERVED_SYMBOLS:
        for m in re.finditer(pattern, text):
            found.append(f"「{m.group(0)}」 in …{text[max(0, m.start() - 25):m.end() + 25]}… → {rule}")
    return found


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_one_term_per_idea_one_meaning_per_symbol(path):
    problems = [f"cell {n}: {o}" for n, text in markdown_cells(path) for o in offences(text)]
    assert not problems, "\n".join(problems)


def test_the_rules_catch_what_they_should():
    caught = ["因果遮挡 (causal mask)", "靠遮罩分左右", "方波与它的光滑表亲", "(R_m q)·(R_n κ)",
              "qᵀR_{m}κ", "最大的 2 的幂 P", "前 P 个头", "然后取 n = |k|", "n = max(−k, 0)",
              "clip(k) = max(-K, min(K, k))", "把位置压缩 s 倍", "缩放倍数 s", "s = L′/L",
              "$h_i = q_i\\bar\\kappa_i$", "max|h_{i+1} − h_i|", "h_{d/2} = 0", "隐藏状态 h_t", "(W_Q h_m)ᵀ",
              "残差流之差 h_a − h_b", "三个位置编号 (t, h, w)", "文字 token 的 t = h = w", "β_fast = 32", "β_{slow}",
              "位置 m 变成 L − 1 − m（L 是句长）", "句长 L 的句子"]
    for text in caught:
        assert offences(text), text
    kept = ["因果掩码 (causal mask)", "被掩码遮住", "R_k·PE(pos)", "R_{−pos}", "R_{-k}", "R_kᵀ = R_{−k}",
            "\\mathcal{R}_{pos}", "\\mathcal{R}_m q", "R_max", "R² = 1", "置换矩阵 P", "P A_A P^T",
            "δ = |k|", "a^K_{clip(n−m)}", "W_{k,R}", "$R_{i-j}$", "k_max", "斜率 s_h", "ρ = L′/L", "缩放倍数 ρ",
            "s_h = 2^(−8h/H)",
            "第 h 个头", "b_h", "g_i = q_i κ̄_i", "(t, r, c)", "`beta_fast`", "beta_slow", "β = base^(2/d)", "β'/β",
            "训练长度 L", "L′ = 2L", "seq_len − 1 − m",
            "W_h", "hidden_size"]
    for text in kept:
        assert not offences(text), (text, offences(text))


def test_the_box_states_the_rules():
    box = "\n".join(text for _, text in markdown_cells(ROOT / "notebooks" / "04_relative_position.ipynb")
                    if text.lstrip().startswith("第二个块") or "### 符号约定" in text)
    for words in ("κ", "几乎都把 key 向量写成 k", "置换矩阵", "k_max", "δ", "因果掩码", "列向量", "R 的下标永远是偏移",
                  "s_h", "H₀", "ρ", "g_i", "z_t", "(t, r, c)", "`beta_fast`", "seq_len", "γ = 0 表示完全插值", "YaRN 论文"):
        assert words in box, words
