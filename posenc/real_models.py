"""RoPE as real open models configure it: head size, ``rope_theta``, training context, the
``rope_scaling`` entry and how much of each head rotates, read from public files (each entry
names its ``source``), and the per-pair frequencies those settings give.

Keys follow the Hugging Face ``config.json`` names (``rope_theta``,
``max_position_embeddings``, ``rope_scaling`` with its ``rope_type``,
``partial_rotary_factor``); ``train_len`` (with ``train_len_source``) where a paper or
report states the length the model was trained on. ``head_dim`` is the config's own when it has one, else
``hidden_size / num_attention_heads`` (the source says which). ``num_attention_heads`` and
``num_key_value_heads`` (grouped-query attention) are the config.json's own, where the copy named
in ``source`` has them (mlc-llm's presets). Every number was read from the
file named in ``source``; models whose files could not be read are left out, not guessed.
"""
from __future__ import annotations

import numpy as np

from .context import ROPE_SCALING
from .validate import bilingual, check_base, check_d_model, check_int, check_one_of, check_real

_MLC = "mlc-ai/mlc-llm python/mlc_llm/model/model_preset.py"

#: Model name -> its RoPE settings, each read from the public file in ``source``.
MODEL_CONFIGS = {
    "Llama-2-7B": {
        "head_dim": 128, "rope_theta": 10000.0, "max_position_embeddings": 4096, "rope_scaling": None,
        "partial_rotary_factor": 1.0,
        "num_attention_heads": 32, "num_key_value_heads": 32,
        "source": ("meta-llama/llama llama/model.py (precompute_freqs_cis: theta = 10000.0 over the whole head, "
                   "head_dim = dim // n_heads); " + _MLC + " 'llama2_7b' (hidden_size 4096 / 32 heads = 128; "
                   "that copy of config.json still says max_position_embeddings 2048); "
                   "huggingface/transformers src/transformers/models/llama/convert_llama_weights_to_hf.py "
                   "(CONTEXT_LENGTH_FOR_VERSION['2'] = 4096, rope_theta = params.get('rope_theta', 10000.0))"),
        "train_len": 4096,
        "train_len_source": ("Touvron et al. 2023, Llama 2 (arXiv 2307.09288), appendix A.2.1 'Context Length': "
                             "'We expand the context window for Llama 2 from 2048 tokens to 4096 tokens'"),
    },
    "CodeLlama-7B": {
        "head_dim": 128, "rope_theta": 1000000.0, "max_position_embeddings": 16384, "rope_scaling": None,
        "partial_rotary_factor": 1.0,
        "num_attention_heads": 32, "num_key_value_heads": 32,
        "source": _MLC + " 'codellama_7b' (config.json of codellama/CodeLlama-7b-hf; head_dim = 4096 / 32)",
    },
    "Llama-3.1-8B": {
        "head_dim": 128, "rope_theta": 500000.0, "max_position_embeddings": 131072,
        "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                         "original_max_position_embeddings": 8192},
        "partial_rotary_factor": 1.0,
        "num_attention_heads": 32, "num_key_value_heads": 8,
        "source": (_MLC + " 'llama3_1_8b' (config.json; head_dim = 4096 / 32); cross-checked with "
                   "meta-llama/llama-models models/llama3_1/api/sku_list.py (dim 4096, n_heads 32, rope_theta "
                   "500000.0, use_scaled_rope, CONTEXT_LENGTH 131072) and models/llama3/model.py apply_scaling "
                   "(scale_factor 8, low_freq_factor 1, high_freq_factor 4, old_context_len 8192)"),
    },
    "Mistral-7B-v0.1": {
        "head_dim": 128, "rope_theta": 10000.0, "max_position_embeddings": 32768, "rope_scaling": None,
        "partial_rotary_factor": 1.0, "sliding_window": 4096, "train_len": 8192,
        "num_attention_heads": 32, "num_key_value_heads": 8,
        "source": (_MLC + " 'mistral_7b' (config.json; head_dim = 4096 / 32; the preset names the window "
                   "'sliding_window_size': 4096)"),
        "train_len_source": ("Jiang et al. 2023, Mistral 7B (arXiv 2310.06825), Table 1 'Model architecture': "
                                   "context_len 8192, window_size 4096; read in the transcription "
                                   "viktor-shcherb/msc_thesis references/2023-10-mistral-7b/sections/"
                                   "02_architectural-details.md"),
    },
    "Qwen2-7B-Instruct": {
        "head_dim": 128, "rope_theta": 1000000.0, "max_position_embeddings": 32768, "rope_scaling": None,
        "partial_rotary_factor": 1.0,
        "num_attention_heads": 28, "num_key_value_heads": 4,
        "source": _MLC + " 'qwen2_7b' (config.json; head_dim = 3584 / 28)",
    },
    "Qwen2.5-7B": {
        "head_dim": 128, "rope_theta": 1000000.0, "max_position_embeddings": 131072, "rope_scaling": None,
        "partial_rotary_factor": 1.0,
        "source": ("citsjtu2020/LLM-Prof sglang/Model_Config.md (a copy of the config.json of Qwen2.5-7B: "
                   "hidden_size 3584, num_attention_heads 28, so head_dim = 128; rope_theta 1000000.0, "
                   "max_position_embeddings 131072, no rope_scaling)"),
        "train_len": 32768,
        "train_len_source": ("Qwen2.5 Technical Report (arXiv 2412.15115), section 3.3 Long-context "
                                   "Pre-training: 'we extend the context length from 4,096 to 32,768 tokens during "
                                   "the final pre-training stage for all model variants except Qwen2.5-Turbo' (and "
                                   "raise the RoPE base from 10,000 to 1,000,000); Table 1 lists the 7B's context "
                                   "length as 128K, reached with YaRN at inference"),
    },
    "Gemma-2B": {
        "head_dim": 256, "rope_theta": 10000.0, "max_position_embeddings": 8192, "rope_scaling": None,
        "partial_rotary_factor": 1.0,
        "num_attention_heads": 8, "num_key_value_heads": 1,
        "source": _MLC + " 'gemma_2b' (config.json, which gives head_dim 256 itself; hidden_size is 2048)",
    },
    "GPT-NeoX-20B": {
        "head_dim": 96, "rope_theta": 10000.0, "max_position_embeddings": 2048, "rope_scaling": None,
        "partial_rotary_factor": 0.25,
        "source": ("EleutherAI/gpt-neox configs/20B.yml (hidden-size 6144 / num-attention-heads 64 = 96, "
                   "max-position-embeddings 2048, rotary_pct 0.25); megatron/neox_arguments/neox_args.py "
                   "(rotary_emb_base default 10000, which 20B.yml does not override)"),
    },
    "DeepSeek-V2-Lite": {
        "head_dim": 192, "rope_theta": 10000.0, "max_position_embeddings": 163840,
        "rope_scaling": {"rope_type": "yarn", "factor": 40.0, "original_max_position_embeddings": 4096,
                         "beta_fast": 32.0, "beta_slow": 1.0, "mscale": 0.707, "mscale_all_dim": 0.707},
        "partial_rotary_factor": 64 / 192,
        "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "kv_lora_rank": 512, "v_head_dim": 128,
        "num_attention_heads": 16,
        "source": (_MLC + " 'deepseek_v2_lite' (config.json, which writes the scaling as \"type\": \"yarn\"; "
                   "head_dim here = qk_nope_head_dim + qk_rope_head_dim, the q·k width; only the "
                   "qk_rope_head_dim part rotates)"),
    },
    "DeepSeek-V3": {
        "head_dim": 192, "rope_theta": 10000.0, "max_position_embeddings": 4096 * 40,
        "rope_scaling": {"rope_type": "yarn", "factor": 40.0, "original_max_position_embeddings": 4096,
                         "beta_fast": 32.0, "beta_slow": 1.0, "mscale": 1.0},
        "partial_rotary_factor": 64 / 192,
        "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "kv_lora_rank": 512, "q_lora_rank": 1536,
        "v_head_dim": 128, "num_attention_heads": 128,
        "source": ("deepseek-ai/DeepSeek-V3 inference/configs/config_671B.json (n_heads 128, q_lora_rank 1536, "
                   "kv_lora_rank 512, qk_nope_head_dim 128, qk_rope_head_dim 64, v_head_dim 128) and "
                   "inference/model.py ModelArgs defaults (rope_theta 10000.0, original_seq_len 4096, rope_factor "
                   "40, beta_fast 32, beta_slow 1, mscale 1.0; YaRN on the qk_rope_head_dim part); "
                   "max_position_embeddings = original_seq_len × rope_factor = 163840 (README: 128K context); "
                   "head_dim = qk_nope_head_dim + qk_rope_head_dim"),
    },
}

#: Phi-3's LongRoPE: the RoPE keys of Phi-3.5-mini-instruct's config.json (``_name_or_path``
#: "Phi-3.5-mini-instruct", ``transformers_version`` 4.43.3), as mlc-ai/mlc-llm
#: ``python/mlc_llm/model/model_preset.py`` copies the file under ``"phi-3_5"`` (commit 79d603f). The file writes
#: ``"type": "longrope"``; Hugging Face's ``Phi3Config`` (``models/phi3/configuration_phi3.py``) reads that
#: older key as ``rope_type``. One short and one long divisor per pair (3072 / 32 / 2 = 48 pairs).
PHI3_LONGROPE_CONFIG = {
    "hidden_size": 3072, "num_attention_heads": 32, "max_position_embeddings": 131072,
    "original_max_position_embeddings": 4096, "rope_theta": 10000.0,
    "rope_scaling": {"rope_type": "longrope", "short_factor": [
    1.0, 1.0199999809265137, 1.0299999713897705, 1.0299999713897705, 1.0499999523162842, 1.0499999523162842,
    1.0499999523162842, 1.0499999523162842, 1.0499999523162842, 1.0699999332427979, 1.0999999046325684,
    1.1099998950958252, 1.1599998474121094, 1.1599998474121094, 1.1699998378753662, 1.2899998426437378,
    1.339999794960022, 1.679999828338623, 1.7899998426437378, 1.8199998140335083, 1.8499997854232788,
    1.8799997568130493, 1.9099997282028198, 1.9399996995925903, 1.9899996519088745, 2.0199997425079346,
    2.0199997425079346, 2.0199997425079346, 2.0199997425079346, 2.0199997425079346, 2.0199997425079346,
    2.0299997329711914, 2.0299997329711914, 2.0299997329711914, 2.0299997329711914, 2.0299997329711914,
    2.0299997329711914, 2.0299997329711914, 2.0299997329711914, 2.0299997329711914, 2.0799996852874756,
    2.0899996757507324, 2.189999580383301, 2.2199995517730713, 2.5899994373321533, 2.729999542236328,
    2.749999523162842, 2.8399994373321533,
    ], "long_factor": [
    1.0800000429153442, 1.1100000143051147, 1.1399999856948853, 1.340000033378601, 1.5899999141693115,
    1.600000023841858, 1.6200000047683716, 2.620000123977661, 3.2300000190734863, 3.2300000190734863,
    4.789999961853027, 7.400000095367432, 7.700000286102295, 9.09000015258789, 12.199999809265137,
    17.670000076293945, 24.46000099182129, 28.57000160217285, 30.420001983642578, 30.840002059936523,
    32.590003967285156, 32.93000411987305, 42.320003509521484, 44.96000289916992, 50.340003967285156,
    50.45000457763672, 57.55000305175781, 57.93000411987305, 58.21000289916992, 60.1400032043457,
    62.61000442504883, 62.62000274658203, 62.71000289916992, 63.1400032043457, 63.1400032043457,
    63.77000427246094, 63.93000411987305, 63.96000289916992, 63.970001220703125, 64.02999877929688,
    64.06999969482422, 64.08000183105469, 64.12000274658203, 64.41000366210938, 64.4800033569336,
    64.51000213623047, 64.52999877929688, 64.83999633789062,
    ]},
    "source": ("mlc-ai/mlc-llm python/mlc_llm/model/model_preset.py 'phi-3_5' @79d603f (a copy of "
               "Phi-3.5-mini-instruct's config.json: hidden_size 3072, num_attention_heads 32, "
               "max_position_embeddings 131072, original_max_position_embeddings 4096, rope_theta 10000.0, "
               "\"type\": \"longrope\" with 48 short and 48 long factors)"),
}

#: How the course names each ``rope_type`` (the keys of :data:`~posenc.context.ROPE_SCALING`).
ROPE_TYPE_NAMES = {"default": "不缩放", "linear": "线性插值 PI", "dynamic": "动态 NTK",
                   "yarn": "YaRN", "longrope": "LongRoPE", "llama3": "Llama 3 分段缩放",
                   "ntk": "NTK-aware（静态）"}


def rope_type(config: dict) -> str:
    """The config's ``rope_type`` ("default" when ``rope_scaling`` is None; the older key
    ``type`` is read too)."""
    scaling = config.get("rope_scaling")
    if scaling is None:
        return "default"
    return scaling.get("rope_type", scaling.get("type", "default"))


def _config_key(config: dict, key: str):
    if config.get(key) is None:
        raise ValueError(bilingual(f"config[{key!r}] is missing", f"config 缺少 {key!r}"))
    return config[key]


def rotary_dims(config: dict) -> int:
    """How many dims of each head rotate: ``qk_rope_head_dim`` for MLA models, else
    ``head_dim × partial_rotary_factor`` (GPT-NeoX-20B: 96 × 0.25 = 24), with ``head_dim`` the
    config's own or ``hidden_size // num_attention_heads`` and ``partial_rotary_factor``
    1 when absent."""
    if "qk_rope_head_dim" in config:
        return check_int("config['qk_rope_head_dim']", config["qk_rope_head_dim"], 1)
    if config.get("head_dim") is not None:
        head_dim = check_int("config['head_dim']", config["head_dim"], 1)
    else:
        hidden = check_int("config['hidden_size']", _config_key(config, "hidden_size"), 1)
        heads = check_int("config['num_attention_heads']", _config_key(config, "num_attention_heads"), 1)
        head_dim = hidden // heads
    share = config.get("partial_rotary_factor")
    share = 1.0 if share is None else check_real("config['partial_rotary_factor']", share,
                                                 greater_than=0.0, maximum=1.0)
    return int(round(head_dim * share))


#: Where :func:`config_train_len` reads its number -> how the course labels it.
TRAIN_LEN_KEYS = {
    "train_len": "论文 / 技术报告写明的训练长度",
    "original_max_position_embeddings": "配置里缩放前的原长 original_max_position_embeddings",
    "max_position_embeddings": "配置的 max_position_embeddings（最大长度，不一定是训练长度）",
}


def config_train_len_key(config: dict) -> str:
    """Which entry :func:`config_train_len` reads: ``train_len`` when a paper or report
    states the length the model was trained on (the entry names it in ``train_len_source``),
    else ``original_max_position_embeddings`` when the config scales RoPE, else
    ``max_position_embeddings`` (the longest input the config allows, which is not always the
    training length: Mistral-7B-v0.1 says 32768 there and 8192 in its paper).
   """
    if "train_len" in config:
        return "train_len"
    if any((where or {}).get("original_max_position_embeddings") is not None
           for where in (config, config.get("rope_scaling"))):
        return "original_max_position_embeddings"
    return "max_position_embeddings"


def config_train_len(config: dict) -> int:
    """The context the frequencies were trained for, as far as a public file says: the entry
    :func:`config_train_len_key` names."""
    key = config_train_len_key(config)
    if key == "original_max_position_embeddings":
        return _original_length(config)
    return int(_config_key(config, key))


def _original_length(config: dict) -> int:
    """The length a config's RoPE scaling starts from: ``original_max_position_embeddings``
    beside ``rope_scaling`` (Phi-3 writes it there; it wins, as in Hugging Face's
    ``standardize_rope_params``) or inside it, else ``max_position_embeddings``."""
    scaling = config.get("rope_scaling") or {}
    for where in (config, scaling):
        if where.get("original_max_position_embeddings") is not None:
            return int(where["original_max_position_embeddings"])
    return int(_config_key(config, "max_position_embeddings"))


def rope_frequencies_from_config(config: dict, seq_len: int | None = None) -> tuple[np.ndarray, float]:
    """The per-pair frequencies and the attention factor a model's ``config.json`` (as a dict) gives.

    Reads ``rope_theta``, the rotated dims (:func:`rotary_dims`: ``head_dim`` or
    ``hidden_size // num_attention_heads``, times ``partial_rotary_factor``), and
    ``rope_scaling``, whose ``rope_type`` (or the older ``type``) picks the function in
    :data:`~posenc.context.ROPE_SCALING`. As Hugging Face's ``standardize_rope_params`` does,
    the training length ``original_max_position_embeddings`` is taken from beside
    ``rope_scaling`` when the config writes it there (Phi-3), else from ``rope_scaling``, else
    it is ``max_position_embeddings``; ``dynamic`` always measures against
    ``max_position_embeddings`` (Hugging Face's ``_compute_dynamic_ntk_parameters``); a
    ``yarn`` or ``longrope`` entry without ``factor`` gets
    ``max_position_embeddings / original_max_position_embeddings``. ``seq_len`` is the current
    length (``dynamic`` and ``longrope`` depend on it). An unknown type, a missing key or a
    ``long_factor`` of the wrong length is refused with the key's name.
    """
    if not isinstance(config, dict):
        raise TypeError(bilingual(f"config must be a dict (a config.json), got {type(config).__name__}",
                                  "config 必须是字典（config.json 的内容）"))
    base = check_base(_config_key(config, "rope_theta"))
    dims = check_d_model(rotary_dims(config))
    kind = check_one_of("rope_scaling['rope_type']", rope_type(config), tuple(ROPE_SCALING))
    scaling = dict(config.get("rope_scaling") or {})
    if kind == "dynamic":
        scaling["original_max_position_embeddings"] = _config_key(config, "max_position_embeddings")
    elif kind in ("yarn", "longrope", "llama3"):
        scaling["original_max_position_embeddings"] = _original_length(config)
        if kind != "llama3" and scaling.get("factor") is None:
            longest = _config_key(config, "max_position_embeddings")
            scaling["factor"] = longest / scaling["original_max_position_embeddings"]
    return ROPE_SCALING[kind](dims, base, scaling, seq_len)


def model_frequencies(name: str, seq_len: int | None = None) -> tuple[np.ndarray, float]:
    """The per-pair frequencies of model ``name`` (a key of :data:`MODEL_CONFIGS`) for its rotated
    dims, after its ``rope_scaling``, and the attention factor: :func:`rope_frequencies_from_config`
    of its entry.
    """
    name = check_one_of("name", name, tuple(MODEL_CONFIGS))
    return rope_frequencies_from_config(MODEL_CONFIGS[name], seq_len)
