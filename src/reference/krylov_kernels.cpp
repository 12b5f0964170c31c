// The Krylov-basis kernels of the reference backend: src/host/krylov_kernels.inc over
// plain loops in order.
#include <complex>

#include "common/scalar.hpp"
#include "core/kernels/krylov_kernels.hpp"
#include "reference/loops.hpp"

namespace portla::kernels::reference {

using KrylovLoops = SerialLoops;
#include "host/krylov_kernels.inc"

}  // namespace portla::kernels::reference
