"""The quiz's question banks, one per concept, in the order of the course; each question has
its options, the answer, an explanation and a message per wrong option. Shown by
:class:`posenc.ui.quiz.Quiz` (notebooks 10, 11 and 13).
"""
from __future__ import annotations


#: Permutation invariance: what attention without positions sees (notebook 01).
PERMUTATION = [
    {
        "id": "perm-equivariant-invariant",
        "question": "下面哪种说法最准确？（无位置编码的自注意力）",
        "options": [
            "每个词的输出置换不变，句向量置换等变",
            "每个词的输出和句向量都置换不变",
            "每个词的输出置换等变，对词取平均的句向量置换不变",
            "自注意力对顺序敏感，只是不够敏感",
        ],
        "answer": 2,
        "explanation": "等变：打乱输入，输出跟着同样打乱；不变：打乱输入，结果不变。逐词输出是前者，"
                       "平均/求和池化后的句向量是后者（01）。面试里说「置换不变」时最好补上这一句。",
        "hint": "把输入的行换个顺序，逐词输出的行会怎样？再对它们取平均又会怎样？",
        "wrong": {
            0: "反了：逐词输出跟着输入换行（等变），取平均后顺序消失（不变）。",
            1: "逐词输出作为一个矩阵是会换行的：那是等变，不是不变（01 把两者都算了）。",
            3: "不加位置编码时，它对顺序一点也不敏感：句向量在舍入误差内完全相同（01）。",
        },
    },
]

#: The sinusoidal table and its clock hands (notebooks 02-03).
SINUSOIDAL = [
    {
        "id": "sin-fastest-pair",
        "question": "d_model = 512、base = 10000 时，哪一对 (sin, cos)「转得最快」，它的波长是多少个位置？",
        "options": [
            "最后一对 i = 255，波长约 10000·2π",
            "第一对 i = 0，波长 2π",
            "所有对转得一样快，波长都是 2π",
            "第一对 i = 0，波长 10000",
        ],
        "answer": 1,
        "explanation": "w_i = base^(−2i/d_model)，i = 0 时 w = 1，波长 2π：像秒针，分辨相邻位置；"
                       "最后一对 w 最小、转得最慢，波长 2π·10000^(510/512)，略小于 10000·2π（03）。",
        "hint": "w_i = base^(−2i/d_model) 随 i 增大而变小，波长 = 2π / w_i。",
        "wrong": {
            0: "最后一对转得最慢，不是最快；而且它的波长是 2π·10000^(510/512)，略小于 10000·2π（03）。",
            2: "每一对的频率 w_i 都不同，这正是「多个频率」的意义（03）。",
            3: "w_0 = 1 弧度/位置，转一圈要 2π 个位置，不是 10000（03）。",
        },
    },
]

#: Relative position: PE(pos + k) = R_k PE(pos), dot products by offset (notebook 04).
RELATIVE = [
    {
        "id": "rel-shift-is-rotation",
        "question": "关于 PE(pos+k) 和 PE(pos) 的关系，哪一个是对的？",
        "options": [
            "PE(pos+k) = PE(pos) + PE(k)",
            "PE(pos+k) = PE(pos)·W + PE(k)·W'（W、W' 固定）",
            "PE(pos+k) = R_k·PE(pos)，R_k 是只依赖 k 的旋转",
            "两者之间没有固定关系，只能查表",
        ],
        "answer": 2,
        "explanation": "由和角公式，每一对都被转过 k·w_i：PE(pos+k) = R_k·PE(pos)，每个 2×2 块是 "
                       "[[cos kw, sin kw], [−sin kw, cos kw]]。PE(k) 的各项正是这些系数：它去乘 PE(pos)，"
                       "不是额外加上一项（04 逐个位置验证过，误差只是舍入）。",
        "hint": "写出 sin((pos+k)w) 和 cos((pos+k)w) 的和角公式，看 PE(k) 的 sin kw、cos kw 出现在哪里。",
        "wrong": {
            0: "sin(a + b) ≠ sin a + sin b：编码不是按位置相加的（04）。",
            1: "这是常见的写法，但和角公式里 PE(k) 的分量是去乘 PE(pos) 的系数，没有单独加上的 PE(k)·W' 项（04）。",
            3: "有固定关系：一个只依赖 k 的块对角旋转，04 对每个位置都验证过（误差只是舍入）。",
        },
    },
    {
        "id": "rel-dot-symmetric",
        "question": "PE(m)·PE(m+5) 和 PE(m)·PE(m−5) 哪个大？",
        "options": [
            "一样大：点积 = Σ cos(k·w_i)，cos 是偶函数，分不出前后",
            "PE(m)·PE(m+5) 大，因为后面的词更重要",
            "PE(m)·PE(m−5) 大，因为前面的词更近",
            "取决于 m",
        ],
        "answer": 0,
        "explanation": "PE(m)·PE(m+k) = Σ cos(k·w_i)：只依赖 k，与 m 无关，且 +k 与 −k 相同。"
                       "所以单靠点积，模型分不出一个词在前还是在后（04）；方向信息要靠 W_q、W_k 或 RoPE 这类设计。",
        "hint": "把每一对的 sin·sin + cos·cos 合并成一个 cos。",
        "wrong": {
            1: "点积里只有 cos(k·w_i)，它是偶函数：+5 和 −5 给出同一个数（04）。",
            2: "点积对 ±k 对称，「前面」「后面」在这里没有区别（04）。",
            3: "sin·sin + cos·cos 合并成 cos(k·w_i)，m 消掉了：点积与 m 无关（04）。",
        },
    },
]

#: Learned position tables and their limits (notebook 05).
LEARNED = [
    {
        "id": "learned-past-table",
        "question": "GPT-2 用可学习位置嵌入 (learned position embedding)，n_positions = 1024。给它第 1025 个 token（位置 1024）会怎样？",
        "options": [
            "自动用公式算出位置 1024 的编码",
            "位置表里没有这一行：直接报索引错误（或者只能截断输入）",
            "复用位置 0 的编码，结果完全正确",
            "没影响，位置编码对 GPT-2 可有可无",
        ],
        "answer": 1,
        "explanation": "可学习位置表就是 nn.Embedding(1024, 768) 这样的查找表：只有位置 0..1023 这 1024 行，"
                       "GPT-2 small 的这张表有 1024 × 768 个参数；BERT-base 的表是 512 行（05）。",
        "hint": "可学习位置嵌入是一张表，表有多少行？",
        "wrong": {
            0: "可学习的表没有公式，只有训练出来的 1024 行（05）。",
            2: "表不会自己绕回去：取第 1024 行直接越界报错（05 演示了真实的错误）。",
            3: "没有位置编码，自注意力就分不清语序（01、05 的 none 模型停在一半）。",
        },
    },
]

#: The relative-position family: Shaw et al., Transformer-XL, T5 (notebook 06).
RELATIVE_FAMILY = [
    {
        "id": "relfam-absolute-vs-relative",
        "question": "「绝对位置编码和相对位置编码有什么区别？」下面哪种说法最准确？",
        "options": [
            "正弦编码就是相对编码：PE(pos+k) = R_k·PE(pos)",
            "相对编码只能用在双向 (encoder) 模型里",
            "相对编码不需要任何可学习参数",
            "相对编码让位置只以 k = n − m 进入注意力分数",
        ],
        "answer": 3,
        "explanation": "绝对编码给每个位置一个向量、加到输入上，经过 W_q、W_k 之后分数一般还依赖绝对位置 m（04、06 算过）；"
                       "相对编码在注意力内部只用偏移 k = n − m：Shaw 等人给 key（和 value）加向量 a_k，"
                       "Transformer-XL 用 PE(m − n) 和全局偏置 u、v，T5 给分数加每个桶一个标量（06）。",
        "wrong": {
            0: "R_k 说的是向量本身的关系；加到输入上再乘 W_q、W_k 之后，分数随 m 变、也不再对称（04 第 5 节、06 第 1 节）。",
            2: "Shaw 的 a^K、a^V 和 T5 的偏置表都是学出来的；Transformer-XL 的正弦部分不用学，但 W_{k,R}、u、v 要学。",
            1: "T5 的解码器用的是因果分桶（bidirectional=False），Transformer-XL 本来就是语言模型：相对编码两种都能用。",
        },
    },
    {
        "id": "relfam-t5-bias",
        "question": "T5 的相对位置偏置是怎么做的？",
        "options": [
            "每个头一张「桶 → 标量」的表，所有层共用",
            "每个偏移一个可学习向量，加到 key 上",
            "按 |n − m| 线性扣分，各头斜率固定",
            "每层一张表，所有头共用同一个标量",
        ],
        "answer": 0,
        "explanation": "偏移 k = n − m 先分桶（32 个桶、max_distance = 128；双向时每个方向一半；近处一个偏移一个桶，"
                       "远处按对数分桶，再远全在最后一个桶），再查每个头自己的标量，加到注意力 logits 上；"
                       "整个编码器只有这一张 32 × 头数的表，所有层共用（06）。",
        "wrong": {
            1: "那是 Shaw 等人 (2018) 的做法：向量 a^K 加在 key 上。T5 只加一个标量。",
            2: "那是 ALiBi：固定斜率、不学参数、不分桶（08）。",
            3: "反了：T5 是每个头一张表（各头不同），所有层共用这张表。",
        },
    },
]

#: RoPE's score: the content and the signed offset (notebook 07).
ROPE = [
    {
        "id": "rope-score-depends",
        "question": "RoPE 的注意力分数 (𝓡_m q)ᵀ(𝓡_n κ) 依赖什么？",
        "options": [
            "只依赖距离 |n − m|，和 q、κ 的内容无关",
            "只依赖 q、κ 的内容，位置不影响分数",
            "依赖 m 和 n 本身，整体挪动位置分数就变",
            "依赖 q、κ 的内容和有符号的偏移 k = n − m",
        ],
        "answer": 3,
        "explanation": "(𝓡_m q)ᵀ(𝓡_n κ) = qᵀ𝓡_{n−m}κ（𝓡_pos 是 RoPE 在位置 pos 的旋转，07）：位置只以 k = n − m 出现，整体挪动不变；内容 q、κ 当然还在；"
                       "𝓡_k ≠ 𝓡_{−k}，所以 +k 和 −k 的分数一般不同（07 打印了 f(k) 和 f(−k)）。",
        "hint": "把 𝓡_mᵀ𝓡_n 合并成一个旋转。",
        "wrong": {
            0: "分数里有 q 和 κ，不只是距离；而且 𝓡_k ≠ 𝓡_{−k}，它分得出前后，不只认 |k|（07）。",
            2: "𝓡_mᵀ𝓡_n = 𝓡_{n−m}：m、n 只以差出现，整体挪动分数不变（07 挪了 100 个位置验证）。",
            1: "旋转角随位置变，分数随 k 变（07 的曲线）。",
        },
    },
]

#: RoPE beyond the principle: decay, v, the two implementations (notebook 07).
ROPE_IMPLEMENTATION = [
    {
        "id": "rope-decay-bound",
        "question": "RoFormer 说 RoPE 有「远程衰减」(long-term decay)。准确地说成立的是什么？",
        "options": [
            "任意 q、κ 的分数都随距离 |k| 单调变小",
            "分数的上界随距离平均变小，但不单调，随机的 q、κ 的分数也不衰减",
            "分数和距离无关",
            "只有 ALiBi 才有衰减，RoPE 没有任何与距离有关的量",
        ],
        "answer": 1,
        "explanation": "RoFormer 用 Abel 求和给出 |分数| ≤ max_i|g_{i+1} − g_i|·Σ_j|S_j|（g_i = q_i·κ̄_i），衰减的是 (1/(d/2))Σ_j|S_j|："
                       "07 算出它从 k = 0 的 32.5 降到 k = 256 的 6.5，途中会回升；q = κ = 全 1 时分数确实跟着降，"
                       "而 200 对随机 q、κ 的平均 |分数| 在近处和远处几乎一样（07 第 7 节）。",
        "wrong": {
            0: "这是常见的过度概括：07 的曲线有回升，随机 q、κ 的分数不衰减；衰减的是一个上界。",
            2: "分数只依赖内容和偏移 k = n − m，当然和距离有关（07）。",
            3: "RoPE 的上界随距离平均变小（07 第 7 节）；ALiBi 的衰减是直接减去的惩罚。",
        },
    },
    {
        "id": "rope-v-not-rotated",
        "question": "RoPE 为什么只旋转 q 和 κ，不旋转 v？",
        "options": [
            "省计算，结果一样",
            "v 不参与注意力",
            "旋转 v 会让输出带上绝对位置：整体挪动位置，输出就变了",
            "v 已经在词向量里带了位置",
        ],
        "answer": 2,
        "explanation": "分数只依赖 k = n − m 靠的是 𝓡_mᵀ𝓡_n = 𝓡_{n−m}；输出是 Σ a_mn v_n，v_n 若按 n 旋转，输出就依赖 n 本身。"
                       "07 把所有位置挪 100：只转 q、κ 时输出差在浮点舍入量级，连 v 一起转时差到 1 的量级（07 第 8 节打印的数；除非再按查询位置转回来）。",
        "wrong": {
            0: "结果不一样：07 第 8 节里连 v 一起转，整体挪动后输出差到 1 的量级（那一格打印的数）。",
            1: "v 是注意力加权平均的对象，当然参与。",
            3: "RoPE 不往词向量上加任何位置向量；位置只在 q、κ 的旋转里。",
        },
    },
    {
        "id": "rope-rotate-half",
        "question": "LLaMA 的 Hugging Face 实现用 rotate_half（前后两半配对），原论文两两相邻配对。为什么等价？",
        "options": [
            "只差一个固定的维度重排：W_q、W_k 的行按同一置换重排，分数相同",
            "不等价，rotate_half 是另一种位置编码",
            "只要 base 相同，不用改权重就能互换",
            "rotate_half 只旋转一半的维度",
        ],
        "answer": 0,
        "explanation": "第 i 对在交错布局里是第 2i、2i+1 维，在 rotate_half 里是第 i、i + d/2 维：置换 P = [0 2 4 … 1 3 5 …] 把一种变成另一种。"
                       "所以 Meta 的权重转成 Hugging Face 格式时要按 permute 重排 W_q、W_k 的行；07 第 9 节重排后分数差 7e-15，不重排差到 98。",
        "wrong": {
            1: "它旋转的是同样的对、同样的角度，只是这些对在向量里的位置不同（07 第 9 节）。",
            2: "不改权重不行：07 里不重排时分数差到 98；要按置换重排 W_q、W_k 的行。",
            3: "rotate_half 旋转全部维度；只转一部分的是 partial rotary（GPT-NeoX-20B 转 25 %）。",
        },
    },
]

#: ALiBi: what the bias alone gives each head (notebook 08).
ALIBI = [
    {
        "id": "alibi-reach",
        "question": "ALiBi 在比训练更长的输入上不崩，常说「每个头只看身边约 1/s_h 个词」。准确地说成立的是什么？",
        "options": [
            "训练好的模型里，每个头都只看 1/s_h 个词以内",
            "只看偏置时，平均注意力距离约 1/s_h，与输入多长无关",
            "斜率随训练长度学出来，所以视野跟着训练长度变",
            "超出训练长度的 key 被掩码遮住了",
        ],
        "answer": 1,
        "explanation": "只看偏置（q·κ = 0）时，第 h 个头每远一步权重乘 e^(−s_h)，平均距离 1/(e^(s_h) − 1) ≈ 1/s_h，"
                       "与输入长度无关（08 第 7 节）。真正的分数还有内容项：8 个头、L = 1024 时最平的头在距离 L 处只被扣 4 个 logit，"
                       "内容分数高出 4 的远处 key 照样拿到权重。「多数头不往远处看」是对训练好的模型的常见解读，不是偏置本身保证的。",
        "hint": "先只看偏置：每远一步，权重乘多少？这和句子多长有没有关系？",
        "wrong": {
            0: "那是只看偏置时的结论；内容分数能压过有限的惩罚（08 第 7 节：最平的头在距离 1024 处只被扣 4 个 logit）。",
            2: "ALiBi 的斜率是固定的，按头数取，不训练（08）。",
            3: "ALiBi 不遮住任何 key，只按距离扣分；因果形式里被遮住的是后面的词（08）。",
        },
    },
]

#: Stretching RoPE's context: PI, NTK-aware, YaRN (notebook 09).
CONTEXT = [
    {
        "id": "ctx-why-extrapolation-fails",
        "question": "RoPE 为什么外推不好（在比训练更长的输入上变差）？",
        "options": [
            "RoPE 只编码绝对位置，分数不依赖相对位置",
            "低频的对训练中转不满一圈，更长时转到没见过的角度",
            "高频的对转得太快，训练时连一圈都没见过",
            "位置太大时旋转矩阵数值溢出",
        ],
        "answer": 1,
        "explanation": "第 i 对在训练长度 L 内转 L·w_i/2π 圈。波长超过 L 的低频对从没转满一圈，"
                       "更长的输入让它们转得比训练时更远：分数里出现没见过的角度（09 的玩具模型在 4 倍长度上掉到一半）。"
                       "高频的对早已见过所有角度，反而没问题。",
        "wrong": {
            0: "RoPE 的分数只依赖 n − m（07 验证过）；问题不在绝对/相对，而在更大的 n − m 带来没见过的角度。",
            2: "正好反了：高频的对（w_i 大、波长短）在训练中转了很多圈，所有角度都见过；转不满一圈的是低频的对。",
            3: "cos、sin 对任何角度都有界，不会溢出；外推变差是因为模型没在这些角度上训练过。数值精度是另一个真实的问题：角度若在 bf16 里算，连较大的整数位置都表示不全，见 11 的精度一节。",
        },
    },
    {
        "id": "ctx-pi-ntk-yarn",
        "question": "位置插值 (PI)、NTK-aware、YaRN 分别改了什么？（ρ 是扩展倍数）",
        "options": [
            "三者都是把位置除以 ρ，只是名字不同",
            "PI 调大 base；NTK-aware 把位置除以 ρ；YaRN 重训位置表",
            "PI 所有频率除以 ρ；NTK-aware 调大 base；YaRN 按圈数分段",
            "PI 只改高频的对；NTK-aware 只改温度；YaRN 只改 base",
        ],
        "answer": 2,
        "explanation": "PI：所有 w_i 除以 ρ（等于位置除以 ρ），代价是挤压了高频的对；NTK-aware：base 换成 "
                       "base·ρ^(d/(d−2))，最快的对不变、最慢的对慢 ρ 倍；YaRN：按每对在原训练长度内转的圈数 "
                       "r_i = L·w_i/2π 分段，多于 beta_fast 圈不动、少于 beta_slow 圈除以 ρ、中间线性过渡，"
                       "再乘注意力因子 0.1·ln ρ + 1。分段按圈数，不是直接按 i（09）。",
        "wrong": {
            0: "只有 PI 是「位置除以 ρ」（等价于所有 w_i 除以 ρ）；NTK-aware 和 YaRN 对不同的对改得不一样。",
            1: "PI 不改 base，是位置（或每个 w_i）除以 ρ；调大 base 的是 NTK-aware；RoPE 没有位置表可训练。",
            3: "PI 恰恰对所有对一视同仁；注意力温度是 YaRN 加的；只改 base 的是 NTK-aware。",
        },
    },
]

#: RoPE in real models and at inference: configs, KV cache, MLA (notebook 10).
REAL_MODELS = [
    {
        "id": "real-kv-cache-keys",
        "question": "用 KV cache 逐个生成时，RoPE 模型的标准做法（Hugging Face、Llama 的参考代码）在缓存里存什么样的键？",
        "options": [
            "没旋转的键，每一步按新的查询位置把所有键重新旋转",
            "不存键，只存值 v，键每一步重新算",
            "RoPE 模型不能用 KV cache",
            "已经按各自位置旋转好的键 𝓡_n κ_n，之后不再改动",
        ],
        "answer": 3,
        "explanation": "第 n 个键只依赖它自己的位置：(𝓡_m q)ᵀ(𝓡_n κ) = qᵀ𝓡_{n−m}κ，旋转一次就对以后所有查询都成立，"
                       "10 里逐步解码与整段重算的最大误差在 1e-15 量级。存没旋转的键、每步重转给出同样的分数，"
                       "只是每步多转一遍所有键；要按缓存位置重新编号的方法才这样做（StreamingLLM，11）。",
        "wrong": {0: "这样算出的分数一样，但每步要把所有缓存的键再转一遍；标准做法只转一次。要重新编号位置的方法"
                     "（StreamingLLM，11）才缓存没旋转的键。",
                  1: "键和值都缓存；RoPE 的键缓存的是旋转后的结果。",
                  2: "可以：Llama、Qwen 等都这么用；只有频率随长度变化（动态 NTK）时缓存才会不一致（10）。"},
    },
    {
        "id": "real-dynamic-ntk-cache",
        "question": "动态 NTK (dynamic NTK) 和 KV cache 一起用有什么问题？",
        "options": [
            "超过原训练长度后 base 变了，缓存的键还是按旧频率转的",
            "没有问题，动态 NTK 不改频率",
            "动态 NTK 会让值 v 也旋转",
            "只会让速度变慢，结果完全一样",
        ],
        "answer": 0,
        "explanation": "动态 NTK 在长度 L′ > L 时按当前长度调大 base（有效倍数见 09 第 2.2 节）；"
                       "缓存的键是按旧 base 旋转的，10 测得输出与重算相差 0.006 到 0.3（长度不超过 L 时只差浮点舍入）。",
        "wrong": {1: "它正是按当前长度改 base（也就改了频率）。",
                  2: "v 从不旋转；问题在已经旋转好的键。",
                  3: "结果不同：缓存的键与用新频率重算的键不一致（10）。"},
    },
    {
        "id": "real-mla-decoupled",
        "question": "DeepSeek-V2/V3 的 MLA 为什么要把 RoPE 解耦成单独的一小部分维度？",
        "options": [
            "因为 RoPE 太慢",
            "因为潜向量不能做点积",
            "旋转 𝓡_{n−m} 夹在 W_Q 和 W_UK 之间，W_UK 吸收不进 W_Q",
            "为了让值 v 也带位置",
        ],
        "answer": 2,
        "explanation": "不加 RoPE 时 q_mᵀκ_n = x_mᵀ(W_Qᵀ W_UK)c_n，一个固定矩阵就够；加 RoPE 后中间多了依赖 n − m 的 𝓡_{n−m}，"
                       "没有一个固定矩阵能重现所有分数（10 里差到 17）。于是 MLA 另加每头 qk_rope_head_dim（DeepSeek-V3：64）维的旋转部分，"
                       "旋转的键所有头共用一个，每词每层缓存 512 + 64 = 576 个数。",
        "wrong": {0: "不是速度问题，是代数问题：旋转挡住了矩阵吸收。",
                  1: "潜向量照样参与点积（经过吸收后的矩阵）。",
                  3: "v 从不旋转。"},
    },
    {
        "id": "real-llama3-wavelength",
        "question": "Llama 3.1 的 rope_scaling（llama3 类型，factor 8，原长 8192）对一对波长 1000 的维度做了什么？",
        "options": ["频率除以 8", "频率除以 4", "在 w 和 w/8 之间混合", "不变"],
        "answer": 3,
        "explanation": "波长短于 8192 / high_freq_factor = 2048 的对原样保留；长于 8192 的除以 8；之间按 γ 平滑混合（10）。",
        "wrong": {0: "只有波长超过 8192 的对才除以 8。",
                  1: "没有「除以 4」这一档；4 是 high_freq_factor，决定保留的边界 8192/4。",
                  2: "混合只发生在波长 2048 到 8192 之间。"},
    },
    {
        "id": "real-gqa-keys",
        "question": "Llama 3.1 8B 有 32 个查询头、8 个 KV 头 (GQA)。RoPE 转的是哪些键，缓存里存什么？",
        "options": [
            "每个查询头各转一份键，缓存 32 份",
            "8 个 KV 头的键各转一次后存进缓存，每 4 个查询头共用一份",
            "缓存没旋转的键，算注意力时按查询头转",
            "GQA 只转查询，不转键",
        ],
        "answer": 1,
        "explanation": "k_proj 只投影出 8 个 KV 头的键，apply_rotary_pos_emb 各转一次，旋转后的键进缓存；"
                       "repeat_kv 在算注意力时才把它们复制给各组查询头。旋转与复制可以交换，所以转一次、存一份就够："
                       "每词每层 2 × 8 × 128 = 2048 个数，是 32 个头各存一份的 1/4（10）。",
        "wrong": {0: "复制出来的 4 份完全相同，转 4 次、存 4 份只是浪费：10 里先转再复制与先复制再转的差为 0。",
                  2: "标准做法存旋转后的键（本测验第 1 题）；GQA 只改变键的份数，不改变这一点。",
                  3: "键也要转：分数 qᵀ𝓡_{n−m}κ 需要两边都按各自的位置旋转。"},
    },
]

#: Probes and NoPE: position across layers, the causal mask's counting signal (notebook 12).
PROBES = [
    {
        "id": "probes-sinusoid-two-layers",
        "question": "正弦位置编码只在输入处加一次。两层之后，线性探针还读得出绝对位置吗？",
        "options": ["完全读不出", "每层都一样好", "还能读，但逐层变差", "越往后越好"],
        "answer": 2,
        "explanation": "残差连接一直带着输入处的位置编码，但每层都往残差流里加新内容，位置所占的比重变小：12 的探针 R² 从 1.00 降到 0.97、0.85。"
                       "RoPE、ALiBi、T5 不往残差流写位置，每层在注意力分数里重新作用。",
        "wrong": {0: "残差连接一直带着它：12 里两层之后 R² 还有 0.85。",
                  1: "每层加进来的新内容稀释了它，R² 逐层下降（12）。",
                  3: "没有哪一层再写入位置，它只会被冲淡（12）。"},
    },
    {
        "id": "probes-nope-position",
        "question": "不加位置编码 (NoPE) 的因果 decoder 从哪里得到位置？",
        "options": [
            "因果掩码：位置 n 看见 n + 1 个词，均匀注意力给第一个词 1/(n+1)",
            "词向量里本来就有位置",
            "得不到，所以 NoPE 模型分不清语序",
            "softmax 自带位置信息，和掩码无关",
        ],
        "answer": 0,
        "explanation": "看得见的词数随位置变，模型能据此「数」出位置（Haviv 等 2022）；双向 NoPE 没有掩码，就读不出来（12 的对照组）。"
                       "这个信号随 n 越来越挤，12 的小模型过了训练长度读位置的斜率从 0.63 掉到 0.04。",
        "wrong": {1: "词向量与位置无关：12 只用填充词做探针，第 0 条残差流里读不出位置。",
                  2: "因果 NoPE 在 12 里探针读得出位置，谁咬谁也全对；分不清语序的是双向 NoPE。",
                  3: "没有掩码时（双向 NoPE），每个词看见的都是整句，读不出位置（12）。"},
    },
]

#: Positions in two dimensions: a learned table at a new resolution versus 2D RoPE (notebook 12).
ROPE_2D = [
    {
        "id": "rope2d-vit-resize",
        "question": "ViT 在 14 × 14 个块上训练了可学习位置表（197 行，含 class token）。换成 24 × 24 个块的图，"
                    "Hugging Face 的 ViT（interpolate_pos_encoding=True）怎么做？",
        "options": [
            "把 197 行当一维序列，线性插值到 577 行",
            "多出来的行随机初始化，再微调",
            "class token 单独留着，其余排回网格双三次插值到 24 × 24",
            "不用改：可学习的表对任何网格都能用",
        ],
        "answer": 2,
        "explanation": "ViTEmbeddings.interpolate_pos_encoding 把 class token 的位置向量单独拿出来，其余 196 行排回 14 × 14 的网格，"
                       "用 bicubic 插值到 24 × 24 再拼回去（12 第 3.3 节）。插值出的向量是训练时没出现过的；"
                       "二维 RoPE 没有表，分数只依赖 (Δr, Δc)，任何网格直接能用。",
        "hint": "表的 196 行原本排在一张 14 × 14 的网格上；class token 不在网格里。",
        "wrong": {
            0: "按一维插值会把一行的末尾和下一行的开头混在一起：要先排回二维网格再插值（12 第 3.3 节）。",
            1: "不新建行：从训练过的 14 × 14 网格插值出新网格（12 第 3.3 节）。",
            3: "可学习的表只有训练过的行（05）：24 × 24 = 576 个块，表里只有 196 个（12 第 3.3 节）。",
        },
    },
]

#: Positions in practice: padding, packing, precision, caches that drop tokens (notebook 11).
PRACTICE = [
    {"id": "practice-tree-positions",
     "question": "Medusa 式的树形验证：缓存里已有 10 个词，根（上一步生成的词）下有两个候选孩子 A、B，A 下面又有一个候选 C。"
                 "压平成一行 [根, A, B, C] 送进模型时，它们的位置编号是？",
     "options": ["10, 11, 12, 13", "10, 11, 11, 12", "0, 1, 1, 2", "10, 11, 11, 13"], "answer": 1,
     "explanation": "位置是节点的深度加上缓存长度：根 10，A、B 同在第 1 层都是 11，C 在第 2 层是 12；树掩码让每个节点只看缓存、"
                    "祖先和自己，于是每条路径都和单独解码一样（11 第 4.5 节）。",
     "wrong": {0: "那是按压平后的顺序编号：B 会被当成 A 后面的词，分数就错了（11 第 4.5 节）。",
               2: "还要加上缓存里已有的 10 个词：树里的词接在它们后面。",
               3: "C 在第 2 层，位置是 10 + 2 = 12，与它在压平后的第几个无关。"}},
    {"id": "practice-bf16-angles",
     "question": "为什么 Hugging Face 在 bf16 模型里也关掉 autocast、用 float32 算 RoPE 的角度？",
     "options": ["float32 更快", "bf16 只有 8 位有效数字，长位置和角度都存不准",
                 "bf16 算不了 cos", "为了省显存"], "answer": 1,
     "explanation": "bf16 存不下长位置，在 bf16 里乘出的角度 pos·w_i 长位置上误差可达半圈；float32 在 128k 处只有千分之几弧度"
                    "（间隔与舍入的数字见 11 第 3 节）。",
     "wrong": {0: "慢一点也要 float32：bf16 的位置和角度误差太大（11）。", 2: "bf16 能算 cos，问题在角度本身不准。",
               3: "角度表很小，省不了多少；原因是精度。"}},
    {"id": "practice-streaming-sinks",
     "question": "StreamingLLM 为什么保留开头几个 token，并按缓存里的位置重新编号？",
     "options": ["开头的词最重要", "为了省内存", "开头的词是 attention sink；重编号让偏移不超过缓存",
                 "RoPE 要求位置从 0 开始"], "answer": 2,
     "explanation": "开头几个 token 吸收大量注意力；只留最近的窗口会丢掉它们，softmax 把这部分权重分给别的词。"
                    "按绝对位置编号时 sink 与当前词的偏移会远超训练长度（11）。",
     "wrong": {0: "不是语义上重要：它们吸收注意力，像一个垃圾桶。", 1: "留下它们反而多占几个位置。",
               3: "RoPE 只看偏移；重新编号是为了偏移不超过缓存大小。"}},
]

#: The interview self-check of notebook 13 (the summary): the banks no other notebook shows, in the
#: order of the course. Each question tests a point of the summary's answer sheet that no exercise
#: asks; REAL_MODELS and PRACTICE are asked in notebooks 10 and 11, not again here.
INTERVIEW_QUIZ = (PERMUTATION + SINUSOIDAL + RELATIVE + LEARNED + RELATIVE_FAMILY + ROPE + ROPE_IMPLEMENTATION + ALIBI
                  + CONTEXT + PROBES + ROPE_2D)

#: The quiz of each notebook: file stem -> its bank (what :class:`Quiz` records progress under).
QUIZZES = {
    "10_rope_real_models": REAL_MODELS,
    "11_positions_in_practice": PRACTICE,
    "13_summary_interview": INTERVIEW_QUIZ,
}
