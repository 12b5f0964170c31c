// The one dispatch point from backend-independent code to a backend's kernel.
#pragma once

#include "core/kernels/blas1_kernels.hpp"
#include "core/kernels/matrix_kernels.hpp"
#include "portla/executor.hpp"

namespace portla {

// run(exec, kernel, args...): calls kernels::<backend>::kernel(exec, args...).
#define PORTLA_RUN(exec, kernel, ...)                                      \
    do {                                                                   \
        switch ((exec).backend()) {                                        \
            case ::portla::Backend::reference:                             \
                ::portla::kernels::reference::kernel((exec), __VA_ARGS__); \
                break;                                                     \
            case ::portla::Backend::omp:                                   \
                ::portla::kernels::omp::kernel((exec), __VA_ARGS__);       \
                break;                                                     \
            case ::portla::Backend::cuda:                                  \
                ::portla::kernels::cuda::kernel((exec), __VA_ARGS__);      \
                break;                                                     \
        }                                                                  \
    } while (false)

}  // namespace portla
