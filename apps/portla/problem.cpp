#include "problem.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <limits>
#include <type_traits>

#include "input.hpp"
#include "portla/matrix/format.hpp"

namespace portla::cli {

GeneratorSpec parse_generator(const std::string& spec) {
    try {
        return parse_generator_spec(spec);
    } catch (const BadInput& e) {
        throw BadInput(std::string("--generate: ") + e.what());
    }
}

bool generated_matrix_free(const ProblemSpec& spec) {
    return !spec.generate.empty() && !spec.assembled && parse_generator(spec.generate).is_poisson();
}

void require_one_matrix(const ProblemSpec& spec) {
    if (spec.file.empty() && spec.generate.empty())
        throw BadInput(
            "no matrix given: name a Matrix Market file (portla solve A.mtx) or generate one "
            "(portla solve --generate poisson2d:64)");
    if (!spec.file.empty() && !spec.generate.empty())
        throw BadInput("give one matrix: a Matrix Market FILE or --generate, not both");
}

namespace {

// A file's matrix must not be empty and, unless `rectangular`, must be square and free of a
// structural defect (an empty row or column, or a pattern that no values make nonsingular).
template <typename Data>
void check_loaded(const std::string& file, const Data& data, bool rectangular) {
    if (rectangular) {
        if (data.rows == 0 || data.cols == 0)
            throw BadInput(file + ": matrix is empty (" + std::to_string(data.rows) + " x " +
                           std::to_string(data.cols) + ")");
        return;
    }
    if (data.rows != data.cols)
        throw BadInput(file + ": matrix is " + std::to_string(data.rows) + " x " +
                       std::to_string(data.cols) + ", a solve needs a square matrix");
    if (data.rows == 0) throw BadInput(file + ": matrix is empty (0 x 0)");
    if (const std::string defect = data.structural_defect(); !defect.empty())
        throw BadInput(file + ": " + defect);
}

}  // namespace

Problem load_problem(const ProblemSpec& spec) {
    require_one_matrix(spec);
    Problem p;
    p.auto_format = spec.format == "auto";
    p.format = p.auto_format ? Format::csr : parse_format(spec.format);
    if (!spec.file.empty() && spec.assembled)
        throw BadInput("--assembled applies to --generate only (a FILE is always stored)");
    const bool matrix_free = generated_matrix_free(spec);
    if (matrix_free && !p.auto_format && p.format != Format::csr)
        throw BadInput("--format " + spec.format + " applies to stored matrices: add --assembled");
    p.index = csr_index_from_string(spec.index_width);
    if (p.index == CsrIndex::offsets64 || p.index == CsrIndex::int64) {
        if (matrix_free)
            throw BadInput("--index-width " + spec.index_width +
                           " applies to stored matrices: add --assembled");
        if (!p.auto_format && p.format != Format::csr)
            throw BadInput("--index-width " + spec.index_width + " needs --format csr (got " +
                           spec.format + ")");
        p.auto_format = false;  // the 64-bit index forms are csr's
    }
    if (!spec.file.empty()) {
        p.description = spec.file;
        const DeclaredSize size = read_declared_size(spec.file);
        p.symmetric_file = size.symmetric;
        // More rows than (expanded) entries leave a row empty: a 60-byte file can declare 2e8
        // rows and hold one entry. Found from the coordinates, before any per-row work.
        if (size.rows > size.entries) {
            const MatrixData coo =
                load_input(spec.file, [&] { return io::read_matrix_market(spec.file); });
            check_loaded(spec.file, coo, spec.rectangular);
            p.data = CsrData::from(coo);
            return p;
        }
        // Straight from the text to CSR: sorted, duplicates summed, a symmetric file's other
        // triangle added, with no coordinate copy (1e6-row 3-D Poisson, 6.94e6 entries,
        // 2-core VM, 2026-11-28: see docs/performance.md, "Set-up").
        p.data = load_input(spec.file, [&] { return io::read_matrix_market_csr(spec.file); });
        check_loaded(spec.file, p.data, spec.rectangular);
        return p;
    }
    p.description = spec.generate;
    p.matrix_free = matrix_free;
    if (!matrix_free) p.data = generate_csr(parse_generator(spec.generate));
    return p;
}

bool auto_format_may_be_ell(const Executor& exec, solver::Preconditioner precond) {
    using solver::Preconditioner;
    const bool any_operator = precond == Preconditioner::none ||
                              precond == Preconditioner::jacobi ||
                              precond == Preconditioner::chebyshev;
    return !exec.is_host() && any_operator;
}

void choose_format(Problem& problem, const Executor& exec, solver::Preconditioner precond) {
    if (!problem.auto_format || problem.matrix_free) return;
    problem.format = Format::csr;
    const CsrData& d = problem.data;
    // ELL indexes its entries in 32 bits (Ell::from_data): a matrix of 2^31 - 1 or more stays csr.
    if (!auto_format_may_be_ell(exec, precond) || d.rows == 0 || d.entries() == 0 ||
        d.entries() >= static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
        return;
    std::int64_t longest = 0;
    for (std::size_t i = 0; i + 1 < d.row_ptrs.size(); ++i)
        longest = std::max(longest, d.row_ptrs[i + 1] - d.row_ptrs[i]);
    if (double(longest) * double(d.rows) <= 1.25 * double(d.entries()))
        problem.format = Format::ell;
}

template <typename T>
bool reads_in_place(const Executor& exec, const Problem& problem) {
    return std::is_same_v<T, double> && exec.is_host() && !problem.matrix_free &&
           problem.format == Format::csr && problem.index != CsrIndex::int64;
}

template <typename T>
std::unique_ptr<LinearOperator<T>> make_operator(const Executor& exec, const ProblemSpec& spec,
                                                 const Problem& problem) {
    if (problem.matrix_free) {
        const GeneratorSpec g = parse_generator(spec.generate);
        return std::make_unique<Stencil<T>>(exec, g.dim(), g.n);
    }
    if (problem.format == Format::ell)
        return std::make_unique<Ell<T>>(Ell<T>::from_data(exec, problem.data.to_matrix_data()));
    if (problem.format == Format::dense) {
        if (double(problem.data.rows) * double(problem.data.cols) > 1.0e9)
            throw BadInput("--format dense: " + std::to_string(problem.data.rows) + " x " +
                           std::to_string(problem.data.cols) + " is too large for a dense matrix");
        return std::make_unique<Dense<T>>(Dense<T>::from_data(exec, problem.data.to_matrix_data()));
    }
    const CsrData& d = problem.data;
    if constexpr (std::is_same_v<T, double>) {
        // On the host the operator reads the loaded arrays in place: no 12-byte-per-entry copy.
        // A matrix that fits 32-bit offsets gets a 32-bit copy of them (4 bytes per row: the
        // 32-bit form, which every preconditioner takes; its pattern checked by the backend's
        // kernel, threads on omp); a larger one reads the 64-bit offsets in place as well.
        if (reads_in_place<T>(exec, problem))
            return std::make_unique<Csr<T>>(Csr<T>::borrow(
                exec, static_cast<std::size_t>(d.rows), static_cast<std::size_t>(d.cols),
                {d.row_ptrs.data(), d.row_ptrs.size()}, {d.col_idxs.data(), d.col_idxs.size()},
                {d.values.data(), d.values.size()}, problem.index));
    }
    return std::make_unique<Csr<T>>(Csr<T>::from_data(exec, d, problem.index));
}

template <typename T>
Array<T> make_rhs(const Executor& exec, const ProblemSpec& spec, const LinearOperator<T>& A) {
    Array<T> b(exec, A.rows());
    if (spec.rhs.empty()) {
        Array<T> ones(exec, A.cols());
        blas::fill<T>(exec, ones, T{1});
        A.apply(ones, b);  // b = A (1, ..., 1)
        return b;
    }
    const auto values = load_input(spec.rhs, [&] { return io::read_vector(spec.rhs); });
    if (values.size() != A.rows())
        throw BadInput(spec.rhs + ": right-hand side has " + std::to_string(values.size()) +
                       " entries, the matrix has " + std::to_string(A.rows()) + " rows");
    std::vector<T> host(values.begin(), values.end());
    b.copy_from_host(host);
    return b;
}

#define PORTLA_INSTANTIATE_PROBLEM(T)                                 \
    template bool reads_in_place<T>(const Executor&, const Problem&); \
    template std::unique_ptr<LinearOperator<T>> make_operator<T>(     \
        const Executor&, const ProblemSpec&, const Problem&);         \
    template Array<T> make_rhs<T>(const Executor&, const ProblemSpec&, const LinearOperator<T>&)
PORTLA_INSTANTIATE_PROBLEM(double);
PORTLA_INSTANTIATE_PROBLEM(float);

}  // namespace portla::cli
