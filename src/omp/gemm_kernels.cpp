// OpenMP matrix product: naive (parallel rows), fast (cache-blocked, packed panels, register
// micro-kernel) and vendor (OpenBLAS).
//
// fast, per slab of KC columns of A / rows of B:
//   pack B[pc:pc+kc, :] into panels of NR columns, p-major (each p: NR contiguous values);
//   pack alpha A[:, pc:pc+kc] into panels of MR rows, p-major;
//   C[MC x NCB block] += sum over panels of the MR x NR micro-kernel, blocks shared over threads.
// C is scaled by beta (or zeroed) before the first slab. The micro-kernel keeps MR x NR values
// of C in 2 MR 64-byte vector registers (AVX-512: 16 of 32 zmm) and per p loads two vectors of
// B and broadcasts MR values of A: 2 MR fused multiply-adds per 2 loads + MR broadcasts.
// A B micro-panel (KC NR sizeof(T) = 32 KiB) stays in L1, an A block (MC KC sizeof(T) = 128 KiB
// float) in L2.
#include <cblas.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/kernels/gemm_kernels.hpp"
#include "omp/parallel.hpp"

namespace portla::kernels::omp {
namespace {

constexpr std::size_t kMR = 8;    // rows of the register tile
constexpr std::size_t kKC = 256;  // depth of a packed slab
constexpr std::size_t kMC = 128;  // rows of C per work item (multiple of kMR)

template <typename T>
constexpr std::size_t lanes() {
    return 64 / sizeof(T);  // values per 64-byte vector
}
template <typename T>
constexpr std::size_t nr() {
    return 2 * lanes<T>();  // columns of the register tile: two vectors
}

// Panels: ceil(rows / MR) panels of kc x MR (A) and ceil(cols / NR) panels of kc x NR (B).
template <typename T>
void pack_a_panel(std::size_t m, std::size_t k, const T* a, T alpha, std::size_t pc, std::size_t kc,
                  std::size_t panel, T* out) {
    const std::size_t i0 = panel * kMR;
    for (std::size_t p = 0; p < kc; ++p)
        for (std::size_t i = 0; i < kMR; ++i)
            out[p * kMR + i] = i0 + i < m ? alpha * a[(i0 + i) * k + pc + p] : T(0);
}

template <typename T>
void pack_b_panel(std::size_t n, const T* b, std::size_t pc, std::size_t kc, std::size_t panel,
                  T* out) {
    constexpr std::size_t NR = nr<T>();
    const std::size_t j0 = panel * NR, width = std::min(NR, n - j0);
    for (std::size_t p = 0; p < kc; ++p) {
        const T* row = b + (pc + p) * n + j0;
        T* dst = out + p * NR;
        std::memcpy(dst, row, width * sizeof(T));
        std::fill(dst + width, dst + NR, T(0));
    }
}

}  // namespace

namespace simd {

// C[i0:i0+rows, j0:j0+cols] += packed A panels x packed B panels, rows <= MC.
template <typename T>
PORTLA_SIMD_CLONES void gemm_block(std::size_t kc, const T* __restrict ap, const T* __restrict bp,
                                   std::size_t n, T* __restrict c, std::size_t i0, std::size_t rows,
                                   std::size_t j0, std::size_t cols) {
    constexpr std::size_t NR = nr<T>(), L = lanes<T>();
    typedef T vec __attribute__((vector_size(64)));
    for (std::size_t jr = 0; jr < cols; jr += NR) {
        const T* bpanel = bp + ((j0 + jr) / NR) * kc * NR;
        const std::size_t w = std::min(NR, cols - jr);
        for (std::size_t ir = 0; ir < rows; ir += kMR) {
            const T* apanel = ap + ((i0 + ir) / kMR) * kc * kMR;
            vec acc[kMR][2] = {};
            for (std::size_t p = 0; p < kc; ++p) {
                vec b0, b1;
                std::memcpy(&b0, bpanel + p * NR, sizeof(vec));
                std::memcpy(&b1, bpanel + p * NR + L, sizeof(vec));
#pragma GCC unroll 8
                for (std::size_t i = 0; i < kMR; ++i) {
                    const T ai = apanel[p * kMR + i];
                    acc[i][0] += ai * b0;
                    acc[i][1] += ai * b1;
                }
            }
            const std::size_t h = std::min(kMR, rows - ir);
            for (std::size_t i = 0; i < h; ++i) {
                T* crow = c + (i0 + ir + i) * n + j0 + jr;
                T tile[NR];
                std::memcpy(tile, &acc[i][0], sizeof(vec));
                std::memcpy(tile + L, &acc[i][1], sizeof(vec));
                for (std::size_t j = 0; j < w; ++j) crow[j] += tile[j];
            }
        }
    }
}

// C[i, :] = alpha A[i, :] B + beta C[i, :] for rows [begin, end), summing along rows of B.
template <typename T>
PORTLA_SIMD_CLONES void gemm_rows(std::size_t begin, std::size_t end, std::size_t n, std::size_t k,
                                  T alpha, const T* __restrict a, const T* __restrict b, T beta,
                                  T* __restrict c, T* __restrict acc) {
    for (std::size_t i = begin; i < end; ++i) {
        std::fill(acc, acc + n, T(0));
        for (std::size_t l = 0; l < k; ++l) {
            const T ail = a[i * k + l];
            const T* brow = b + l * n;
#pragma omp simd
            for (std::size_t j = 0; j < n; ++j) acc[j] += ail * brow[j];
        }
        T* crow = c + i * n;
        if (beta == T(0))
            for (std::size_t j = 0; j < n; ++j) crow[j] = alpha * acc[j];
        else
            for (std::size_t j = 0; j < n; ++j) crow[j] = alpha * acc[j] + beta * crow[j];
    }
}

}  // namespace simd

namespace {

template <typename T>
void gemm_naive(std::size_t m, std::size_t n, std::size_t k, T alpha, const T* a, const T* b,
                T beta, T* c) {
#pragma omp parallel if (m * n * k >= parallel_threshold())
    {
        std::vector<T> acc(n);
        const auto [begin, end] = thread_range(m);
        simd::gemm_rows(begin, end, n, k, alpha, a, b, beta, c, acc.data());
    }
}

template <typename T>
void gemm_blocked(std::size_t m, std::size_t n, std::size_t k, T alpha, const T* a, const T* b,
                  T beta, T* c) {
    constexpr std::size_t NR = nr<T>();
    const std::size_t a_panels = (m + kMR - 1) / kMR, b_panels = (n + NR - 1) / NR;
    const std::size_t kc_max = std::min(kKC, k);
    std::vector<T> ap(a_panels * kMR * kc_max), bp(b_panels * NR * kc_max);
    // Columns of C per work item: 256, or 64 when that leaves fewer than two items a thread.
    const std::size_t row_blocks = (m + kMC - 1) / kMC;
#ifdef _OPENMP
    const std::size_t threads = static_cast<std::size_t>(omp_get_max_threads());
#else
    const std::size_t threads = 1;
#endif
    const std::size_t ncb = row_blocks * ((n + 255) / 256) >= 2 * threads ? 256 : 2 * NR;
    const std::size_t col_blocks = (n + ncb - 1) / ncb;
    const bool parallel = m * n * k >= parallel_threshold();
#pragma omp parallel if (parallel)
    {
        const auto [c_begin, c_end] = thread_range(m * n);
        if (beta == T(0))
            std::fill(c + c_begin, c + c_end, T(0));
        else
            for (std::size_t e = c_begin; e < c_end; ++e) c[e] *= beta;
        for (std::size_t pc = 0; pc < k; pc += kKC) {
            const std::size_t kc = std::min(kKC, k - pc);
#pragma omp for schedule(static)
            for (std::size_t panel = 0; panel < b_panels; ++panel)
                pack_b_panel(n, b, pc, kc, panel, bp.data() + panel * kc * NR);
#pragma omp for schedule(static)
            for (std::size_t panel = 0; panel < a_panels; ++panel)
                pack_a_panel(m, k, a, alpha, pc, kc, panel, ap.data() + panel * kc * kMR);
                // (the implicit barriers also order the beta pass before the first update)
#pragma omp for collapse(2) schedule(static)
            for (std::size_t rb = 0; rb < row_blocks; ++rb)
                for (std::size_t cb = 0; cb < col_blocks; ++cb) {
                    const std::size_t i0 = rb * kMC, j0 = cb * ncb;
                    simd::gemm_block(kc, ap.data(), bp.data(), n, c, i0, std::min(kMC, m - i0), j0,
                                     std::min(ncb, n - j0));
                }
        }
    }
}

// OpenBLAS: row-major, no transposes, leading dimensions k, n, n.
void vendor_gemm(int m, int n, int k, double alpha, const double* a, const double* b, double beta,
                 double* c) {
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, alpha, a, k, b, n, beta, c, n);
}
void vendor_gemm(int m, int n, int k, float alpha, const float* a, const float* b, float beta,
                 float* c) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, alpha, a, k, b, n, beta, c, n);
}

}  // namespace

template <typename T>
void gemm(tag, const Executor&, GemmVariant variant, std::size_t m, std::size_t n, std::size_t k,
          T alpha, const_view<T> a, const_view<T> b, T beta, view<T> c) {
    switch (variant) {
        case GemmVariant::naive:
            return gemm_naive<T>(m, n, k, alpha, a.data, b.data, beta, c.data);
        case GemmVariant::vendor:
            return vendor_gemm(static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), alpha,
                               a.data, b.data, beta, c.data);
        default:  // fast; tiled and subgroup are refused in core
            return gemm_blocked<T>(m, n, k, alpha, a.data, b.data, beta, c.data);
    }
}

PORTLA_INSTANTIATE_GEMM_KERNELS(double);
PORTLA_INSTANTIATE_GEMM_KERNELS(float);

}  // namespace portla::kernels::omp
