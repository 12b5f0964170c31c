// The CG steps of the omp backend: src/host/cg_kernels.inc over OpenMP loops (static
// schedule; serial below parallel_threshold()).
#include <complex>

#include "host/cg_steps.hpp"
#include "omp/loops.hpp"

namespace portla::kernels::omp {

using CgLoops = OmpLoops;
#include "host/cg_kernels.inc"

}  // namespace portla::kernels::omp
