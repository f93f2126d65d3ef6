"""data.py - the training corpus (scripts/train/DATA.md), its held-out split,
byte tokens and the bits-per-byte protocol shared with `mpbench e2e --ppl`.

Tokens: 0 <unk>, 1 <s> (BOS), 2 </s>, then byte b is token b + 3 (the
placeholder vocabulary harness/gguf/gguf-model.c writes: <0x00>..<0xFF> at
3..258); tokens 259.. are never used.

A training sequence is BOS followed by T - 1 bytes of a random window of T
bytes of the training text; the targets are the window's T bytes (the first
predicted from BOS alone).  Bits per byte of a text: the text's bytes in
consecutive chunks of T (the last one shorter); each chunk is decoded from a
fresh context as BOS + chunk[:-1] and scored on all of its bytes;
bpb = sum(-log2 p(byte)) / bytes.
"""
import hashlib
import os

import torch

PACKAGE = "python3.11-doc"  # Debian 12; version and files pinned in DATA.md
BOS = 1
BYTE0 = 3
SOURCES = "/usr/share/doc/python3.11/html/_sources"
# The prose of the Python documentation: everything but the API reference
# sections (library/, c-api/, distutils/), which are mostly signatures.
DIRS = ("distributing", "extending", "faq", "howto", "install", "installing", "reference",
        "tutorial", "using", "whatsnew")
HELDOUT_EVERY = 20  # file i (sorted by path) is held out when i % 20 == 19: 5%


def corpus_files(root=SOURCES):
    files = []
    for d in DIRS:
        for dirpath, _, names in os.walk(os.path.join(root, d)):
            files += [os.path.join(dirpath, n) for n in names if n.endswith(".rst.txt")]
    files.sort(key=lambda p: os.path.relpath(p, root))
    if not files:
        raise SystemExit(f"no *.rst.txt under {root}: install python3.11-doc (make tiny-model)")
    return files


PINNED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus.sha256")


def check_pinned(files, root=SOURCES):
    """Refuses a corpus other than the pinned one (corpus.sha256): another
    python3.11-doc release would train another model."""
    want = {}
    with open(PINNED) as fh:
        for ln in fh:
            h, rel = ln.split(None, 1)
            want[rel.strip()] = h
    have = {rel: h for rel, _, h in manifest(files, root)}
    bad = sorted(set(want) ^ set(have)) + sorted(r for r in want if r in have and
                                                  want[r] != have[r])
    if bad:
        raise SystemExit(f"corpus under {root} differs from {PINNED} ({len(bad)} files, first "
                         f"{bad[0]}); --any-corpus trains on it anyway")


def split(files):
    train = [f for i, f in enumerate(files) if i % HELDOUT_EVERY != HELDOUT_EVERY - 1]
    held = [f for i, f in enumerate(files) if i % HELDOUT_EVERY == HELDOUT_EVERY - 1]
    return train, held


def read_all(files):
    parts = []
    for f in files:
        with open(f, "rb") as fh:
            parts.append(fh.read())
    return b"".join(parts)


def manifest(files, root=SOURCES):
    """(relative path, bytes, sha256) per file."""
    out = []
    for f in files:
        with open(f, "rb") as fh:
            b = fh.read()
        out.append((os.path.relpath(f, root), len(b), hashlib.sha256(b).hexdigest()))
    return out


def to_tokens(b):
    return torch.frombuffer(bytearray(b), dtype=torch.uint8).long() + BYTE0


class Batches:
    """Seeded random windows of the training text: the same sequence of
    batches for every model trained with the same seed."""

    def __init__(self, text, T, B, seed):
        self.tok = to_tokens(text)
        self.T, self.B = T, B
        self.g = torch.Generator().manual_seed(seed)

    def next(self):
        off = torch.randint(0, len(self.tok) - self.T, (self.B,), generator=self.g)
        win = torch.stack([self.tok[o:o + self.T] for o in off.tolist()])
        x = torch.cat((torch.full((self.B, 1), BOS, dtype=torch.long), win[:, :-1]), dim=1)
        return x, win


def chunks(text, T):
    """(inputs, targets, lengths) of the bits-per-byte protocol; short last
    chunk padded (padding positions are not scored)."""
    tok = to_tokens(text)
    n = (len(tok) + T - 1) // T
    x = torch.full((n, T), BOS, dtype=torch.long)
    y = torch.full((n, T), -1, dtype=torch.long)
    lens = []
    for i in range(n):
        c = tok[i * T:(i + 1) * T]
        L = len(c)
        y[i, :L] = c
        x[i, 1:L] = c[:-1]
        lens.append(L)
    return x, y, lens


@torch.no_grad()
def bits_per_byte(model, text, T, batch=32):
    """Sum of -log2 p over the text's bytes / bytes, by the protocol above."""
    x, y, _ = chunks(text, T)
    model.eval()
    nats, count = 0.0, 0
    for i in range(0, len(x), batch):
        logits = model(x[i:i + batch])
        t = y[i:i + batch]
        lp = torch.log_softmax(logits.double(), dim=-1)
        ok = t >= 0
        nats -= lp[ok].gather(-1, t[ok][:, None]).sum().item()
        count += int(ok.sum())
    return nats / count / torch.log(torch.tensor(2.0, dtype=torch.float64)).item()
