"""Every error message a reader can meet says it twice, ``"English / 中文"``, built by the one
helper ``validate.bilingual(en, zh)``, and the Chinese half is Chinese: no English words such as
"in", "must" or "got" left in it (names of parameters, numbers and code stay as they are).

Checked twice: statically, over every ``raise`` in the package (each message must be
``bilingual(<English>, <Chinese>)``, its two halves read apart, placeholders left out), and at
run time, over the messages the validators build from their parts (a range, a list of options),
where the static check cannot see the words filled in.
"""
import ast
import pathlib
import re

import numpy as np
import pytest

import posenc_lib as pl
from posenc import validate as v
from support import assert_refused_clearly, chinese_half, english_words_in

ROOT = pathlib.Path(__file__).resolve().parents[1]
CJK = re.compile(r"[\u4e00-\u9fff]")
#: Errors only a developer can meet (a figure family naming a control frames cannot drive).
DEVELOPER_ONLY = {("posenc/ui/engine/controls.py", "cannot drive frames")}


def template(node):
    """The text of a message expression, ``{}`` for each placeholder (None: not a literal)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(part.value if isinstance(part, ast.Constant) else "{}" for part in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = template(node.left), template(node.right)
        return None if left is None or right is None else left + right
    return None


def raised_messages(path: str, source: str):
    """(line, English, Chinese, by hand) of every ``raise SomeError(<message>)`` in ``source``: the
    two halves of ``bilingual(en, zh)`` (by hand False), or the whole literal with Chinese None
    (by hand True). Messages that are not text (a name, ``rule_.expected``) are left out."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args):
            continue
        message = node.exc.args[0]
        if isinstance(message, ast.Call) and getattr(message.func, "id", "") == "bilingual":
            en, zh = (template(a) for a in message.args) if len(message.args) == 2 else (None, None)
            found.append((node.lineno, en, zh, False))
        elif template(message) is not None:
            found.append((node.lineno, template(message), None, True))
    return found


def message_problems(path: str, source: str) -> list:
    """What is wrong with the messages ``source`` raises (``path``: where it lives)."""
    problems = []
    for line, en, zh, by_hand in raised_messages(path, source):
        where = f"{path}:{line}"
        if by_hand:
            if any(path == p and words in en for p, words in DEVELOPER_ONLY):
                continue
            problems.append(f"{where}: built by hand, not by bilingual(en, zh): {en!r}")
        elif en is None or zh is None:
            problems.append(f"{where}: bilingual() needs two literal halves, English and Chinese")
        elif not CJK.search(zh):
            problems.append(f"{where}: no Chinese half: {zh!r}")
        elif english_words_in(zh.replace("{}", "")):
            problems.append(f"{where}: English in the Chinese half: {zh!r}")
        elif CJK.search(en) or not en.strip():
            problems.append(f"{where}: the English half is not English: {en!r}")
    return problems


def package_messages():
    return [(str(p.relative_to(ROOT)), *m) for p in sorted((ROOT / "posenc").rglob("*.py"))
            for m in raised_messages(str(p.relative_to(ROOT)), p.read_text(encoding="utf-8"))]


def test_the_helper_writes_what_the_split_reads():
    message = v.bilingual("n must be in [1, 5], got 0", "n 必须在 [1, 5] 之间，收到的是 0")
    assert message == "n must be in [1, 5], got 0 / n 必须在 [1, 5] 之间，收到的是 0"
    assert chinese_half(message) == "n 必须在 [1, 5] 之间，收到的是 0"
    assert english_words_in(chinese_half("n must be in [1, 5], got 0 / n 必须 in [1, 5]，收到的是 0")) == ["in"]
    assert english_words_in(chinese_half("x must be > 1 / x 必须大于 1，'in' 与 `got` 是代码")) == []


def test_the_scan_sees_the_package_and_catches_each_kind_of_bad_message():
    messages = package_messages()
    assert len(messages) > 150 and sum(not by_hand for *_, by_hand in messages) > 150
    bad = {
        'raise ValueError("x must be > 1 / x 必须大于 1")': "built by hand",
        'raise ValueError(bilingual("x must be > 1", "x must be > 1"))': "no Chinese half",
        'raise ValueError(bilingual(f"x must be > 1, got {x}", f"x must 大于 1，收到的是 {x}"))': "English in the Chinese",
        'raise ValueError(bilingual("x 必须大于 1", "x 必须大于 1"))': "not English",
        'raise ValueError(bilingual(message))': "two literal halves",
        'raise TypeError(f"{name} must be an integer")': "built by hand",
    }
    for source, words in bad.items():
        problems = message_problems("posenc/example.py", source)
        assert len(problems) == 1 and words in problems[0], (source, problems)
    assert message_problems("posenc/example.py", 'raise ValueError(bilingual(f"x must be > 1, got {x}", '
                                                 'f"x 必须大于 1，收到的是 {x}"))') == []
    assert "built by hand" in message_problems("posenc/ui/engine/example.py", 'raise ValueError("x / 中文")')[0]


def test_every_raised_message_is_bilingual_with_a_chinese_half_without_english_words():
    problems = [problem for p in sorted((ROOT / "posenc").rglob("*.py"))
                for problem in message_problems(str(p.relative_to(ROOT)), p.read_text(encoding="utf-8"))]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("call", [
    lambda: v.check_int("num_heads", 0, 1, 1024),
    lambda: v.check_int("n", 0, 1),
    lambda: v.check_int("n", 2.5, 1),
    lambda: v.check_real("x", float("nan")),
    lambda: v.check_real("x", 1.0, greater_than=1.0),
    lambda: v.check_real("base", 5.0, minimum=10, maximum=1e6),
    lambda: v.check_real("x", 3.0, maximum=2),
    lambda: v.check_base(0.5),
    lambda: v.check_d_model(7),
    lambda: v.check_d_model(300, maximum=256),
    lambda: v.check_one_of("layout", "x", ("interleaved", "split")),
    lambda: v.check_slider_value("word_0", 0.52, -1.0, 1.0, 0.05),
    lambda: v.check_bool("causal", 1),
    lambda: v.check_array("s", [np.inf]),
    lambda: v.check_array("s", [np.inf], masked=True),
    lambda: v.check_array("s", [1.0], ndim=2),
    lambda: v.check_array("s", ["a"]),
    lambda: v.check_table_size(2**20 + 1, 2**6),
    lambda: v.check_positions([[1.0]]),
    lambda: v.check_int_array("k", 1.5),
    lambda: v.check_matrix("q", np.ones((2, 3)), rows=3),
    lambda: v.check_vector("u", [1.0], 2),
    lambda: v.check_vector_pair([1.0, 2.0], [1.0]),
    lambda: v.check_position_list("query_positions", [1, 2], 3),
    lambda: v.check_projections(2, np.ones((2, 2)), None),
    lambda: v.check_tokens(""),
    lambda: v.check_lengths("lengths", (8, 4), 4, 64),
    lambda: v.check_factor(0.5),
    lambda: v.check_betas(1.0, 32.0),
    lambda: v.check_rows([], ("label",), "extrapolation_table"),
    lambda: v.check_rows(5, ("label",), "extrapolation_table"),
])
def test_validator_messages_are_chinese_in_their_chinese_half(call):
    with pytest.raises((TypeError, ValueError)) as info:
        call()
    message = str(info.value)
    assert " / " in message, message
    assert not english_words_in(chinese_half(message)), message


@pytest.mark.parametrize("call,exc,words", [
    (lambda: pl.check_rope_shift(False, m="a"), TypeError, "m must be an integer"),
    (lambda: pl.evaluate("a model", pl.make_bite_dataset(4)), ValueError, "model must be an OrderModel"),
    (lambda: pl.length_accuracy("a model", (4, 4)), ValueError, "model must be an OrderModel"),
    (lambda: pl.extrapolation_table(callback="print"), TypeError, "callback must be a function"),
    (lambda: pl.context_extension_table(callback="print"), TypeError, "callback must be a function"),
    (lambda: pl.context_extension_table(factors=(2, "4")), TypeError, "factors must be an integer"),
    (lambda: pl.context_extension_table(rope_types=("pi", "dynamic")), ValueError, "rope_type must be one of"),
    (lambda: pl.extrapolation_table(pes=("rope", "abs")), ValueError, "pes must be one of"),
    (lambda: pl.train_order_model("none", callback=3), TypeError, "callback must be a function"),
    (lambda: pl.plot_binary_vs_sinusoid(ks=(1, "2")), TypeError, "ks must be an integer"),
    (lambda: pl.plot_cosine_histograms(d_models=(16, "a")), TypeError, "d_models must be an integer"),
    (lambda: pl.plot_wavelengths(bases=(100.0, "a")), TypeError, "bases must be a real number"),
    (lambda: pl.attention_demo("猫咬狗", use_pe="yes"), TypeError, "use_pe must be True or False"),
    (lambda: pl.plot_alibi_bias(causal="yes"), TypeError, "causal must be True or False"),
])
def test_errors_name_the_parameter_the_caller_passed(call, exc, words):
    assert_refused_clearly(call, exc, words)
