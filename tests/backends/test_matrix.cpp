// Operator-apply kernels (dense gemv, CSR and ELL SpMV, stencils) of the backend under test
// against the reference backend on random inputs.
#include <algorithm>
#include <cstdlib>
#include <string>

#include "backends/backend_fixture.hpp"
#include "common/csr_long_rows.hpp"
#include "core/dispatch.hpp"
#include "core/kernels/matrix_kernels.hpp"
#include "cuda/csr_lanes.hpp"

namespace portla::test {
namespace {

// A random sparse matrix with empty rows, short rows and rows longer than a warp, so every
// CSR group size and the ELL padding are exercised.
MatrixData random_sparse(std::int64_t rows, std::int64_t cols, unsigned seed) {
    std::mt19937_64 gen(seed);
    std::uniform_real_distribution<double> val(-1.0, 1.0);
    std::uniform_int_distribution<std::int64_t> col(0, cols - 1);
    std::uniform_int_distribution<int> kind(0, 9);
    MatrixData d;
    d.rows = rows;
    d.cols = cols;
    for (std::int64_t i = 0; i < rows; ++i) {
        const int k = kind(gen);
        const int len = k == 0 ? 0 : k < 8 ? 1 + k : 40 + k;  // empty, 2..8, 48..49
        for (int e = 0; e < len && cols > 0; ++e) d.add(i, col(gen), val(gen));
    }
    return d;
}

// Row-wise bound: a sum of `len` products, rounded in any order: (len + 2) eps sum |a_ij x_j|.
template <typename T>
void expect_rows_near(const std::vector<T>& got, const std::vector<T>& want,
                      const std::vector<double>& abs_row, const std::vector<double>& len) {
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i)
        ASSERT_NEAR(got[i], want[i], (len[i] + 2) * eps<T>() * abs_row[i] + 1e-300) << "row " << i;
}

template <typename T>
void row_bounds(const MatrixData& d, const std::vector<T>& x, std::vector<double>& abs_row,
                std::vector<double>& len) {
    abs_row.assign(d.rows, 0.0);
    len.assign(d.rows, 0.0);
    for (std::size_t k = 0; k < d.entries(); ++k) {
        abs_row[d.row_idx[k]] += std::abs(d.values[k] * double(x[d.col_idx[k]]));
        len[d.row_idx[k]] += 1;
    }
}

template <typename T>
class Matrix : public BackendTest {
protected:
    Matrix() : BackendTest({KernelFamily::matrix}) {}
};
using ValueTypes = ::testing::Types<double, float>;
TYPED_TEST_SUITE(Matrix, ValueTypes);

template <typename T, typename Format>
void check_format(const Executor& exec, const Executor& ref, std::int64_t rows, std::int64_t cols,
                  unsigned seed) {
    SCOPED_TRACE(std::to_string(rows) + " x " + std::to_string(cols));
    const MatrixData d = random_sparse(rows, cols, seed);
    const auto A = Format::from_data(exec, d);
    const auto Aref = Csr<T>::from_data(ref, d);
    const auto xh = random_vector<T>(cols, seed + 1);
    Array<T> x(exec, xh), xr(ref, xh);
    auto y = poisoned<T>(exec, rows);
    Array<T> yr(ref, rows);
    A.checked_apply(x, y);
    Aref.apply(xr, yr);
    std::vector<double> abs_row, len;
    row_bounds(d, xh, abs_row, len);
    expect_rows_near(y.to_host(), yr.to_host(), abs_row, len);
}

TYPED_TEST(Matrix, CsrApply) {
    for (auto [r, c] : std::vector<std::pair<int, int>>{
             {0, 0}, {1, 1}, {31, 17}, {33, 33}, {1025, 700}, {10007, 10007}, {200003, 150000}})
        check_format<TypeParam, Csr<TypeParam>>(this->exec, this->ref, r, c, 11 + r);
}

// cuda's KernelOptions::csr_row (chunked, the default, or loop: one entry of a row per step)
// gives the reference's product at both values; PORTLA_CSR_ROW maps onto it and refuses a value
// it does not know with a one-line BadInput. The other backends do not read it.
TYPED_TEST(Matrix, CsrRowSwitch) {
    using T = TypeParam;
    if (this->exec.backend() != Backend::cuda) GTEST_SKIP() << "csr_row is cuda's";
    for (const char* value : {"chunked", "loop", ""}) {
        SCOPED_TRACE(std::string("PORTLA_CSR_ROW=") + value);
        KernelOptions o;
        if (std::string(value) == "loop") o.csr_row = KernelOptions::CsrRow::loop;
        if (std::string(value) == "chunked") o.csr_row = KernelOptions::CsrRow::chunked;
        {
            const ScopedEnv env("PORTLA_CSR_ROW", value);
            EXPECT_EQ(kernel_options_from_environment().csr_row, o.csr_row);
        }
        this->exec.set_kernel_options(o);
        check_format<T, Csr<T>>(this->exec, this->ref, 1025, 700, 17);
    }
    const ScopedEnv env("PORTLA_CSR_ROW", "loops");
    for (int use = 0; use < 2; ++use)
        expect_bad_input([] { (void)kernel_options_from_environment(); },
                         "PORTLA_CSR_ROW=loops: expected chunked or loop");
}

TYPED_TEST(Matrix, EllApply) {
    for (auto [r, c] : std::vector<std::pair<int, int>>{
             {0, 0}, {1, 1}, {31, 17}, {33, 33}, {1025, 700}, {10007, 10007}, {200003, 150000}})
        check_format<TypeParam, Ell<TypeParam>>(this->exec, this->ref, r, c, 13 + r);
}

TYPED_TEST(Matrix, CsrApplyAllRowLengths) {
    // One matrix per CSR group size: every row with the same length 1 .. 64.
    using T = TypeParam;
    for (int len : {1, 2, 3, 5, 8, 13, 16, 31, 32, 33, 64}) {
        SCOPED_TRACE("row length " + std::to_string(len));
        MatrixData d;
        d.rows = 3001;
        d.cols = 4000;
        std::mt19937_64 gen(len);
        std::uniform_real_distribution<double> val(-1, 1);
        for (std::int64_t i = 0; i < d.rows; ++i)
            for (int e = 0; e < len; ++e) d.add(i, (i * 7 + e * 61) % d.cols, val(gen));
        const auto A = Csr<T>::from_data(this->exec, d);
        const auto Aref = Csr<T>::from_data(this->ref, d);
        const auto xh = random_vector<T>(d.cols, 99);
        Array<T> x(this->exec, xh), xr(this->ref, xh);
        auto y = poisoned<T>(this->exec, d.rows);
        Array<T> yr(this->ref, d.rows);
        A.apply(x, y);
        Aref.apply(xr, yr);
        std::vector<double> abs_row, len_row;
        row_bounds(d, xh, abs_row, len_row);
        expect_rows_near(y.to_host(), yr.to_host(), abs_row, len_row);
    }
}

// A few very long rows among short ones: on cuda the rows of more than 256 entries are
// split into segments of 512 entries, a warp each, and the others go in row blocks of at most 256
// entries (PORTLA_CSR_SPLIT=off: groups of 4 lanes by the average row, for every row). Lengths at
// the limits (127, 128, 129: one row of a block; 256 and 257), one segment (511, 512), two (513,
// 1024, 1025), many (5000) and a dense row (60000 = every column, 118 segments), at the first row,
// the last, next to each other and alone; every index form (the 64-bit ones keep the groups). The
// sums are compared with the reference and a second apply gives the same bits (the row counters are
// back at zero, the order of the partials fixed).
TYPED_TEST(Matrix, CsrApplyLongRows) {
    using T = TypeParam;
    const std::int64_t n = 60000;
    const std::vector<std::pair<std::int64_t, int>> longs{
        {0, 129},      {1, 128},      {2, 127},    {3, 256},     {4, 257},
        {900, 256},    {1000, 511},   {1001, 512}, {1002, 513},  {30000, 1024},
        {30002, 1025}, {45000, 5000}, {50001, n},  {n - 1, 2049}};
    MatrixData d;
    d.rows = d.cols = n;
    std::mt19937_64 gen(17);
    std::uniform_real_distribution<double> val(-1, 1);
    std::uniform_int_distribution<std::int64_t> col(0, n - 1);
    std::size_t split_rows = 0, segments = 0;
    for (std::int64_t i = 0; i < n; ++i) {
        int len = 6;
        for (const auto& [row, l] : longs)
            if (row == i) len = l;
        if (len == n) {
            for (std::int64_t j = 0; j < n; ++j) d.add(i, j, val(gen));
        } else {
            for (int e = 0; e < len; ++e) d.add(i, (i * 7919 + e * 131) % n, val(gen));
        }
        if (len > 256) {
            ++split_rows;
            segments += (len + 511) / 512;
        }
    }
    const auto xh = random_vector<T>(n, 5);
    std::vector<double> abs_row, len_row;
    row_bounds(d, xh, abs_row, len_row);
    const auto Aref = Csr<T>::from_data(this->ref, d);
    Array<T> xr(this->ref, xh), yr(this->ref, n);
    Aref.apply(xr, yr);
    const auto want = yr.to_host();
    const bool cuda = this->exec.backend() == Backend::cuda;
    for (const char* split : {"on", "off"}) {
        const bool on = std::string(split) == "on";
        KernelOptions options;
        options.csr_split = on;
        this->exec.set_kernel_options(options);
        for (const CsrIndex form : {CsrIndex::int32, CsrIndex::offsets64, CsrIndex::int64}) {
            SCOPED_TRACE("index width " + to_string(form) + ", csr_split " + split);
            const auto A = Csr<T>::from_data(this->exec, d, form);
            const auto plan = A.long_rows();
            if (cuda && form == CsrIndex::int32 && on) {
                EXPECT_EQ(plan.from, 256u);
                EXPECT_EQ(plan.segments, segments);
                EXPECT_EQ(split_rows, 9u);
                EXPECT_GT(plan.block_count, static_cast<std::size_t>(n) / 32);
            } else {
                EXPECT_EQ(plan.segments, 0u);
            }
            Array<T> x(this->exec, xh);
            auto y = poisoned<T>(this->exec, n);
            clear_kernel_choices();
            A.apply(x, y);
            if (cuda) {
                std::string choice;
                for (const auto& c : kernel_choices())
                    if (c.step == "csr.apply") choice = c.kernel;
                EXPECT_EQ(choice, form == CsrIndex::int32 && on ? "split" : "lanes");
            }
            const auto got = y.to_host();
            expect_rows_near(got, want, abs_row, len_row);
            auto again = poisoned<T>(this->exec, n);
            A.apply(x, again);
            ASSERT_EQ(again.to_host(), got);
        }
    }
    // A borrowed matrix plans its long rows from a host copy of the row offsets (the default
    // options again: the loop above left csr_split off).
    this->exec.set_kernel_options(KernelOptions{});
    const auto c = Csr<T>::from_data(this->exec, d);
    const auto B = Csr<T>::borrow(this->exec, n, n, c.row_ptrs().get_view(),
                                  c.col_idxs().get_view(), c.values().get_view());
    EXPECT_EQ(B.long_rows().segments, cuda ? segments : 0u);
    Array<T> x(this->exec, xh);
    auto y = poisoned<T>(this->exec, n);
    B.apply(x, y);
    expect_rows_near(y.to_host(), want, abs_row, len_row);
}

// A borrowed matrix is planned (row blocks, segments) only when the device finds a row longer
// than 32 entries per lane (4 lanes here: 128): the longest row at 128 keeps the groups, 129
// takes the plan (a row block of its own: no segment, which starts past 256 entries).
TYPED_TEST(Matrix, BorrowPlansOnlyWhenARowIsLong) {
    using T = TypeParam;
    const std::int64_t n = 5000;
    const bool cuda = this->exec.backend() == Backend::cuda;
    for (const int longest : {128, 129}) {
        SCOPED_TRACE("longest row " + std::to_string(longest));
        MatrixData d;
        d.rows = d.cols = n;
        for (std::int64_t i = 0; i < n; ++i) {
            const int len = i == 2500 ? longest : 6;
            for (int e = 0; e < len; ++e) d.add(i, (i + e * 37) % n, 1.0 + 0.001 * e);
        }
        const auto owned = Csr<T>::from_data(this->exec, d);
        const auto B = Csr<T>::borrow(this->exec, n, n, owned.row_ptrs().get_view(),
                                      owned.col_idxs().get_view(), owned.values().get_view());
        const bool planned = cuda && longest > 128;
        EXPECT_EQ(B.long_rows().block_count > 0, planned);
        EXPECT_EQ(owned.long_rows().block_count > 0, planned);
        EXPECT_EQ(B.long_rows().segments, 0u);
        const auto xh = random_vector<T>(n, 9);
        Array<T> x(this->exec, xh), xr(this->ref, xh), yr(this->ref, n);
        auto y = poisoned<T>(this->exec, n);
        B.apply(x, y);
        Csr<T>::from_data(this->ref, d).apply(xr, yr);
        std::vector<double> abs_row, len_row;
        row_bounds(d, xh, abs_row, len_row);
        expect_rows_near(y.to_host(), yr.to_host(), abs_row, len_row);
        if (longest == 128) continue;
        // 64-bit offsets narrowed to 32 bits are planned as the 32-bit form; offsets64 never is.
        const Array<std::int64_t> ptr64(this->exec, [&] {
            const auto p = owned.row_ptrs().to_host();
            return std::vector<std::int64_t>(p.begin(), p.end());
        }());
        for (const CsrIndex asked : {CsrIndex::automatic, CsrIndex::offsets64}) {
            SCOPED_TRACE(to_string(asked));
            const auto W =
                Csr<T>::borrow(this->exec, n, n, ptr64.get_view(), owned.col_idxs().get_view(),
                               owned.values().get_view(), asked);
            EXPECT_EQ(W.long_rows().block_count > 0, planned && asked == CsrIndex::automatic);
        }
        {  // csr_split = false: no plan
            Executor off = this->exec;
            KernelOptions o;
            o.csr_split = false;
            off.set_kernel_options(o);
            const auto U = Csr<T>::borrow(off, n, n, owned.row_ptrs().get_view(),
                                          owned.col_idxs().get_view(), owned.values().get_view());
            EXPECT_EQ(U.long_rows().block_count, 0u);
        }
        {  // PORTLA_CSR_SPLIT=off maps onto it; nothing but on, off or empty is accepted
            const ScopedEnv off("PORTLA_CSR_SPLIT", "off");
            EXPECT_FALSE(kernel_options_from_environment().csr_split);
        }
        const ScopedEnv typo("PORTLA_CSR_SPLIT", "yes");
        EXPECT_THROW((void)kernel_options_from_environment(), BadInput);
        EXPECT_THROW((void)executor_from_environment(this->exec.name()), BadInput);
    }
}

// Row blocks at every group width and past one wave of warps: blocks of exactly k rows for k =
// 1 ... 32 (rows of 256 / k entries), empty rows (a whole block of them, and between short
// rows), rows of 300 and 3000 entries (so the matrix is planned on cuda) and 400,000 rows of 6
// entries: more than 10^4 blocks, so each warp takes several blocks (an H100 runs 8448 warps).
// Every row against the reference; a second apply gives the same bits.
TYPED_TEST(Matrix, CsrRowBlocksEveryWidthAndManyBlocks) {
    using T = TypeParam;
    std::vector<int> lengths;
    for (int k = 1; k <= 32; ++k)
        for (int r = 0; r < 3 * k; ++r) lengths.push_back(256 / k);
    lengths.insert(lengths.end(), 40, 0);
    for (int r = 0; r < 50; ++r) lengths.push_back(r % 2 ? 5 : 0);
    lengths.push_back(300);
    lengths.push_back(3000);
    lengths.insert(lengths.end(), 400000, 6);
    const auto n = static_cast<std::int64_t>(lengths.size());
    MatrixData d;
    d.rows = d.cols = n;
    std::mt19937_64 gen(23);
    std::uniform_real_distribution<double> val(-1, 1);
    for (std::int64_t i = 0; i < n; ++i)
        for (int e = 0; e < lengths[i]; ++e) d.add(i, (i * 7919 + e * 131) % n, val(gen));
    const auto A = Csr<T>::from_data(this->exec, d);
    if (this->exec.backend() == Backend::cuda) {
        EXPECT_GT(A.long_rows().block_count, 10000u);
        EXPECT_EQ(A.long_rows().segments, 1u + 6u);
    }
    const auto xh = random_vector<T>(n, 4);
    Array<T> x(this->exec, xh), xr(this->ref, xh), yr(this->ref, n);
    Csr<T>::from_data(this->ref, d).apply(xr, yr);
    auto y = poisoned<T>(this->exec, n);
    A.apply(x, y);
    const auto got = y.to_host();
    std::vector<double> abs_row, len_row;
    row_bounds(d, xh, abs_row, len_row);
    expect_rows_near(got, yr.to_host(), abs_row, len_row);
    auto again = poisoned<T>(this->exec, n);
    A.apply(x, again);
    EXPECT_EQ(again.to_host(), got);
}

// On cuda the long-row plan is made on the device (cuda/csr_plan.cu), a chunk of
// kCsrPlanRows rows per thread block: its segments and row blocks must be the host plan's
// (common::plan_csr_long_rows, the oracle), for an uploaded and a borrowed matrix alike, with
// long rows and block ends at and across the chunks' edges and a last partial chunk.
TYPED_TEST(Matrix, CsrPlanOnTheDeviceIsTheHostPlan) {
    using T = TypeParam;
    if (this->exec.backend() != Backend::cuda)
        GTEST_SKIP() << "the long-row plan is made on cuda only";
    const auto copy = [&](const std::int32_t* p, std::size_t n) {
        return Array<std::int32_t>::borrow(this->exec, const_cast<std::int32_t*>(p), n).to_host();
    };
    std::mt19937 gen(5);
    std::vector<std::vector<int>> cases;
    {
        std::vector<int> l(5 * 1024 + 17);
        for (auto& v : l) v = static_cast<int>(gen() % 14);
        for (std::size_t i : {0ul, 1023ul, 1024ul, 2047ul, 3000ul, l.size() - 1})
            l[i] = 257 + static_cast<int>(gen() % 3000);
        l[1500] = 256;
        l[1501] = 255;
        for (std::size_t i = 4080; i < 4200; ++i) l[i] = 0;  // 32 empty rows a block
        for (std::size_t i = 2040; i < 2060; ++i) l[i] = 1;  // a block cut at 2048
        cases.push_back(l);
    }
    cases.push_back(std::vector<int>(300, 3));
    cases.back()[150] = 20000;  // one chunk, one long row of 40 segments
    cases.push_back(std::vector<int>(1024, 9));
    cases.back()[1023] = 600;  // exactly one chunk, the long row last
    cases.push_back(std::vector<int>(3000, 200));
    cases.back()[7] = 129;    // 200 entries a row: 32 lanes, long from 1024 entries
    cases.back()[8] = 6000;   // the one long row; every short row a block of its own
    cases.push_back({2000});  // one row, long (32 lanes: long from 1024)
    cases.push_back(std::vector<int>(3 * 1024, 5));  // three whole chunks
    cases.back()[3 * 1024 - 1] = 1000;
    cases.push_back(std::vector<int>(1025, 2));  // a last chunk of one long row
    cases.back()[1024] = 513;
    cases.push_back(std::vector<int>(2 * 1024, 300));  // a chunk of segments only, then short rows
    for (std::size_t i = 1024; i < 2048; ++i) cases.back()[i] = static_cast<int>(i % 7);
    cases.back()[500] = 2000;  // long at 32 lanes, so the matrix is planned
    cases.back()[1023] = 256;  // 256-entry rows at the chunk's edge (short: a block each)
    cases.back()[1024] = 256;
    for (std::size_t c = 0; c < cases.size(); ++c) {
        SCOPED_TRACE("case " + std::to_string(c));
        const auto& lengths = cases[c];
        const std::size_t n = lengths.size();
        std::vector<std::int32_t> ptr(n + 1, 0), col;
        for (std::size_t i = 0; i < n; ++i) {
            ptr[i + 1] = ptr[i] + lengths[i];
            for (int e = 0; e < lengths[i]; ++e)
                col.push_back(static_cast<std::int32_t>((i * 7919 + std::size_t(e) * 131) % n));
        }
        std::vector<T> val(col.size(), T(1));
        const Csr<T> A(this->exec, n, n, ptr, col, val);
        const auto B = Csr<T>::borrow(this->exec, n, n, A.row_ptrs().get_view(),
                                      A.col_idxs().get_view(), A.values().get_view());
        const auto want =
            common::plan_csr_long_rows(n, ptr.data(), kernels::cuda::csr_lanes(col.size(), n));
        ASSERT_FALSE(want.blocks.empty()) << "the case has no long row";
        for (const Csr<T>* M : {&A, &B}) {
            const auto lr = M->long_rows();
            ASSERT_EQ(lr.block_count + 1, want.blocks.size());
            ASSERT_EQ(lr.segments, want.rows.size());
            EXPECT_EQ(lr.from, want.from);
            EXPECT_EQ(copy(lr.blocks, lr.block_count + 1), want.blocks);
            if (lr.segments == 0) continue;
            EXPECT_EQ(copy(lr.rows, lr.segments), want.rows);
            EXPECT_EQ(copy(lr.parts, lr.segments), want.parts);
        }
    }
}

TYPED_TEST(Matrix, DenseApply) {
    using T = TypeParam;
    for (auto [r, c] : std::vector<std::pair<int, int>>{
             {0, 0}, {1, 1}, {5, 0}, {31, 33}, {33, 1025}, {257, 129}, {1025, 1100}}) {
        SCOPED_TRACE(std::to_string(r) + " x " + std::to_string(c));
        const auto vals = random_vector<T>(std::size_t(r) * c, r * 31 + c);
        const Dense<T> A(this->exec, r, c, vals), Aref(this->ref, r, c, vals);
        const auto xh = random_vector<T>(c, 5 + c);
        Array<T> x(this->exec, xh), xr(this->ref, xh);
        auto y = poisoned<T>(this->exec, r);
        Array<T> yr(this->ref, r);
        A.checked_apply(x, y);
        Aref.apply(xr, yr);
        std::vector<double> abs_row(r, 0.0), len(r, double(c));
        for (int i = 0; i < r; ++i)
            for (int j = 0; j < c; ++j)
                abs_row[i] += std::abs(double(vals[std::size_t(i) * c + j]) * xh[j]);
        expect_rows_near(y.to_host(), yr.to_host(), abs_row, len);
    }
}

TYPED_TEST(Matrix, StencilApplyMatchesAssembledMatrix) {
    using T = TypeParam;
    const std::vector<std::pair<int, std::size_t>> cases{
        {1, 1},    {1, 2}, {1, 33}, {1, 1048583}, {2, 1},  {2, 2},  {2, 31},
        {2, 1025}, {3, 1}, {3, 2},  {3, 7},       {3, 33}, {3, 101}};
    for (auto [dim, pts] : cases) {
        SCOPED_TRACE("dim " + std::to_string(dim) + ", points " + std::to_string(pts));
        const Stencil<T> S(this->exec, dim, pts);
        const Stencil<T> Sref(this->ref, dim, pts);
        const MatrixData d = Sref.assemble();
        ASSERT_EQ(d.entries(), S.nnz());
        const auto Acsr = Csr<T>::from_data(this->ref, d);
        const auto xh = random_vector<T>(S.rows(), 17 + pts);
        Array<T> x(this->exec, xh), xr(this->ref, xh);
        auto y = poisoned<T>(this->exec, S.rows());
        Array<T> yr(this->ref, S.rows()), ycsr(this->ref, S.rows());
        S.checked_apply(x, y);
        Sref.apply(xr, yr);
        Acsr.apply(xr, ycsr);
        std::vector<double> abs_row, len;
        row_bounds(d, xh, abs_row, len);
        expect_rows_near(y.to_host(), yr.to_host(), abs_row, len);
        expect_rows_near(yr.to_host(), ycsr.to_host(), abs_row, len);
    }
}

// One slab_stencil_apply case: planes [first, last) of a slab of `planes` planes of the dim-D
// grid of `points` points a side, with ghost planes below / above or none.
struct SlabCase {
    int dim;
    std::size_t points, planes, first, last;
    bool below, above;
};

// The slab apply (the distributed stencil's local operator) against the reference backend's on
// random x and ghost planes: every row of [first, last) within the rounding of its sum, every
// other row left as it was (poisoned). The 3-D cases run cuda's tile kernel ("ring") wherever
// the device gives its shared memory (on an H100 or H200 every one but N = 2048 in double, which
// takes one thread per row): N no multiple of the tile's rows (33: one tile of 33 rows; 129: rows
// of 31; 813: rows of 5; 1100: rows of 3), one or two halo points per thread
// (N <= 512, N <= 1024) and four (1100), tiles split along z (129 x 40 planes) and one-plane
// ranges with and without ghosts (the distributed stencil's boundary planes); cuda runs each
// case once more with one thread per row (KernelOptions::slab_stencil points).
TYPED_TEST(Matrix, SlabStencilApplyMatchesReference) {
    using T = TypeParam;
    const bool cuda = this->exec.backend() == Backend::cuda;
    const std::vector<SlabCase> cases{
        {1, 1, 1, 0, 1, false, false},     {1, 1, 9, 0, 9, true, true},
        {1, 1, 9, 3, 7, true, false},      {2, 33, 9, 0, 9, true, true},
        {2, 33, 9, 0, 1, true, false},     {2, 1025, 3, 2, 3, false, true},
        {3, 1, 1, 0, 1, true, true},       {3, 2, 2, 0, 2, false, false},
        {3, 7, 5, 0, 5, false, false},     {3, 33, 9, 0, 9, true, true},
        {3, 33, 9, 1, 8, true, true},      {3, 33, 9, 0, 1, true, true},
        {3, 33, 9, 8, 9, true, true},      {3, 33, 1, 0, 1, true, true},
        {3, 129, 40, 0, 40, false, false}, {3, 129, 40, 0, 40, true, true},
        {3, 129, 40, 1, 39, true, true},   {3, 129, 40, 39, 40, false, true},
        {3, 600, 3, 0, 3, true, true},     {3, 600, 3, 1, 2, false, false},
        {3, 813, 3, 0, 3, false, true},    {3, 1100, 2, 0, 2, true, false},
        {3, 2048, 1, 0, 1, true, true}};
    for (const SlabCase& c : cases) {
        SCOPED_TRACE("dim " + std::to_string(c.dim) + ", " + std::to_string(c.points) +
                     " points, planes [" + std::to_string(c.first) + ", " + std::to_string(c.last) +
                     ") of " + std::to_string(c.planes) + (c.below ? ", below" : "") +
                     (c.above ? ", above" : ""));
        const std::size_t plane = c.dim == 1 ? 1 : c.dim == 2 ? c.points : c.points * c.points;
        const std::size_t n = plane * c.planes;
        const auto xh = random_vector<T>(n, 7 + unsigned(n));
        const auto below_h = random_vector<T>(plane, 3 + unsigned(plane));
        const auto above_h = random_vector<T>(plane, 5 + unsigned(plane));
        const Array<T> x(this->exec, xh), xr(this->ref, xh);
        const Array<T> below(this->exec, below_h), above(this->exec, above_h);
        const Array<T> below_r(this->ref, below_h), above_r(this->ref, above_h);
        auto yr = poisoned<T>(this->ref, n);
        const auto run = [&](const Executor& exec, const Array<T>& lo, const Array<T>& hi,
                             const Array<T>& from, Array<T>& to, T* dot = nullptr,
                             bool add_dot = false) {
            dispatch(exec, [&](auto backend) {
                slab_stencil_apply(backend, exec, c.dim, c.points, c.planes, c.first, c.last,
                                   c.below ? lo.data() : nullptr, c.above ? hi.data() : nullptr,
                                   from.get_view(), to.get_view(), dot, add_dot);
            });
        };
        run(this->ref, below_r, above_r, xr, yr);
        const auto want = yr.to_host();
        // x . y over the rows written, in long double from the reference's rows
        const std::size_t row0 = c.first * plane, rows = (c.last - c.first) * plane;
        long double want_dot = 0, abs_dot = 0, abs_x = 0;
        for (std::size_t i = row0; i < row0 + rows; ++i) {
            want_dot += static_cast<long double>(xh[i]) * want[i];
            abs_dot += std::fabs(static_cast<long double>(xh[i]) * want[i]);
            abs_x += std::fabs(static_cast<long double>(xh[i]));
        }
        // cuda: the kernel it picks, and one thread per row (KernelOptions::slab_stencil points)
        for (const bool forced : {false, true}) {
            if (forced && !cuda) break;
            SCOPED_TRACE(forced ? "slab_stencil points" : "slab_stencil automatic");
            Executor exec = this->exec;
            KernelOptions o = exec.kernel_options();
            if (forced) o.slab_stencil = KernelOptions::SlabStencil::points;
            exec.set_kernel_options(o);
            auto y = poisoned<T>(exec, n);
            clear_kernel_choices();
            run(exec, below, above, x, y);
            if (cuda) {
                std::string kernel;
                for (const auto& k : kernel_choices())
                    if (k.step == "slab.apply") kernel = k.kernel;
                // the tiles' four planes of rows + 2 lines of N points, rows = max(1, 4096 / N)
                const std::size_t rows = std::clamp<std::size_t>(4096 / c.points, 1, c.points);
                const std::size_t shared = 4 * (rows + 2) * c.points * sizeof(T);
                const bool ring = !forced && c.dim == 3 && c.points <= 2048 &&
                                  shared <= exec.device_info().shared_memory_per_block_optin;
                EXPECT_EQ(kernel, ring ? "ring" : "points");
            }
            const auto got = y.to_host();
            // x and the ghosts are in [-1, 1]: a row's 2 dim + 1 terms add up to at most 4 dim
            // in magnitude; summed in any order, with or without a fused multiply-add, the
            // rounding is at most (terms + 2) eps times that.
            const double bound = (2 * c.dim + 3) * eps<T>() * 4 * c.dim;
            for (std::size_t i = 0; i < n; ++i) {
                if (i < c.first * plane || i >= c.last * plane) {
                    ASSERT_TRUE(std::isnan(got[i])) << "row " << i << " outside the range written";
                    continue;
                }
                ASSERT_FALSE(std::isnan(want[i])) << "row " << i;
                ASSERT_NEAR(got[i], want[i], bound) << "row " << i;
            }
            // The fused dot: the same rows, and x . y stored over a NaN (so an unwritten dot
            // fails), then on the smaller cases added to 0.5 (the distributed stencil's later
            // calls). Its error from want_dot: each row within `bound` of the reference's, times
            // |x_i|; then the sum's rounding, at most (terms in one running sum + tree levels +
            // 2) eps times sum |x_i y_i|: a running sum holds at most rows / 256 + 4 terms on
            // every backend (cuda: grid-stride over at least one block of 256 threads, or the
            // ring's 1024 threads of 4 points; the CPUs sum in double), the trees at most 32
            // levels.
            const long double dot_bound =
                abs_x * bound + (rows / 256 + 4 + 32 + 2) * eps<T>() * abs_dot;
            for (const bool add : {false, true}) {
                if (add && n > 20000) break;
                SCOPED_TRACE(add ? "dot added to 0.5" : "dot stored");
                auto y2 = poisoned<T>(exec, n);
                Array<T> dot(exec,
                             std::vector<T>{add ? T(0.5) : std::numeric_limits<T>::quiet_NaN()});
                run(exec, below, above, x, y2, dot.data(), add);
                const auto got2 = y2.to_host();
                for (std::size_t i = row0; i < row0 + rows; ++i)
                    ASSERT_NEAR(got2[i], want[i], bound) << "row " << i << " with the dot";
                const long double d = dot.to_host()[0] - (add ? 0.5L : 0.0L);
                EXPECT_LE(std::fabs(d - want_dot), dot_bound)
                    << "dot " << double(d) << ", want " << double(want_dot);
            }
        }
    }
}

TYPED_TEST(Matrix, DiagonalOfEveryFormat) {
    using T = TypeParam;
    MatrixData d = random_sparse(300, 300, 5);
    for (std::int64_t i = 0; i < 300; i += 3) d.add(i, i, 2.5 + i);  // some rows without a diagonal
    d.add(7, 7, 1.0);                                                // a duplicate, summed
    MatrixData s = d;
    s.sort_and_sum_duplicates();
    std::vector<double> want(300, 0.0);
    for (std::size_t k = 0; k < s.entries(); ++k)
        if (s.row_idx[k] == s.col_idx[k]) want[s.row_idx[k]] = s.values[k];
    auto check = [&](const LinearOperator<T>& A) {
        SCOPED_TRACE(A.format());
        ASSERT_TRUE(A.has_diagonal());
        auto diag = poisoned<T>(this->exec, 300);
        A.diagonal(diag);
        const auto got = diag.to_host();
        for (std::size_t i = 0; i < 300; ++i)
            ASSERT_NEAR(got[i], want[i], 4 * eps<T>() * std::abs(want[i]));
    };
    check(Csr<T>::from_data(this->exec, d));
    check(Ell<T>::from_data(this->exec, d));
    check(Dense<T>::from_data(this->exec, d));
}

// Csr::borrow and Dense::borrow over memory of the executor (as the Python bindings use for
// NumPy, CuPy and PyTorch arrays): the same kernel over the same memory, so the same y bit for
// bit as the owning operator; the structure checked alike; the diagonal computed on demand.
TYPED_TEST(Matrix, BorrowedOperatorsReadTheCallersMemory) {
    using T = TypeParam;
    MatrixData d = random_sparse(1025, 1025, 21);
    for (std::int64_t i = 0; i < 1025; i += 2) d.add(i, i, 3.0 + i);
    const auto A = Csr<T>::from_data(this->exec, d);
    const auto B = Csr<T>::borrow(this->exec, A.rows(), A.cols(), A.row_ptrs().get_view(),
                                  A.col_idxs().get_view(), A.values().get_view());
    EXPECT_EQ(B.values().data(), A.values().data());
    EXPECT_FALSE(B.values().owning());
    EXPECT_EQ(B.structural_defect(), A.structural_defect());
    const auto xh = random_vector<T>(1025, 22);
    Array<T> x(this->exec, xh);
    auto ya = poisoned<T>(this->exec, 1025), yb = poisoned<T>(this->exec, 1025);
    A.apply(x, ya);
    B.apply(x, yb);
    EXPECT_EQ(ya.to_host(), yb.to_host());
    auto da = poisoned<T>(this->exec, 1025), db = poisoned<T>(this->exec, 1025);
    A.diagonal(da);
    B.diagonal(db);
    EXPECT_EQ(da.to_host(), db.to_host());

    const auto D = Dense<T>::from_data(this->exec, random_sparse(33, 33, 23));
    const auto E = Dense<T>::borrow(this->exec, 33, 33, D.values().get_view());
    EXPECT_EQ(E.values().data(), D.values().data());
    Array<T> x33(this->exec, random_vector<T>(33, 24));
    auto y1 = poisoned<T>(this->exec, 33), y2 = poisoned<T>(this->exec, 33);
    D.apply(x33, y1);
    E.apply(x33, y2);
    EXPECT_EQ(y1.to_host(), y2.to_host());
    auto d1 = poisoned<T>(this->exec, 33), d2 = poisoned<T>(this->exec, 33);
    D.diagonal(d1);
    E.diagonal(d2);
    EXPECT_EQ(d1.to_host(), d2.to_host());

    // Bad structure in device memory is refused before any kernel reads it.
    const Array<std::int32_t> ptr(this->exec, std::vector<std::int32_t>{0, 1, 2}),
        col(this->exec, std::vector<std::int32_t>{0, 2}),
        bad_ptr(this->exec, std::vector<std::int32_t>{0, 2, 1});
    const Array<T> val(this->exec, std::vector<T>{T(1), T(2)});
    EXPECT_THROW(Csr<T>::borrow(this->exec, 2, 2, ptr.get_view(), col.get_view(), val.get_view()),
                 BadInput);
    EXPECT_THROW(
        Csr<T>::borrow(this->exec, 2, 2, bad_ptr.get_view(), col.get_view(), val.get_view()),
        BadInput);
    EXPECT_THROW(Csr<T>::borrow(this->exec, 2, 2, ptr.get_view(), col.get_view(),
                                const_view<T>(val.data(), 1)),
                 DimensionMismatch);
    EXPECT_THROW(Dense<T>::borrow(this->exec, 2, 2, val.get_view()), DimensionMismatch);
}

template <typename T>
std::vector<T> diagonal_of(const Csr<T>& A) {
    Array<T> d(A.executor(), A.rows());
    A.diagonal(d);
    return d.to_host();
}

// Csr::borrow checks the pattern where the memory lies (kernels' csr_pattern_check) and takes
// it to the host only when something is wrong: every pattern gets the verdict the copying
// constructor gives from host vectors (the same exception, the same structural defect), and the
// diagonal computed on the device equals the host's.
TYPED_TEST(Matrix, BorrowedPatternsAreJudgedLikeCopiedOnes) {
    using T = TypeParam;
    struct Case {
        const char* what;
        std::size_t rows, cols;
        std::vector<std::int32_t> ptr, col;
    };
    const std::vector<Case> cases = {
        {"full diagonal", 3, 3, {0, 2, 3, 5}, {0, 2, 1, 0, 2}},
        {"diagonal missing in row 1", 3, 3, {0, 2, 3, 5}, {0, 2, 0, 1, 2}},
        {"empty row", 3, 3, {0, 2, 2, 4}, {0, 1, 0, 2}},
        {"wide, full diagonal", 2, 4, {0, 2, 4}, {0, 3, 1, 2}},
        {"tall, rows past the columns", 4, 2, {0, 1, 2, 3, 4}, {0, 1, 0, 1}},
        {"empty matrix", 0, 0, {0}, {}},
        {"first pointer not 0", 2, 2, {1, 2, 2}, {0, 1}},
        {"pointers decrease", 3, 3, {0, 2, 1, 3}, {0, 1, 2}},
        {"last pointer short of the entries", 2, 2, {0, 1, 1}, {0, 1}},
        {"pointer past the entries", 3, 3, {0, 9, 1, 2}, {0, 1}},
        {"negative column", 2, 2, {0, 1, 2}, {0, -1}},
        {"column past the end", 2, 2, {0, 2, 3}, {0, 1, 2}},
        {"entries without rows", 0, 0, {0}, {0}},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.what);
        const std::vector<T> vh(c.col.size(), T(2));
        std::string copied_error, borrowed_error, copied_defect;
        std::vector<T> copied_diag;
        try {
            const Csr<T> A(this->ref, c.rows, c.cols, c.ptr, c.col, vh);
            copied_defect = A.structural_defect();
            copied_diag = diagonal_of(A);
        } catch (const BadInput& e) {
            copied_error = e.what();
        } catch (const DimensionMismatch& e) {
            copied_error = e.what();
        }
        const Array<std::int32_t> ptr(this->exec, c.ptr), col(this->exec, c.col);
        const Array<T> val(this->exec, vh);
        try {
            const auto B = Csr<T>::borrow(this->exec, c.rows, c.cols, ptr.get_view(),
                                          col.get_view(), val.get_view());
            EXPECT_EQ(copied_error, "") << "borrowed accepted what the copy refused";
            EXPECT_EQ(B.structural_defect(), copied_defect);
            EXPECT_EQ(diagonal_of(B), copied_diag);
        } catch (const BadInput& e) {
            borrowed_error = e.what();
        } catch (const DimensionMismatch& e) {
            borrowed_error = e.what();
        }
        EXPECT_EQ(borrowed_error, copied_error);
    }
}

// ELL pads every row to the longest: a sparse matrix with one dense row would ask for rows^2
// entries (here 3e6 x 3e6 x 12 bytes, 108 TB). Refused with OutOfMemory before any allocation.
TYPED_TEST(Matrix, EllPaddingBeyondMemoryIsRefused) {
    using T = TypeParam;
    MatrixData d;
    d.rows = d.cols = 3000000;
    for (std::int64_t i = 0; i < d.rows; ++i) d.add(i, i, 4.0);
    for (std::int64_t j = 1; j < d.cols; ++j) d.add(0, j, -1e-7);
    try {
        (void)Ell<T>::from_data(this->exec, d);
        FAIL() << "ELL of a matrix with a dense row was built";
    } catch (const OutOfMemory& e) {
        EXPECT_NE(std::string(e.what()).find("use csr"), std::string::npos) << e.what();
    }
}

TYPED_TEST(Matrix, BadShapesAreRejected) {
    using T = TypeParam;
    EXPECT_THROW(Stencil<T>(this->exec, 4, 10), BadInput);
    EXPECT_THROW(Stencil<T>(this->exec, 2, 0), BadInput);
    EXPECT_THROW(Dense<T>(this->exec, 3, 3, std::vector<T>(8)), DimensionMismatch);
    EXPECT_THROW(Csr<T>(this->exec, 2, 2, {0, 1, 2}, {0, 2}, {T(1), T(1)}), BadInput);
    EXPECT_THROW(Csr<T>(this->exec, 2, 2, {0, 2, 1}, {0, 1}, {T(1), T(1)}), BadInput);
    const Stencil<T> S(this->exec, 1, 10);
    Array<T> x(this->exec, 10), y(this->exec, 9);
    EXPECT_THROW(S.checked_apply(x, y), DimensionMismatch);
}

}  // namespace
}  // namespace portla::test
