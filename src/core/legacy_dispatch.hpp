// TRANSITIONAL: the macro dispatch of the kernel families not yet moved to core/dispatch.hpp.
// Removed when the last family is converted.
#pragma once

#include "core/kernels/matrix_kernels.hpp"
#include "portla/executor.hpp"

namespace portla {

// run(exec, kernel, args...): calls kernels::<backend>::kernel(exec, args...).
#define PORTLA_LEGACY_RUN(exec, kernel, ...)                               \
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
