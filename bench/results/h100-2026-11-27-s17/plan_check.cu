// Session 17: the first form of the device plan kernel (csr_plan_kernel, V0) against a plain
// rewrite (v1_kernel) and the host plan; V0 wrote wrong plans at -O3 and right ones at -G on the
// H100 (printed.txt, call 6).
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdint>
#include <random>
#include <vector>
#include "common/csr_long_rows.hpp"
using namespace portla;
#define CK(x)                                                                     \
    do {                                                                          \
        cudaError_t e = (x);                                                      \
        if (e != cudaSuccess) {                                                   \
            std::printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
            std::exit(1);                                                         \
        }                                                                         \
    } while (0)
namespace {
constexpr unsigned kPlanThreads = 128;
constexpr std::size_t kChunk = common::kCsrPlanRows;

// A chunk's blocks (low 32 bits) and segments (high 32 bits): the scan adds both at once (neither
// total passes 2^32 for 32-bit offsets: fewer blocks than rows, fewer segments than entries / 256).
__device__ __forceinline__ std::uint64_t pack(std::uint64_t blocks, std::uint64_t segments) {
    return blocks | (segments << 32);
}

// Chunk blockIdx.x: rows [lo, hi). Write = false: counts[chunk] = its blocks and segments.
// Write = true: counts[chunk] holds the blocks and segments of the chunks before it; writes its
// blocks' ends to blocks[1 + that ...] and its segments to seg_rows / seg_parts.
template <bool Write>
__global__ void __launch_bounds__(kPlanThreads)
    csr_plan_kernel(std::size_t rows, const std::int32_t* __restrict__ row_ptrs,
                    std::uint64_t* __restrict__ counts, std::int32_t* __restrict__ blocks,
                    std::int32_t* __restrict__ seg_rows, std::int32_t* __restrict__ seg_parts) {
    __shared__ std::int32_t ptr[kChunk + 1];
    const std::size_t lo = static_cast<std::size_t>(blockIdx.x) * kChunk;
    const int n = static_cast<int>(rows - lo < kChunk ? rows - lo : kChunk);
    for (int k = static_cast<int>(threadIdx.x); k <= n; k += kPlanThreads)
        ptr[k] = __ldg(row_ptrs + lo + k);
    __syncthreads();
    if (threadIdx.x != 0) return;
    std::uint64_t block_at = 0, segment_at = 0;
    if constexpr (Write) {
        block_at = 1 + (counts[blockIdx.x] & 0xffffffffu);
        segment_at = counts[blockIdx.x] >> 32;
    }
    constexpr int kFrom = static_cast<int>(common::kCsrBlockEntries);
    constexpr int kSegment = static_cast<int>(common::kCsrSegment);
    std::uint64_t nb = 0, ns = 0;
    for (int i = 0; i < n;) {
        const int length = ptr[i + 1] - ptr[i];
        if (length > kFrom) {
            const int parts = (length - 1) / kSegment + 1;
            if constexpr (Write)
                for (int k = 0; k < parts; ++k) {
                    seg_rows[segment_at + ns + k] = static_cast<std::int32_t>(lo + i);
                    seg_parts[segment_at + ns + k] = k;
                }
            ns += parts;
            ++i;
        } else {
            int count = 0, entries = 0;
            while (i < n && count < static_cast<int>(common::kCsrBlockRows) &&
                   entries + (ptr[i + 1] - ptr[i]) <= kFrom) {
                entries += ptr[i + 1] - ptr[i];
                ++count;
                ++i;
            }
        }
        if constexpr (Write) blocks[block_at + nb] = static_cast<std::int32_t>(lo + i);
        ++nb;
    }
    if constexpr (!Write) counts[blockIdx.x] = pack(nb, ns);
}

template <bool Write>
__global__ void v1_kernel(std::size_t rows, const std::int32_t* row_ptrs, std::uint64_t* counts,
                          std::int32_t* blocks, std::int32_t* seg_rows, std::int32_t* seg_parts) {
    __shared__ std::int32_t ptr[kChunk + 1];
    const std::size_t lo = static_cast<std::size_t>(blockIdx.x) * kChunk;
    const int n = static_cast<int>(rows - lo < kChunk ? rows - lo : kChunk);
    for (int k = static_cast<int>(threadIdx.x); k <= n; k += kPlanThreads)
        ptr[k] = row_ptrs[lo + k];
    __syncthreads();
    if (threadIdx.x != 0) return;
    std::uint64_t block_at = 0, segment_at = 0;
    if (Write) {
        const std::uint64_t c = counts[blockIdx.x];
        block_at = 1 + (c & 0xffffffffu);
        segment_at = c >> 32;
    }
    std::uint64_t nb = 0, ns = 0;
    int i = 0;
    while (i < n) {
        const int length = ptr[i + 1] - ptr[i];
        if (length > 256) {
            const int parts = (length - 1) / 512 + 1;
            if (Write)
                for (int k = 0; k < parts; ++k) {
                    seg_rows[segment_at + ns + k] = static_cast<std::int32_t>(lo + i);
                    seg_parts[segment_at + ns + k] = k;
                }
            ns += parts;
            ++i;
        } else {
            int count = 0, entries = 0;
            while (i < n && count < 32) {
                const int len = ptr[i + 1] - ptr[i];
                if (entries + len > 256) break;
                entries += len;
                ++count;
                ++i;
            }
        }
        if (Write) blocks[block_at + nb] = static_cast<std::int32_t>(lo + i);
        ++nb;
    }
    if (!Write) counts[blockIdx.x] = nb | (ns << 32);
}
}  // namespace
template <bool V1>
int check(const std::vector<int>& lengths, const char* name) {
    const std::size_t n = lengths.size();
    std::vector<std::int32_t> ptr(n + 1, 0);
    for (std::size_t i = 0; i < n; ++i) ptr[i + 1] = ptr[i] + lengths[i];
    const auto want = common::plan_csr_long_rows(n, ptr.data(), 4);
    std::int32_t* dptr;
    CK(cudaMalloc(&dptr, (n + 1) * 4));
    CK(cudaMemcpy(dptr, ptr.data(), (n + 1) * 4, cudaMemcpyHostToDevice));
    const std::size_t chunks = (n + kChunk - 1) / kChunk;
    std::uint64_t* dc;
    CK(cudaMalloc(&dc, chunks * 8));
    if (V1)
        v1_kernel<false><<<chunks, kPlanThreads>>>(n, dptr, dc, nullptr, nullptr, nullptr);
    else
        csr_plan_kernel<false><<<chunks, kPlanThreads>>>(n, dptr, dc, nullptr, nullptr, nullptr);
    CK(cudaGetLastError());
    std::vector<std::uint64_t> c(chunks);
    CK(cudaMemcpy(c.data(), dc, chunks * 8, cudaMemcpyDeviceToHost));
    {  // per chunk: device counts against the host plan's blocks ending in each chunk
        std::vector<std::uint64_t> hb(chunks, 0);
        for (std::size_t b = 1; b < want.blocks.size(); ++b) hb[(want.blocks[b] - 1) / kChunk]++;
        std::printf("%s V%d chunk counts (dev/host):", name, V1 ? 1 : 0);
        for (std::size_t k = 0; k < chunks && k < 6; ++k)
            std::printf(" %llu/%llu", (unsigned long long)(c[k] & 0xffffffffu),
                        (unsigned long long)hb[k]);
        std::printf("\n");
    }
    std::uint64_t tot = 0;
    for (auto& v : c) {
        const auto o = v;
        v = tot;
        tot += o;
    }
    CK(cudaMemcpy(dc, c.data(), chunks * 8, cudaMemcpyHostToDevice));
    const std::size_t nb = tot & 0xffffffffu, ns = tot >> 32;
    std::int32_t *db, *dr, *dp;
    CK(cudaMalloc(&db, (nb + 1) * 4));
    CK(cudaMalloc(&dr, ns * 4 + 4));
    CK(cudaMalloc(&dp, ns * 4 + 4));
    CK(cudaMemset(db, 0, 4));
    if (V1)
        v1_kernel<true><<<chunks, kPlanThreads>>>(n, dptr, dc, db, dr, dp);
    else
        csr_plan_kernel<true><<<chunks, kPlanThreads>>>(n, dptr, dc, db, dr, dp);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    std::vector<std::int32_t> b(nb + 1), r(ns), p(ns);
    CK(cudaMemcpy(b.data(), db, (nb + 1) * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(r.data(), dr, ns * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(p.data(), dp, ns * 4, cudaMemcpyDeviceToHost));
    std::vector<std::int32_t> ptr2(n + 1);
    CK(cudaMemcpy(ptr2.data(), dptr, (n + 1) * 4, cudaMemcpyDeviceToHost));
    std::printf(
        "%s V%d: rows %zu chunks %zu blocks %zu/%zu segs %zu/%zu blocks %s rows %s parts %s ptr "
        "intact %s\n",
        name, V1 ? 1 : 0, n, chunks, nb, want.blocks.size() - 1, ns, want.rows.size(),
        b == want.blocks ? "same" : "DIFFER", r == want.rows ? "same" : "DIFFER",
        p == want.parts ? "same" : "DIFFER", ptr2 == ptr ? "yes" : "NO");
    if (b != want.blocks) {
        for (int k = 0; k < 8 && k < (int)b.size(); ++k)
            std::printf(" %d/%d", b[k], want.blocks[k]);
        std::printf("\n");
    }
    return 0;
}
int main(int argc, char** argv) {
    std::mt19937 gen(5);
    std::vector<int> l(5 * 1024 + 17);
    for (auto& v : l) v = static_cast<int>(gen() % 14);
    for (std::size_t i : {0ul, 1023ul, 1024ul, 2047ul, 3000ul, l.size() - 1})
        l[i] = 257 + static_cast<int>(gen() % 3000);
    check<false>(l, "case0");
    check<true>(l, "case0");
    std::vector<int> m(60000, 6);
    m[2500] = 600;
    m[40000] = 5000;
    check<false>(m, "60k");
    check<true>(m, "60k");
    if (argc > 1) {
        FILE* f = std::fopen(argv[1], "rb");
        std::fseek(f, 0, SEEK_END);
        long bytes = std::ftell(f);
        std::fseek(f, 0, SEEK_SET);
        std::vector<int> p(bytes / 4);
        if (std::fread(p.data(), 4, p.size(), f) != p.size()) return 2;
        std::vector<int> len(p.size() - 1);
        for (std::size_t i = 0; i + 1 < p.size(); ++i) len[i] = p[i + 1] - p[i];
        check<false>(len, "powerlaw");
    }
}
