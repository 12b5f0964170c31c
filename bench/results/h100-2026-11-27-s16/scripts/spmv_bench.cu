// Session 16 experiment: SpMV variants on the power-law matrix (not part of the library).
//   nvcc -O3 -arch=sm_90 -std=c++17 -I include -I src .dev/s16/spmv_bench.cu -o /tmp/spmv_bench
//   /tmp/spmv_bench /tmp/pl_shuf
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "common/csr_long_rows.hpp"
#include "cuda/csr_split.cuh"

using namespace portla;
using namespace portla::kernels::cuda;

#define CK(x)                                                                     \
    do {                                                                          \
        cudaError_t e = (x);                                                      \
        if (e != cudaSuccess) {                                                   \
            std::printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
            std::exit(1);                                                         \
        }                                                                         \
    } while (0)

template <typename T>
std::vector<T> read_bin(const std::string& path) {
    FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) {
        std::printf("cannot open %s\n", path.c_str());
        std::exit(1);
    }
    std::fseek(f, 0, SEEK_END);
    long bytes = std::ftell(f);
    std::fseek(f, 0, SEEK_SET);
    std::vector<T> v(bytes / sizeof(T));
    if (std::fread(v.data(), sizeof(T), v.size(), f) != v.size()) std::exit(2);
    std::fclose(f);
    return v;
}

// L: 0 __ldg, 1 __ldcs, 2 L1::no_allocate + L2 evict_first policy
template <int L, typename T>
__device__ __forceinline__ T lds(const T* p) {
    if constexpr (L == 0) return __ldg(p);
    if constexpr (L == 1) return __ldcs(p);
    if constexpr (L == 2) {
        std::uint64_t pol;
        asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));
        if constexpr (sizeof(T) == 8) {
            double r;
            asm volatile("ld.global.nc.L1::no_allocate.L2::cache_hint.f64 %0, [%1], %2;"
                         : "=d"(r)
                         : "l"(p), "l"(pol));
            return r;
        } else {
            int r;
            asm volatile("ld.global.nc.L1::no_allocate.L2::cache_hint.s32 %0, [%1], %2;"
                         : "=r"(r)
                         : "l"(p), "l"(pol));
            return r;
        }
    }
}
// X: 0 __ldg, 1 L2 evict_last policy
template <int X>
__device__ __forceinline__ double ldx(const double* p) {
    if constexpr (X == 0) return __ldg(p);
    std::uint64_t pol;
    asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(pol));
    double r;
    asm volatile("ld.global.nc.L2::cache_hint.f64 %0, [%1], %2;" : "=d"(r) : "l"(p), "l"(pol));
    return r;
}

// short rows by groups of G lanes, own copy with load policies
template <int G, int L, int X>
__global__ void groups_kernel(std::size_t rows, std::size_t from, const int* row_ptrs,
                              const int* cols, const double* vals, CsrLongRows<double> lr,
                              const double* x, double* y) {
    const std::size_t warp = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
    const std::size_t warps = (static_cast<std::size_t>(gridDim.x) * blockDim.x) >> 5;
    const auto read = [x](std::size_t j) { return ldx<X>(x + j); };
    csr_long_segments(lr, row_ptrs, cols, vals, read, warp, warps, y, [](std::size_t, double) {});
    constexpr unsigned per = 32 / G;
    const unsigned lane = threadIdx.x & 31u, member = lane % G;
    for (std::size_t first = warp * per; first < rows; first += warps * per) {
        const std::size_t row = first + lane / G;
        double acc = 0;
        bool mine = false;
        if (row < rows) {
            const int b = __ldg(row_ptrs + row), e = __ldg(row_ptrs + row + 1);
            mine = static_cast<std::size_t>(e - b) <= from;
            if (mine) {
                for (int k0 = b + member; k0 < e; k0 += G * 4) {
                    int c[4];
                    double w[4];
#pragma unroll
                    for (int j = 0; j < 4; ++j) {
                        const int k = k0 + j * G;
                        c[j] = k < e ? lds<L>(cols + k) : 0;
                        w[j] = k < e ? lds<L>(vals + k) : 0.0;
                    }
#pragma unroll
                    for (int j = 0; j < 4; ++j)
                        if (k0 + j * G < e) acc += w[j] * ldx<X>(x + c[j]);
                }
            }
        }
        acc = warp_sum<G>(acc);
        if (mine && member == 0) y[row] = acc;
    }
}

// row blocks: a warp takes consecutive short rows holding at most 32 E entries and at most 32
// rows, loads their products into shared memory (every lane busy, E gathers in flight per lane),
// then groups of g lanes (by the block's row count) add the rows from shared memory.
template <int E, int L, int X>
__global__ void __launch_bounds__(256)
    blocks_kernel(std::size_t nblocks, const int* blk, const int* row_ptrs, const int* cols,
                  const double* vals, CsrLongRows<double> lr, const double* x, double* y) {
    constexpr int cap = 32 * E;
    __shared__ double prod[8][cap];
    const std::size_t warp = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
    const std::size_t warps = (static_cast<std::size_t>(gridDim.x) * blockDim.x) >> 5;
    const auto read = [x](std::size_t j) { return ldx<X>(x + j); };
    csr_long_segments(lr, row_ptrs, cols, vals, read, warp, warps, y, [](std::size_t, double) {});
    const unsigned lane = threadIdx.x & 31u;
    double* sp = prod[threadIdx.x >> 5];
    for (std::size_t b = warp; b < nblocks; b += warps) {
        const int r0 = __ldg(blk + b), r1 = __ldg(blk + b + 1);
        const int base = __ldg(row_ptrs + r0), end = __ldg(row_ptrs + r1);
        if (end - base > cap) continue;  // a long row: its segments
        int c[E];
        double w[E];
#pragma unroll
        for (int j = 0; j < E; ++j) {
            const int k = base + j * 32 + static_cast<int>(lane);
            c[j] = k < end ? lds<L>(cols + k) : 0;
            w[j] = k < end ? lds<L>(vals + k) : 0.0;
        }
#pragma unroll
        for (int j = 0; j < E; ++j) {
            const int k = base + j * 32 + static_cast<int>(lane);
            if (k < end) sp[j * 32 + lane] = w[j] * ldx<X>(x + c[j]);
        }
        __syncwarp();
        const int nr = r1 - r0;
        const int g = nr > 16 ? 1 : nr > 8 ? 2 : nr > 4 ? 4 : nr > 2 ? 8 : nr > 1 ? 16 : 32;
        const int mine = static_cast<int>(lane) / g, member = static_cast<int>(lane) % g;
        double acc = 0;
        if (mine < nr) {
            const int s = __ldg(row_ptrs + r0 + mine) - base,
                      e = __ldg(row_ptrs + r0 + mine + 1) - base;
            for (int k = s + member; k < e; k += g) acc += sp[k];
        }
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) {
            const double o = __shfl_down_sync(0xffffffffu, acc, off);
            if (off < g) acc += o;
        }
        if (mine < nr && member == 0) y[r0 + mine] = acc;
        __syncwarp();
    }
}

// blocks with the header (first row, first entry) planned and the next block's header loaded
// while this block is summed
template <int E, int L, int X>
__global__ void __launch_bounds__(256)
    blocks2_kernel(std::size_t nblocks, const int* blk, const int* blk_base, const int* row_ptrs,
                   const int* cols, const double* vals, CsrLongRows<double> lr, const double* x,
                   double* y) {
    constexpr int cap = 32 * E;
    __shared__ double prod[8][cap];
    const std::size_t warp = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
    const std::size_t warps = (static_cast<std::size_t>(gridDim.x) * blockDim.x) >> 5;
    const auto read = [x](std::size_t j) { return ldx<X>(x + j); };
    const unsigned lane = threadIdx.x & 31u;
    double* sp = prod[threadIdx.x >> 5];
    int r0 = 0, r1 = 0, base = 0, end = 0;
    if (warp < nblocks) {
        r0 = __ldg(blk + warp);
        r1 = __ldg(blk + warp + 1);
        base = __ldg(blk_base + warp);
        end = __ldg(blk_base + warp + 1);
    }
    for (std::size_t b = warp; b < nblocks; b += warps) {
        const std::size_t nb = b + warps;
        int n0 = 0, n1 = 0, nbase = 0, nend = 0;
        if (nb < nblocks) {
            n0 = __ldg(blk + nb);
            n1 = __ldg(blk + nb + 1);
            nbase = __ldg(blk_base + nb);
            nend = __ldg(blk_base + nb + 1);
        }
        if (end - base <= cap) {
            int c[E];
            double w[E];
#pragma unroll
            for (int j = 0; j < E; ++j) {
                const int k = base + j * 32 + static_cast<int>(lane);
                c[j] = k < end ? lds<L>(cols + k) : 0;
                w[j] = k < end ? lds<L>(vals + k) : 0.0;
            }
            const int nr = r1 - r0;
            int s = 0, e = 0;
            const int g = nr > 16 ? 1 : nr > 8 ? 2 : nr > 4 ? 4 : nr > 2 ? 8 : nr > 1 ? 16 : 32;
            const int mine = static_cast<int>(lane) / g, member = static_cast<int>(lane) % g;
            if (mine < nr) {
                s = __ldg(row_ptrs + r0 + mine) - base;
                e = __ldg(row_ptrs + r0 + mine + 1) - base;
            }
#pragma unroll
            for (int j = 0; j < E; ++j) {
                const int k = base + j * 32 + static_cast<int>(lane);
                if (k < end) sp[j * 32 + lane] = w[j] * ldx<X>(x + c[j]);
            }
            __syncwarp();
            double acc = 0;
            for (int k = s + member; k < e; k += g) acc += sp[k];
#pragma unroll
            for (int off = 16; off > 0; off >>= 1) {
                const double o = __shfl_down_sync(0xffffffffu, acc, off);
                if (off < g) acc += o;
            }
            if (mine < nr && member == 0) y[r0 + mine] = acc;
            __syncwarp();
        }
        r0 = n0;
        r1 = n1;
        base = nbase;
        end = nend;
    }
    csr_long_segments(lr, row_ptrs, cols, vals, read, warp, warps, y, [](std::size_t, double) {});
}

// The access pattern alone: every entry's column, value and gathered x, summed per thread with
// no rows (the cheapest kernel that reads what the SpMV reads).
__global__ void touch_kernel(std::size_t nnz, const int* cols, const double* vals, const double* x,
                             double* out) {
    const std::size_t t = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    double acc = 0;
    for (std::size_t k0 = t; k0 < nnz; k0 += 8 * threads) {
        int c[8];
        double w[8];
#pragma unroll
        for (int j = 0; j < 8; ++j) {
            const std::size_t k = k0 + j * threads;
            c[j] = k < nnz ? __ldcs(cols + k) : 0;
            w[j] = k < nnz ? __ldcs(vals + k) : 0.0;
        }
#pragma unroll
        for (int j = 0; j < 8; ++j) acc += w[j] * __ldg(x + c[j]);
    }
    out[t % 4096] = acc;
}
// Only the streams (no gathers): 12 B per entry.
__global__ void stream_kernel(std::size_t nnz, const int* cols, const double* vals, double* out) {
    const std::size_t t = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    double acc = 0;
    for (std::size_t k0 = t; k0 < nnz; k0 += 8 * threads) {
#pragma unroll
        for (int j = 0; j < 8; ++j) {
            const std::size_t k = k0 + j * threads;
            if (k < nnz) acc += __ldcs(vals + k) * __ldcs(cols + k);
        }
    }
    out[t % 4096] = acc;
}

std::vector<int> plan_blocks(const std::vector<int>& ptr, int cap) {
    const int n = static_cast<int>(ptr.size()) - 1;
    std::vector<int> blk{0};
    int r = 0;
    while (r < n) {
        if (ptr[r + 1] - ptr[r] > cap) {
            ++r;
        } else {
            int cnt = 0, ent = 0;
            while (r < n && cnt < 32 && ptr[r + 1] - ptr[r] <= cap &&
                   ent + ptr[r + 1] - ptr[r] <= cap) {
                ent += ptr[r + 1] - ptr[r];
                ++cnt;
                ++r;
            }
        }
        blk.push_back(r);
    }
    return blk;
}

struct Dev {
    CsrLongRows<double> lr;
    int* rows = nullptr;
    int* parts = nullptr;
};

Dev upload_plan(const std::vector<int>& ptr, std::size_t from) {
    common::CsrLongRowPlan plan;
    plan.from = from;
    const int n = static_cast<int>(ptr.size()) - 1;
    for (int i = 0; i < n; ++i) {
        const std::size_t len = ptr[i + 1] - ptr[i];
        if (len <= from) continue;
        const std::size_t parts = (len + common::kCsrSegment - 1) / common::kCsrSegment;
        for (std::size_t k = 0; k < parts; ++k) {
            plan.rows.push_back(i);
            plan.parts.push_back(static_cast<int>(k));
        }
    }
    Dev d;
    const std::size_t s = plan.rows.size();
    CK(cudaMalloc(&d.rows, s * 4));
    CK(cudaMalloc(&d.parts, s * 4));
    CK(cudaMemcpy(d.rows, plan.rows.data(), s * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d.parts, plan.parts.data(), s * 4, cudaMemcpyHostToDevice));
    double* partials;
    unsigned* counters;
    CK(cudaMalloc(&partials, s * 8));
    CK(cudaMalloc(&counters, s * 4));
    CK(cudaMemset(counters, 0, s * 4));
    d.lr.from = from;
    d.lr.segments = s;
    d.lr.rows = d.rows;
    d.lr.parts = d.parts;
    d.lr.partials = partials;
    d.lr.counters = counters;
    return d;
}

int main(int argc, char** argv) {
    const std::string base = argv[1];
    const auto ptr = read_bin<int>(base + ".ptr");
    const auto col = read_bin<int>(base + ".col");
    const auto val = read_bin<double>(base + ".val");
    const std::size_t n = ptr.size() - 1, nnz = col.size();
    std::vector<double> x(n);
    for (std::size_t i = 0; i < n; ++i) x[i] = 0.5 + (i * 2654435761u % 1000) / 1000.0;
    std::vector<double> ref(n), scale(n);
    for (std::size_t i = 0; i < n; ++i) {
        double s = 0, a = 0;
        for (int k = ptr[i]; k < ptr[i + 1]; ++k)
            s += val[k] * x[col[k]], a += std::fabs(val[k] * x[col[k]]);
        ref[i] = s;
        scale[i] = a;
    }
    int *dptr, *dcol;
    double *dval, *dx, *dy;
    CK(cudaMalloc(&dptr, ptr.size() * 4));
    CK(cudaMalloc(&dcol, nnz * 4));
    CK(cudaMalloc(&dval, nnz * 8));
    CK(cudaMalloc(&dx, n * 8));
    CK(cudaMalloc(&dy, n * 8));
    CK(cudaMemcpy(dptr, ptr.data(), ptr.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dcol, col.data(), nnz * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dval, val.data(), nnz * 8, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dx, x.data(), n * 8, cudaMemcpyHostToDevice));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    const int grid = prop.multiProcessorCount * 8;
    cudaStream_t st;
    CK(cudaStreamCreate(&st));
    const double bytes = 12.0 * nnz + 4.0 * (n + 1) + 16.0 * n;
    std::printf("%s: n %zu nnz %zu, grid %d x 256, floor bytes %.1f MB\n", base.c_str(), n, nnz,
                grid, bytes / 1e6);

    const Dev d256 = upload_plan(ptr, 256), d128 = upload_plan(ptr, 128),
              d64 = upload_plan(ptr, 64);
    std::vector<int> b8 = plan_blocks(ptr, 256), b4 = plan_blocks(ptr, 128),
                     b2 = plan_blocks(ptr, 64);
    auto up = [](const std::vector<int>& v) {
        int* p;
        CK(cudaMalloc(&p, v.size() * 4));
        CK(cudaMemcpy(p, v.data(), v.size() * 4, cudaMemcpyHostToDevice));
        return p;
    };
    int *db8 = up(b8), *db4 = up(b4), *db2 = up(b2);
    auto bases = [&](const std::vector<int>& b) {
        std::vector<int> v(b.size());
        for (std::size_t i = 0; i < b.size(); ++i) v[i] = ptr[b[i]];
        return v;
    };
    int *dbb8 = up(bases(b8)), *dbb4 = up(bases(b4));
    std::printf("row blocks: cap 256 %zu, cap 128 %zu, cap 64 %zu; segments %zu/%zu/%zu\n",
                b8.size() - 1, b4.size() - 1, b2.size() - 1, d256.lr.segments, d128.lr.segments,
                d64.lr.segments);

    std::vector<double> y(n);
    auto run = [&](const char* name, auto launch) {
        CK(cudaMemsetAsync(dy, 0, n * 8, st));
        launch();
        CK(cudaStreamSynchronize(st));
        CK(cudaGetLastError());
        CK(cudaMemcpy(y.data(), dy, n * 8, cudaMemcpyDeviceToHost));
        double err = 0;
        for (std::size_t i = 0; i < n; ++i)
            err = std::max(err, std::fabs(y[i] - ref[i]) / (scale[i] + 1e-300));
        if (!std::getenv("NCU"))
            for (int w = 0; w < 3; ++w) launch();
        cudaEvent_t a, b;
        CK(cudaEventCreate(&a));
        CK(cudaEventCreate(&b));
        const int reps = std::getenv("NCU") ? 1 : 50;
        float best = 1e30f, total = 0;
        for (int r = 0; r < reps; ++r) {
            CK(cudaEventRecord(a, st));
            launch();
            CK(cudaEventRecord(b, st));
            CK(cudaEventSynchronize(b));
            float ms;
            CK(cudaEventElapsedTime(&ms, a, b));
            best = std::min(best, ms);
            total += ms;
        }
        std::printf("%-28s mean %.4f ms best %.4f ms  %.0f GB/s(floor bytes)  err %.1e\n", name,
                    total / reps, best, bytes / (total / reps * 1e-3) / 1e9, err);
    };
#define GROUPS(G, L, X, D)                                                        \
    run("groups G=" #G " L=" #L " X=" #X, [&] {                                   \
        groups_kernel<G, L, X>                                                    \
            <<<grid, 256, 0, st>>>(n, D.lr.from, dptr, dcol, dval, D.lr, dx, dy); \
    })
#define BLOCKS(E, L, X, D, B, NB)                                                            \
    run("blocks E=" #E " L=" #L " X=" #X, [&] {                                              \
        blocks_kernel<E, L, X><<<grid, 256, 0, st>>>(NB, B, dptr, dcol, dval, D.lr, dx, dy); \
    })
    {
        double* scratch;
        CK(cudaMalloc(&scratch, 4096 * 8));
        auto timed = [&](const char* name, auto launch) {
            for (int w = 0; w < 3; ++w) launch();
            cudaEvent_t a, b;
            CK(cudaEventCreate(&a));
            CK(cudaEventCreate(&b));
            float total = 0;
            for (int r = 0; r < 50; ++r) {
                CK(cudaEventRecord(a, st));
                launch();
                CK(cudaEventRecord(b, st));
                CK(cudaEventSynchronize(b));
                float ms;
                CK(cudaEventElapsedTime(&ms, a, b));
                total += ms;
            }
            std::printf("%-28s mean %.4f ms\n", name, total / 50);
        };
        timed("touch (streams + gathers)",
              [&] { touch_kernel<<<grid * 2, 256, 0, st>>>(nnz, dcol, dval, dx, scratch); });
        timed("streams only (12 B/entry)",
              [&] { stream_kernel<<<grid * 2, 256, 0, st>>>(nnz, dcol, dval, scratch); });
    }
    GROUPS(8, 0, 0, d256);
    GROUPS(8, 1, 0, d256);
    GROUPS(8, 2, 0, d256);
    GROUPS(8, 2, 1, d256);
    GROUPS(4, 0, 0, d128);
    GROUPS(4, 2, 1, d128);
    GROUPS(2, 0, 0, d64);
#define BLOCKS2(E, L, X, D, B, BB, NB)                                                            \
    run("blocks2 E=" #E " L=" #L " X=" #X, [&] {                                                  \
        blocks2_kernel<E, L, X><<<grid, 256, 0, st>>>(NB, B, BB, dptr, dcol, dval, D.lr, dx, dy); \
    })
    BLOCKS2(8, 1, 0, d256, db8, dbb8, b8.size() - 1);
    BLOCKS2(8, 2, 1, d256, db8, dbb8, b8.size() - 1);
    BLOCKS2(4, 1, 0, d128, db4, dbb4, b4.size() - 1);
    BLOCKS2(4, 2, 1, d128, db4, dbb4, b4.size() - 1);
    BLOCKS(8, 0, 0, d256, db8, b8.size() - 1);
    BLOCKS(8, 1, 0, d256, db8, b8.size() - 1);
    BLOCKS(8, 2, 0, d256, db8, b8.size() - 1);
    BLOCKS(8, 2, 1, d256, db8, b8.size() - 1);
    BLOCKS(4, 0, 0, d128, db4, b4.size() - 1);
    BLOCKS(4, 2, 1, d128, db4, b4.size() - 1);
    BLOCKS(2, 2, 1, d64, db2, b2.size() - 1);
    {
        cusparseHandle_t h;
        cusparseCreate(&h);
        cusparseSetStream(h, st);
        cusparseSpMatDescr_t A;
        cusparseDnVecDescr_t vx, vy;
        cusparseCreateCsr(&A, n, n, nnz, dptr, dcol, dval, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                          CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F);
        cusparseCreateDnVec(&vx, n, dx, CUDA_R_64F);
        cusparseCreateDnVec(&vy, n, dy, CUDA_R_64F);
        const double one = 1, zero = 0;
        for (auto alg : {CUSPARSE_SPMV_CSR_ALG1, CUSPARSE_SPMV_CSR_ALG2}) {
            size_t ws = 0;
            void* buf = nullptr;
            cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vx, &zero, vy,
                                    CUDA_R_64F, alg, &ws);
            CK(cudaMalloc(&buf, ws + 1));
            cusparseSpMV_preprocess(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vx, &zero, vy,
                                    CUDA_R_64F, alg, buf);
            run(alg == CUSPARSE_SPMV_CSR_ALG1 ? "cusparse CSR_ALG1" : "cusparse CSR_ALG2", [&] {
                cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vx, &zero, vy,
                             CUDA_R_64F, alg, buf);
            });
        }
    }
    // x persisting in L2
    const std::size_t win = std::min<std::size_t>(n * 8, prop.accessPolicyMaxWindowSize);
    CK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize,
                          std::min<std::size_t>(prop.persistingL2CacheMaxSize, n * 8)));
    cudaStreamAttrValue attr{};
    attr.accessPolicyWindow.base_ptr = dx;
    attr.accessPolicyWindow.num_bytes = win;
    attr.accessPolicyWindow.hitRatio =
        std::min(1.0f, float(prop.persistingL2CacheMaxSize) / float(win));
    attr.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    attr.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    CK(cudaStreamSetAttribute(st, cudaStreamAttributeAccessPolicyWindow, &attr));
    std::printf("persisting: max %d B, window %zu B, hitRatio %.2f\n",
                prop.persistingL2CacheMaxSize, win, attr.accessPolicyWindow.hitRatio);
    GROUPS(8, 2, 0, d256);
    BLOCKS(8, 0, 0, d256, db8, b8.size() - 1);
    BLOCKS(8, 2, 0, d256, db8, b8.size() - 1);
    BLOCKS(4, 2, 0, d128, db4, b4.size() - 1);
    return 0;
}
