"""One implementation per idea in the compute layer: a scan of the package's source finds one
scaled dot-product attention per backend, one hand-written softmax per backend, one causal
mask and one frequency formula, each where the package says it lives.

Each scan is a small data flow over one function's body (names assigned from a matrix product,
from a softmax, from a max), so a copy is found whether it is written in one expression or in
three lines. Each scan must find the one real implementation (so it cannot pass by finding
nothing) and must flag the copies the package used to hold, kept below as source text.
"""
import ast
import pathlib
import textwrap

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
MODULES = sorted((ROOT / "posenc").rglob("*.py"))

#: The one scaled dot-product attention of each backend: (file, function).
ATTENTION = {("posenc/attention.py", "scaled_dot_product_attention"),
             ("posenc/torch_layers.py", "scaled_dot_product_attention_torch")}
#: The one softmax of each backend (exp of scores shifted by their max).
SOFTMAX = {("posenc/attention.py", "softmax"), ("posenc/torch_layers.py", "_softmax")}
#: The one causal mask.
CAUSAL_MASK = {("posenc/attention.py", "causal_mask")}
#: The one frequency formula w_i = base ** (-2i / d_model) ...
FREQUENCIES = {("posenc/encoding.py", "frequencies")}
#: ... and the one place that computes it another way on purpose: Hugging Face's recipe
#: ``1 / base ** (arange(0, d, 2) / d)`` in each torch dtype, whose rounding is the lesson.
FREQUENCIES_IN_A_DTYPE = {("posenc/practice.py", "rope_angles_in")}


def _name(node) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _calls(node, pred):
    return any(isinstance(n, ast.Call) and pred(_name(n.func)) for n in ast.walk(node))


def _uses(node, names):
    return any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(node))


def _has_matmul(node):
    return any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.MatMult) for n in ast.walk(node))


def _assignments(func):
    """(target names, value) of every assignment in ``func``'s own body (nested defs excluded)."""
    out = []
    for node in _own_nodes(func):
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
            out.append((names, node.value if not isinstance(node, ast.AugAssign) else node))
    return out


def _own_nodes(func):
    """The nodes of ``func``'s body, not descending into nested function definitions."""
    stack = list(ast.iter_child_nodes(func))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(node))


def _derived(func, seed, through_names: bool = True) -> set:
    """Names assigned from an expression ``seed`` accepts (and, with ``through_names``, from
    an expression using such a name, and so on)."""
    names, assignments = set(), _assignments(func)
    while True:
        new = {n for targets, value in assignments
               if seed(value) or (through_names and _uses(value, names)) for n in targets} - names
        if not new:
            return names
        names |= new


def _is_softmax(name: str) -> bool:
    return name.lower().endswith("softmax")


def computes_attention(func) -> bool:
    """Does ``func`` compute ``softmax(q κᵀ …) @ v`` itself: a softmax of a matrix product, or a
    matrix product of a softmax (in one expression or through names)?"""
    from_matmul = _derived(func, _has_matmul)
    from_softmax = _derived(func, lambda v: _calls(v, _is_softmax))
    for node in _own_nodes(func):
        if isinstance(node, ast.Call) and _is_softmax(_name(node.func)):
            if any(_has_matmul(a) or _uses(a, from_matmul) for a in node.args):
                return True
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
            if any(_calls(side, _is_softmax) or _uses(side, from_softmax) for side in (node.left, node.right)):
                return True
    return False


def writes_a_softmax(func) -> bool:
    """Does ``func`` take ``exp`` of scores shifted by their maximum (the stable softmax)?"""
    is_max = lambda name: name in ("max", "amax", "logsumexp")
    maxima = _derived(func, lambda v: _calls(v, is_max))

    def shifted(node):
        return any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.Sub) and
                   (_calls(n.right, is_max) or _uses(n.right, maxima)) for n in ast.walk(node))

    shifted_names = _derived(func, shifted)
    return any(isinstance(node, ast.Call) and _name(node.func) == "exp" and
               any(shifted(a) or _uses(a, shifted_names) for a in node.args) for node in _own_nodes(func))


def _broadcast(node) -> bool:
    """A ``[None, :]`` / ``[:, None]`` index: an outer comparison of positions."""
    return any(isinstance(n, ast.Subscript) and any(isinstance(c, ast.Constant) and c.value is None
                                                   for c in ast.walk(n.slice)) for n in ast.walk(node))


def builds_a_causal_mask(func) -> bool:
    """Does ``func`` build a triangle: ``triu`` / ``tril``, or key positions compared with query
    positions (``arange(n)[None, :] <= arange(m)[:, None]``)?"""
    is_arange = lambda name: name == "arange"
    ranges = _derived(func, lambda v: _calls(v, is_arange), through_names=False)   # i = np.arange(n)
    positions = lambda side: _broadcast(side) and (_calls(side, is_arange) or _uses(side, ranges))
    for node in _own_nodes(func):
        if isinstance(node, ast.Call) and _name(node.func) in ("triu", "tril", "triu_", "tril_"):
            return True
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and \
                isinstance(node.ops[0], (ast.Lt, ast.LtE, ast.Gt, ast.GtE)) and \
                positions(node.left) and positions(node.comparators[0]):
            return True
    return False


def types_the_frequency_formula(func) -> bool:
    """Does ``func`` compute ``base ** (-2 i / d)`` (``i`` the pair index, by the course's
    vocabulary), ``base ** (arange(0, d, 2) / d)`` or ``exp(arange(0, d, 2) · −log(base) / d)``?"""
    def number(node):
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            return number(node.operand)
        return node.value if isinstance(node, ast.Constant) else None

    def two_i(node):                           # ±2·i, -(2·i): the exponent's numerator
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return two_i(node.operand)
        return isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult) and \
            sorted([str(number(node.left)), str(number(node.right))]) in (["2", "None"], ["2.0", "None"]) and \
            "i" in (getattr(node.left, "id", None), getattr(node.right, "id", None))

    def over_d(node):                          # ±2·i / d
        return isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) and two_i(node.left)

    def even_call(node):                       # arange(0, d, 2): the even dimensions 2i
        return any(isinstance(n, ast.Call) and _name(n.func) == "arange" and len(n.args) == 3 and
                   isinstance(n.args[0], ast.Constant) and n.args[0].value == 0 and
                   isinstance(n.args[2], ast.Constant) and n.args[2].value == 2 for n in ast.walk(node))

    evens = _derived(func, even_call)
    even_range = lambda node: even_call(node) or _uses(node, evens)

    for node in _own_nodes(func):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
            if any(over_d(n) for n in ast.walk(node.right)) or even_range(node.right):
                return True
        if isinstance(node, ast.Call) and _name(node.func) == "exp" and even_range(node) and \
                _calls(node, lambda n: n == "log"):
            return True
    return False


def functions(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


def found(predicate) -> set:
    return {(str(path.relative_to(ROOT)), f.name) for path in MODULES for f in functions(path) if predicate(f)}


# ---------------------------------------------------------------------------
# The package holds each idea once
# ---------------------------------------------------------------------------
def test_one_scaled_dot_product_attention_per_backend():
    assert found(computes_attention) == ATTENTION


def test_one_softmax_per_backend():
    assert found(writes_a_softmax) == SOFTMAX


def test_one_causal_mask():
    assert found(builds_a_causal_mask) == CAUSAL_MASK


def test_one_frequency_formula():
    assert found(types_the_frequency_formula) == FREQUENCIES | FREQUENCIES_IN_A_DTYPE


# ---------------------------------------------------------------------------
# The scans catch the copies the package used to hold
# ---------------------------------------------------------------------------
def _function(source: str):
    return functions_of(textwrap.dedent(source))[0]


def functions_of(source: str):
    return [n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.FunctionDef)]


OLD_ATTENTION = {
    "self-attention in one expression": """
        def self_attention(x, w_q, w_k, w_v):
            q, k, v = x @ w_q, x @ w_k, x @ w_v
            weights = softmax(q @ k.T / math.sqrt(q.shape[1]), axis=-1)
            return weights @ v, weights
        """,
    "a KV-cache step over one query": """
        def _attend(q, keys, values):
            scores = keys @ q / np.sqrt(len(q))
            return softmax(scores) @ values
        """,
    "a causal mask written into the scores": """
        def causal_rope_attention(q, k, v):
            scores = q @ k.T / np.sqrt(q.shape[1])
            scores[np.triu(np.ones(scores.shape, dtype=bool), k=1)] = -np.inf
            return softmax(scores) @ v
        """,
    "grouped-query attention head by head": """
        def gqa_attention(q_rot, k_rot, value, heads, group, future, d):
            out = []
            for h in range(heads):
                scores = q_rot[h] @ k_rot[h // group].T / np.sqrt(d)
                out.append(softmax(np.where(future, -np.inf, scores)) @ value[h // group])
            return np.array(out)
        """,
    "Shaw's weights from a logits helper": """
        def shaw_relative_attention(q, key, value, rel_k, rel_v, max_relative, per_offset):
            weights = softmax(shaw_relative_logits(q, key, rel_k, max_relative))
            return weights @ value + per_offset @ rel_v, weights
        """,
    "the toy model's torch attention": """
        def _attend(self, q, k, v, bias):
            weights = _softmax(q @ k.transpose(-1, -2) / math.sqrt(self.head_dim) + bias)
            out = weights @ v
            return weights, out
        """,
    "torch's own softmax": """
        def attend(q, k, v):
            return torch.softmax(q @ k.transpose(-1, -2), dim=-1) @ v
        """,
}

OLD_SOFTMAX = {
    "the toy model's softmax": """
        def _softmax(scores):
            e = torch.exp(scores - scores.detach().amax(-1, keepdim=True))
            return e / e.sum(-1, keepdim=True)
        """,
    "an entropy's own log-softmax": """
        def softmax_entropy(logits):
            z = check_array("logits", logits)
            z = z - z.max(axis=-1, keepdims=True)
            log_p = z - np.log(np.exp(z).sum(axis=-1, keepdims=True))
            return -(np.exp(log_p) * log_p).sum(axis=-1)
        """,
}

OLD_CAUSAL_MASKS = {
    "numpy's upper triangle": """
        def alibi_causal_bias(bias):
            future = np.triu(np.ones((bias.shape[1], bias.shape[1]), dtype=bool), k=1)
            return np.where(future[None, :, :], -np.inf, bias)
        """,
    "torch's upper triangle": """
        def _attend(self, seq, bias):
            future = torch.ones(seq, seq, dtype=torch.bool).triu(1)
            return bias.masked_fill(future, float("-inf"))
        """,
    "positions compared through names": """
        def packed_causal_mask(doc):
            idx = np.arange(len(doc))
            return (doc[:, None] == doc[None, :]) & (idx[None, :] <= idx[:, None])
        """,
    "positions compared": """
        def flash_causal_mask(seqlen_q, seqlen_k):
            return np.arange(seqlen_k)[None, :] <= np.arange(seqlen_q)[:, None] + seqlen_k - seqlen_q
        """,
}

OLD_FREQUENCIES = {
    "an exercise's angle": """
        def check_rope_angle(answer, i, pos, d_model, base):
            w = base ** (-2.0 * i / d_model)
            return pos * w
        """,
    "the worksheet's slips": """
        def _pe_slips(pos, dim, d_model, base):
            i = dim // 2
            w = base ** (-2 * i / d_model)
            return w
        """,
    "Hugging Face's form through a name": """
        def inv_freq(base, head_dim):
            exps = np.arange(0, head_dim, 2)
            return 1.0 / (base ** (exps / head_dim))
        """,
    "the exp-log form": """
        def div_term(d_model, base):
            return np.exp(np.arange(0, d_model, 2) * (-math.log(base) / d_model))
        """,
}


COPIES = [(scan, name, source) for scan, table in ((computes_attention, OLD_ATTENTION), (writes_a_softmax, OLD_SOFTMAX),
                                                    (builds_a_causal_mask, OLD_CAUSAL_MASKS),
                                                    (types_the_frequency_formula, OLD_FREQUENCIES))
          for name, source in table.items()]


@pytest.mark.parametrize("scan,name,source", COPIES, ids=[f"{scan.__name__}: {name}" for scan, name, _ in COPIES])
def test_each_scan_flags_the_copies_the_package_held(scan, name, source):
    assert scan(_function(source)), name


def test_the_scans_leave_alone_what_uses_the_one_implementation():
    uses = functions_of(textwrap.dedent("""
        def rope_attention(q, key, value, pos):
            out, _ = scaled_dot_product_attention(rope(q, pos), rope(key, pos), value)
            return out

        def sink(scores, column):
            return softmax(np.concatenate([scores, column], axis=-1))[..., :-1]

        def slip(pos, i, d_model, base):
            return pos * base ** (-i / d_model)          # a slip's wrong exponent, not the formula

        def reach(weights, distance):
            return weights @ distance

        def shorter_than(lengths, n):
            return np.arange(n)[None, :] < lengths[:, None]     # a padding mask, not a triangle
        """))
    assert not any(computes_attention(f) or writes_a_softmax(f) or builds_a_causal_mask(f) or
                   types_the_frequency_formula(f) for f in uses)
