// Vendor kernels of the reference backend: OpenBLAS on host memory, the one copy shared with the
// omp backend (src/host/vendor_kernels.inc).
#include <cstddef>
#include <cstdint>

#include "core/kernels/vendor_kernels.hpp"
#include "host/openblas.hpp"

namespace portla::kernels::reference {
#include "host/vendor_kernels.inc"
}  // namespace portla::kernels::reference
