"""Heat, wave and Poisson runs (include/fdx/solvers.h) stepped from Python,
with a callback every N steps."""
import ctypes

import numpy as np

from ._core import context
from ._lib import lib, check, SimDiag, Handle, _release

KINDS = {"heat": 0, "wave": 1, "poisson": 2}


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

    def __init__(self, kind, ctx=None, **config):
        if kind not in KINDS:
            raise ValueError(f"kind {kind!r} is not one of heat, wave, poisson")
        self.kind = kind
        self.ctx = ctx or context()
        self._cfg = ctypes.c_void_p()
        self._h = ctypes.c_void_p()
        check(lib.fdx_sim_config_create(KINDS[kind], ctypes.byref(self._cfg)))
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

    def config(self, key):
        v = lib.fdx_sim_config_get(self._cfg, key.replace("_", "-").encode())
        return None if v is None else v.decode()

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

    def run(self, steps=None, every=0, callback=None):
        """Takes `steps` steps (default: the configured steps left); every
        `every` steps (and after the last) calls callback(sim, step, field)
        with field a NumPy copy of the current field.  Returning False from
        the callback stops the run."""
        if steps is None:
            steps = int(self.config("steps")) - self.steps_done
        for s in range(1, int(steps) + 1):
            check(lib.fdx_sim_step(self._h))
            if callback and every and (s % every == 0 or s == steps):
                if callback(self, self.steps_done, self.field()) is False:
                    break

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
