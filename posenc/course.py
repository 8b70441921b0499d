"""The course's notebooks by number and title, and the quiz's citations of them written with
their titles (「见第 10 篇《…》」, never a bare 「（10）」).
"""
from __future__ import annotations

import re

#: The notebooks of the course: file stem -> title (their first heading; a test checks it).
NOTEBOOK_TITLES = {
    "01_permutation_invariance": "为什么自注意力分不清 猫咬狗 和 狗咬猫",
    "02_sinusoidal_hand_calculation": "正弦位置编码：手算 猫咬狗",
    "03_clock_hands_frequencies": "时钟指针：多频率的直觉",
    "04_relative_position": "相对位置与距离",
    "05_learned_embeddings": "可学习位置编码",
    "06_relative_family": "相对位置编码家族：Shaw、Transformer-XL、T5",
    "07_rope": "从旋转到 RoPE",
    "08_alibi_extrapolation": "ALiBi 与外推",
    "09_context_extension": "长度外推与上下文扩展：PI、NTK-aware 与 YaRN",
    "10_rope_real_models": "RoPE 在真实模型里：配置、推理时的 KV cache 与 MLA",
    "11_positions_in_practice": "位置编号的工程细节：padding、packing、精度与缓存",
    "12_where_position_goes": "位置信息去了哪里：逐层探针、NoPE 与二维位置",
    "13_summary_interview": "小结与面试怎么答",
}


def _notebook_link(number: str) -> str | None:
    """「第 NN 篇《title》」 for a notebook number, or None when no notebook has it."""
    stem = next((s for s in NOTEBOOK_TITLES if s.startswith(number + "_")), None)
    return None if stem is None else f"第 {number} 篇《{NOTEBOOK_TITLES[stem]}》"


#: A notebook number in the quiz's brackets: 「（10）」, 「（07、08）」, 「（07 第 7 节）」, 「（11 的对照组）」,
#: 「（…，07）」, 「（就是 04 的旋转）」; not a count such as 「（12 不是 2 的幂）」 or 「（24 维」.
_CITATION = re.compile(r"(?<=[（、，])(\d\d)(?=[）、，]| 第| ?的| ?里| (?!不是)[^\d\s维个])|(?<=就是 )(\d\d)(?= ?的)")


def cite_titles(text: str) -> str:
    """The quiz's citations by notebook number written with the notebook's title:
    「（10）」 becomes 「（见第 10 篇《RoPE 在真实模型里：…》）」, 「（07 验证过）」 becomes
    「（第 07 篇《从旋转到 RoPE》验证过）」. Numbers that name no notebook stay as they are.
    Introduced in notebook 10_rope_real_models."""
    def replace(match):
        number = match.group(1) or match.group(2)
        return _notebook_link(number) or match.group(0)

    out = _CITATION.sub(replace, text)
    return re.sub(r"（(第 \d\d 篇《[^》]*》(?:、第 \d\d 篇《[^》]*》)*)）", r"（见\1）", out)
