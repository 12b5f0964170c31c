// The OpenCL C sources of src/opencl/*.cl, embedded at build time (cmake/embed_opencl.cmake).
#pragma once

#include <cstddef>

namespace portla::kernels::opencl {

struct ClSource {
    const char* name;  ///< "blas1_kernels.cl"
    const char* text;  ///< opens with #line 1 "src/opencl/<name>"
};
extern const ClSource cl_sources[];
extern const std::size_t cl_source_count;

}  // namespace portla::kernels::opencl
