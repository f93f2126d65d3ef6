#!/usr/bin/python3
"""train.py - trains the tiny BitNet b1.58 model of issue 42 and its float
twin on the Python documentation's prose (scripts/train/DATA.md), seeded,
and writes models/trained/: the weights (scripts/train/FORMAT.md), the loss
curves (CSV), the held-out text and the figures (metrics.json).

    /usr/bin/python3 scripts/train/train.py [--out models/trained] [--steps N] ...

Both models see the same batches in the same order (one seeded generator per
model, the same seed) with the same hyperparameters and schedule; they differ
only in BitLinear's quantization (model.py).  --calibrate N times N steps of
each and exits.  Run it under Debian's /usr/bin/python3 with python3-torch
(`make tiny-model` installs both).
"""
import argparse
import csv
import json
import math
import multiprocessing
import os
import platform
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import data  # noqa: E402
import model as M  # noqa: E402
import mptw  # noqa: E402


def parse():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    a = p.add_argument
    a("--out", default="models/trained")
    a("--which", choices=("both", "ternary", "float"), default="both")
    a("--steps", type=int, default=800)
    a("--batch", type=int, default=8)
    a("--context", type=int, default=256)
    a("--hidden", type=int, default=256)
    a("--layers", type=int, default=2)
    a("--heads", type=int, default=4)
    a("--kv-heads", type=int, default=2)
    a("--intermediate", type=int, default=512)
    a("--act", choices=("silu", "relu2"), default="silu")
    a("--rope-theta", type=float, default=10000.0)
    a("--lr", type=float, default=2e-3)
    a("--min-lr-frac", type=float, default=0.1)
    a("--warmup", type=int, default=100)
    a("--wd", type=float, default=0.1)
    a("--init-std", type=float, default=0.02)
    a("--seed", type=int, default=42)
    a("--threads", type=int, default=1,
      help="threads per model (torch and BLAS); the two models train in parallel")
    a("--eval-every", type=int, default=250)
    a("--heldout-bytes", type=int, default=131072,
      help="heldout.txt: the held-out split's first bytes, cut at a newline")
    a("--calibrate", type=int, default=0, metavar="N")
    a("--any-corpus", action="store_true",
      help="train even if the corpus differs from scripts/train/corpus.sha256")
    return p.parse_args()


def config(args):
    c = {"arch": "bitnet", "vocab": 260, "hidden": args.hidden, "layers": args.layers,
         "heads": args.heads, "kv_heads": args.kv_heads,
         "head_dim": args.hidden // args.heads, "intermediate": args.intermediate,
         "context": args.context, "rope_theta": args.rope_theta, "norm_eps": 1e-5,
         "ffn_act": args.act, "tied": 1}
    for n, v in (("hidden", c["hidden"]), ("heads x head_dim", c["heads"] * c["head_dim"]),
                 ("intermediate", c["intermediate"])):
        if v % 256:  # K of some linear: TQ1_0/TQ2_0 blocks are 256 wide
            raise SystemExit(f"{n} = {v}: every linear's K must be a multiple of 256")
    if args.hidden % args.heads or args.heads % args.kv_heads or c["head_dim"] % 2:
        raise SystemExit("hidden must split into heads of even size, heads into kv groups")
    return c


def lr_at(args, step):
    if step < args.warmup:
        return args.lr * (step + 1) / args.warmup
    t = (step - args.warmup) / max(1, args.steps - args.warmup)
    f = args.min_lr_frac + (1 - args.min_lr_frac) * 0.5 * (1 + math.cos(math.pi * t))
    return args.lr * f


def build(c, quant, args):
    torch.manual_seed(args.seed)
    m = M.BitNet(c, quant)
    m.init_weights(args.init_std)
    decay = [p for n, p in m.named_parameters() if p.dim() == 2 and n != "token_embd.weight"]
    rest = [p for n, p in m.named_parameters() if not (p.dim() == 2 and n != "token_embd.weight")]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": args.wd},
                             {"params": rest, "weight_decay": 0.0}],
                            lr=args.lr, betas=(0.9, 0.95), eps=1e-8)
    return m, opt


def train_sample(text, n=16, span=4096):
    """A fixed sample of the training text for its final bits per byte."""
    stride = (len(text) - span) // n
    return b"".join(text[i * stride:i * stride + span] for i in range(n))


def train_one(kind, c, args, train_text, held_small, log_path):
    quant = kind == "ternary"
    m, opt = build(c, quant, args)
    batches = data.Batches(train_text, args.context, args.batch, args.seed)
    steps = args.calibrate or args.steps
    f = open(log_path, "w", newline="") if not args.calibrate else None
    w = csv.writer(f) if f else None
    if w:
        w.writerow(["step", "tokens", "seconds", "lr", "train_loss", "train_bpb",
                    "heldout32k_bpb"])
    t0 = time.time()
    acc, accn = 0.0, 0
    for step in range(steps):
        lr = lr_at(args, step)
        for g in opt.param_groups:
            g["lr"] = lr
        x, y = batches.next()
        m.train()
        logits = m(x)
        loss = torch.nn.functional.cross_entropy(logits.view(-1, c["vocab"]), y.view(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(m.parameters(), 1.0)
        opt.step()
        acc += loss.item()
        accn += 1
        last = step + 1 == steps
        if args.calibrate and (step + 1) % 5 == 0:
            print(f"{kind} step {step + 1} loss {loss.item():.4f} "
                  f"{(time.time() - t0) / (step + 1):.3f} s/step", flush=True)
        if w and ((step + 1) % 25 == 0 or last):
            hb = ""
            if (step + 1) % args.eval_every == 0 or last:
                hb = f"{data.bits_per_byte(m, held_small, args.context):.5f}"
            tl = acc / accn
            w.writerow([step + 1, (step + 1) * args.batch * args.context,
                        f"{time.time() - t0:.1f}", f"{lr:.6g}", f"{tl:.5f}",
                        f"{tl / math.log(2):.5f}", hb])
            f.flush()
            print(f"{kind} step {step + 1}/{steps} loss {tl:.4f} lr {lr:.2e} "
                  f"{time.time() - t0:.0f} s" + (f" heldout32k {hb} bpb" if hb else ""),
                  flush=True)
            acc, accn = 0.0, 0
    if f:
        f.close()
    return m, time.time() - t0


def zero_share(m, c):
    per, z, n = {}, 0, 0
    sd = dict(m.named_parameters())
    for gname, mname in M.linear_names(c):
        codes, _ = M.weight_ternary(sd[mname].detach())
        zz = int((codes == 0).sum())
        per[gname] = zz / codes.numel()
        z += zz
        n += codes.numel()
    return z / n, per


def export(m, c, kind, path, meta):
    sd = {k: v.detach() for k, v in m.named_parameters()}
    t = [("token_embd.weight", "bf16", sd["token_embd.weight"], None)]
    norms = dict(M.norm_names(c))
    lins = dict(M.linear_names(c))
    order = ["output_norm.weight"]
    for l in range(c["layers"]):
        for n in ("attn_norm", "attn_q", "attn_k", "attn_v", "attn_sub_norm", "attn_output",
                  "ffn_norm", "ffn_gate", "ffn_up", "ffn_sub_norm", "ffn_down"):
            order.append(f"blk.{l}.{n}.weight")
    for g in order:
        if g in norms:
            t.append((g, "f32", sd[norms[g]], None))
        elif kind == "ternary":
            codes, s = M.weight_ternary(sd[lins[g]])
            t.append((g, "t2", codes, float(s)))
        else:
            t.append((g, "bf16", sd[lins[g]], None))
    mptw.write(path, meta, t)


def load_text(args):
    files = data.corpus_files()
    tr_files, ho_files = data.split(files)
    train_text, held_text = data.read_all(tr_files), data.read_all(ho_files)
    held = held_text[:held_text.rfind(b"\n", 0, args.heldout_bytes) + 1]
    return files, tr_files, ho_files, train_text, held_text, held


def run_kind(args, kind):
    """One model in its own process (spawned: its BLAS reads the thread count
    from the environment when torch loads): trains, evaluates, exports."""
    torch.set_num_threads(args.threads)
    torch.use_deterministic_algorithms(True)
    c = config(args)
    _, _, _, train_text, _, held = load_text(args)
    held_small = held[:held.rfind(b"\n", 0, 32768) + 1]
    if args.calibrate:
        train_one(kind, c, args, train_text, held_small, None)
        return None
    m, secs = train_one(kind, c, args, train_text, held_small,
                        os.path.join(args.out, f"loss-{kind}.csv"))
    ck = os.path.join(args.out, "ckpt")  # latent weights, not committed
    os.makedirs(ck, exist_ok=True)
    torch.save(m.state_dict(), os.path.join(ck, f"{kind}.pt"))
    t_eval = time.time()
    r = {"train_seconds": round(secs, 1), "steps": args.steps,
         "tokens": args.steps * args.batch * args.context}
    # the files hold the embedding (and the float twin's linears) in bf16:
    # the figures are those of the weights as written
    with torch.no_grad():
        for n, p in m.named_parameters():
            if n == "token_embd.weight" or (kind == "float" and p.dim() == 2):
                p.copy_(mptw.bf16_round(p))
    r["train_bpb"] = data.bits_per_byte(m, train_sample(train_text), args.context)
    r["heldout_bpb"] = data.bits_per_byte(m, held, args.context)
    for k in ("train", "heldout"):
        r[f"{k}_loss"] = r[f"{k}_bpb"] * math.log(2)  # nats per byte
    if kind == "ternary":
        r["zero_share"], r["zero_share_per_tensor"] = zero_share(m, c)
    meta = [("arch", "bitnet"), ("kind", kind)] + [(k, v) for k, v in c.items() if k != "arch"]
    meta += [("bos", data.BOS), ("byte_token0", data.BYTE0), ("seed", args.seed),
             ("steps", args.steps), ("heldout_bpb", f"{r['heldout_bpb']:.6f}")]
    path = os.path.join(args.out, f"{kind}.mptw")
    export(m, c, kind, path, meta)
    r["file"] = os.path.basename(path)
    r["eval_seconds"] = round(time.time() - t_eval, 1)
    print(f"{kind}: {secs:.0f} s, train {r['train_bpb']:.4f} bpb, heldout "
          f"{r['heldout_bpb']:.4f} bpb" + (f", zero share {r['zero_share']:.4f}"
                                           if kind == "ternary" else ""), flush=True)
    return r


def main():
    args = parse()
    config(args)
    os.environ["OPENBLAS_NUM_THREADS"] = str(args.threads)
    os.environ["OMP_NUM_THREADS"] = str(args.threads)
    kinds = ["ternary", "float"] if args.which == "both" else [args.which]
    files, tr_files, ho_files, train_text, held_text, held = load_text(args)
    if not args.any_corpus:
        data.check_pinned(files)
    if not args.calibrate:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "heldout.txt"), "wb") as fh:
            fh.write(held)
    t0 = time.time()
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(len(kinds)) as pool:
        res = pool.starmap(run_kind, [(args, k) for k in kinds])
    wall = time.time() - t0
    if args.calibrate:
        return
    mpath = os.path.join(args.out, "metrics.json")
    metrics = json.load(open(mpath)) if os.path.exists(mpath) else {}
    c = config(args)
    n_lin = sum(p.numel() for n, p in M.BitNet(c, True).named_parameters()
                if p.dim() == 2 and n != "token_embd.weight")
    metrics.update({
        "config": c,
        "args": {k: v for k, v in vars(args).items() if k != "calibrate"},
        "command": " ".join(["/usr/bin/python3"] + sys.argv),
        "wall_seconds": round(wall, 1),
        "torch": torch.__version__, "python": platform.python_version(),
        "cpu": cpu_model(), "nproc": os.cpu_count(),
        "params": {"linear": n_lin, "embedding": c["vocab"] * c["hidden"]},
        "data": {"package": data.PACKAGE, "train_files": len(tr_files),
                 "heldout_files": len(ho_files), "train_bytes": len(train_text),
                 "heldout_split_bytes": len(held_text), "heldout_txt_bytes": len(held),
                 "heldout_files_list": [os.path.relpath(f, data.SOURCES) for f in ho_files],
                 "manifest": [list(e) for e in data.manifest(files)]},
    })
    for k, r in zip(kinds, res):
        metrics[k] = r
    with open(mpath, "w") as fh:
        json.dump(metrics, fh, indent=1)
        fh.write("\n")
    print(f"wall {wall:.0f} s; {mpath}")


def cpu_model():
    try:
        for ln in open("/proc/cpuinfo"):
            if ln.startswith("model name"):
                return ln.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


if __name__ == "__main__":
    main()
