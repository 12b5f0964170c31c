#!/usr/bin/env python3
"""How much BiCGSTAB's and restarted GMRES's iteration counts on the SuiteSparse bus matrices
depend on rounding alone (against a target of 1.1x SciPy's count).

Runs, with NumPy and SciPy only (dev tool, not part of set-up), b = A 1, x0 = 0, rtol 1e-8:
  - textbook right-preconditioned BiCGSTAB in double and in long double (x87 80-bit),
    none and Jacobi, beside SciPy's own bicgstab;
  - GMRES(30) with left Jacobi, fixed-length cycles (portla's) and with SciPy 1.10's
    adaptive inner tolerance, both with CGS2.
  - the same double BiCGSTAB with its dot products summed in six other orders (a k-way split,
    k from 1 to 16, as a parallel reduction does): the spread of one algorithm's count.
The same algorithm in other arithmetic lands anywhere from 0.65x to 2.5x SciPy's count, and in
other summation orders of the dots alone from 0.8x to "not converged in 20000" (494_bus, Jacobi).

Usage: scripts/krylov-rounding.py tests/data/suitesparse/494_bus.mtx [...]
"""
import sys

import numpy as np
import scipy.io
import scipy.sparse.linalg as spla

RTOL = 1e-8
MAXIT = 20000


def split_dot(seed):
    """a . b summed as a k-way split (1 <= k <= 16, random): one parallel reduction's order."""
    rng = np.random.default_rng(seed)

    def dot(u, v):
        return sum(float(np.sum(c)) for c in np.array_split(u * v, rng.integers(1, 17)))

    return dot


def bicgstab(A, b, prec, dt, dot=lambda u, v: u @ v):
    n = len(b)
    x = np.zeros(n, dtype=dt)
    r = b.copy()
    rh = r.copy()
    rho_old = alpha = omega = dt(1)
    p = v = None
    bn = np.sqrt(dot(b, b))
    for it in range(1, MAXIT + 1):
        rho = dot(rh, r)
        if rho_old == 0 or omega == 0:  # a breakdown
            return None
        p = r.copy() if it == 1 else r + (rho / rho_old) * (alpha / omega) * (p - omega * v)
        ph = prec(p)
        v = A @ ph
        alpha = rho / dot(rh, v)
        s = r - alpha * v
        if np.sqrt(dot(s, s)) < RTOL * bn:
            return it
        sh = prec(s)
        t = A @ sh
        omega = dot(t, s) / dot(t, t)
        x += alpha * ph + omega * sh
        r = s - omega * t
        rho_old = rho
        if np.sqrt(dot(r, r)) < RTOL * bn:
            return it
    return None


def gmres_left(A, b, d, m=30, adaptive=False):
    n = len(b)
    x = np.zeros(n)
    bn = np.linalg.norm(b)
    it, factor, ptol = 0, 1.0, RTOL * np.linalg.norm(d * b)
    while it < MAXIT:
        r = b - A @ x
        true = np.linalg.norm(r)
        if true < RTOL * bn:
            return it
        z = d * r
        beta = np.linalg.norm(z)
        V = np.zeros((n, m + 1))
        H = np.zeros((m + 1, m))
        V[:, 0] = z / beta
        g = np.zeros(m + 1)
        g[0] = beta
        cs, sn = np.zeros(m), np.zeros(m)
        for j in range(m):
            w = d * (A @ V[:, j])
            for _ in range(2):
                h = V[:, : j + 1].T @ w
                w -= V[:, : j + 1] @ h
                H[: j + 1, j] += h
            H[j + 1, j] = np.linalg.norm(w)
            V[:, j + 1] = w / H[j + 1, j]
            for i in range(j):
                t = cs[i] * H[i, j] + sn[i] * H[i + 1, j]
                H[i + 1, j] = -sn[i] * H[i, j] + cs[i] * H[i + 1, j]
                H[i, j] = t
            rr = np.hypot(H[j, j], H[j + 1, j])
            cs[j], sn[j] = H[j, j] / rr, H[j + 1, j] / rr
            H[j, j], H[j + 1, j] = rr, 0
            g[j + 1], g[j] = -sn[j] * g[j], cs[j] * g[j]
            it += 1
            pres = abs(g[j + 1])
            if pres * true / beta < RTOL * bn or (adaptive and pres <= ptol):
                break
        k = j + 1
        x += V[:, :k] @ np.linalg.solve(np.triu(H[:k, :k]), g[:k])
        if adaptive:  # SciPy 1.10's inner tolerance control
            resid = np.linalg.norm(b - A @ x)
            factor = min(1.0, 1.5 * factor) if pres > ptol else max(1e-16, 0.25 * factor)
            ptol = pres * min(factor, RTOL * bn / resid)
    return None


def scipy_count(solver, A, b, **kw):
    count = [0]
    key = "pr_norm" if solver is spla.gmres else None
    if key:
        kw["callback_type"] = key
    cb = lambda _: count.__setitem__(0, count[0] + 1)  # noqa: E731
    try:  # SciPy 1.10 (the baseline) names it tol; 1.12 and later rtol
        x, info = solver(A, b, tol=RTOL, atol=0, callback=cb, **kw)
    except TypeError:
        x, info = solver(A, b, rtol=RTOL, atol=0, callback=cb, **kw)
    return count[0] if info == 0 else f"info {info}"


for path in sys.argv[1:]:
    A = scipy.io.mmread(path).tocsr()
    b = A @ np.ones(A.shape[0])
    d = 1 / A.diagonal()
    M = spla.LinearOperator(A.shape, matvec=lambda v: d * v)
    Al = A.astype(np.longdouble)
    bl = Al @ np.ones(A.shape[0], dtype=np.longdouble)
    dl = d.astype(np.longdouble)
    print(path)
    print("  bicgstab none:   scipy", scipy_count(spla.bicgstab, A, b, maxiter=MAXIT),
          " double", bicgstab(A, b, lambda v: v, np.float64),
          " long double", bicgstab(Al, bl, lambda v: v, np.longdouble))
    print("  bicgstab jacobi: scipy", scipy_count(spla.bicgstab, A, b, M=M, maxiter=MAXIT),
          " double", bicgstab(A, b, lambda v: d * v, np.float64),
          " long double", bicgstab(Al, bl, lambda v: dl * v, np.longdouble))
    print("  gmres(30) left jacobi: scipy",
          scipy_count(spla.gmres, A, b, M=M, restart=30, maxiter=MAXIT // 30 + 1),
          " fixed cycles", gmres_left(A, b, d), " scipy's inner tolerance",
          gmres_left(A, b, d, adaptive=True))
    print("  bicgstab jacobi, dots in six summation orders:",
          [bicgstab(A, b, lambda v: d * v, np.float64, split_dot(seed)) for seed in range(6)])
