// Vendor kernels of the omp backend: OpenBLAS on host memory, the one copy shared with the
// reference backend (src/common/openblas_vendor_kernels.inc).
#include <cstddef>
#include <cstdint>

#include "common/openblas.hpp"
#include "core/kernels/vendor_kernels.hpp"

namespace portla::kernels::omp {
#include "common/openblas_vendor_kernels.inc"
}  // namespace portla::kernels::omp
