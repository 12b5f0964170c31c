// The Krylov-basis kernels of the omp backend: src/host/krylov_kernels.inc over OpenMP
// loops (static schedule; serial below parallel_threshold()).
#include <complex>

#include "common/scalar.hpp"
#include "core/kernels/krylov_kernels.hpp"
#include "omp/loops.hpp"

namespace portla::kernels::omp {

using KrylovLoops = OmpLoops;
#include "host/krylov_kernels.inc"

}  // namespace portla::kernels::omp
