#!/usr/bin/env python3
"""portla against its peers in one run: SciPy (CPU), CuPy (cupyx.scipy.sparse.linalg) and JAX
(jax.scipy.sparse.linalg) where installed, on the same matrices, at the same tolerance.

Matrices: generated 3-D Poisson problems (7-point, N^3 unknowns; on the GPU up to N = 128,
n = 2.1e6) and the real matrices of tests/data/suitesparse (cg on the symmetric ones, gmres on
those where SciPy's GMRES converges in the checked-in baseline, scipy.json) and, with --powerlaw,
the power-law SPD matrix of bench/powerlaw_matrix.py (irregular rows; its b is uniform in
[0.5, 1.5]). Every solver gets the same b (A (1, ..., 1) unless said), x0 = 0, rtol (default 1e-8, atol 0, float64), maxiter and, for
gmres, restart 30. Each (matrix, solver, contender) is run once to warm up (CUDA contexts,
kernel caches, JAX's compilation), then timed `--repeats` times (median; fewer repeats when one
run exceeds the time budget). GPU timings synchronise the device before the clock stops. The
true residual of every result is recomputed in float64 on the host, so a contender whose own
stopping test is looser shows it. Prints a table, writes JSON and, if matplotlib is installed,
a plot.

Contenders: scipy; portla-omp, portla-reference (CPU; SciPy/NumPy arrays, portla.scipy); cupy,
portla-cuda (CuPy arrays in place, portla.scipy on a cupyx CSR matrix); jax (BCSR matvec under
jax.jit, x64 enabled).

    PYTHONPATH=build/python .venv/bin/python bench/peers.py --quick           # CPU, seconds
    PYTHONPATH=build/python python bench/peers.py --json peers.json --plot peers.png
"""

import argparse
import datetime
import json
import os
import pathlib
import platform
import statistics
import sys
import time

import numpy as np
import scipy
import scipy.io
import scipy.sparse as sp
import scipy.sparse.linalg as sla

import portla
import portla.scipy as pscipy

ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "suitesparse"


def poisson3d(m):
    t = sp.diags_array([-1.0, 2.0, -1.0], offsets=[-1, 0, 1], shape=(m, m), format="csr")
    eye = sp.eye_array(m, format="csr")
    return (sp.kron(sp.kron(t, eye), eye) + sp.kron(sp.kron(eye, t), eye)
            + sp.kron(sp.kron(eye, eye), t)).tocsr()


def real_matrices(names):
    base = json.loads((DATA / "scipy.json").read_text())["matrices"]
    out = []
    for name in names:  # (label, make A, solvers[, b of n]): b = A (1, ..., 1) unless given
        m = base[name]
        solvers = []
        if m["symmetric"] and m["runs"].get("cg/none", {}).get("converged"):
            solvers.append("cg")
        if m["runs"].get("gmres/none", {}).get("converged"):
            solvers.append("gmres")
        if solvers:
            out.append((name, lambda name=name: sp.csr_array(scipy.io.mmread(DATA / f"{name}.mtx")),
                        solvers))
    return out


# ---- contenders: each returns a function solve(name) -> x on the host, timed around ------------


class Contender:
    def __init__(self, name, device):
        self.name, self.device = name, device

    def prepare(self, A, b):  # host CSR (float64), host b
        raise NotImplementedError

    def solve(self, method, rtol, maxiter, restart):
        raise NotImplementedError

    def sync(self):
        pass

    def to_host(self, x):
        return np.asarray(x)


class Scipy(Contender):
    def prepare(self, A, b):
        self.A, self.b = A, b

    def solve(self, method, rtol, maxiter, restart):
        kw = dict(rtol=rtol, atol=0.0, maxiter=maxiter)
        if method == "gmres":
            kw.update(restart=restart, maxiter=max(1, maxiter // restart))
        return getattr(sla, method)(self.A, self.b, **kw)


class PortlaHost(Contender):
    def __init__(self, backend):
        super().__init__(f"portla-{backend}", "cpu")
        self.backend = backend

    def prepare(self, A, b):
        self.A, self.b = A, b

    def solve(self, method, rtol, maxiter, restart):
        kw = dict(rtol=rtol, atol=0.0, maxiter=maxiter, backend=self.backend)
        if method == "gmres":
            kw.update(restart=restart, maxiter=max(1, maxiter // restart))
        return getattr(pscipy, method)(self.A, self.b, **kw)


class CupyBase(Contender):
    def __init__(self, name):
        super().__init__(name, "gpu")
        import cupy
        import cupyx.scipy.sparse as csp

        self.cp, self.csp = cupy, csp

    def prepare(self, A, b):
        self.A = self.csp.csr_matrix(A)
        self.b = self.cp.asarray(b)

    def sync(self):
        self.cp.cuda.Device().synchronize()

    def to_host(self, x):
        return self.cp.asnumpy(x)


class Cupy(CupyBase):
    def __init__(self):
        super().__init__("cupy")
        import cupyx.scipy.sparse.linalg as cla

        self.cla = cla

    def solve(self, method, rtol, maxiter, restart):
        # cupyx's cg/gmres name the relative tolerance tol (SciPy < 1.12's name) or rtol.
        import inspect

        f = getattr(self.cla, method)
        name = "rtol" if "rtol" in inspect.signature(f).parameters else "tol"
        kw = {name: rtol, "atol": 0.0, "maxiter": maxiter}
        if method == "gmres":
            kw.update(restart=restart, maxiter=max(1, maxiter // restart))
        return f(self.A, self.b, **kw)


class PortlaCuda(CupyBase):
    def __init__(self):
        super().__init__("portla-cuda")

    def solve(self, method, rtol, maxiter, restart):
        kw = dict(rtol=rtol, atol=0.0, maxiter=maxiter, backend="cuda")
        if method == "gmres":
            kw.update(restart=restart, maxiter=max(1, maxiter // restart))
        return getattr(pscipy, method)(self.A, self.b, **kw)


class Jax(Contender):
    def __init__(self):
        super().__init__("jax", "gpu")
        import jax

        jax.config.update("jax_enable_x64", True)
        import jax.numpy as jnp
        import jax.scipy.sparse.linalg as jla
        from jax.experimental import sparse as jsparse

        self.jax, self.jnp, self.jla, self.jsparse = jax, jnp, jla, jsparse
        self.compiled = {}

    def prepare(self, A, b):
        self.A = self.jsparse.BCSR.from_scipy_sparse(A)
        self.b = self.jnp.asarray(b)
        self.compiled = {}

    def solve(self, method, rtol, maxiter, restart):
        key = (method, rtol, maxiter, restart)
        if key not in self.compiled:
            jla = self.jla

            # A is an argument of the compiled function, not a constant captured by it: XLA
            # constant-folds captured index arrays for minutes at n = 1e6.
            if method == "cg":
                def f(A, b):
                    return jla.cg(lambda x: A @ x, b, tol=rtol, atol=0.0, maxiter=maxiter)
            else:
                def f(A, b):
                    return jla.gmres(lambda x: A @ x, b, tol=rtol, atol=0.0, restart=restart,
                                     maxiter=max(1, maxiter // restart), solve_method="batched")
            self.compiled[key] = self.jax.jit(f)
        x, _ = self.compiled[key](self.A, self.b)
        return x, None

    def sync(self):
        pass  # solve() results are blocked on in to_host / timed via block_until_ready

    def to_host(self, x):
        return np.asarray(x)


def contenders(gpu_wanted):
    found, missing = [Scipy("scipy", "cpu"), PortlaHost("omp"), PortlaHost("reference")], []
    if not gpu_wanted:
        return found, ["GPU contenders: --no-gpu"]
    cuda = [b for b in portla.info()["backends"] if b["name"] == "cuda"][0]
    for make, what in ((Cupy, "cupy"), (PortlaCuda, "portla-cuda"), (Jax, "jax")):
        if what == "portla-cuda" and not (cuda["compiled"] and cuda["devices"] > 0):
            missing.append(f"{what}: portla has no cuda device (compiled: {cuda['compiled']})")
            continue
        try:
            c = make()
            if what == "cupy" and c.cp.cuda.runtime.getDeviceCount() == 0:
                raise RuntimeError("no CUDA device")
            if what == "jax" and c.jax.default_backend() != "gpu":
                raise RuntimeError(f"JAX runs on {c.jax.default_backend()}, not a GPU")
            found.append(c)
        except Exception as e:  # ImportError, no driver
            missing.append(f"{what}: {type(e).__name__}: {e}")
    return found, missing


def timed(c, method, rtol, maxiter, restart, repeats, budget_s):
    def once():
        t0 = time.perf_counter()
        x, info = c.solve(method, rtol, maxiter, restart)
        if c.name == "jax":
            x = x.block_until_ready()
        c.sync()
        return time.perf_counter() - t0, x, info

    warm, x, info = once()  # warm-up
    n = max(1, min(repeats, int(budget_s / max(warm, 1e-9))))
    times = [once()[0] for _ in range(n)]
    return statistics.median(times), times, c.to_host(x), info


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="small problems, CPU contenders only")
    p.add_argument("--sizes", default=None, help="Poisson 3-D points per dimension, e.g. 32,64,100")
    p.add_argument("--matrices", default=None,
                   help="names in tests/data/suitesparse (default: all; 'none' for none)")
    p.add_argument("--powerlaw", type=int, default=0, metavar="ROWS",
                   help="also a power-law SPD matrix of ROWS rows (bench/powerlaw_matrix.py: "
                        "irregular rows, ids shuffled; cg only)")
    p.add_argument("--solvers", default="cg,gmres")
    p.add_argument("--rtol", type=float, default=1e-8)
    p.add_argument("--maxiter", type=int, default=20000, help="iterations (gmres: / restart cycles)")
    p.add_argument("--restart", type=int, default=30)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--budget", type=float, default=30.0, help="seconds per measurement, at most")
    p.add_argument("--cpu-max-n", type=int, default=300_000,
                   help="CPU contenders only up to this many unknowns (SciPy's GMRES on 128^3 "
                        "takes minutes)")
    p.add_argument("--no-gpu", action="store_true")
    p.add_argument("--json", default="peers.json")
    p.add_argument("--plot", default="peers.png")
    args = p.parse_args()

    found, missing = contenders(gpu_wanted=not (args.no_gpu or args.quick))
    gpu = any(c.device == "gpu" for c in found)
    if args.sizes:
        sizes = [int(s) for s in args.sizes.split(",")]
    else:
        sizes = [10, 16] if args.quick else ([32, 64, 100, 128] if gpu else [16, 32, 48])
    if args.matrices == "none":
        names = []
    elif args.matrices:
        names = args.matrices.split(",")
    else:
        names = ["bcsstk01", "494_bus", "arc130"] if args.quick else sorted(
            json.loads((DATA / "scipy.json").read_text())["matrices"])
    solvers = args.solvers.split(",")
    problems = [(f"poisson3d:{m}", lambda m=m: poisson3d(m), ["cg", "gmres"]) for m in sizes]
    problems += real_matrices(names)
    if args.powerlaw:
        sys.path.insert(0, str(ROOT / "bench"))
        from powerlaw_matrix import build as powerlaw
        from powerlaw_matrix import rhs_values

        # b = A 1 = 1 is an eigenvector of this L + I (CG would stop after one iteration): its
        # b is uniform in [0.5, 1.5], as in the CLI timings (powerlaw_matrix.py --rhs)
        problems.append((f"powerlaw:{args.powerlaw}",
                         lambda: sp.csr_array(powerlaw(args.powerlaw, 10.0, 0.8, 10.0, 1)), ["cg"],
                         rhs_values))
    for m in missing:
        print(f"peers: skipped {m}", file=sys.stderr)

    rows = []
    for label, make, fits, *rhs in problems:
        A = make().astype(np.float64)
        b = rhs[0](A.shape[0]) if rhs else A @ np.ones(A.shape[0])
        bnorm = np.linalg.norm(b)
        for method in [s for s in solvers if s in fits]:
            for c in found:
                # The sequential reference backend only on small problems (it is the oracle).
                if c.name == "portla-reference" and A.shape[0] > 200_000:
                    continue
                if c.device == "cpu" and A.shape[0] > args.cpu_max_n:
                    continue
                c.prepare(A, b)
                try:
                    med, times, x, info = timed(c, method, args.rtol, args.maxiter, args.restart,
                                                args.repeats, args.budget)
                except Exception as e:
                    print(f"peers: {c.name} {method} {label}: {type(e).__name__}: {e}",
                          file=sys.stderr)
                    continue
                relres = float(np.linalg.norm(b - A @ x) / bnorm)
                rows.append(dict(matrix=label, n=A.shape[0], nnz=int(A.nnz), solver=method,
                                 contender=c.name, device=c.device, median_s=med, times_s=times,
                                 info=None if info is None else int(info), true_relres=relres,
                                 converged=relres <= args.rtol * 1.5))
                print(f"{label:>16} {method:>6} {c.name:>17} {med * 1e3:10.2f} ms  "
                      f"relres {relres:8.1e}", flush=True)

    # Speed-ups over SciPy and (GPU) over CuPy, per (matrix, solver).
    by = {(r["matrix"], r["solver"], r["contender"]): r for r in rows}
    for r in rows:
        for ref in ("scipy", "cupy"):
            o = by.get((r["matrix"], r["solver"], ref))
            if o and o is not r:
                r[f"speedup_vs_{ref}"] = o["median_s"] / r["median_s"]
    print()
    print(f"{'matrix':>16} {'n':>9} {'solver':>6} {'contender':>17} {'median ms':>11} "
          f"{'relres':>8} {'vs scipy':>8} {'vs cupy':>8}")
    for r in rows:
        vs = lambda k: f"{r[k]:7.2f}x" if k in r else "       -"  # noqa: E731
        print(f"{r['matrix']:>16} {r['n']:>9} {r['solver']:>6} {r['contender']:>17} "
              f"{r['median_s'] * 1e3:11.2f} {r['true_relres']:8.1e} {vs('speedup_vs_scipy')} "
              f"{vs('speedup_vs_cupy')}")

    versions = {"python": platform.python_version(), "numpy": np.__version__,
                "scipy": scipy.__version__, "portla": portla.__version__}
    for mod in ("cupy", "jax", "torch"):
        if mod in sys.modules:
            versions[mod] = getattr(sys.modules[mod], "__version__", "?")
    info = portla.info()
    result = {
        "benchmark": "peers",
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "machine": platform.machine(),
        "cpu_threads": info["omp_threads"],
        "gpus": [g["name"] for g in info["cuda_devices"]],
        "versions": versions,
        "settings": dict(rtol=args.rtol, atol=0.0, maxiter=args.maxiter, restart=args.restart,
                         repeats=args.repeats, budget_s=args.budget, dtype="float64",
                         b="A @ ones", x0="zeros"),
        "skipped": missing,
        "results": rows,
    }
    tmp = pathlib.Path(args.json + ".tmp")
    tmp.write_text(json.dumps(result, indent=1))
    os.replace(tmp, args.json)
    print(f"\npeers: wrote {args.json}")
    plot(rows, args.plot)


def plot(rows, path):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("peers: matplotlib is not installed: no plot")
        return
    solvers = sorted({r["solver"] for r in rows})
    fig, axes = plt.subplots(len(solvers), 1, figsize=(11, 4 * len(solvers)), squeeze=False)
    for ax, method in zip(axes[:, 0], solvers):
        sel = [r for r in rows if r["solver"] == method]
        matrices = list(dict.fromkeys(r["matrix"] for r in sel))
        names = list(dict.fromkeys(r["contender"] for r in sel))
        width = 0.8 / max(len(names), 1)
        for k, name in enumerate(names):
            t = {r["matrix"]: r["median_s"] for r in sel if r["contender"] == name}
            xs = [i + k * width for i, m in enumerate(matrices) if m in t]
            ax.bar(xs, [t[m] for m in matrices if m in t], width, label=name)
        ax.set_yscale("log")
        ax.set_ylabel("median time (s)")
        ax.set_title(f"{method}: time to rtol (lower is better)")
        ax.set_xticks([i + 0.4 - width / 2 for i in range(len(matrices))])
        ax.set_xticklabels(matrices, rotation=30, ha="right")
        ax.legend()
    fig.tight_layout()
    tmp = pathlib.Path(path + ".tmp.png")
    fig.savefig(tmp, dpi=120)
    os.replace(tmp, path)
    print(f"peers: wrote {path}")


if __name__ == "__main__":
    main()
