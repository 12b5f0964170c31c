// The CG steps of the reference backend: src/host/cg_kernels.inc over plain loops in order.
#include <complex>

#include "host/cg_steps.hpp"
#include "reference/loops.hpp"

namespace portla::kernels::reference {

using CgLoops = SerialLoops;
#include "host/cg_kernels.inc"

}  // namespace portla::kernels::reference
