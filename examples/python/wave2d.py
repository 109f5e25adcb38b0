"""A 2D acoustic wave through a layered velocity model, run by fdx from
Python: snapshots of the field every N steps (a callback) and the
seismogram of a line of receivers, plotted with matplotlib.

    FDX_LIBRARY_DIR=build/lib PYTHONPATH=python python3 examples/python/wave2d.py [OUTDIR]

Writes OUTDIR/wave2d_snapshots.png and OUTDIR/wave2d_seismogram.png
(default OUTDIR: ./wave2d-out).  Runs headless with MPLBACKEND=Agg."""
import os
import sys

import numpy as np
import matplotlib
if not os.environ.get("DISPLAY"):
    matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import fdx  # noqa: E402

out_dir = sys.argv[1] if len(sys.argv) > 1 else "wave2d-out"
size = int(os.environ.get("WAVE2D_SIZE", "256"))
steps = int(os.environ.get("WAVE2D_STEPS", "600"))
os.makedirs(out_dir, exist_ok=True)

# The same keys as `fdx wave --help`: a layered model, a Ricker source, a
# line of receivers near the top, an absorbing sponge.
receivers = ";".join(f"{i},{size // 8}" for i in range(8, size - 8, 4))
sim = fdx.Simulation("wave", size=f"{size}x{size}", steps=steps, order=8, model="layered",
                     receivers=receivers, sponge=20)
print(f"fdx {fdx.version_string()} on {sim.ctx.device_name}: {sim.shape} grid, dt {sim.dt:.3g}")

snapshots = []


def keep(s, step, field):
    snapshots.append((step, field))


sim.run(steps=steps, every=steps // 4, callback=keep)
traces = sim.receivers()  # (receivers, steps)
print(f"{len(snapshots)} snapshots, seismogram {traces.shape}, energy {sim.diagnose()['energy']:.4g}")

fig, axes = plt.subplots(1, len(snapshots), figsize=(4 * len(snapshots), 4))
for ax, (step, f) in zip(np.atleast_1d(axes), snapshots):
    lim = np.abs(f).max() or 1
    ax.imshow(f, cmap="seismic", vmin=-lim, vmax=lim, origin="lower")
    ax.set_title(f"step {step}")
    ax.set_xticks([])
    ax.set_yticks([])
fig.tight_layout()
fig.savefig(os.path.join(out_dir, "wave2d_snapshots.png"), dpi=80)

fig, ax = plt.subplots(figsize=(6, 5))
lim = np.abs(traces).max() or 1
ax.imshow(traces.T, aspect="auto", cmap="gray", vmin=-lim / 4, vmax=lim / 4,
          extent=[0, traces.shape[0], traces.shape[1] * sim.dt, 0])
ax.set_xlabel("receiver")
ax.set_ylabel("time")
ax.set_title("seismogram")
fig.tight_layout()
fig.savefig(os.path.join(out_dir, "wave2d_seismogram.png"), dpi=80)
print(f"wrote {out_dir}/wave2d_snapshots.png and {out_dir}/wave2d_seismogram.png")
