// Vendor kernels of the omp backend: OpenBLAS on host memory, the one copy shared with the
// reference backend (src/host/vendor_kernels.inc).
#include <cstddef>
#include <cstdint>

#include "core/kernels/vendor_kernels.hpp"
#include "host/openblas.hpp"

namespace portla::kernels::omp {
#include "host/vendor_kernels.inc"
}  // namespace portla::kernels::omp
