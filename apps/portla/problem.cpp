#include "problem.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <regex>

#include "input.hpp"
#include "portla/matrix/format.hpp"

namespace portla::cli {

std::pair<int, std::size_t> parse_generator(const std::string& spec) {
    static const std::regex re(R"(poisson([123])d:([0-9]{1,9}))");
    std::smatch m;
    if (!std::regex_match(spec, m, re))
        throw BadInput("--generate: expected poisson1d:N, poisson2d:N or poisson3d:N, got '" +
                       spec + "'");
    const int dim = std::stoi(m[1]);
    const auto points = std::stoull(m[2]);
    if (points < 1) throw BadInput("--generate: N must be >= 1 in '" + spec + "'");
    return {dim, static_cast<std::size_t>(points)};
}

Problem load_problem(const ProblemSpec& spec) {
    if (spec.file.empty() == spec.generate.empty())
        throw BadInput("give exactly one of a Matrix Market FILE or --generate");
    Problem p;
    p.auto_format = spec.format == "auto";
    p.format = p.auto_format ? Format::csr : parse_format(spec.format);
    if (!spec.file.empty() && spec.assembled)
        throw BadInput("--assembled applies to --generate only (a FILE is always stored)");
    if (!spec.generate.empty() && !spec.assembled && !p.auto_format && p.format != Format::csr)
        throw BadInput("--format " + spec.format + " applies to stored matrices: add --assembled");
    if (!spec.file.empty()) {
        p.data = load_input(spec.file, [&] { return io::read_matrix_market(spec.file); });
        p.description = spec.file;
        if (p.data.rows != p.data.cols)
            throw BadInput(spec.file + ": matrix is " + std::to_string(p.data.rows) + " x " +
                           std::to_string(p.data.cols) + ", a solve needs a square matrix");
        if (p.data.rows == 0) throw BadInput(spec.file + ": matrix is empty (0 x 0)");
        // Before any per-row work: a 60-byte file can declare 2e8 rows and hold one entry.
        if (const std::string defect = p.data.structural_defect(); !defect.empty())
            throw BadInput(spec.file + ": " + defect);
        // The one sort on the way from the file to the solve: the symmetry check, the CLI's
        // diagonal and Csr/Ell::from_data then find the data sorted (an O(entries) check).
        // `portla solve FILE --max-iters 0 --json --backend omp`, 1e6-row 7-point stencil in
        // column-major order: 1.30-1.48 s user CPU, against 1.55-1.94 s when is_symmetric sorted
        // and left a hint for the later sorts (2-core VM, 2026-11-23; see stable_order).
        p.data.sort_and_sum_duplicates();
        return p;
    }
    const auto [dim, points] = parse_generator(spec.generate);
    p.description = spec.generate;
    p.matrix_free = !spec.assembled;
    if (spec.assembled) p.data = Stencil<double>(Executor::reference(), dim, points).assemble();
    return p;
}

void choose_format(Problem& problem, const Executor& exec, solver::Preconditioner precond) {
    if (!problem.auto_format || problem.matrix_free) return;
    problem.format = Format::csr;
    using solver::Preconditioner;
    const bool any_operator = precond == Preconditioner::none ||
                              precond == Preconditioner::jacobi ||
                              precond == Preconditioner::chebyshev;
    const MatrixData& d = problem.data;
    if (exec.is_host() || !any_operator || d.rows == 0 || d.entries() == 0) return;
    std::vector<std::int32_t> length(static_cast<std::size_t>(d.rows), 0);
    std::int32_t longest = 0;
    for (const auto r : d.row_idx)
        longest = std::max(longest, ++length[static_cast<std::size_t>(r)]);
    if (double(longest) * double(d.rows) <= 1.25 * double(d.entries()))
        problem.format = Format::ell;
}

template <typename T>
std::unique_ptr<LinearOperator<T>> make_operator(const Executor& exec, const ProblemSpec& spec,
                                                 const Problem& problem) {
    if (problem.matrix_free) {
        const auto [dim, points] = parse_generator(spec.generate);
        return std::make_unique<Stencil<T>>(exec, dim, points);
    }
    if (problem.format == Format::ell)
        return std::make_unique<Ell<T>>(Ell<T>::from_data(exec, problem.data));
    if (problem.format == Format::dense) {
        if (double(problem.data.rows) * double(problem.data.cols) > 1.0e9)
            throw BadInput("--format dense: " + std::to_string(problem.data.rows) + " x " +
                           std::to_string(problem.data.cols) + " is too large for a dense matrix");
        return std::make_unique<Dense<T>>(Dense<T>::from_data(exec, problem.data));
    }
    return std::make_unique<Csr<T>>(Csr<T>::from_data(exec, problem.data));
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

#define PORTLA_INSTANTIATE_PROBLEM(T)                             \
    template std::unique_ptr<LinearOperator<T>> make_operator<T>( \
        const Executor&, const ProblemSpec&, const Problem&);     \
    template Array<T> make_rhs<T>(const Executor&, const ProblemSpec&, const LinearOperator<T>&)
PORTLA_INSTANTIATE_PROBLEM(double);
PORTLA_INSTANTIATE_PROBLEM(float);

}  // namespace portla::cli
