"""model.py - the BitNet b1.58 decoder that mpbench's end-to-end runner runs
(harness/e2e/e2e.c), as a PyTorch module for training (issue 42).

The architecture is the one llama.cpp's `bitnet` graph and our GGUF reader
(harness/gguf/gguf-model.c) take: token embedding (tied to the output head);
per layer RMSNorm -> q, k, v -> RoPE (rotate-half, "NEOX") -> grouped-query
causal attention -> attn_sub_norm -> o -> residual; RMSNorm -> gate, up ->
act(gate) * up -> ffn_sub_norm -> down -> residual; final RMSNorm; logits =
final state x embedding^T.  No biases.  The activation is SiLU (the default,
what llama.cpp's bitnet graph always runs) or relu2 (max(x,0)^2, BitNet
b1.58 2B-4T's).

Every q/k/v/o/gate/up/down is a BitLinear.  Its forward value is the
project's reference arithmetic (DESIGN.md "Numerics", kernels/common/numerics.c):
  - weights: w_scale = mean |W| (floor 1e-5), codes = clamp(round(W / w_scale),
    -1, 1), one scale per tensor (absmean, BitNet b1.58);
  - activations, per token: x_scale = 127 / max(absmax, 1e-5),
    q = clamp(round(x * x_scale), -127, 127) (round half to even);
  - y = (q . codes) / x_scale * w_scale, the sum exact (integers below 2^24
    are exact in float32).
Training backpropagates through both roundings with the straight-through
estimator (the rounded value in the forward pass, the identity's gradient in
the backward pass), to the latent float weights.  With quant=False the same
module is a plain float linear: the float twin.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

ABSMAX_FLOOR = 1e-5  # MP_ABSMAX_FLOOR in kernels/common/mp_numerics.h


def weight_ternary(w):
    """Absmean ternary codes (float tensor of -1/0/1) and the per-tensor scale."""
    scale = w.abs().mean().clamp(min=ABSMAX_FLOOR)
    codes = (w / scale).round().clamp(-1, 1)
    return codes, scale


def act_int8(x):
    """Per-token absmax int8: integer-valued q and x_scale (q ~= x * x_scale)."""
    xs = 127.0 / x.abs().amax(dim=-1, keepdim=True).clamp(min=ABSMAX_FLOOR)
    q = (x * xs).round().clamp(-127, 127)
    return q, xs


class BitLinear(nn.Module):
    """y = x W^T without bias; ternary weights and int8 activations when quant."""

    def __init__(self, k, m, quant):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(m, k))
        self.quant = quant

    def forward(self, x):
        w = self.weight
        if not self.quant:
            return F.linear(x, w)
        codes, ws = weight_ternary(w)
        q, xs = act_int8(x)
        if not torch.is_grad_enabled():
            # The reference's order of operations: exact integer sum, then
            # acc / x_scale * w_scale (mp_dequant).
            return F.linear(q, codes) / xs * ws
        wq = w + (codes * ws - w).detach()
        xq = x + (q / xs - x).detach()
        return F.linear(xq, wq)


class RMSNorm(nn.Module):
    def __init__(self, n, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(n))
        self.eps = eps

    def forward(self, x):
        r = torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + self.eps)
        return x * r * self.weight


def rope_tables(ctx, hd, theta):
    """cos/sin of angle p * theta^(-2i/hd), i < hd/2 (e2e-setup.c's tables)."""
    i = torch.arange(hd // 2, dtype=torch.float64)
    f = theta ** (-2.0 * i / hd)
    a = torch.arange(ctx, dtype=torch.float64)[:, None] * f[None, :]
    return torch.cos(a).float(), torch.sin(a).float()


def rope(x, cos, sin):
    """Rotate-half RoPE on (..., T, hd): pairs (i, i + hd/2)."""
    half = x.shape[-1] // 2
    a, b = x[..., :half], x[..., half:]
    return torch.cat((a * cos - b * sin, b * cos + a * sin), dim=-1)


class Block(nn.Module):
    def __init__(self, c, quant):
        super().__init__()
        H, hd = c["hidden"], c["head_dim"]
        Q, KV, I = c["heads"] * hd, c["kv_heads"] * hd, c["intermediate"]
        eps = c["norm_eps"]
        self.c = c
        self.attn_norm = RMSNorm(H, eps)
        self.attn_q = BitLinear(H, Q, quant)
        self.attn_k = BitLinear(H, KV, quant)
        self.attn_v = BitLinear(H, KV, quant)
        self.attn_sub_norm = RMSNorm(Q, eps)
        self.attn_output = BitLinear(Q, H, quant)
        self.ffn_norm = RMSNorm(H, eps)
        self.ffn_gate = BitLinear(H, I, quant)
        self.ffn_up = BitLinear(H, I, quant)
        self.ffn_sub_norm = RMSNorm(I, eps)
        self.ffn_down = BitLinear(I, H, quant)

    def forward(self, x, cos, sin, mask):
        c = self.c
        B, T, _ = x.shape
        nh, nkv, hd = c["heads"], c["kv_heads"], c["head_dim"]
        h = self.attn_norm(x)
        q = self.attn_q(h).view(B, T, nh, hd).transpose(1, 2)
        k = self.attn_k(h).view(B, T, nkv, hd).transpose(1, 2)
        v = self.attn_v(h).view(B, T, nkv, hd).transpose(1, 2)
        q, k = rope(q, cos, sin), rope(k, cos, sin)
        if nkv != nh:  # head j reads kv head j // (nh / nkv), as e2e.c's attn_task
            k = k.repeat_interleave(nh // nkv, dim=1)
            v = v.repeat_interleave(nh // nkv, dim=1)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hd))
        att = att.masked_fill(mask, float("-inf")).softmax(dim=-1)
        a = (att @ v).transpose(1, 2).reshape(B, T, nh * hd)
        x = x + self.attn_output(self.attn_sub_norm(a))
        h = self.ffn_norm(x)
        g, u = self.ffn_gate(h), self.ffn_up(h)
        g = F.silu(g) if c["ffn_act"] == "silu" else F.relu(g).square()
        return x + self.ffn_down(self.ffn_sub_norm(g * u))


class BitNet(nn.Module):
    def __init__(self, c, quant):
        super().__init__()
        self.c = c
        self.quant = quant
        self.token_embd = nn.Embedding(c["vocab"], c["hidden"])
        self.blocks = nn.ModuleList(Block(c, quant) for _ in range(c["layers"]))
        self.output_norm = RMSNorm(c["hidden"], c["norm_eps"])
        cos, sin = rope_tables(c["context"], c["head_dim"], c["rope_theta"])
        self.register_buffer("cos", cos, persistent=False)
        self.register_buffer("sin", sin, persistent=False)

    def init_weights(self, std):
        for name, p in self.named_parameters():
            if name.endswith("norm.weight"):
                nn.init.ones_(p)
            else:
                nn.init.normal_(p, 0.0, std)

    def forward(self, tok):
        T = tok.shape[1]
        x = self.token_embd(tok)
        cos, sin = self.cos[:T], self.sin[:T]
        mask = torch.ones(T, T, dtype=torch.bool, device=tok.device).triu(1)
        for b in self.blocks:
            x = b(x, cos, sin, mask)
        return F.linear(self.output_norm(x), self.token_embd.weight)


def linear_names(c):
    """(GGUF tensor name, module path) of every ternary linear, in file order."""
    out = []
    for l in range(c["layers"]):
        for n in ("attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up",
                  "ffn_down"):
            out.append((f"blk.{l}.{n}.weight", f"blocks.{l}.{n}.weight"))
    return out


def norm_names(c):
    out = [("output_norm.weight", "output_norm.weight")]
    for l in range(c["layers"]):
        for n in ("attn_norm", "ffn_norm", "attn_sub_norm", "ffn_sub_norm"):
            out.append((f"blk.{l}.{n}.weight", f"blocks.{l}.{n}.weight"))
    return out
