// The kernels of smoothed aggregation's set-up (include/portla/solver/amg.hpp), declared once for
// every backend of the list (see core/dispatch.hpp). The work of each row is written once in
// src/common/amg/aggregation_rows.h (see there for the algorithm) and run by every backend (the
// C++ ones through core/kernels/row_kernels.inc, opencl through src/opencl/amg_kernels.cl).
// CSR arrays are 32-bit; keys are the 64-bit keys of the independent set.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/dispatch.hpp"
#include "portla/array.hpp"
#include "portla/executor.hpp"

#define PORTLA_DECLARE_AMG_KERNELS(backend)                                                        \
    namespace backend {                                                                            \
    /* strong[k] for every entry of A (amg_strength_row), the first keys of the independent set    \
       (amg_mis_init_row), and roots[i] = 1 where row i has no strong connection, else 0 */        \
    template <typename T>                                                                          \
    void amg_strength(tag, const Executor& exec, std::size_t rows, const_view<std::int32_t> rp,    \
                      const_view<std::int32_t> ci, const_view<T> v, const_view<T> d, T theta,      \
                      view<std::int32_t> strong, view<std::uint64_t> keys,                         \
                      view<std::int32_t> isolated);                                                \
    /* One round of the independent set: the distance-2 maxima (work: rows keys) and the update;   \
       returns the rows still undecided */                                                         \
    std::size_t amg_mis_round(tag, const Executor& exec, std::size_t rows,                         \
                              const_view<std::int32_t> rp, const_view<std::int32_t> ci,            \
                              const_view<std::int32_t> strong, view<std::uint64_t> keys,           \
                              view<std::uint64_t> work1, view<std::uint64_t> work2);               \
    /* roots[i] = 1 where row i is in the set, else 0 */                                           \
    void amg_roots(tag, const Executor& exec, std::size_t rows, const_view<std::uint64_t> keys,    \
                   view<std::int32_t> roots);                                                      \
    /* The aggregates: agg[i] = root_rank[i] for the roots, then two joining passes (work: rows    \
       entries); -1 where row i has none */                                                        \
    void amg_aggregates(tag, const Executor& exec, std::size_t rows, const_view<std::int32_t> rp,  \
                        const_view<std::int32_t> ci, const_view<std::int32_t> strong,              \
                        const_view<std::uint64_t> keys, const_view<std::int32_t> root_rank,        \
                        view<std::int32_t> agg, view<std::int32_t> work);                          \
    /* counts[i] = the entries of row i of the smoothed prolongator (amg_prolongator_count_row) */ \
    void amg_prolongator_count(tag, const Executor& exec, std::size_t rows,                        \
                               const_view<std::int32_t> rp, const_view<std::int32_t> ci,           \
                               const_view<std::int32_t> agg, view<std::int32_t> counts);           \
    /* The smoothed prolongator S T's columns and values (amg_prolongator_row; offsets p_rp) */    \
    template <typename T>                                                                          \
    void amg_prolongator(tag, const Executor& exec, std::size_t rows, const_view<std::int32_t> rp, \
                         const_view<std::int32_t> ci, const_view<T> s,                             \
                         const_view<std::int32_t> agg, const_view<std::int32_t> p_rp,              \
                         view<std::int32_t> p_ci, view<T> p_v);                                    \
    /* s = the values of I - omega D^-1 A on A's pattern */                                        \
    template <typename T>                                                                          \
    void amg_smoother(tag, const Executor& exec, std::size_t rows, const_view<std::int32_t> rp,    \
                      const_view<std::int32_t> ci, const_view<T> v, const_view<T> d, T omega,      \
                      view<T> s);                                                                  \
    /* One fused smoothing step over every row (amg_smooth_update) */                              \
    template <typename T>                                                                          \
    void amg_smooth(tag, const Executor& exec, std::size_t rows, const_view<std::int32_t> rp,      \
                    const_view<std::int32_t> ci, const_view<T> v, const_view<T> b,                 \
                    const_view<T> x_in, view<T> x_out, const_view<T> w, T c1, T c2,                \
                    int zero_guess, int step);                                                     \
    /* r = b - A x (amg_residual_update) */                                                        \
    template <typename T>                                                                          \
    void amg_residual(tag, const Executor& exec, std::size_t rows, const_view<std::int32_t> rp,    \
                      const_view<std::int32_t> ci, const_view<T> v, const_view<T> b,               \
                      const_view<T> x, view<T> r);                                                 \
    /* out = base + P xc (amg_correct_update; out may be base) */                                  \
    template <typename T>                                                                          \
    void amg_correct(tag, const Executor& exec, std::size_t rows, const_view<std::int32_t> rp,     \
                     const_view<std::int32_t> ci, const_view<T> v, const_view<T> xc,               \
                     const_view<T> base, view<T> out);                                             \
    /* Classical strength (amg_classical_strength_row): strong[k] and each entry's transpose       \
       position tpos[k] */                                                                         \
    template <typename T>                                                                          \
    void amg_classical_strength(tag, const Executor& exec, std::size_t rows,                       \
                                const_view<std::int32_t> rp, const_view<std::int32_t> ci,          \
                                const_view<T> v, T theta, view<std::int32_t> strong,               \
                                view<std::int32_t> tpos);                                          \
    /* PMIS's first keys (amg_pmis_init_row) */                                                    \
    void amg_pmis_init(tag, const Executor& exec, std::size_t rows, const_view<std::int32_t> rp,   \
                       const_view<std::int32_t> tpos, const_view<std::int32_t> strong,             \
                       view<std::uint64_t> keys);                                                  \
    /* One PMIS round (work: rows keys); returns the rows still undecided */                       \
    std::size_t amg_pmis_round(tag, const Executor& exec, std::size_t rows,                        \
                               const_view<std::int32_t> rp, const_view<std::int32_t> ci,           \
                               const_view<std::int32_t> strong, const_view<std::int32_t> tpos,     \
                               view<std::uint64_t> keys, view<std::uint64_t> work);                \
    /* counts[i]: the entries of row i of the classical interpolation */                           \
    void amg_interp_count(tag, const Executor& exec, std::size_t rows,                             \
                          const_view<std::int32_t> rp, const_view<std::int32_t> ci,                \
                          const_view<std::int32_t> strong, const_view<std::uint64_t> keys,         \
                          view<std::int32_t> counts);                                              \
    /* The classical interpolation's columns and values (its offsets p_rp given; weights 0: the    \
       columns only, every value 1) */                                                             \
    template <typename T>                                                                          \
    void amg_interp_fill(tag, const Executor& exec, std::size_t rows, const_view<std::int32_t> rp, \
                         const_view<std::int32_t> ci, const_view<T> v,                             \
                         const_view<std::int32_t> strong, const_view<std::uint64_t> keys,          \
                         const_view<std::int32_t> rank, int weights,                               \
                         const_view<std::int32_t> p_rp, view<std::int32_t> p_ci, view<T> p_v);     \
    /* counts[i]: the entries of row i of E, extended+i's pattern builder                          \
       (amg_fine_neighbours_count_row) */                                                          \
    void amg_fine_neighbours_count(tag, const Executor& exec, std::size_t rows,                    \
                                   const_view<std::int32_t> rp, const_view<std::int32_t> ci,       \
                                   const_view<std::int32_t> strong,                                \
                                   const_view<std::uint64_t> keys, view<std::int32_t> counts);     \
    /* E's columns and values (its offsets e_rp given) */                                          \
    template <typename T>                                                                          \
    void amg_fine_neighbours_fill(tag, const Executor& exec, std::size_t rows,                     \
                                  const_view<std::int32_t> rp, const_view<std::int32_t> ci,        \
                                  const_view<std::int32_t> strong, const_view<std::uint64_t> keys, \
                                  const_view<std::int32_t> e_rp, view<std::int32_t> e_ci,          \
                                  view<T> e_v);                                                    \
    /* The extended+i weights on P's pattern (p_rp, p_ci given): p_v (amg_ext_fill_row) */         \
    template <typename T>                                                                          \
    void amg_ext_fill(tag, const Executor& exec, std::size_t rows, const_view<std::int32_t> rp,    \
                      const_view<std::int32_t> ci, const_view<T> v,                                \
                      const_view<std::int32_t> strong, const_view<std::uint64_t> keys,             \
                      const_view<std::int32_t> rank, const_view<std::int32_t> p_rp,                \
                      const_view<std::int32_t> p_ci, view<T> p_v);                                 \
    /* counts[i]: the entries row i of P keeps under truncation (amg_trunc_count_row) */           \
    template <typename T>                                                                          \
    void amg_trunc_count(tag, const Executor& exec, std::size_t rows,                              \
                         const_view<std::int32_t> p_rp, const_view<T> p_v, T factor,               \
                         int max_entries, view<std::int32_t> counts);                              \
    /* The truncated P's columns and values (its offsets t_rp given; amg_trunc_fill_row) */        \
    template <typename T>                                                                          \
    void amg_trunc_fill(tag, const Executor& exec, std::size_t rows,                               \
                        const_view<std::int32_t> p_rp, const_view<std::int32_t> p_ci,              \
                        const_view<T> p_v, T factor, int max_entries,                              \
                        const_view<std::int32_t> t_rp, view<std::int32_t> t_ci, view<T> t_v);      \
    /* counts[k]: the entries of row k of M, aggressive coarsening's distance-2 graph builder      \
       (amg_agg_graph_count_row; c1: 1 for a row of the first split's coarse rows) */              \
    void amg_agg_graph_count(tag, const Executor& exec, std::size_t rows,                          \
                             const_view<std::int32_t> rp, const_view<std::int32_t> ci,             \
                             const_view<std::int32_t> strong, const_view<std::int32_t> tpos,       \
                             const_view<std::int32_t> c1, view<std::int32_t> counts);              \
    /* M's columns and values (its offsets m_rp given; amg_agg_graph_fill_row) */                  \
    template <typename T>                                                                          \
    void amg_agg_graph_fill(tag, const Executor& exec, std::size_t rows,                           \
                            const_view<std::int32_t> rp, const_view<std::int32_t> ci,              \
                            const_view<std::int32_t> strong, const_view<std::int32_t> tpos,        \
                            const_view<std::int32_t> c1, const_view<std::int32_t> rank1,           \
                            const_view<std::int32_t> m_rp, view<std::int32_t> m_ci, view<T> m_v);  \
    /* The second split mapped back onto the level's keys (amg_agg_split_row) */                   \
    void amg_agg_split(tag, const Executor& exec, std::size_t rows, view<std::uint64_t> keys,      \
                       const_view<std::int32_t> rank1, const_view<std::int32_t> g_rp,              \
                       const_view<std::uint64_t> g_keys);                                          \
    /* Multipass interpolation's pass k (amg_multipass_row; pass 1 reads keys, later passes in);   \
       returns the rows that took pass k */                                                        \
    std::size_t amg_multipass(tag, const Executor& exec, std::size_t rows, int k,                  \
                              const_view<std::int32_t> rp, const_view<std::int32_t> ci,            \
                              const_view<std::int32_t> strong, const_view<std::uint64_t> keys,     \
                              const_view<std::int32_t> in, view<std::int32_t> out);                \
    /* counts[i]: the entries of row i of pass k's step W_k (amg_multipass_count_row) */           \
    void amg_multipass_count(tag, const Executor& exec, std::size_t rows, int k,                   \
                             const_view<std::int32_t> rp, const_view<std::int32_t> ci,             \
                             const_view<std::int32_t> strong, const_view<std::int32_t> pass,       \
                             view<std::int32_t> counts);                                           \
    /* W_k's columns and values (its offsets w_rp given; amg_multipass_fill_row) */                \
    template <typename T>                                                                          \
    void amg_multipass_fill(tag, const Executor& exec, std::size_t rows, int k,                    \
                            const_view<std::int32_t> rp, const_view<std::int32_t> ci,              \
                            const_view<T> v, const_view<std::int32_t> strong,                      \
                            const_view<std::int32_t> pass, const_view<std::int32_t> rank,          \
                            const_view<std::int32_t> w_rp, view<std::int32_t> w_ci, view<T> w_v);  \
    /* s = the values of I - D^-1 A on the fine rows, I on the coarse ones, on A's pattern         \
       (amg_fine_jacobi_row) */                                                                    \
    template <typename T>                                                                          \
    void amg_fine_jacobi(tag, const Executor& exec, std::size_t rows, const_view<std::int32_t> rp, \
                         const_view<std::int32_t> ci, const_view<T> v,                             \
                         const_view<std::uint64_t> keys, view<T> s);                               \
    /* out = in rounded to float, and back (a float hierarchy under a double solve) */             \
    void amg_narrow(tag, const Executor& exec, const_view<double> in, view<float> out);            \
    void amg_widen(tag, const Executor& exec, const_view<float> in, view<double> out);             \
    /* v[i] = amg_start_row(i) */                                                                  \
    template <typename T>                                                                          \
    void amg_start(tag, const Executor& exec, view<T> v);                                          \
    /* The entries of d that are not positive and finite */                                        \
    template <typename T>                                                                          \
    std::size_t amg_bad_diagonal(tag, const Executor& exec, const_view<T> d);                      \
    /* out[i] = the l1 norm of row i */                                                            \
    template <typename T>                                                                          \
    void amg_l1(tag, const Executor& exec, std::size_t rows, const_view<std::int32_t> rp,          \
                const_view<T> v, view<T> out);                                                     \
    }

#define PORTLA_INSTANTIATE_AMG_KERNELS(T)                                                         \
    template void amg_strength<T>(tag, const Executor&, std::size_t, const_view<std::int32_t>,    \
                                  const_view<std::int32_t>, const_view<T>, const_view<T>, T,      \
                                  view<std::int32_t>, view<std::uint64_t>, view<std::int32_t>);   \
    template void amg_prolongator<T>(tag, const Executor&, std::size_t, const_view<std::int32_t>, \
                                     const_view<std::int32_t>, const_view<T>,                     \
                                     const_view<std::int32_t>, const_view<std::int32_t>,          \
                                     view<std::int32_t>, view<T>);                                \
    template void amg_smoother<T>(tag, const Executor&, std::size_t, const_view<std::int32_t>,    \
                                  const_view<std::int32_t>, const_view<T>, const_view<T>, T,      \
                                  view<T>);                                                       \
    template void amg_smooth<T>(tag, const Executor&, std::size_t, const_view<std::int32_t>,      \
                                const_view<std::int32_t>, const_view<T>, const_view<T>,           \
                                const_view<T>, view<T>, const_view<T>, T, T, int, int);           \
    template void amg_residual<T>(tag, const Executor&, std::size_t, const_view<std::int32_t>,    \
                                  const_view<std::int32_t>, const_view<T>, const_view<T>,         \
                                  const_view<T>, view<T>);                                        \
    template void amg_correct<T>(tag, const Executor&, std::size_t, const_view<std::int32_t>,     \
                                 const_view<std::int32_t>, const_view<T>, const_view<T>,          \
                                 const_view<T>, view<T>);                                         \
    template void amg_classical_strength<T>(                                                      \
        tag, const Executor&, std::size_t, const_view<std::int32_t>, const_view<std::int32_t>,    \
        const_view<T>, T, view<std::int32_t>, view<std::int32_t>);                                \
    template void amg_interp_fill<T>(                                                             \
        tag, const Executor&, std::size_t, const_view<std::int32_t>, const_view<std::int32_t>,    \
        const_view<T>, const_view<std::int32_t>, const_view<std::uint64_t>,                       \
        const_view<std::int32_t>, int, const_view<std::int32_t>, view<std::int32_t>, view<T>);    \
    template void amg_fine_neighbours_fill<T>(                                                    \
        tag, const Executor&, std::size_t, const_view<std::int32_t>, const_view<std::int32_t>,    \
        const_view<std::int32_t>, const_view<std::uint64_t>, const_view<std::int32_t>,            \
        view<std::int32_t>, view<T>);                                                             \
    template void amg_ext_fill<T>(                                                                \
        tag, const Executor&, std::size_t, const_view<std::int32_t>, const_view<std::int32_t>,    \
        const_view<T>, const_view<std::int32_t>, const_view<std::uint64_t>,                       \
        const_view<std::int32_t>, const_view<std::int32_t>, const_view<std::int32_t>, view<T>);   \
    template void amg_trunc_count<T>(tag, const Executor&, std::size_t, const_view<std::int32_t>, \
                                     const_view<T>, T, int, view<std::int32_t>);                  \
    template void amg_trunc_fill<T>(tag, const Executor&, std::size_t, const_view<std::int32_t>,  \
                                    const_view<std::int32_t>, const_view<T>, T, int,              \
                                    const_view<std::int32_t>, view<std::int32_t>, view<T>);       \
    template void amg_agg_graph_fill<T>(                                                          \
        tag, const Executor&, std::size_t, const_view<std::int32_t>, const_view<std::int32_t>,    \
        const_view<std::int32_t>, const_view<std::int32_t>, const_view<std::int32_t>,             \
        const_view<std::int32_t>, const_view<std::int32_t>, view<std::int32_t>, view<T>);         \
    template void amg_multipass_fill<T>(tag, const Executor&, std::size_t, int,                   \
                                        const_view<std::int32_t>, const_view<std::int32_t>,       \
                                        const_view<T>, const_view<std::int32_t>,                  \
                                        const_view<std::int32_t>, const_view<std::int32_t>,       \
                                        const_view<std::int32_t>, view<std::int32_t>, view<T>);   \
    template void amg_fine_jacobi<T>(tag, const Executor&, std::size_t, const_view<std::int32_t>, \
                                     const_view<std::int32_t>, const_view<T>,                     \
                                     const_view<std::uint64_t>, view<T>);                         \
    template void amg_start<T>(tag, const Executor&, view<T>);                                    \
    template std::size_t amg_bad_diagonal<T>(tag, const Executor&, const_view<T>);                \
    template void amg_l1<T>(tag, const Executor&, std::size_t, const_view<std::int32_t>,          \
                            const_view<T>, view<T>)

namespace portla::kernels {
PORTLA_FOR_EACH_BACKEND(PORTLA_DECLARE_AMG_KERNELS)
}  // namespace portla::kernels
