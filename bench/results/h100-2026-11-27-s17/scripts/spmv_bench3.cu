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

struct Segs {
    std::size_t segments = 0;
    const int* rows = nullptr;
    const int* parts = nullptr;
    double* partials = nullptr;
    unsigned* counters = nullptr;
};

template <int SEG, int C, int L>
__device__ __forceinline__ void segs(const Segs& sg, const int* row_ptrs, const int* cols,
                                     const double* vals, const double* x, std::size_t warp,
                                     std::size_t warps, double* y) {
    const int lane = threadIdx.x & 31;
    for (std::size_t s = warp; s < sg.segments; s += warps) {
        const int row = __ldg(sg.rows + s), part = __ldg(sg.parts + s);
        const int begin = __ldg(row_ptrs + row), end = __ldg(row_ptrs + row + 1);
        const int first = begin + part * SEG;
        const int last = min(first + SEG, end);
        double acc = 0;
        for (int k0 = first + lane; k0 < last; k0 += 32 * C) {
            int c[C];
            double w[C];
#pragma unroll
            for (int j = 0; j < C; ++j) {
                const int k = k0 + 32 * j;
                c[j] = k < last ? lds<L>(cols + k) : 0;
                w[j] = k < last ? lds<L>(vals + k) : 0.0;
            }
#pragma unroll
            for (int j = 0; j < C; ++j)
                if (k0 + 32 * j < last) acc += w[j] * __ldg(x + c[j]);
        }
        acc = warp_sum(acc);
        const int parts = (end - begin + SEG - 1) / SEG;
        if (parts == 1) {
            if (lane == 0) y[row] = acc;
            continue;
        }
        const std::size_t head = s - part;
        unsigned last_in = 0;
        if (lane == 0) {
            sg.partials[s] = acc;
            __threadfence();
            last_in = atomicAdd(sg.counters + head, 1u) == static_cast<unsigned>(parts - 1);
        }
        last_in = __shfl_sync(0xffffffffu, last_in, 0);
        if (last_in) {
            __threadfence();
            double total = 0;
            for (int k = lane; k < parts; k += 32) total += __ldcg(sg.partials + head + k);
            total = warp_sum(total);
            if (lane == 0) {
                y[row] = total;
                sg.counters[head] = 0;
            }
        }
    }
}

template <int G>
__device__ __forceinline__ double gx(const double* p) {
    if constexpr (G == 0) return __ldg(p);
    if constexpr (G == 1) {
        double r;
        asm volatile("ld.global.nc.L1::evict_last.f64 %0, [%1];" : "=d"(r) : "l"(p));
        return r;
    }
    if constexpr (G == 2) return *p;
}
template <int G, typename T>
__device__ __forceinline__ T gs(const T* p) {  // streams: 0 __ldcs, 1 L1::no_allocate
    if constexpr (G == 0) return __ldcs(p);
    if constexpr (sizeof(T) == 8) {
        double r;
        asm volatile("ld.global.nc.L1::no_allocate.f64 %0, [%1];" : "=d"(r) : "l"(p));
        return r;
    } else {
        int r;
        asm volatile("ld.global.nc.L1::no_allocate.s32 %0, [%1];" : "=r"(r) : "l"(p));
        return r;
    }
}
template <int SEG, int C, int L, int E, int Y = 0, int H = 0, int GX = 0, int GS = 0>
__global__ void __launch_bounds__(256)
    combo_kernel(std::size_t nblocks, const int* blk, const int* row_ptrs, const int* cols,
                 const double* vals, Segs sg, const double* x, double* y) {
    constexpr int cap = 32 * E;
    __shared__ double prod[8][cap];
    const std::size_t warp = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
    const std::size_t warps = (static_cast<std::size_t>(gridDim.x) * blockDim.x) >> 5;
    segs<SEG, C, L>(sg, row_ptrs, cols, vals, x, warp, warps, y);
    const unsigned lane = threadIdx.x & 31u;
    double* sp = prod[threadIdx.x >> 5];
    for (std::size_t b = warp; b < nblocks; b += warps) {
        const int r0 = H ? __ldcs(blk + b) : __ldg(blk + b),
                  r1 = H ? __ldcs(blk + b + 1) : __ldg(blk + b + 1);
        const int base = __ldg(row_ptrs + r0), end = __ldg(row_ptrs + r1);
        if (end - base > cap) continue;
        int c[E];
        double w[E];
#pragma unroll
        for (int j = 0; j < E; ++j) {
            const int k = base + j * 32 + static_cast<int>(lane);
            c[j] = k < end ? gs<GS>(cols + k) : 0;
            w[j] = k < end ? gs<GS>(vals + k) : 0.0;
        }
#pragma unroll
        for (int j = 0; j < E; ++j) {
            const int k = base + j * 32 + static_cast<int>(lane);
            if (k < end) sp[j * 32 + lane] = w[j] * gx<GX>(x + c[j]);
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
        if (mine < nr && member == 0) {
            if (Y)
                __stcs(y + r0 + mine, acc);
            else
                y[r0 + mine] = acc;
        }
        __syncwarp();
    }
}

// The access pattern alone: every entry's column, value and gathered x, summed per thread with
// no rows (the cheapest kernel that reads what the SpMV reads).
template <int GX = 0>
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
        for (int j = 0; j < 8; ++j) acc += w[j] * gx<GX>(x + c[j]);
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

std::vector<int> plan_blocks(const std::vector<int>& ptr, int cap, int chunk = 1 << 30) {
    const int n = static_cast<int>(ptr.size()) - 1;
    std::vector<int> blk{0};
    int r = 0;
    while (r < n) {
        const int stop = std::min(n, (r / chunk + 1) * chunk);
        if (ptr[r + 1] - ptr[r] > cap) {
            ++r;
        } else {
            int cnt = 0, ent = 0;
            while (r < stop && cnt < 32 && ptr[r + 1] - ptr[r] <= cap &&
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

Segs upload_segs(const std::vector<int>& ptr, int from, int seg) {
    std::vector<int> rows, parts;
    const int n = static_cast<int>(ptr.size()) - 1;
    for (int i = 0; i < n; ++i) {
        const int len = ptr[i + 1] - ptr[i];
        if (len <= from) continue;
        for (int k = 0; k < (len + seg - 1) / seg; ++k) {
            rows.push_back(i);
            parts.push_back(k);
        }
    }
    Segs s;
    s.segments = rows.size();
    int *r, *p;
    CK(cudaMalloc(&r, rows.size() * 4 + 4));
    CK(cudaMalloc(&p, rows.size() * 4 + 4));
    CK(cudaMemcpy(r, rows.data(), rows.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(p, parts.data(), rows.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaMalloc(&s.partials, rows.size() * 8 + 8));
    CK(cudaMalloc(&s.counters, rows.size() * 4 + 4));
    CK(cudaMemset(s.counters, 0, rows.size() * 4 + 4));
    s.rows = r;
    s.parts = p;
    return s;
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
    double *dval, *dx, *dy, *scratch;
    CK(cudaMalloc(&dptr, ptr.size() * 4));
    CK(cudaMalloc(&dcol, nnz * 4));
    CK(cudaMalloc(&dval, nnz * 8));
    CK(cudaMalloc(&dx, n * 8));
    CK(cudaMalloc(&dy, n * 8));
    CK(cudaMalloc(&scratch, 4096 * 8));
    CK(cudaMemcpy(dptr, ptr.data(), ptr.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dcol, col.data(), nnz * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dval, val.data(), nnz * 8, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dx, x.data(), n * 8, cudaMemcpyHostToDevice));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    const int grid = prop.multiProcessorCount * 8;
    cudaStream_t st;
    CK(cudaStreamCreate(&st));
    const bool ncu = std::getenv("NCU") != nullptr;
    std::vector<double> y(n);
    auto run = [&](const char* name, bool check, auto launch) {
        double err = 0;
        if (check) {
            CK(cudaMemsetAsync(dy, 0, n * 8, st));
            launch();
            CK(cudaStreamSynchronize(st));
            CK(cudaGetLastError());
            CK(cudaMemcpy(y.data(), dy, n * 8, cudaMemcpyDeviceToHost));
            for (std::size_t i = 0; i < n; ++i)
                err = std::max(err, std::fabs(y[i] - ref[i]) / (scale[i] + 1e-300));
        }
        if (!ncu)
            for (int w = 0; w < 3; ++w) launch();
        cudaEvent_t a, b;
        CK(cudaEventCreate(&a));
        CK(cudaEventCreate(&b));
        const int reps = ncu ? 1 : 50;
        float total = 0;
        for (int r = 0; r < reps; ++r) {
            CK(cudaEventRecord(a, st));
            launch();
            CK(cudaEventRecord(b, st));
            CK(cudaEventSynchronize(b));
            float ms;
            CK(cudaEventElapsedTime(&ms, a, b));
            total += ms;
        }
        std::printf("%-34s mean %.4f ms  err %.1e\n", name, total / reps, err);
    };
    const auto b8 = plan_blocks(ptr, 256);
    int* db8;
    CK(cudaMalloc(&db8, b8.size() * 4));
    CK(cudaMemcpy(db8, b8.data(), b8.size() * 4, cudaMemcpyHostToDevice));
    const std::size_t nb = b8.size() - 1;
    const Segs s512 = upload_segs(ptr, 256, 512);
    std::printf("blocks %zu, segments 512: %zu\n", nb, s512.segments);
    auto carve = [](const void* k, int pct) {
        CK(cudaFuncSetAttribute(k, cudaFuncAttributePreferredSharedMemoryCarveout, pct));
    };
    const void* kbase = reinterpret_cast<const void*>(&combo_kernel<512, 4, 1, 8>);
    const void* ktouch = reinterpret_cast<const void*>(&touch_kernel<0>);
    run("touch", false,
        [&] { touch_kernel<0><<<grid * 2, 256, 0, st>>>(nnz, dcol, dval, dx, scratch); });
    for (int rep = 0; rep < 2; ++rep) {
        for (int chunk : {1 << 30, 4096, 1024, 256}) {
            const auto bc = plan_blocks(ptr, 256, chunk);
            int* dbc;
            CK(cudaMalloc(&dbc, bc.size() * 4));
            CK(cudaMemcpy(dbc, bc.data(), bc.size() * 4, cudaMemcpyHostToDevice));
            const std::size_t nbc = bc.size() - 1;
            char name[96];
            std::snprintf(name, sizeof name, "chunk %d (%zu blocks)", chunk, nbc);
            run(name, true, [&] {
                combo_kernel<512, 4, 1, 8>
                    <<<grid, 256, 0, st>>>(nbc, dbc, dptr, dcol, dval, s512, dx, dy);
            });
            CK(cudaFree(dbc));
        }
        for (auto [pct, per] :
             {std::pair{25, 6}, std::pair{25, 8}, std::pair{50, 6}, std::pair{-1, 8}}) {
            carve(kbase, pct);
            char name[96];
            std::snprintf(name, sizeof name, "base carve %d blocks/SM %d", pct, per);
            run(name, true, [&] {
                combo_kernel<512, 4, 1, 8><<<prop.multiProcessorCount * per, 256, 0, st>>>(
                    nb, db8, dptr, dcol, dval, s512, dx, dy);
            });
        }
    }
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
        size_t ws = 0;
        void* buf = nullptr;
        const auto alg = CUSPARSE_SPMV_CSR_ALG1;
        cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vx, &zero, vy,
                                CUDA_R_64F, alg, &ws);
        CK(cudaMalloc(&buf, ws + 1));
        cusparseSpMV_preprocess(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vx, &zero, vy,
                                CUDA_R_64F, alg, buf);
        run("cusparse CSR_ALG1", true, [&] {
            cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vx, &zero, vy, CUDA_R_64F,
                         alg, buf);
        });
    }
    return 0;
}
