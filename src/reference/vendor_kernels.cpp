// Vendor kernels of the reference backend: OpenBLAS on host memory, the one copy shared with the
// omp backend (src/common/openblas_vendor_kernels.inc).
#include <cstddef>
#include <cstdint>

#include "common/openblas.hpp"
#include "core/kernels/vendor_kernels.hpp"

namespace portla::kernels::reference {
#include "common/openblas_vendor_kernels.inc"
}  // namespace portla::kernels::reference
