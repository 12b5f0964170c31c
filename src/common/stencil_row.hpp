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

/// A row of the slab stencil from its centre and its neighbours along x (-, +), y and z, each
/// zero where the grid ends: the one definition of the row's value. They are added in this
/// order, from zero; a zero term changes no sum, so a kernel that reads a missing neighbour as
/// zero (a tile's zero halo) agrees bitwise with one that skips it.
template <typename T>
PORTLA_HOST_DEVICE inline T slab_stencil_value(int dim, T center, T x_lo, T x_hi, T y_lo, T y_hi,
                                               T z_lo, T z_hi) {
    T neighbours = T(0);
    neighbours += x_lo;
    neighbours += x_hi;
    neighbours += y_lo;
    neighbours += y_hi;
    neighbours += z_lo;
    neighbours += z_hi;
    return static_cast<T>(2 * dim) * center - neighbours;
}

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
    const Index ix = in_plane % nx, iy = in_plane / nx;
    const T zero = T(0);
    const T z_lo = k > 0 ? x[i - plane] : below ? below[in_plane] : zero;
    const T z_hi = k + 1 < planes ? x[i + plane] : above ? above[in_plane] : zero;
    return slab_stencil_value(dim, x[i], ix > 0 ? x[i - 1] : zero, ix + 1 < nx ? x[i + 1] : zero,
                              iy > 0 ? x[i - nx] : zero, iy + 1 < ny ? x[i + nx] : zero, z_lo,
                              z_hi);
}

}  // namespace portla::common
