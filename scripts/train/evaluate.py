#!/usr/bin/python3
"""evaluate.py - bits per byte of a text under a models/trained/*.mptw file,
by the protocol of data.py (what `mpbench e2e --ppl` computes), rebuilt from
the file alone: checks that the file holds the model train.py evaluated.

    /usr/bin/python3 scripts/train/evaluate.py models/trained/ternary.mptw \
        [--text models/trained/heldout.txt] [--greedy N]

--greedy N also prints N greedy bytes after the text's first line, for a look
at what the model learned.
"""
import argparse
import os
import sys

# one thread unless told: train.py evaluates with one thread per model, and a
# BLAS with another thread count may sum the float products in another order
# (a difference near the 6th digit)
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
import torch  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import data  # noqa: E402
import model as M  # noqa: E402
import mptw  # noqa: E402


def load(path):
    meta, ts = mptw.read(path)
    ints = ("vocab", "hidden", "layers", "heads", "kv_heads", "head_dim", "intermediate",
            "context", "tied")
    c = {k: (int(v) if k in ints else float(v) if k in ("rope_theta", "norm_eps") else v)
         for k, v in meta.items()}
    quant = meta["kind"] == "ternary"
    m = M.BitNet(c, quant)
    sd = dict(m.named_parameters())
    names = dict(M.norm_names(c) + M.linear_names(c) + [("token_embd.weight",
                                                         "token_embd.weight")])
    with torch.no_grad():
        for g, (ty, t, scale) in ts.items():
            p = sd[names[g]]
            # ternary: the codes; their scale goes to exact_scales (recomputing
            # it as mean |codes * scale| could round differently)
            p.copy_(t.view_as(p))
    if quant:
        exact_scales(m, {names[g]: s for g, (ty, t, s) in ts.items() if ty == "t2"})
    return m, c, meta


def exact_scales(m, scales):
    """Makes every BitLinear use the file's codes and scale exactly."""
    for n, mod in m.named_modules():
        if isinstance(mod, M.BitLinear):
            s = torch.tensor(scales[n + ".weight"], dtype=torch.float32)

            def fwd(x, mod=mod, s=s):
                q, xs = M.act_int8(x)
                return torch.nn.functional.linear(q, mod.weight) / xs * s
            mod.forward = fwd


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("weights")
    p.add_argument("--text", default="models/trained/heldout.txt")
    p.add_argument("--greedy", type=int, default=0)
    p.add_argument("--threads", type=int, default=1)
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    m, c, meta = load(a.weights)
    text = open(a.text, "rb").read()
    bpb = data.bits_per_byte(m, text, c["context"])
    print(f"{a.weights}: {bpb:.6f} bits per byte on {a.text} ({len(text)} bytes; the file "
          f"says {meta.get('heldout_bpb')} on its held-out text)")
    if a.greedy:
        first = text[:text.index(b"\n") + 1]
        tok = [data.BOS] + [b + data.BYTE0 for b in first]
        with torch.no_grad():
            for _ in range(a.greedy):
                nxt = int(m(torch.tensor([tok[-c["context"]:]]))[0, -1].argmax())
                tok.append(nxt)
        out = bytes(t - data.BYTE0 for t in tok[1:] if data.BYTE0 <= t < data.BYTE0 + 256)
        print(out.decode("utf-8", "replace"))


if __name__ == "__main__":
    main()
