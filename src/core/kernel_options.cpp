#include "portla/kernel_options.hpp"

#include <atomic>
#include <mutex>

namespace portla {

const char* kernel_options_problem(const KernelOptions& o) {
    if (o.cluster_max != 16 && o.cluster_max != 8) return "cluster_max must be 16 or 8";
    constexpr int max_planes = 512;  // the largest grid side of the tile kernels
    if (o.cg_stencil_planes < 0 || o.cg_stencil_planes > max_planes)
        return "cg_stencil_planes must be from 0 to 512";
    if (o.cg_stencil_planes != 0 && (o.cg_stencil == KernelOptions::CgStencil::automatic ||
                                     o.cg_stencil == KernelOptions::CgStencil::points))
        return "cg_stencil_planes must be 0 unless cg_stencil is lines, lines1024 or ring";
    const int h = o.cg_stencil_ring_halo;
    if (h != 0 && h != 1 && h != 2 && h != 4) return "cg_stencil_ring_halo must be 0, 1, 2 or 4";
    if (o.batch_warp_max_rows < 0) return "batch_warp_max_rows must be >= 0";
    const int b = o.batch_reg_min_blocks;
    if (b != 0 && b != 5 && b != 6 && b != 8) return "batch_reg_min_blocks must be 0, 5, 6 or 8";
    return "";
}

namespace {

std::mutex opencl_mutex;
OpenclSettings opencl_now;
// the measured crossover of src/omp/parallel.hpp
std::atomic<std::size_t> omp_threshold{4096};

}  // namespace

void set_opencl_settings(const OpenclSettings& settings) {
    std::lock_guard<std::mutex> lock(opencl_mutex);
    opencl_now = settings;
}

OpenclSettings opencl_settings() {
    std::lock_guard<std::mutex> lock(opencl_mutex);
    return opencl_now;
}

void set_omp_parallel_threshold(std::size_t units) {
    omp_threshold.store(units, std::memory_order_relaxed);
}

std::size_t omp_parallel_threshold() { return omp_threshold.load(std::memory_order_relaxed); }

}  // namespace portla
