"""RoPE as real open models configure it: head size, ``rope_theta``, training context, the
``rope_scaling`` entry and how much of each head rotates, read from public files (each entry
names its ``source``), and the per-pair frequencies those settings give.

Keys follow the Hugging Face ``config.json`` names (``rope_theta``,
``max_position_embeddings``, ``rope_scaling`` with its ``rope_type``,
``partial_rotary_factor``); ``train_len`` (with ``train_len_source``) where a paper or
report states the length the model was trained on. ``head_dim`` is the config's own when it has one, else
``hidden_size / num_attention_heads`` (the source says which). Every number was read from the
file named in ``source``; models whose files could not be read are left out, not guessed.
Introduced in notebook 10_rope_real_models.
"""
from __future__ import annotations

import numpy as np

from .context import ROPE_SCALING
from .validate import check_base, check_d_model, check_int, check_one_of, check_real

_MLC = "mlc-ai/mlc-llm python/mlc_llm/model/model_preset.py"

#: Model name -> its RoPE settings, each read from the public file in ``source``.
MODEL_CONFIGS = {
    "Llama-2-7B": {
        "head_dim": 128, "rope_theta": 10000.0, "max_position_embeddings": 4096, "rope_scaling": None,
        "partial_rotary_factor": 1.0,
        "source": ("meta-llama/llama llama/model.py (precompute_freqs_cis: theta = 10000.0 over the whole head, "
                   "head_dim = dim // n_heads); " + _MLC + " 'llama2_7b' (hidden_size 4096 / 32 heads = 128; "
                   "that copy of config.json still says max_position_embeddings 2048); "
                   "huggingface/transformers src/transformers/models/llama/convert_llama_weights_to_hf.py "
                   "(CONTEXT_LENGTH_FOR_VERSION['2'] = 4096, rope_theta = params.get('rope_theta', 10000.0))"),
    },
    "CodeLlama-7B": {
        "head_dim": 128, "rope_theta": 1000000.0, "max_position_embeddings": 16384, "rope_scaling": None,
        "partial_rotary_factor": 1.0,
        "source": _MLC + " 'codellama_7b' (config.json of codellama/CodeLlama-7b-hf; head_dim = 4096 / 32)",
    },
    "Llama-3.1-8B": {
        "head_dim": 128, "rope_theta": 500000.0, "max_position_embeddings": 131072,
        "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                         "original_max_position_embeddings": 8192},
        "partial_rotary_factor": 1.0,
        "source": (_MLC + " 'llama3_1_8b' (config.json; head_dim = 4096 / 32); cross-checked with "
                   "meta-llama/llama-models models/llama3_1/api/sku_list.py (dim 4096, n_heads 32, rope_theta "
                   "500000.0, use_scaled_rope, CONTEXT_LENGTH 131072) and models/llama3/model.py apply_scaling "
                   "(scale_factor 8, low_freq_factor 1, high_freq_factor 4, old_context_len 8192)"),
    },
    "Mistral-7B-v0.1": {
        "head_dim": 128, "rope_theta": 10000.0, "max_position_embeddings": 32768, "rope_scaling": None,
        "partial_rotary_factor": 1.0, "sliding_window": 4096, "train_len": 8192,
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

#: Phi-3's LongRoPE: the RoPE keys of Phi-3-vision-128k-instruct's config.json, copied in
#: huggingface/diffusers ``tests/pipelines/omnigen/test_pipeline_omnigen.py`` (commit 286990d). The file
#: writes ``"type": "su"``; Hugging Face's ``Phi3Config`` (``models/phi3/configuration_phi3.py``) reads
#: that name as ``"longrope"``, the key used here. One short and one long divisor per pair (48 pairs).
PHI3_LONGROPE_CONFIG = {
    "hidden_size": 3072, "num_attention_heads": 32, "max_position_embeddings": 131072,
    "original_max_position_embeddings": 4096, "rope_theta": 10000.0,
    "rope_scaling": {"rope_type": "longrope", "short_factor": [
    1.05, 1.05, 1.05, 1.1, 1.1, 1.1, 1.2500000000000002, 1.2500000000000002, 1.4000000000000004,
    1.4500000000000004, 1.5500000000000005, 1.8500000000000008, 1.9000000000000008, 2.000000000000001,
    2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001,
    2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001,
    2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001,
    2.000000000000001, 2.000000000000001, 2.000000000000001, 2.1000000000000005, 2.1000000000000005,
    2.2, 2.3499999999999996, 2.3499999999999996, 2.3499999999999996, 2.3499999999999996,
    2.3999999999999995, 2.3999999999999995, 2.6499999999999986, 2.6999999999999984, 2.8999999999999977,
    2.9499999999999975, 3.049999999999997, 3.049999999999997, 3.049999999999997,
    ], "long_factor": [
    1.0299999713897705, 1.0499999523162842, 1.0499999523162842, 1.0799999237060547, 1.2299998998641968,
    1.2299998998641968, 1.2999999523162842, 1.4499999284744263, 1.5999999046325684, 1.6499998569488525,
    1.8999998569488525, 2.859999895095825, 3.68999981880188, 5.419999599456787, 5.489999771118164,
    5.489999771118164, 9.09000015258789, 11.579999923706055, 15.65999984741211, 15.769999504089355,
    15.789999961853027, 18.360000610351562, 21.989999771118164, 23.079999923706055, 30.009998321533203,
    32.35000228881836, 32.590003967285156, 35.56000518798828, 39.95000457763672, 53.840003967285156,
    56.20000457763672, 57.95000457763672, 59.29000473022461, 59.77000427246094, 59.920005798339844,
    61.190006256103516, 61.96000671386719, 62.50000762939453, 63.3700065612793, 63.48000717163086,
    63.48000717163086, 63.66000747680664, 63.850006103515625, 64.08000946044922, 64.760009765625,
    64.80001068115234, 64.81001281738281, 64.81001281738281,
    ]},
    "source": "huggingface/diffusers tests/pipelines/omnigen/test_pipeline_omnigen.py @286990d "
              "(Phi-3-vision-128k-instruct's config.json; \"su\" = \"longrope\" in transformers' configuration_phi3.py)",
}

#: How the course names each ``rope_type`` (the keys of :data:`~posenc.context.ROPE_SCALING`).
ROPE_TYPE_NAMES = {"default": "不缩放", "linear": "线性插值 PI", "dynamic": "动态 NTK",
                   "yarn": "YaRN", "longrope": "LongRoPE", "llama3": "Llama 3 分段缩放",
                   "ntk": "NTK-aware（静态）"}


def rope_type(config: dict) -> str:
    """The config's ``rope_type`` ("default" when ``rope_scaling`` is None; the older key
    ``type`` is read too). Introduced in notebook 10_rope_real_models."""
    scaling = config.get("rope_scaling")
    if scaling is None:
        return "default"
    return scaling.get("rope_type", scaling.get("type", "default"))


def _config_key(config: dict, key: str):
    if config.get(key) is None:
        raise ValueError(f"config[{key!r}] is missing / config 缺少 {key!r}")
    return config[key]


def rotary_dims(config: dict) -> int:
    """How many dims of each head rotate: ``qk_rope_head_dim`` for MLA models, else
    ``head_dim × partial_rotary_factor`` (GPT-NeoX-20B: 96 × 0.25 = 24), with ``head_dim`` the
    config's own or ``hidden_size // num_attention_heads`` and ``partial_rotary_factor``
    1 when absent. Introduced in notebook 10_rope_real_models."""
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
    Introduced in notebook 10_rope_real_models."""
    if "train_len" in config:
        return "train_len"
    if any((where or {}).get("original_max_position_embeddings") is not None
           for where in (config, config.get("rope_scaling"))):
        return "original_max_position_embeddings"
    return "max_position_embeddings"


def config_train_len(config: dict) -> int:
    """The context the frequencies were trained for, as far as a public file says: the entry
    :func:`config_train_len_key` names. Introduced in notebook 10_rope_real_models."""
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
    Introduced in notebook 10_rope_real_models.
    """
    if not isinstance(config, dict):
        raise TypeError(f"config must be a dict (a config.json), got {type(config).__name__} / "
                        f"config 必须是字典（config.json 的内容）")
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
    of its entry. Introduced in notebook 10_rope_real_models.
    """
    name = check_one_of("name", name, tuple(MODEL_CONFIGS))
    return rope_frequencies_from_config(MODEL_CONFIGS[name], seq_len)
