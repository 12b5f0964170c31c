// One row of the dim-D Poisson stencil (matrix/stencil.hpp), on the host and on a device: the
// fused CG steps of every backend evaluate the operator through it.
#pragma once

#include "common/stopping.hpp"  // PORTLA_HOST_DEVICE

namespace portla::common {

/// (A v)_i with v_i = center; `v(j)` reads the vector, neighbours outside the grid are zero.
/// Index: the integer type of the grid (32-bit where it fits: cheaper division on a GPU).
template <typename Index, typename T, typename Src>
PORTLA_HOST_DEVICE inline T stencil_row(int dim, Index points, Index i, const Src& v, T center) {
    T neighbours = T(0);
    const Index ix = i % points;
    if (ix > 0) neighbours += v(i - 1);
    if (ix + 1 < points) neighbours += v(i + 1);
    if (dim >= 2) {
        const Index line = i / points;
        const Index iy = line % points;
        if (iy > 0) neighbours += v(i - points);
        if (iy + 1 < points) neighbours += v(i + points);
        if (dim == 3) {
            const Index plane = points * points;
            const Index iz = line / points;
            if (iz > 0) neighbours += v(i - plane);
            if (iz + 1 < points) neighbours += v(i + plane);
        }
    }
    return static_cast<T>(2 * dim) * center - neighbours;
}

}  // namespace portla::common

namespace portla::common {

/// A slab of the dim-D Poisson grid split along its outermost dimension (one per MPI rank):
/// `planes` planes of nx * ny points (nx = points for dim >= 2, else 1; ny = points for dim 3, else
/// 1), local index i = (k * ny + j) * nx + ix. Neighbours across the slab's ends come from `below`
/// (the plane under plane 0) and `above` (over plane planes - 1), each nx * ny values, nullptr
/// at the grid's boundary (zero). (A x)_i for a local row i.
template <typename Index, typename T>
PORTLA_HOST_DEVICE inline T slab_stencil_row(int dim, Index nx, Index ny, Index planes, Index i,
                                             const T* x, const T* below, const T* above) {
    const Index plane = nx * ny;
    const Index k = i / plane;
    const Index in_plane = i - k * plane;
    T neighbours = T(0);
    if (nx > 1) {
        const Index ix = in_plane % nx;
        if (ix > 0) neighbours += x[i - 1];
        if (ix + 1 < nx) neighbours += x[i + 1];
    }
    if (ny > 1) {
        const Index iy = in_plane / nx;
        if (iy > 0) neighbours += x[i - nx];
        if (iy + 1 < ny) neighbours += x[i + nx];
    }
    if (k > 0)
        neighbours += x[i - plane];
    else if (below)
        neighbours += below[in_plane];
    if (k + 1 < planes)
        neighbours += x[i + plane];
    else if (above)
        neighbours += above[in_plane];
    return static_cast<T>(2 * dim) * x[i] - neighbours;
}

}  // namespace portla::common
