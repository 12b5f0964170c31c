// The CG steps of the reference backend: src/common/cg_host_kernels.inc over plain loops in order.
#include "common/cg_host_steps.hpp"
#include "reference/loops.hpp"

namespace portla::kernels::reference {

using CgLoops = SerialLoops;
#include "common/cg_host_kernels.inc"

}  // namespace portla::kernels::reference
