// Loading a problem for the CLI: a Matrix Market file or a generated problem (a Poisson operator,
// matrix-free by default, or a stored test matrix of matrix/generate.hpp), and its right-hand
// side.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "portla/portla.hpp"

namespace portla::cli {

struct ProblemSpec {
    std::string file;             ///< Matrix Market file, or empty
    std::string generate;         ///< a generator spec (matrix/generate.hpp), or empty
    bool assembled = false;       ///< store a generated Poisson operator (the others always are)
    std::string format = "auto";  ///< stored format: auto, csr, ell or dense
    std::string rhs;              ///< right-hand side file, or empty for b = A 1
    /// csr index widths (CsrIndex): auto, 32, 64/32 or 64; a 64-bit form asks for csr
    std::string index_width = "auto";
    /// Accept a rows x cols file (least squares, lsqr / lsmr); otherwise it must be square and
    /// free of a structural defect.
    bool rectangular = false;
};

/// Throws BadInput, showing both ways to give a matrix, unless exactly one of spec.file and
/// spec.generate is given.
void require_one_matrix(const ProblemSpec& spec);

/// A parsed --generate spec (parse_generator_spec): throws BadInput prefixed "--generate: ".
GeneratorSpec parse_generator(const std::string& spec);

/// Whether the generated problem is applied without a stored matrix: a Poisson operator without
/// --assembled.
bool generated_matrix_free(const ProblemSpec& spec);

struct Problem {
    /// The assembled matrix as host CSR (empty for a matrix-free operator): a file's entries go
    /// straight to it (io::read_matrix_market_csr), Stencil::assemble's through CsrData::from.
    CsrData data;
    Format format = Format::csr;  ///< spec.format, parsed (csr for auto until choose_format)
    bool auto_format = false;     ///< spec.format was "auto": choose_format decides
    bool matrix_free = false;
    /// Read from a symmetric Matrix Market file (DeclaredSize::symmetric): exactly symmetric.
    bool symmetric_file = false;
    CsrIndex index = CsrIndex::automatic;  ///< spec.index_width, parsed
    std::string description;               ///< file name or generator spec
};

/// Reads or generates the matrix (without moving it to a device yet). Throws BadInput.
Problem load_problem(const ProblemSpec& spec);

/// --format auto: ell on a GPU for a matrix whose longest row is at most 1.25x its average
/// (ELL pads every row to the longest: at most 25% more bytes, read by a thread per row with
/// every load coalesced) when the preconditioner works on any operator (none, jacobi,
/// chebyshev); csr otherwise (CPUs, irregular rows, block-jacobi and the factorisations).
/// Measured on the H100 (2026-11-24): CG on the 3-D Poisson matrix 128^3 0.173 ms per
/// iteration in ELL against 0.250 in CSR. Sets problem.format when problem.auto_format.
void choose_format(Problem& problem, const Executor& exec, solver::Preconditioner precond);
/// Whether choose_format may pick ell on exec with precond (a GPU and a preconditioner that works
/// on any operator); else an auto format stays csr.
bool auto_format_may_be_ell(const Executor& exec, solver::Preconditioner precond);

/// Whether make_operator<T> gives an operator that reads problem.data in place (a double CSR
/// operator on a host executor with 32-bit columns, through Csr::borrow; the row offsets are
/// copied to 32 bits where they fit): `problem` must then outlive it.
template <typename T>
bool reads_in_place(const Executor& exec, const Problem& problem);

template <typename T>
std::unique_ptr<LinearOperator<T>> make_operator(const Executor& exec, const ProblemSpec& spec,
                                                 const Problem& problem);

/// b from spec.rhs, or b = A (1, ..., 1). Throws BadInput / DimensionMismatch.
template <typename T>
Array<T> make_rhs(const Executor& exec, const ProblemSpec& spec, const LinearOperator<T>& A);

}  // namespace portla::cli
