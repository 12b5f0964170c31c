/// \file
/// Kernel-variant choices: KernelOptions, held by an Executor and read by its kernels where they
/// pick a variant, and the process-wide settings of the omp and opencl runtimes. Every default is
/// the measured choice (docs/kernel-choices.md, "Options"); the other values are for measurements
/// and tests. The CLI and Python set them from PORTLA_* environment variables
/// (portla/environment.hpp); the library itself never reads the environment for them.
#pragma once

#include <cstddef>

namespace portla {

/// The kernel variants of one executor. The fields only the cuda backend reads are marked so;
/// the other backends ignore them.
struct KernelOptions {
    /// cuda: the element-wise kernels (fill, copy, axpby, pointwise_mul) access 16-byte packs
    /// where every vector of the call is 16-byte aligned; false: one element at a time.
    bool packed_loads = true;
    /// cuda: the reductions sum in one thread-block cluster where they can; false: the last
    /// block to finish sums the others' partials (the ticket), never a cluster.
    bool cluster_sums = true;
    /// cuda: the largest cluster of a reduction, 16 (where the device places one) or 8 (the
    /// portable size).
    int cluster_max = 16;

    /// How the CSR product walks a row (cuda).
    enum class CsrRow {
        chunked,  ///< a row's entries in chunks per lane (cuda/sparse_row.cuh)
        loop      ///< one entry of a row per step
    };
    /// cuda: how the CSR product walks a row.
    CsrRow csr_row = CsrRow::chunked;
    /// A CSR matrix of 32-bit indices with long rows gets the long-row plan (segments and row
    /// blocks) where its backend has one; false: every row goes to the groups by the average
    /// row. Read when the matrix is made, from the matrix's executor.
    bool csr_split = true;

    /// How the fused CG direction step of ELL and CSR forms p_new (cuda).
    enum class CgDirection {
        automatic,  ///< ELL: on the fly where z and p_old fit in L2 together; CSR: pass
        pass,       ///< p_new is formed first, then read by the operator kernel
        fly         ///< p_new is formed at each read
    };
    /// cuda: how the fused CG direction step of ELL and CSR forms p_new.
    CgDirection cg_direction = CgDirection::automatic;

    /// Which kernel runs the matrix-free 3-D stencil's CG direction step (cuda).
    enum class CgStencil {
        automatic,  ///< by size: ring from 128^3 up, a thread per point below
        points,     ///< a thread per point
        lines,      ///< tiles of whole x-lines (512 threads)
        lines1024,  ///< tiles of whole x-lines (1024 threads)
        ring        ///< tiles of whole x-lines with the z-planes in a shared-memory ring
    };
    /// cuda: the matrix-free 3-D stencil's direction kernel. A tile kernel forced on a grid it
    /// does not fit takes points.
    CgStencil cg_stencil = CgStencil::automatic;
    /// cuda: z-planes per tile of lines, lines1024 or ring, 1 to 512; 0: from the grid. Must be 0
    /// for automatic and points.
    int cg_stencil_planes = 0;
    /// cuda: halo points per thread of the ring kernel, 1, 2 or 4; 0: the fewest that hold a
    /// plane's two halo rows (1 up to N = 512, 2 up to 1024, 4 up to 2048). A larger value than
    /// the grid needs runs that form of the kernel with idle slots (tests).
    int cg_stencil_ring_halo = 0;
    /// Which kernel applies a slab of the matrix-free 3-D stencil (the distributed stencil's
    /// local operator, cuda).
    enum class SlabStencil {
        automatic,  ///< ring where the device gives its shared memory, else points
        points,     ///< a thread per row
        ring        ///< tiles of whole x-lines with the z-planes in a shared-memory ring
    };
    /// cuda: the 3-D slab stencil's kernel. ring forced on a grid it does not fit takes points;
    /// 1-D and 2-D slabs always take points.
    SlabStencil slab_stencil = SlabStencil::automatic;
    /// omp: the sparse product and transpose (sparse::multiply, sparse::transpose, the AMG
    /// set-up) take the CPU kernels: a dense accumulator per thread and a transpose in row order;
    /// false: the hash tables and the sorted scatter every backend has. The same results, bit for
    /// bit.
    bool host_sparse = true;
    /// cuda: the largest system (rows) whose CG iterations run in one thread block; 0: never.
    std::size_t cg_block_loop_rows = 4096;

    /// The tile of the fast SGEMM and DGEMM (cuda).
    enum class GemmTile {
        automatic,  ///< the large tile where its blocks cover every multiprocessor
        large,
        small
    };
    /// cuda: the tile of the fast SGEMM and of the fast DGEMM on sm_90.
    GemmTile gemm_fast_tile = GemmTile::automatic;

    /// cuda: the largest batched system solved one per warp, >= 0; 0: never.
    int batch_warp_max_rows = 128;
    /// cuda: the batched solvers' warp kernel keeps the owner-only vectors in registers where
    /// it can; false: in shared memory.
    bool batch_registers = true;
    /// cuda, double: the register variants' cap as resident blocks, 5, 6 or 8; 0: the kernel's
    /// own.
    int batch_reg_min_blocks = 0;
};

/// What is wrong with `options` (for BadInput), "" when nothing is: cluster_max not 16 or 8,
/// cg_stencil_planes outside 0 ... 512 or set for automatic or points, cg_stencil_ring_halo not
/// 0, 1, 2 or 4, batch_warp_max_rows < 0,
/// batch_reg_min_blocks not 0, 5, 6 or 8.
const char* kernel_options_problem(const KernelOptions& options);

/// Settings of the opencl runtime, one per process: they apply to the devices and programs it
/// sets up after they are set.
struct OpenclSettings {
    /// NVIDIA GPUs: the sub-group kernels use inline PTX warp shuffles (docs/opencl.md);
    /// false: never.
    bool warp_shuffles = true;
    /// Program binaries are cached on disk in the user cache (not on PoCL, which caches
    /// programs itself, docs/opencl.md); false: never.
    bool program_cache = true;
};
/// Sets the opencl runtime's settings for the devices and programs set up afterwards.
void set_opencl_settings(const OpenclSettings& settings);
/// The opencl runtime's settings now.
OpenclSettings opencl_settings();

/// omp: loops over fewer units of work than this run serially (0: always parallel). One per
/// process; 4096 by default (the measured crossover, src/omp/parallel.hpp).
void set_omp_parallel_threshold(std::size_t units);
/// The threshold set_omp_parallel_threshold set (4096 unless set).
std::size_t omp_parallel_threshold();

}  // namespace portla
