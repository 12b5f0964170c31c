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
