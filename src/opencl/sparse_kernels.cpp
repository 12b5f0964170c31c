// The sparse and aggregation kernels of the opencl backend: launches of
// src/opencl/sparse_kernels.cl, whose program holds the row functions of
// src/common/sparse/sparse_rows.h and src/common/amg/aggregation_rows.h. The kernels that touch
// no value use the double program where the device has fp64 (the one the double solvers build
// anyway), else the float one.
#include <cstdint>

#include "common/sparse/rows.hpp"  // PORTLA_AMG_HMIS_BLOCK
#include "core/kernels/amg_kernels.hpp"
#include "core/kernels/sparse_kernels.hpp"
#include "opencl/device.hpp"

namespace portla::kernels::opencl {
namespace {

constexpr const char* kFile = "sparse_kernels.cl";
using I32 = std::int32_t;
using I64 = std::int64_t;
using U64 = std::uint64_t;

template <typename T>
Launch launch(const Executor& exec, const char* kernel) {
    return Launch::of<T>(exec, kFile, kernel);
}

// A kernel that reads and writes indices only.
Launch index_launch(const Executor& exec, const char* kernel) {
    return device(exec.device_id()).fp64 ? launch<double>(exec, kernel)
                                         : launch<float>(exec, kernel);
}

// Element-wise work-groups over n rows.
std::size_t groups(const Launch& k, std::size_t n) { return k.elementwise_groups(n); }

}  // namespace

template <typename I>
void exclusive_scan(tag, const Executor& exec, const_view<I> in, view<I> out) {
    const char* type = std::is_same_v<I, I32> ? "int" : "long";
    const std::size_t n = in.size;
    if (n == 0) {
        const I zero = 0;
        Executor::copy_bytes(exec, out.data, Executor::reference(), &zero, sizeof(I));
        return;
    }
    auto sums_kernel = index_launch(exec, (std::string("scan_sums_") + type).c_str());
    const std::size_t g = sums_kernel.groups_for(n);
    const std::size_t wg = sums_kernel.work_group_size();
    Array<I> sums(exec, g);
    sums_kernel.value(static_cast<cl_ulong>(n)).value(static_cast<cl_ulong>(g));
    sums_kernel.buffer(in.data).buffer(sums.data()).local(wg * sizeof(I)).run(g);
    index_launch(exec, (std::string("scan_offsets_") + type).c_str())
        .value(static_cast<cl_ulong>(g))
        .buffer(sums.data())
        .run(1, 1);
    index_launch(exec, (std::string("scan_write_") + type).c_str())
        .value(static_cast<cl_ulong>(n))
        .value(static_cast<cl_ulong>(g))
        .buffer(in.data)
        .buffer(sums.data())
        .buffer(out.data)
        .local(wg * sizeof(I))
        .run(g);
}

void spgemm_slots(tag, const Executor& exec, std::size_t rows, const_view<I32> a_rp,
                  const_view<I32> a_ci, const_view<I32> b_rp, int b_cols, view<I64> slots) {
    if (rows == 0) return;
    auto k = index_launch(exec, "spgemm_slots");
    k.value(cl_ulong{0}).value(static_cast<cl_ulong>(rows));
    k.buffer(a_rp.data).buffer(a_ci.data).buffer(b_rp.data).value(static_cast<cl_int>(b_cols));
    k.value(cl_int{0}).buffer(nullptr).buffer(slots.data).run(groups(k, rows));
}

void spgemm_retry_slots(tag, const Executor& exec, std::size_t first, std::size_t last,
                        const_view<I32> a_rp, const_view<I32> a_ci, const_view<I32> b_rp,
                        int b_cols, const_view<I32> counts, view<I64> slots) {
    if (last <= first) return;
    auto k = index_launch(exec, "spgemm_slots");
    k.value(static_cast<cl_ulong>(first)).value(static_cast<cl_ulong>(last));
    k.buffer(a_rp.data).buffer(a_ci.data).buffer(b_rp.data).value(static_cast<cl_int>(b_cols));
    k.value(cl_int{1}).buffer(counts.data).buffer(slots.data).run(groups(k, last - first));
}

template <typename T>
void spgemm_accumulate(tag, const Executor& exec, std::size_t first, std::size_t last,
                       const_view<I32> a_rp, const_view<I32> a_ci, const_view<T> a_v,
                       const_view<I32> b_rp, const_view<I32> b_ci, const_view<T> b_v,
                       const_view<I64> offsets, I64 base, int retry, view<I32> keys, view<T> vals,
                       view<I32> counts) {
    if (last <= first) return;
    auto k = launch<T>(exec, "spgemm_accumulate");
    k.value(static_cast<cl_ulong>(first)).value(static_cast<cl_ulong>(last));
    k.buffer(a_rp.data).buffer(a_ci.data).buffer(a_v.data);
    k.buffer(b_rp.data).buffer(b_ci.data).buffer(b_v.data);
    k.buffer(offsets.data).value(static_cast<cl_long>(base)).value(static_cast<cl_int>(retry));
    k.buffer(keys.data).buffer(vals.data).buffer(counts.data).run(groups(k, last - first));
}

template <typename T>
void spgemm_extract(tag, const Executor& exec, std::size_t first, std::size_t last,
                    const_view<I64> offsets, I64 base, const_view<I32> keys, const_view<T> vals,
                    const_view<I64> offsets2, const_view<I32> keys2, const_view<T> vals2,
                    const_view<I32> c_rp, view<I32> c_ci, view<T> c_v) {
    if (last <= first) return;
    auto k = launch<T>(exec, "spgemm_extract");
    k.value(static_cast<cl_ulong>(first)).value(static_cast<cl_ulong>(last));
    k.buffer(offsets.data).value(static_cast<cl_long>(base)).buffer(keys.data).buffer(vals.data);
    k.value(static_cast<cl_int>(offsets2.size > 0)).buffer(offsets2.data).buffer(keys2.data);
    k.buffer(vals2.data).buffer(c_rp.data).buffer(c_ci.data).buffer(c_v.data);
    k.run(groups(k, last - first));
}

void transpose_count(tag, const Executor& exec, std::size_t rows, const_view<I32> rp,
                     const_view<I32> ci, view<I32> counts) {
    if (rows == 0) return;
    auto k = index_launch(exec, "transpose_count");
    k.value(static_cast<cl_ulong>(rows)).buffer(rp.data).buffer(ci.data).buffer(counts.data);
    k.run(groups(k, rows));
}

template <typename T>
void transpose_fill(tag, const Executor& exec, std::size_t rows, const_view<I32> rp,
                    const_view<I32> ci, const_view<T> v, std::size_t b_rows, const_view<I32> b_rp,
                    view<I32> filled, view<I32> b_ci, view<T> b_v) {
    if (rows > 0) {
        auto k = launch<T>(exec, "transpose_scatter");
        k.value(static_cast<cl_ulong>(rows)).buffer(rp.data).buffer(ci.data).buffer(v.data);
        k.buffer(b_rp.data).buffer(filled.data).buffer(b_ci.data).buffer(b_v.data);
        k.run(groups(k, rows));
    }
    if (b_rows > 0) {
        auto k = launch<T>(exec, "sort_rows");
        k.value(static_cast<cl_ulong>(b_rows)).buffer(b_rp.data).buffer(b_ci.data).buffer(b_v.data);
        k.run(groups(k, b_rows));
    }
}

template <typename T>
void amg_strength(tag, const Executor& exec, std::size_t rows, const_view<I32> rp,
                  const_view<I32> ci, const_view<T> v, const_view<T> d, T theta, view<I32> strong,
                  view<U64> keys, view<I32> isolated) {
    if (rows == 0) return;
    auto k = launch<T>(exec, "amg_strength");
    k.value(static_cast<cl_ulong>(rows)).buffer(rp.data).buffer(ci.data).buffer(v.data);
    k.buffer(d.data).value(theta).buffer(strong.data).buffer(keys.data).buffer(isolated.data);
    k.run(groups(k, rows));
}

std::size_t amg_mis_round(tag, const Executor& exec, std::size_t rows, const_view<I32> rp,
                          const_view<I32> ci, const_view<I32> strong, view<U64> keys,
                          view<U64> work1, view<U64> work2) {
    if (rows == 0) return 0;
    const U64* from[2] = {keys.data, work1.data};
    U64* to[2] = {work1.data, work2.data};
    for (int pass = 0; pass < 2; ++pass) {
        auto k = index_launch(exec, "amg_max");
        k.value(static_cast<cl_ulong>(rows)).buffer(rp.data).buffer(ci.data).buffer(strong.data);
        k.buffer(from[pass]).buffer(to[pass]).run(groups(k, rows));
    }
    Array<I32> total(exec, 1);
    const I32 zero = 0;
    Executor::copy_bytes(exec, total.data(), Executor::reference(), &zero, sizeof(zero));
    auto k = index_launch(exec, "amg_mis_update");
    k.value(static_cast<cl_ulong>(rows)).buffer(keys.data).buffer(work2.data);
    k.buffer(total.data()).run(groups(k, rows));
    I32 undecided = 0;
    Executor::copy_bytes(Executor::reference(), &undecided, exec, total.data(), sizeof(I32));
    return static_cast<std::size_t>(undecided);
}

void amg_roots(tag, const Executor& exec, std::size_t rows, const_view<U64> keys, view<I32> roots) {
    if (rows == 0) return;
    auto k = index_launch(exec, "amg_roots");
    k.value(static_cast<cl_ulong>(rows)).buffer(keys.data).buffer(roots.data).run(groups(k, rows));
}

void amg_aggregates(tag, const Executor& exec, std::size_t rows, const_view<I32> rp,
                    const_view<I32> ci, const_view<I32> strong, const_view<U64> keys,
                    const_view<I32> root_rank, view<I32> agg, view<I32> work) {
    if (rows == 0) return;
    auto r = index_launch(exec, "amg_root_aggregates");
    r.value(static_cast<cl_ulong>(rows)).buffer(keys.data).buffer(root_rank.data);
    r.buffer(agg.data).run(groups(r, rows));
    const I32* from[2] = {agg.data, work.data};
    I32* to[2] = {work.data, agg.data};
    for (int pass = 0; pass < 2; ++pass) {
        auto k = index_launch(exec, "amg_join");
        k.value(static_cast<cl_ulong>(rows)).buffer(rp.data).buffer(ci.data).buffer(strong.data);
        k.buffer(from[pass]).buffer(to[pass]).run(groups(k, rows));
    }
}

void amg_prolongator_count(tag, const Executor& exec, std::size_t rows, const_view<I32> rp,
                           const_view<I32> ci, const_view<I32> agg, view<I32> counts) {
    if (rows == 0) return;
    auto k = index_launch(exec, "amg_prolongator_count");
    k.value(static_cast<cl_ulong>(rows)).buffer(rp.data).buffer(ci.data).buffer(agg.data);
    k.buffer(counts.data).run(groups(k, rows));
}

template <typename T>
void amg_prolongator(tag, const Executor& exec, std::size_t rows, const_view<I32> rp,
                     const_view<I32> ci, const_view<T> s, const_view<I32> agg, const_view<I32> p_rp,
                     view<I32> p_ci, view<T> p_v) {
    if (rows == 0) return;
    auto k = launch<T>(exec, "amg_prolongator");
    k.value(static_cast<cl_ulong>(rows)).buffer(rp.data).buffer(ci.data).buffer(s.data);
    k.buffer(agg.data).buffer(p_rp.data).buffer(p_ci.data).buffer(p_v.data).run(groups(k, rows));
}

template <typename T>
void amg_smoother(tag, const Executor& exec, std::size_t rows, const_view<I32> rp,
                  const_view<I32> ci, const_view<T> v, const_view<T> d, T omega, view<T> s) {
    if (rows == 0) return;
    auto k = launch<T>(exec, "amg_smoother");
    k.value(static_cast<cl_ulong>(rows)).buffer(rp.data).buffer(ci.data).buffer(v.data);
    k.buffer(d.data).value(omega).buffer(s.data).run(groups(k, rows));
}

template <typename T>
void amg_smooth(tag, const Executor& exec, std::size_t rows, const_view<I32> rp, const_view<I32> ci,
                const_view<T> v, const_view<T> b, const_view<T> x_in, view<T> x_out,
                const_view<T> w, T c1, T c2, int zero_guess, int step) {
    if (rows == 0) return;
    auto k = launch<T>(exec, "amg_smooth");
    k.value(static_cast<cl_ulong>(rows)).buffer(rp.data).buffer(ci.data).buffer(v.data);
    k.buffer(b.data).buffer(zero_guess ? x_out.data : x_in.data).buffer(x_out.data);
    k.buffer(w.data).value(c1).value(c2).value(static_cast<cl_int>(zero_guess));
    k.value(static_cast<cl_int>(step)).run(groups(k, rows));
}

/// One of the cycle's row updates: `kernel` over the rows of (rp, ci, v) with its two input
/// vectors and its output (amg_residual: b, x, r; amg_correct: xc, base, out).
template <typename T>
void row_update(const Executor& exec, const char* kernel, std::size_t rows, const_view<I32> rp,
                const_view<I32> ci, const_view<T> v, const_view<T> first, const_view<T> second,
                view<T> out) {
    if (rows == 0) return;
    auto k = launch<T>(exec, kernel);
    k.value(static_cast<cl_ulong>(rows)).buffer(rp.data).buffer(ci.data).buffer(v.data);
    k.buffer(first.data).buffer(second.data).buffer(out.data).run(groups(k, rows));
}

template <typename T>
void amg_residual(tag, const Executor& exec, std::size_t rows, const_view<I32> rp,
                  const_view<I32> ci, const_view<T> v, const_view<T> b, const_view<T> x,
                  view<T> r) {
    row_update(exec, "amg_residual", rows, rp, ci, v, b, x, r);
}

template <typename T>
void amg_correct(tag, const Executor& exec, std::size_t rows, const_view<I32> rp,
                 const_view<I32> ci, const_view<T> v, const_view<T> xc, const_view<T> base,
                 view<T> out) {
    row_update(exec, "amg_correct", rows, rp, ci, v, xc, base, out);
}

template <typename T>
void amg_classical_strength(tag, const Executor& exec, std::size_t rows, const_view<I32> rp,
                            const_view<I32> ci, const_view<T> v, T theta, view<I32> strong,
                            view<I32> tpos) {
    if (rows == 0) return;
    auto k = launch<T>(exec, "amg_classical_strength");
    k.value(static_cast<cl_ulong>(rows)).buffer(rp.data).buffer(ci.data).buffer(v.data);
    k.value(theta).buffer(strong.data).buffer(tpos.data).run(groups(k, rows));
}

void amg_pmis_init(tag, const Executor& exec, std::size_t rows, const_view<I32> rp,
                   const_view<I32> tpos, const_view<I32> strong, view<U64> keys) {
    if (rows == 0) return;
    auto k = index_launch(exec, "amg_pmis_init");
    k.value(static_cast<cl_ulong>(rows)).buffer(rp.data).buffer(tpos.data).buffer(strong.data);
    k.buffer(keys.data).run(groups(k, rows));
}

std::size_t amg_pmis_round(tag, const Executor& exec, std::size_t rows, const_view<I32> rp,
                           const_view<I32> ci, const_view<I32> strong, const_view<I32> tpos,
                           view<U64> keys, view<U64> work) {
    if (rows == 0) return 0;
    {
        auto k = index_launch(exec, "amg_pmis_select");
        k.value(static_cast<cl_ulong>(rows)).buffer(rp.data).buffer(ci.data).buffer(strong.data);
        k.buffer(tpos.data).buffer(keys.data).buffer(work.data).run(groups(k, rows));
    }
    Array<I32> total(exec, 1);
    const I32 zero = 0;
    Executor::copy_bytes(exec, total.data(), Executor::reference(), &zero, sizeof(zero));
    auto k = index_launch(exec, "amg_pmis_fine");
    k.value(static_cast<cl_ulong>(rows)).buffer(rp.data).buffer(ci.data).buffer(strong.data);
    k.buffer(work.data).buffer(keys.data).buffer(total.data()).run(groups(k, rows));
    I32 undecided = 0;
    Executor::copy_bytes(Executor::reference(), &undecided, exec, total.data(), sizeof(I32));
    return static_cast<std::size_t>(undecided);
}

void amg_interp_count(tag, const Executor& exec, std::size_t rows, const_view<I32> rp,
                      const_view<I32> ci, const_view<I32> strong, const_view<U64> keys,
                      view<I32> counts) {
    if (rows == 0) return;
    auto k = index_launch(exec, "amg_interp_count");
    k.value(static_cast<cl_ulong>(rows)).buffer(rp.data).buffer(ci.data).buffer(strong.data);
    k.buffer(keys.data).buffer(counts.data).run(groups(k, rows));
}

template <typename T>
void amg_interp_fill(tag, const Executor& exec, std::size_t rows, const_view<I32> rp,
                     const_view<I32> ci, const_view<T> v, const_view<I32> strong,
                     const_view<U64> keys, const_view<I32> rank, int weights, const_view<I32> p_rp,
                     view<I32> p_ci, view<T> p_v) {
    if (rows == 0) return;
    auto k = launch<T>(exec, "amg_interp_fill");
    k.value(static_cast<cl_ulong>(rows)).buffer(rp.data).buffer(ci.data).buffer(v.data);
    k.buffer(strong.data).buffer(keys.data).buffer(rank.data);
    k.value(static_cast<cl_int>(weights)).buffer(p_rp.data);
    k.buffer(p_ci.data).buffer(p_v.data).run(groups(k, rows));
}

void amg_fine_neighbours_count(tag, const Executor& exec, std::size_t rows, const_view<I32> rp,
                               const_view<I32> ci, const_view<I32> strong, const_view<U64> keys,
                               view<I32> counts) {
    if (rows == 0) return;
    auto k = index_launch(exec, "amg_fine_neighbours_count");
    k.value(static_cast<cl_ulong>(rows)).buffer(rp.data).buffer(ci.data).buffer(strong.data);
    k.buffer(keys.data).buffer(counts.data).run(groups(k, rows));
}

template <typename T>
void amg_fine_neighbours_fill(tag, const Executor& exec, std::size_t rows, const_view<I32> rp,
                              const_view<I32> ci, const_view<I32> strong, const_view<U64> keys,
                              const_view<I32> e_rp, view<I32> e_ci, view<T> e_v) {
    if (rows == 0) return;
    auto k = launch<T>(exec, "amg_fine_neighbours_fill");
    k.value(static_cast<cl_ulong>(rows)).buffer(rp.data).buffer(ci.data).buffer(strong.data);
    k.buffer(keys.data).buffer(e_rp.data).buffer(e_ci.data).buffer(e_v.data);
    k.run(groups(k, rows));
}

template <typename T>
void amg_ext_fill(tag, const Executor& exec, std::size_t rows, const_view<I32> rp,
                  const_view<I32> ci, const_view<T> v, const_view<I32> strong, const_view<U64> keys,
                  const_view<I32> rank, const_view<I32> p_rp, const_view<I32> p_ci, view<T> p_v) {
    if (rows == 0) return;
    auto k = launch<T>(exec, "amg_ext_fill");
    k.value(static_cast<cl_ulong>(rows)).buffer(rp.data).buffer(ci.data).buffer(v.data);
    k.buffer(strong.data).buffer(keys.data).buffer(rank.data).buffer(p_rp.data);
    k.buffer(p_ci.data).buffer(p_v.data).run(groups(k, rows));
}

template <typename T>
void amg_trunc_count(tag, const Executor& exec, std::size_t rows, const_view<I32> p_rp,
                     const_view<T> p_v, T factor, int max_entries, view<I32> counts) {
    if (rows == 0) return;
    auto k = launch<T>(exec, "amg_trunc_count");
    k.value(static_cast<cl_ulong>(rows)).buffer(p_rp.data).buffer(p_v.data).value(factor);
    k.value(static_cast<cl_int>(max_entries)).buffer(counts.data).run(groups(k, rows));
}

template <typename T>
void amg_trunc_fill(tag, const Executor& exec, std::size_t rows, const_view<I32> p_rp,
                    const_view<I32> p_ci, const_view<T> p_v, T factor, int max_entries,
                    const_view<I32> t_rp, view<I32> t_ci, view<T> t_v) {
    if (rows == 0) return;
    auto k = launch<T>(exec, "amg_trunc_fill");
    k.value(static_cast<cl_ulong>(rows)).buffer(p_rp.data).buffer(p_ci.data).buffer(p_v.data);
    k.value(factor).value(static_cast<cl_int>(max_entries)).buffer(t_rp.data);
    k.buffer(t_ci.data).buffer(t_v.data).run(groups(k, rows));
}

void amg_agg_graph_count(tag, const Executor& exec, std::size_t rows, const_view<I32> rp,
                         const_view<I32> ci, const_view<I32> strong, const_view<I32> tpos,
                         const_view<I32> c1, view<I32> counts) {
    if (rows == 0) return;
    auto k = index_launch(exec, "amg_agg_graph_count");
    k.value(static_cast<cl_ulong>(rows)).buffer(rp.data).buffer(ci.data).buffer(strong.data);
    k.buffer(tpos.data).buffer(c1.data).buffer(counts.data).run(groups(k, rows));
}

template <typename T>
void amg_agg_graph_fill(tag, const Executor& exec, std::size_t rows, const_view<I32> rp,
                        const_view<I32> ci, const_view<I32> strong, const_view<I32> tpos,
                        const_view<I32> c1, const_view<I32> rank1, const_view<I32> m_rp,
                        view<I32> m_ci, view<T> m_v) {
    if (rows == 0) return;
    auto k = launch<T>(exec, "amg_agg_graph_fill");
    k.value(static_cast<cl_ulong>(rows)).buffer(rp.data).buffer(ci.data).buffer(strong.data);
    k.buffer(tpos.data).buffer(c1.data).buffer(rank1.data).buffer(m_rp.data);
    k.buffer(m_ci.data).buffer(m_v.data).run(groups(k, rows));
}

void amg_agg_split(tag, const Executor& exec, std::size_t rows, view<U64> keys,
                   const_view<I32> rank1, const_view<I32> g_rp, const_view<U64> g_keys) {
    if (rows == 0) return;
    auto k = index_launch(exec, "amg_agg_split");
    k.value(static_cast<cl_ulong>(rows)).buffer(keys.data).buffer(rank1.data);
    k.buffer(g_rp.data).buffer(g_keys.data).run(groups(k, rows));
}

std::size_t amg_multipass(tag, const Executor& exec, std::size_t rows, int pass, const_view<I32> rp,
                          const_view<I32> ci, const_view<I32> strong, const_view<U64> keys,
                          const_view<I32> in, view<I32> out) {
    if (rows == 0) return 0;
    Array<I32> total(exec, 1);
    const I32 zero = 0;
    Executor::copy_bytes(exec, total.data(), Executor::reference(), &zero, sizeof(zero));
    auto k = index_launch(exec, "amg_multipass");
    k.value(static_cast<cl_ulong>(rows)).value(static_cast<cl_int>(pass)).buffer(rp.data);
    k.buffer(ci.data).buffer(strong.data).buffer(keys.data).buffer(in.data).buffer(out.data);
    k.buffer(total.data()).run(groups(k, rows));
    I32 taken = 0;
    Executor::copy_bytes(Executor::reference(), &taken, exec, total.data(), sizeof(I32));
    return static_cast<std::size_t>(taken);
}

void amg_multipass_count(tag, const Executor& exec, std::size_t rows, int pass, const_view<I32> rp,
                         const_view<I32> ci, const_view<I32> strong, const_view<I32> passes,
                         view<I32> counts) {
    if (rows == 0) return;
    auto k = index_launch(exec, "amg_multipass_count");
    k.value(static_cast<cl_ulong>(rows)).value(static_cast<cl_int>(pass)).buffer(rp.data);
    k.buffer(ci.data).buffer(strong.data).buffer(passes.data).buffer(counts.data);
    k.run(groups(k, rows));
}

template <typename T>
void amg_multipass_fill(tag, const Executor& exec, std::size_t rows, int pass, const_view<I32> rp,
                        const_view<I32> ci, const_view<T> v, const_view<I32> strong,
                        const_view<I32> passes, const_view<I32> rank, const_view<I32> w_rp,
                        view<I32> w_ci, view<T> w_v) {
    if (rows == 0) return;
    auto k = launch<T>(exec, "amg_multipass_fill");
    k.value(static_cast<cl_ulong>(rows)).value(static_cast<cl_int>(pass)).buffer(rp.data);
    k.buffer(ci.data).buffer(v.data).buffer(strong.data).buffer(passes.data).buffer(rank.data);
    k.buffer(w_rp.data).buffer(w_ci.data).buffer(w_v.data).run(groups(k, rows));
}

template <typename T>
void amg_fine_jacobi(tag, const Executor& exec, std::size_t rows, const_view<I32> rp,
                     const_view<I32> ci, const_view<T> v, const_view<U64> keys, view<T> s) {
    if (rows == 0) return;
    auto k = launch<T>(exec, "amg_fine_jacobi");
    k.value(static_cast<cl_ulong>(rows)).buffer(rp.data).buffer(ci.data).buffer(v.data);
    k.buffer(keys.data).buffer(s.data).run(groups(k, rows));
}

void amg_narrow(tag, const Executor& exec, const_view<double> in, view<float> out) {
    if (in.size == 0) return;
    auto k = launch<double>(exec, "amg_narrow");
    k.value(static_cast<cl_ulong>(in.size))
        .buffer(in.data)
        .buffer(out.data)
        .run(groups(k, in.size));
}

void amg_widen(tag, const Executor& exec, const_view<float> in, view<double> out) {
    if (in.size == 0) return;
    auto k = launch<double>(exec, "amg_widen");
    k.value(static_cast<cl_ulong>(in.size))
        .buffer(in.data)
        .buffer(out.data)
        .run(groups(k, in.size));
}

template <typename T>
void amg_start(tag, const Executor& exec, view<T> v) {
    if (v.size == 0) return;
    auto k = launch<T>(exec, "amg_start");
    k.value(static_cast<cl_ulong>(v.size)).buffer(v.data).run(groups(k, v.size));
}

template <typename T>
std::size_t amg_bad_diagonal(tag, const Executor& exec, const_view<T> d) {
    if (d.size == 0) return 0;
    Array<I32> total(exec, 1);
    const I32 zero = 0;
    Executor::copy_bytes(exec, total.data(), Executor::reference(), &zero, sizeof(zero));
    auto k = launch<T>(exec, "amg_bad_diagonal");
    k.value(static_cast<cl_ulong>(d.size))
        .buffer(d.data)
        .buffer(total.data())
        .run(groups(k, d.size));
    I32 bad = 0;
    Executor::copy_bytes(Executor::reference(), &bad, exec, total.data(), sizeof(I32));
    return static_cast<std::size_t>(bad);
}

template <typename T>
void amg_l1(tag, const Executor& exec, std::size_t rows, const_view<I32> rp, const_view<T> v,
            view<T> out) {
    if (rows == 0) return;
    auto k = launch<T>(exec, "amg_l1");
    k.value(static_cast<cl_ulong>(rows)).buffer(rp.data).buffer(v.data).buffer(out.data);
    k.run(groups(k, rows));
}

PORTLA_INSTANTIATE_SCAN_KERNELS;
PORTLA_INSTANTIATE_SPARSE_KERNELS(double);
PORTLA_INSTANTIATE_SPARSE_KERNELS(float);
PORTLA_INSTANTIATE_AMG_KERNELS(double);
PORTLA_INSTANTIATE_AMG_KERNELS(float);

}  // namespace portla::kernels::opencl
