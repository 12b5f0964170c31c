// The C++ and CUDA side of the row functions of sparse_rows.h, aggregation_rows.h and
// classical_rows.h: those
// files are a C subset that OpenCL C 1.2 compiles too (src/opencl/sparse_kernels.cl and
// amg_kernels.cl build them into their programs); here they become the static members of
// SparseRows<REAL>, one instance per value type, callable from host code and CUDA kernels.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define PORTLA_ROW_FN static __host__ __device__ __forceinline__
#define PORTLA_ROW_HD __host__ __device__
#else
#define PORTLA_ROW_FN static inline
#define PORTLA_ROW_HD
#endif

// *p += 1 atomically, the old value: CUDA's atomicAdd in device code, the compiler's builtin on
// the host (the OpenMP backend runs rows concurrently).
#if defined(__CUDA_ARCH__)
#define PORTLA_ATOMIC_INC(p) atomicAdd((p), 1)
#else
#define PORTLA_ATOMIC_INC(p) __atomic_fetch_add((p), 1, __ATOMIC_RELAXED)
#endif

namespace portla::sparse_rows {

/// The row functions for values of type REAL (float or double).
template <typename REAL>
struct SparseRows {
    using U64 = std::uint64_t;
    using I64 = std::int64_t;
#define PORTLA_FN PORTLA_ROW_FN
#define PORTLA_GLOBAL
#define PORTLA_ABS(v) ((v) < 0 ? -(v) : (v))
#include "common/sparse/sparse_rows.h"
#include "common/amg/aggregation_rows.h"
#include "common/amg/classical_rows.h"
#undef PORTLA_ABS
#undef PORTLA_GLOBAL
#undef PORTLA_FN
};

}  // namespace portla::sparse_rows
