#!/usr/bin/env python3
"""transform_peers: the random-transform suite's peers, joined to fdx's records.

usage: transform_peers.py FDX_JSONL LIST_TXT [LIBRETT_JSONL] > merged.jsonl

Reads fdx's records (`fdx bench transform --suite random --json`) and, when
given, LibreTT's (bench/peers/librett_cases); times PyTorch on the same cases
when torch with CUDA is importable (out.copy_(x.permute(...)) into a kept
output, CUDA events, median of 20 after 3 warm-ups, the mapping checked at
sampled points); writes each fdx record with peer_librett_ratio and
peer_torch_ratio (each peer's effective bandwidth over the same-size copy
that the peer's own run measured) and a summary on stderr: the distribution of
fdx's ratio_same_size and the share of cases where fdx >= LibreTT.
Bench use only: never part of libfdx."""
import json
import random
import sys


def torch_ratio(torch, shape, perm, elem):
    dt = {1: torch.uint8, 2: torch.int16, 4: torch.float32, 8: torch.float64, 16: torch.complex128}[elem]
    r = len(shape)
    x = torch.randint(0, 250, tuple(reversed(shape)), device="cuda").to(dt)
    dims = [r - 1 - perm[r - 1 - j] for j in range(r)]
    out = torch.empty(tuple(shape[perm[r - 1 - j]] for j in range(r)), dtype=dt, device="cuda")
    out.copy_(x.permute(dims))
    rnd = random.Random(7)
    for _ in range(64):
        xl = [rnd.randrange(n) for n in shape]
        a = x[tuple(reversed(xl))].item()
        b = out[tuple(xl[perm[r - 1 - j]] for j in range(r))].item()
        if a != b:
            return None
    def med(fn):
        s, e, t = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True), []
        for i in range(23):
            s.record()
            fn()
            e.record()
            e.synchronize()
            if i >= 3:
                t.append(s.elapsed_time(e))
        return sorted(t)[len(t) // 2]
    t_perm = med(lambda: out.copy_(x.permute(dims)))
    y = torch.empty_like(x)
    t_copy = med(lambda: y.copy_(x))
    del x, y, out
    return t_copy / t_perm


def main():
    fdx = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
    lrt = {}
    if len(sys.argv) > 3:
        for l in open(sys.argv[3]):
            if l.startswith("{"):
                r = json.loads(l)
                lrt[r["case"]] = r
    try:
        import torch
        have_torch = torch.cuda.is_available()
    except Exception:
        have_torch = False
    ratios, wins, compared = [], 0, 0
    for r in fdx:
        p = lrt.get(r["case"])
        if p and p.get("supported") and p.get("verified"):
            r["peer_librett_ratio"] = p["ratio_same_size"]
            compared += 1
            wins += r["ratio_same_size"] >= p["ratio_same_size"]
        if have_torch:
            t = torch_ratio(torch, r["shape"], r["perm"], r["elem_bytes"])
            if t is not None:
                r["peer_torch_ratio"] = t
        ratios.append(r["ratio_same_size"])
        print(json.dumps(r))
    ratios.sort()
    n = len(ratios)
    if n:
        print(f"random-transform: {n} cases, ratio_same_size median {ratios[n // 2]:.3f}, "
              f"p10 {ratios[n // 10]:.3f}, min {ratios[0]:.3f}; fdx >= LibreTT on {wins}/{compared}; "
              f"verified {sum(r['verified'] for r in fdx)}/{n}", file=sys.stderr)
        worst = sorted(fdx, key=lambda r: r["ratio_same_size"])[:5]
        for r in worst:
            print(f"  worst: {r['case']} {'x'.join(map(str, r['shape']))} perm {r['perm']} elem {r['elem_bytes']}: "
                  f"{r['ratio_same_size']:.3f} (LibreTT {r.get('peer_librett_ratio', float('nan')):.3f})", file=sys.stderr)


if __name__ == "__main__":
    main()
