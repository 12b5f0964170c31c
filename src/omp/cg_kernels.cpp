// The CG steps of the omp backend: src/common/cg_host_kernels.inc over OpenMP loops (static
// schedule; serial below parallel_threshold()).
#include "common/cg_host_steps.hpp"
#include "omp/loops.hpp"

namespace portla::kernels::omp {

using CgLoops = OmpLoops;
#include "common/cg_host_kernels.inc"

}  // namespace portla::kernels::omp
