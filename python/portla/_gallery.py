"""PyAMG's gallery of model matrices that its examples build their problems from, as
``portla.pyamg.gallery``: ``poisson`` and ``stencil_grid`` (the same matrices as PyAMG 5's, in
the same row order: the last grid dimension varies fastest). Other gallery functions are not
offered."""

from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np
import scipy.sparse

__all__ = ["poisson", "stencil_grid"]


def _grid(grid: Sequence[int], who: str) -> tuple:
    try:
        dims = tuple(int(g) for g in grid)
    except TypeError:
        raise ValueError(f"{who}: the grid must be a sequence of sizes, got {grid!r}") from None
    if not dims or min(dims) < 1:
        raise ValueError(f"{who}: every grid size must be at least 1, got {dims}")
    return dims


def stencil_grid(S: Any, grid: Sequence[int], dtype: Any = None, format: Optional[str] = None):
    """The sparse matrix of stencil S on a regular grid with Dirichlet boundaries: row i (a grid
    point, the last dimension varying fastest) holds S[c + o] in the column of the point at
    offset o from it, c the stencil's centre; neighbours outside the grid are left out. S has
    as many dimensions as the grid, each of odd length. A ``dia`` sparse array unless `format`
    names another."""
    S = np.asarray(S, dtype=dtype)
    dims = _grid(grid, "stencil_grid")
    if S.ndim != len(dims):
        raise ValueError(
            f"stencil_grid: the stencil has {S.ndim} dimensions and the grid {len(dims)}"
        )
    if any(s % 2 == 0 for s in S.shape):
        raise ValueError(f"stencil_grid: every stencil dimension must be odd, got {S.shape}")
    n = int(np.prod(dims))
    points = np.indices(dims).reshape(len(dims), n)  # each row's grid coordinates
    upper = np.array(dims)[:, None]
    centre = np.array(S.shape) // 2
    rows, cols, vals = [], [], []
    for at in zip(*np.nonzero(S)):
        neighbours = points + (np.array(at) - centre)[:, None]
        inside = np.all((neighbours >= 0) & (neighbours < upper), axis=0)
        rows.append(np.flatnonzero(inside))
        cols.append(np.ravel_multi_index(tuple(neighbours[:, inside]), dims))
        vals.append(np.full(rows[-1].size, S[at], dtype=S.dtype))
    if rows:
        rows, cols, vals = np.concatenate(rows), np.concatenate(cols), np.concatenate(vals)
    else:
        rows, cols, vals = np.zeros(0, int), np.zeros(0, int), np.zeros(0, S.dtype)
    A = scipy.sparse.coo_array((vals, (rows, cols)), shape=(n, n))
    return A.asformat(format or "dia")


def poisson(
    grid: Sequence[int], dtype: Any = float, format: Optional[str] = None, type: str = "FD"
):
    """The N-dimensional Poisson matrix on a regular grid with unit spacing and Dirichlet
    boundaries: ``'FD'`` the finite-difference stencil (2N on the diagonal, -1 for each of the
    2N axis neighbours), ``'FE'`` PyAMG's finite-element one (3^N - 1 on the diagonal, -1 for
    each of the 3^N - 1 neighbours; in 2-D three times the bilinear elements' stencil).
    Symmetric positive definite."""
    dims = _grid(grid, "poisson")
    N = len(dims)
    centre = (1,) * N
    if type == "FD":
        S = np.zeros((3,) * N, dtype=dtype)
        for axis in range(N):
            for side in (0, 2):
                S[centre[:axis] + (side,) + centre[axis + 1 :]] = -1
        S[centre] = 2 * N
    elif type == "FE":
        S = -np.ones((3,) * N, dtype=dtype)
        S[centre] = 3**N - 1
    else:
        raise ValueError(f"poisson: type must be 'FD' or 'FE', got {type!r}")
    return stencil_grid(S, dims, format=format)
