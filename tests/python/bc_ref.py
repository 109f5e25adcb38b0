"""NumPy references shared by the boundary, user-stencil, temporal and
multigrid tests (also imported by python/bench/gpu_check.py): ghost frames
as include/fdx/boundary.h defines them, user stencils term by term, and the
multigrid operator (include/fdx/mg.h) with its relative residual."""
import numpy as np


def fill_ref(u, faces, r, h):
    """u's ghost frame (r points a face) filled per boundary.h: faces
    {(NumPy axis, side 0|1): (kind, value or array)}; only the layers over
    the unknowns of the other axes are written (corners and edges keep u's
    values).  h: spacing per NumPy axis.  Returns a new array."""
    v = np.array(u, dtype=np.float64)
    n = u.shape
    core = [slice(r, m - r) for m in n]
    for (ax, side), (kind, val) in faces.items():
        if kind == "none":
            continue
        m = n[ax]
        for k in range(r):
            g = (r - 1 - k) if side == 0 else (m - r + k)
            mirror = (r + k) if side == 0 else (m - r - 1 - k)
            if kind == "periodic":
                src = g + (m - 2 * r) if side == 0 else g - (m - 2 * r)
            else:
                src = mirror
            dst_sl, src_sl = list(core), list(core)
            dst_sl[ax], src_sl[ax] = g, src
            s = v[tuple(src_sl)]
            if kind == "dirichlet":
                gv = val
                if not np.isscalar(val):
                    vs = list(core)
                    vs[ax] = 0
                    gv = np.asarray(val, np.float64)[tuple(vs)]
                v[tuple(dst_sl)] = 2 * gv - s
            elif kind == "neumann":
                v[tuple(dst_sl)] = s + (2 * k + 1) * h[ax] * val
            else:
                v[tuple(dst_sl)] = s
    return v


def term_ref(out_shape, r, terms, inputs, coefs, ncomp, alpha=1.0):
    """alpha * sum of terms at points at least r from each face (NaN elsewhere).
    terms: (weight, input, input_comp, output_comp, offset, coef|None, coef_offset),
    offsets in NumPy order; inputs with a last component axis when ncomp > 1."""
    grid = out_shape[:-1] if ncomp > 1 else out_shape
    inner = tuple(slice(r, m - r) for m in grid)
    acc = np.zeros(tuple(m - 2 * r for m in grid) + ((ncomp,) if ncomp > 1 else ()))

    def at(a, off, comp=None):
        sl = tuple(slice(r + o, m - r + o) for o, m in zip(off, grid))
        x = np.asarray(a, np.float64)[sl]
        return x[..., comp] if comp is not None else x
    for w, i, ic, oc, off, c, coff in terms:
        x = w * at(inputs[i], off, ic if ncomp > 1 else None)
        if c is not None:
            x = x * at(coefs[c], coff)
        if ncomp > 1:
            acc[..., oc] += x
        else:
            acc += x
    out = np.full(out_shape, np.nan)
    out[inner] = alpha * acc
    return out, inner


def apply_ref(u, bcs, h, k=None):
    """A u at the unknowns (-lap u, or -div(k grad u) with face means
    2 k_p k_q / (k_p + k_q)); NaN at Dirichlet boundary points."""
    rank = u.ndim
    out = np.zeros(u.shape)
    for ax in range(rank):
        mode = {"neumann": "edge", "periodic": "wrap", "dirichlet": "edge"}[bcs[ax]]
        pad = [(0, 0)] * rank
        pad[ax] = (1, 1)
        up = np.pad(u, pad, mode=mode)
        kp = np.pad(k, pad, mode=mode) if k is not None else None

        def sh(a, q):
            sl = [slice(None)] * rank
            sl[ax] = slice(1 + q, a.shape[ax] - 1 + q)
            return a[tuple(sl)]
        if k is None:
            out += (2 * u - sh(up, -1) - sh(up, 1)) / h[ax] ** 2
        else:
            wp = 2 * k * sh(kp, 1) / (k + sh(kp, 1))
            wm = 2 * k * sh(kp, -1) / (k + sh(kp, -1))
            out += (wp * (u - sh(up, 1)) + wm * (u - sh(up, -1))) / h[ax] ** 2
    for ax in range(rank):
        if bcs[ax] == "dirichlet":
            sl = [slice(None)] * rank
            for end in (0, -1):
                sl[ax] = end
                out[tuple(sl)] = np.nan
    return out


def rel_residual(f, u, u0, bcs, h, k=None):
    r, r0 = f - apply_ref(u, bcs, h, k), f - apply_ref(u0, bcs, h, k)
    m = ~np.isnan(r)
    return np.linalg.norm(r[m]) / np.linalg.norm(r0[m])
