"""Heat, wave and Poisson runs (include/fdx/solvers.h) stepped from Python,
with a callback every N steps."""
import ctypes

import numpy as np

from ._core import context
from ._lib import lib, check, SimDiag, Handle, _release, _fn, _P, _S, Options

KINDS = {"heat": 0, "wave": 1, "poisson": 2}


class SimResult(ctypes.Structure):
    """Mirror of fdx_sim_result."""
    _fields_ = [("steps", ctypes.c_int64), ("steps_this_run", ctypes.c_int64), ("interrupted", ctypes.c_int),
                ("wall_s", ctypes.c_double), ("step_s", ctypes.c_double), ("output_wait_s", ctypes.c_double),
                ("mcells_per_s", ctypes.c_double), ("effective_gbps", ctypes.c_double), ("diag", SimDiag),
                ("units", ctypes.c_int), ("procs", ctypes.c_int), ("proc", ctypes.c_int),
                ("summary", ctypes.c_char * 4096)]


_fn("fdx_sim_kind_name", ctypes.c_char_p, ctypes.c_int)
_fn("fdx_sim_config_load", _S, _P, ctypes.c_char_p)
_fn("fdx_sim_config_parse", _S, _P, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p)
_fn("fdx_sim_config_text", ctypes.c_void_p, _P)
_fn("fdx_sim_config_from_checkpoint", _S, _P, ctypes.c_char_p)
_fn("fdx_sim_check_output", _S, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int)
_fn("fdx_sim_step_arrays", _S, _P, _P, _P, _P, ctypes.c_int64, _P)
_fn("fdx_sim_run", _S, _P, _P, ctypes.POINTER(SimResult))
_fn("fdx_sim_run_dist", _S, _P, _P, ctypes.c_int, ctypes.c_int, _P, ctypes.POINTER(SimResult))


class SimTiming(ctypes.Structure):
    """Mirror of fdx_sim_timing."""
    _fields_ = [("reps", ctypes.c_int), ("batch", ctypes.c_int), ("graph", ctypes.c_int),
                ("median_ms", ctypes.c_double), ("min_ms", ctypes.c_double), ("max_ms", ctypes.c_double),
                ("mean_ms", ctypes.c_double), ("fetch_bytes", ctypes.c_double), ("write_bytes", ctypes.c_double),
                ("graph_used", ctypes.c_int), ("local_units", ctypes.c_int), ("digest", ctypes.c_uint64),
                ("digest_timed", ctypes.c_uint64), ("transport", ctypes.c_char * 32), ("note", ctypes.c_char * 256)]


_fn("fdx_sim_run_dist_timed", _S, _P, _P, ctypes.c_int, ctypes.c_int, _P, ctypes.POINTER(SimResult),
    ctypes.POINTER(SimTiming))
_fn("fdx_sim_interrupt", None)
_fn("fdx_sim_field_view", _S, _P, ctypes.POINTER(_P))
_libc = ctypes.CDLL(None)
_libc.free.argtypes = [ctypes.c_void_p]
_libc.free.restype = None


def _stderr():
    """The C library's stderr (a FILE*), for progress lines."""
    return ctypes.c_void_p.in_dll(_libc, "stderr")


def interrupt():
    """Asks a running Simulation.run_all to stop after writing a checkpoint
    (fdx_sim_interrupt; safe from a signal handler)."""
    lib.fdx_sim_interrupt()


def check_output(directory, restart=None, overwrite=False):
    """Raises FdxError when `directory` cannot be a run's output directory
    (a file, not writable, another run's files unless overwrite; the restart's own is fine)."""
    check(lib.fdx_sim_check_output(str(directory).encode(), None if restart is None else str(restart).encode(),
                                   int(bool(overwrite))))


def config_keys(kind):
    """The configuration keys of a kind (the CLI's flags): {name: (metavar, default, help)}."""
    out, i = {}, 0
    while True:
        f = [ctypes.c_char_p() for _ in range(4)]
        if not lib.fdx_sim_config_key(KINDS[kind], i, *[ctypes.byref(x) for x in f]):
            return out
        name, meta, default, help_ = [(x.value or b"").decode() for x in f]
        out[name] = (meta, default, help_)
        i += 1


def _boundary_text(spec, config):
    """A boundary given as a dict / fdx.Boundary as the key's text (rank from size)."""
    from ._bc import Boundary
    size = str(config.get("size", ""))
    if not size:
        raise ValueError("boundary= as a dict needs size= (the rank) or the text form")
    b = Boundary(spec, len(size.split("x")))
    if any(b.desc.face[a][s].values for a in range(b.rank) for s in (0, 1)):
        raise ValueError("a simulation's boundary takes one value a face, not arrays of values")
    return b.text


class Simulation:
    """A heat, wave or Poisson run configured by the keys of `fdx heat|wave|poisson`
    (size="256x256", steps=1000, order=8, model="layers", ...; underscores
    or dashes).  boundary: "insulated", "fixed", conditions as text
    ("all=dirichlet:0,x=periodic") or a dict as fdx.Boundary takes (NumPy
    axes, one value a face); temporal (heat): "off", "auto" or K steps a pass.  NumPy views: field() is the current field as a NumPy array
    (NumPy axis order: shape reversed from the CLI's NXxNY)."""

    def __init__(self, kind, ctx=None, config_file=None, config_text=None, checkpoint=None, **config):
        if kind not in KINDS:
            raise ValueError(f"kind {kind!r} is not one of heat, wave, poisson")
        self.kind = kind
        self.ctx = ctx or context()
        self._cfg = ctypes.c_void_p()
        self._h = ctypes.c_void_p()
        check(lib.fdx_sim_config_create(KINDS[kind], ctypes.byref(self._cfg)))
        if checkpoint is not None:  # a checkpoint's config first (restart = checkpoint continues it)
            check(lib.fdx_sim_config_from_checkpoint(self._cfg, str(checkpoint).encode()))
        if config_file is not None:
            check(lib.fdx_sim_config_load(self._cfg, str(config_file).encode()))
        if config_text is not None:
            t = config_text.encode()
            check(lib.fdx_sim_config_parse(self._cfg, t, len(t), b"config_text"))
        for k, v in config.items():
            if k == "boundary" and not isinstance(v, str):
                v = _boundary_text(v, config)
            check(lib.fdx_sim_config_set(self._cfg, k.replace("_", "-").encode(), str(v).encode()))
        check(lib.fdx_sim_create(self.ctx.handle, self._cfg, ctypes.byref(self._h)))
        self._handle = Handle(self._h, lib.fdx_sim_destroy, [self.ctx._handle])

    def __del__(self, _destroy_cfg=lib.fdx_sim_config_destroy, _ref=ctypes.byref):
        _release(self)
        if getattr(self, "_cfg", None):
            _destroy_cfg(_ref(self._cfg))

    def config(self, key=None):
        """A key's value as text; without a key, the keys that differ from
        their defaults as {key: value}."""
        if key is None:
            p = lib.fdx_sim_config_text(self._cfg)
            if not p:
                raise MemoryError("fdx_sim_config_text")
            try:
                text = ctypes.string_at(p).decode()
            finally:
                _libc.free(p)
            pairs = (line.split(" = ", 1) for line in text.splitlines() if " = " in line)
            return {k: (v[1:-1] if len(v) >= 2 and v[0] == v[-1] == '"' else v) for k, v in pairs}
        v = lib.fdx_sim_config_get(self._cfg, key.replace("_", "-").encode())
        return None if v is None else v.decode()

    def run_all(self, progress=False):
        """The whole run as `fdx heat|wave|poisson` does it (fdx_sim_run): to
        the configured steps, writing the configured outputs (pictures,
        fields, receivers, checkpoints, DIR/summary.json), restarting from
        `restart`; progress lines on stderr with progress=True.  Returns the
        summary record as a dict (steps, rates, checksums, ...)."""
        r = SimResult()
        check(lib.fdx_sim_run(self._h, _stderr() if progress else None, ctypes.byref(r)))
        return self._result(r)

    def run_dist(self, units, overlap=True, progress=False, **options):
        """The same whole run with the grid split over `units` units of this
        process (GPUs, or CPU units with backend="cpu"; every MPI rank's when
        started by mpirun), bit-identical to run_all; the simulation must
        live on a CPU context.  options: context options of the units."""
        r = SimResult()
        with Options(options) as o:
            check(lib.fdx_sim_run_dist(self._h, o, int(units), int(bool(overlap)), _stderr() if progress else None,
                                       ctypes.byref(r)))
        return self._result(r)

    def run_dist_timed(self, units, reps=20, batch=48, graph=True, overlap=True, progress=False, **options):
        """run_dist, then its steps timed as `fdx dist` times them
        (fdx_sim_run_dist_timed): the final field's digest, then `reps`
        batches of `batch` steps after the run (and a first untimed one),
        each ended by a sync of every unit; graph=True replays CUDA graphs
        of 24 steps (CUDA, one process).  The timed steps move the field on
        (the digest after them is the final digest of a run of steps +
        (reps + 1) x batch steps); the simulation keeps the run's final
        fields.  Returns run_dist's summary with "timing": median_ms,
        min_ms, max_ms, mean_ms (a step), fetch_bytes, write_bytes (a step,
        whole grid), graph_used, local_units, digest and digest_timed (the
        hexadecimal text `fdx dist --json` prints), transport, note."""
        if int(reps) < 0 or int(batch) < 1:
            raise ValueError(f"reps {reps} must be >= 0 and batch {batch} >= 1")
        r, t = SimResult(), SimTiming(reps=int(reps), batch=int(batch), graph=int(bool(graph)))
        with Options(options) as o:
            check(lib.fdx_sim_run_dist_timed(self._h, o, int(units), int(bool(overlap)),
                                             _stderr() if progress else None, ctypes.byref(r), ctypes.byref(t)))
        out = self._result(r)
        out["timing"] = {n: getattr(t, n) for n in ("median_ms", "min_ms", "max_ms", "mean_ms", "fetch_bytes",
                                                    "write_bytes", "local_units", "reps", "batch")}
        out["timing"].update(graph_used=bool(t.graph_used), digest=f"{t.digest:016x}",
                             digest_timed=f"{t.digest_timed:016x}", transport=t.transport.decode(),
                             note=t.note.decode())
        return out

    @staticmethod
    def _result(r):
        import json
        out = json.loads(r.summary.decode()) if r.summary else {}
        out.update(steps=r.steps, steps_this_run=r.steps_this_run, interrupted=bool(r.interrupted),
                   wall_s=r.wall_s, step_s=r.step_s, units=r.units, procs=r.procs, proc=r.proc,
                   diag={n: getattr(r.diag, n) for n, _ in SimDiag._fields_})
        return out

    def step_arrays(self, next, cur, prev=None, step=None, stream=None):
        """One step of this simulation's physics on caller arrays (the
        simulation's precision and shape, NumPy / CuPy / torch): next from
        cur (and prev for wave); step numbers the step (the source's time;
        default: the steps done so far).  Returns next."""
        from ._array import plain
        from ._core import stream_pointer
        h = [plain(x, self.ctx) if x is not None else None for x in (next, cur, prev)]
        check(lib.fdx_sim_step_arrays(self._h, h[0], h[1], h[2], self.steps_done if step is None else int(step),
                                      ctypes.c_void_p(stream_pointer(stream))))
        return next

    @property
    def shape(self):
        """NumPy shape of the field (the CLI's NXxNY reversed)."""
        r = lib.fdx_sim_rank(self._h)
        p = lib.fdx_sim_shape(self._h)
        return tuple(p[i] for i in range(r))[::-1]

    @property
    def steps_done(self):
        return lib.fdx_sim_steps_done(self._h)

    @property
    def time(self):
        return lib.fdx_sim_time(self._h)

    @property
    def dt(self):
        return lib.fdx_sim_dt(self._h)

    def step(self, n=1):
        for _ in range(int(n)):
            check(lib.fdx_sim_step(self._h))

    def run(self, steps=None, every=0, callback=None, view=False):
        """Takes `steps` steps (default: the configured steps left); every
        `every` steps (and after the last) calls callback(sim, step, field)
        with field a NumPy copy of the current field (doubles), or with
        view=True the field itself without a copy (field_view(): valid
        during the callback).  Returning False from the callback stops the
        run."""
        if steps is None:
            steps = int(self.config("steps")) - self.steps_done
        for s in range(1, int(steps) + 1):
            check(lib.fdx_sim_step(self._h))
            if callback and every and (s % every == 0 or s == steps):
                if callback(self, self.steps_done, self.field_view() if view else self.field()) is False:
                    break

    def field_view(self):
        """The current field itself, no copy (fdx_sim_field_view): an
        fdx.Array in the simulation's precision and memory (np.asarray(v)
        on the CPU backend; cupy.asarray(v) / torch.as_tensor(v) on CUDA),
        valid until the next step or set_field, which write or replace it
        (copy it to keep it).  Writing to it changes the simulation."""
        from ._array import borrowed
        h = ctypes.c_void_p()
        check(lib.fdx_sim_field_view(self._h, ctypes.byref(h)))
        return borrowed(h, self.ctx, self)

    def field(self):
        """The current field as doubles (a copy: fdx_sim_get_field)."""
        out = np.empty(self.shape, np.float64)
        check(lib.fdx_sim_get_field(self._h, ctypes.c_void_p(out.ctypes.data)))
        return out

    def set_field(self, cur, prev=None):
        cur = np.ascontiguousarray(cur, np.float64)
        if cur.shape != self.shape:
            raise ValueError(f"field of shape {cur.shape}, the simulation's is {self.shape}")
        p = None
        if prev is not None:
            prev = np.ascontiguousarray(prev, np.float64)
            if prev.shape != self.shape:
                raise ValueError(f"previous field of shape {prev.shape}, the simulation's is {self.shape}")
            p = ctypes.c_void_p(prev.ctypes.data)
        check(lib.fdx_sim_set_field(self._h, ctypes.c_void_p(cur.ctypes.data), p))

    def diagnose(self):
        """integral, max_abs, energy (wave), change (Poisson), and the checksums sum and l2."""
        d = SimDiag()
        check(lib.fdx_sim_diagnose(self._h, ctypes.byref(d)))
        return {n: getattr(d, n) for n, _ in SimDiag._fields_}

    def receivers(self):
        """The wave's receiver traces so far: a NumPy array (receivers, steps)."""
        n, steps = ctypes.c_int(), ctypes.c_int64()
        p = ctypes.POINTER(ctypes.c_double)()
        check(lib.fdx_sim_receivers(self._h, ctypes.byref(n), ctypes.byref(steps), ctypes.byref(p)))
        if n.value == 0 or steps.value == 0:
            return np.zeros((n.value, steps.value))
        return np.ctypeslib.as_array(p, shape=(n.value * steps.value,)).reshape(n.value, steps.value).copy()
