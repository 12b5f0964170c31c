/// \file
/// The one list of backends. The Backend enum, the kernel declarations of every family, the
/// dispatch from an algorithm to a backend's kernel and the NotCompiled error of a backend that
/// was switched off are all generated from it (src/core/dispatch.hpp). A new backend is one word
/// here, one folder `src/<name>/` with the same file names as the others, and one CMake block.
#pragma once

/// X(name) for every backend. `auto` picks cuda, then omp, then reference (never opencl).
#define PORTLA_FOR_EACH_BACKEND(X) X(reference) X(omp) X(cuda) X(opencl)

/// X(name) for every kernel family of `src/core/kernels/<name>_kernels.hpp`.
#define PORTLA_FOR_EACH_KERNEL_FAMILY(X) \
    X(blas1)                             \
    X(matrix)                            \
    X(cg)                                \
    X(krylov)                            \
    X(precond) X(sptrsv) X(vendor) X(batch) X(batch_direct) X(gemm) X(perron) X(sparse) X(amg)

/// X(backend, family) for every kernel family a compiled backend does not implement yet: dispatch
/// throws Unsupported naming both (core/dispatch.hpp) and never instantiates the call, so the
/// backend's folder has no file for that family.
#define PORTLA_FOR_EACH_MISSING_KERNEL_FAMILY(X) X(opencl, vendor)

/// X(name) for every backend whose CSR kernels split the long rows of a matrix by a plan
/// (src/core/kernels/csr_split_kernels.hpp); the others keep csr_apply for every matrix.
#define PORTLA_FOR_EACH_CSR_SPLIT_BACKEND(X) X(cuda)
