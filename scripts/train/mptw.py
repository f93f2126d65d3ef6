"""mptw.py - writes and reads the trained-weights files of models/trained/
(scripts/train/FORMAT.md): a text header of `key value` lines and one
`tensor` line per tensor, then the tensors' bytes, little-endian.

Tensor types: f32 (norms), bf16 (embedding; the float twin's linears) and t2
(a ternary linear: 2-bit codes, code = w + 1, four weights per byte from the
low bits up, row-major; the per-tensor scale on the tensor line as a C99 hex
float, which strtof() and float.fromhex() read exactly).
"""
import struct

import torch

MAGIC = "MPTW 1"
ALIGN = 64


def bf16_round(t):
    """float32 -> nearest bf16 (ties to even) as float32, like e2e-head.c."""
    u = t.float().contiguous().view(torch.int32).long() & 0xFFFFFFFF
    u = (u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000
    u = torch.where(u >= 0x80000000, u - 0x100000000, u)
    return u.to(torch.int32).view(torch.float32)


def _bf16_bytes(t):
    u = bf16_round(t).view(torch.int32).long() & 0xFFFFFFFF
    return (u >> 16).to(torch.int32).numpy().astype("<u2").tobytes()


def _t2_bytes(codes):
    c = (codes.to(torch.int64).flatten() + 1)
    pad = (-len(c)) % 4
    if pad:
        c = torch.cat((c, torch.ones(pad, dtype=torch.int64)))
    c = c.view(-1, 4)
    b = c[:, 0] | (c[:, 1] << 2) | (c[:, 2] << 4) | (c[:, 3] << 6)
    return b.to(torch.uint8).numpy().tobytes()


def write(path, meta, tensors):
    """meta: ordered (key, value); tensors: (name, type, 2-D tensor, scale or None).
    A 1-D tensor is written with rows 1."""
    blobs, lines = [], []
    off = 0
    for name, ty, t, scale in tensors:
        t = t.detach().cpu()
        rows, cols = (1, t.shape[0]) if t.dim() == 1 else tuple(t.shape)
        if ty == "f32":
            b = t.float().contiguous().numpy().astype("<f4").tobytes()
        elif ty == "bf16":
            b = _bf16_bytes(t)
        elif ty == "t2":
            b = _t2_bytes(t)
        else:
            raise ValueError(ty)
        line = f"tensor {name} {ty} {rows} {cols} {off} {len(b)}"
        if ty == "t2":
            line += f" {float(scale).hex()}"
        lines.append(line)
        blobs.append(b + b"\0" * ((-len(b)) % ALIGN))
        off += len(blobs[-1])
    head = MAGIC + "\n" + "".join(f"{k} {v}\n" for k, v in meta) + "\n".join(lines) + "\nend\n"
    hb = head.encode()
    hb += b"\n" * ((-len(hb)) % ALIGN)
    with open(path, "wb") as f:
        f.write(hb)
        for b in blobs:
            f.write(b)


def read(path):
    """(meta dict of strings, {name: (type, float tensor, scale)}); t2 tensors
    come back as their codes (float -1/0/1)."""
    with open(path, "rb") as f:
        raw = f.read()
    end = raw.index(b"\nend\n") + 5
    base = end + (-end) % ALIGN
    meta, out = {}, {}
    lines = raw[:end].decode().split("\n")
    if lines[0] != MAGIC:
        raise ValueError(f"{path}: not an {MAGIC} file")
    for ln in lines[1:]:
        if not ln or ln == "end":
            continue
        k, _, v = ln.partition(" ")
        if k != "tensor":
            meta[k] = v
            continue
        p = v.split()
        name, ty, rows, cols, off, n = p[0], p[1], int(p[2]), int(p[3]), int(p[4]), int(p[5])
        b = raw[base + off:base + off + n]
        count = rows * cols
        if ty == "f32":
            t = torch.tensor(struct.unpack(f"<{count}f", b))
        elif ty == "bf16":
            h = torch.tensor(struct.unpack(f"<{count}H", b), dtype=torch.int64)
            u = h << 16
            u = torch.where(u >= 0x80000000, u - 0x100000000, u)
            t = u.to(torch.int32).view(torch.float32)
        else:
            by = torch.tensor(bytearray(b), dtype=torch.int64)
            c = torch.stack([(by >> s) & 3 for s in (0, 2, 4, 6)], dim=1).flatten()[:count]
            t = (c - 1).float()
        scale = float.fromhex(p[6]) if ty == "t2" else None
        out[name] = (ty, t.view(rows, cols) if rows > 1 else t, scale)
    return meta, out
