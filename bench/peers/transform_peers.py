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
fdx's ratio_same_size (all cases and by element size) and the share of cases
where fdx >= LibreTT, for each "variant" when the records carry one
(`--variants`: the peers are timed once a case and joined to every variant).
TRANSFORM_PEERS=0 in the environment: PyTorch is not timed.
Bench use only: never part of libfdx."""
import json
import os
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
        have_torch = torch.cuda.is_available() and os.environ.get("TRANSFORM_PEERS") != "0"
    except Exception:
        have_torch = False
    torch_of = {}
    for r in fdx:
        p = lrt.get(r["case"])
        if p and p.get("supported") and p.get("verified"):
            r["peer_librett_ratio"] = p["ratio_same_size"]
        if have_torch:
            if r["case"] not in torch_of:
                torch_of[r["case"]] = torch_ratio(torch, r["shape"], r["perm"], r["elem_bytes"])
            if torch_of[r["case"]] is not None:
                r["peer_torch_ratio"] = torch_of[r["case"]]
        print(json.dumps(r))
    by_variant = {}
    for r in fdx:
        by_variant.setdefault(r.get("variant"), []).append(r)
    for variant, rows in by_variant.items():
        summarize(rows, f"random-transform{' [' + variant + ']' if variant else ''}")
    compare(by_variant)


def dist(xs):
    xs = sorted(xs)
    n = len(xs)
    return f"median {xs[n // 2]:.3f}, p10 {xs[n // 10]:.3f}, min {xs[0]:.3f}" if n else "no cases"


def compare(by_variant):
    """Each variant against "default", case by case: where the default loses."""
    base = {r["case"]: r for r in by_variant.get("default", [])}
    for variant, rows in by_variant.items():
        if variant in (None, "default") or not base:
            continue
        pairs = [(base[r["case"]], r) for r in rows if r["case"] in base]
        if not pairs:
            continue
        q = sorted(d["ratio_same_size"] / v["ratio_same_size"] for d, v in pairs)
        loses = sorted(pairs, key=lambda p: p[0]["ratio_same_size"] / p[1]["ratio_same_size"])
        print(f"default / [{variant}]: median {q[len(q) // 2]:.3f}, default slower by > 3% on "
              f"{sum(x < 0.97 for x in q)}/{len(q)}, faster by > 3% on {sum(x > 1.03 for x in q)}/{len(q)}", file=sys.stderr)
        for e in sorted({d["elem_bytes"] for d, _ in pairs}):
            qe = sorted(d["ratio_same_size"] / v["ratio_same_size"] for d, v in pairs if d["elem_bytes"] == e)
            best = [max(d["ratio_same_size"], v["ratio_same_size"]) for d, v in pairs if d["elem_bytes"] == e]
            print(f"  {e:2d}-byte: default / [{variant}] median {qe[len(qe) // 2]:.3f}, slower on "
                  f"{sum(x < 0.97 for x in qe)}/{len(qe)}; the better of the two per case: {dist(best)}", file=sys.stderr)
        for d, v in loses[:10]:
            if d["ratio_same_size"] < 0.97 * v["ratio_same_size"]:
                print(f"  default loses: {d['case']} elem {d['elem_bytes']} {'x'.join(map(str, d['shape']))} perm "
                      f"{d['perm']}: {d['ratio_same_size']:.3f} vs {v['ratio_same_size']:.3f}", file=sys.stderr)


def summarize(rows, label):
    n = len(rows)
    if not n:
        return
    compared = [r for r in rows if "peer_librett_ratio" in r]
    wins = sum(r["ratio_same_size"] >= r["peer_librett_ratio"] for r in compared)
    print(f"{label}: {n} cases, ratio_same_size {dist([r['ratio_same_size'] for r in rows])}; "
          f"fdx >= LibreTT on {wins}/{len(compared)}; verified {sum(r['verified'] for r in rows)}/{n}", file=sys.stderr)
    for e in sorted({r["elem_bytes"] for r in rows}):
        xs = [r["ratio_same_size"] for r in rows if r["elem_bytes"] == e]
        print(f"  {e:2d}-byte elements ({len(xs)}): {dist(xs)}", file=sys.stderr)
    for r in sorted(rows, key=lambda r: r["ratio_same_size"])[:5]:
        print(f"  worst: {r['case']} {'x'.join(map(str, r['shape']))} perm {r['perm']} elem {r['elem_bytes']}: "
              f"{r['ratio_same_size']:.3f} (LibreTT {r.get('peer_librett_ratio', float('nan')):.3f})", file=sys.stderr)


if __name__ == "__main__":
    main()
