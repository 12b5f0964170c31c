/// \file
/// Batches of small sparse matrices that share one sparsity pattern, with per-system values.
///
/// A batch of num_systems systems of size n is held in one of three formats:
///   dense  values[s * n * n + i * n + j]                  (row-major per system)
///   csr    row_ptrs[n + 1], col_idxs[nnz] (shared); values[s * nnz + k]
///   ell    col_idxs[k * n + i] for k < width (shared; -1 pads short rows);
///          values[s * n * width + k * n + i]              (column-major per system)
/// (portla::Format, portla/matrix/format.hpp). Batch vectors are Arrays of num_systems * n
/// entries, system after system.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "portla/array.hpp"
#include "portla/executor.hpp"
#include "portla/matrix/format.hpp"

/// Batches of small systems sharing one sparsity pattern, solved by one batched call.
namespace portla::batch {

/// A batch on the host in CSR form: the shared pattern, the values of every system, and
/// (optionally) the right-hand sides. What readers and generators produce, and what a caller
/// with its own arrays fills in.
struct BatchData {
    /// Number of systems.
    std::size_t num_systems = 0;
    /// Rows (= columns) of each system.
    std::size_t n = 0;
    std::vector<std::int32_t> row_ptrs;  ///< n + 1 entries
    std::vector<std::int32_t> col_idxs;  ///< nnz entries, ascending within each row
    std::vector<double> values;          ///< num_systems * nnz, system after system
    std::vector<double> rhs;             ///< num_systems * n, or empty
    std::vector<std::string> names;      ///< where each system came from (may be empty)

    /// Non-zeros of the shared pattern (per system).
    std::size_t nnz() const { return col_idxs.size(); }
    /// Throws BadInput (naming `where`) unless the arrays are consistent: monotone row_ptrs,
    /// sorted, unique, in-range columns, sizes that match. Values need not be finite: a NaN
    /// system is flagged by the solver for that system alone, not rejected for the batch.
    void validate(const std::string& where) const;
};

/// Reads `<dir>/<i>/A.mtx` and `<dir>/<i>/b.mtx` for i = 0, 1, 2, ... (every numbered
/// sub-directory, in numeric order). Throws BadInput naming the file when one is malformed,
/// when a system's size or sparsity pattern differs from system 0's, or when none is found.
BatchData read_directory(const std::string& dir);

/// The system directories read_directory(dir) reads, in its order, found by listing `dir` alone
/// (no file is opened). Throws BadInput as read_directory does when `dir` cannot be listed or
/// holds no numbered system directory.
std::vector<std::string> list_directory(const std::string& dir);

/// Systems [first, first + count) of read_directory(dir), reading only their files and system
/// 0's A.mtx (the pattern they must share): what one of several processes reads. The same
/// checks and messages as read_directory, for the systems read; BadInput too when
/// first + count exceeds the systems found.
BatchData read_directory(const std::string& dir, std::size_t first, std::size_t count);

/// The seed of generate_stencil3pt's default batch.
inline constexpr std::uint64_t stencil3pt_seed = 20231112;
/// SPD tridiagonal systems: diagonal 2 / h_i with h_i ~ Normal(0.5, 0.1) drawn per row and
/// system (h_i clamped to [0.05, 1]), off-diagonals -1, right-hand side constant per system
/// (drawn from [0.5, 1.5]); a fixed seed gives the same batch every time. System s does not
/// depend on how many systems precede or follow it: `first` > 0 gives systems
/// [first, first + num_systems) of the same stream (the random draws of the systems before are
/// skipped, not stored: time O(first * n), no memory for them).
BatchData generate_stencil3pt(std::size_t n, std::size_t num_systems,
                              std::uint64_t seed = stencil3pt_seed, std::size_t first = 0);

/// The systems of `data` repeated in order, starting with system `first` (modulo
/// data.num_systems), until there are num_systems of them: system s of the result is system
/// (first + s) % data.num_systems of `data`.
BatchData replicate(const BatchData& data, std::size_t num_systems, std::size_t first = 0);

/// A batch matrix on an executor.
template <typename T>
class BatchMatrix {
public:
    /// Converts `data` (its pattern and values) to `format` on `exec`. Throws BadInput for
    /// inconsistent data, OutOfMemory when it does not fit.
    BatchMatrix(const Executor& exec, const BatchData& data, Format format);

    /// The executor holding the values and the pattern.
    const Executor& executor() const { return values_.executor(); }
    /// The storage format (dense, csr or ell).
    Format format() const { return format_; }
    /// Number of systems.
    std::size_t num_systems() const { return num_systems_; }
    std::size_t size() const { return n_; }  ///< rows (= columns) of each system
    /// Stored values per system: n * n (dense), nnz (csr), n * width (ell).
    std::size_t stored_per_system() const { return stored_; }
    /// Structural non-zeros per system (of the source pattern).
    std::size_t nnz_per_system() const { return nnz_; }
    /// Entries per padded row (ell; 0 for the other formats).
    int ell_width() const { return ell_width_; }

    const Array<std::int32_t>& row_ptrs() const { return row_ptrs_; }  ///< csr only
    const Array<std::int32_t>& col_idxs() const { return col_idxs_; }  ///< csr and ell
    /// Every system's values, in the layout of format() (file comment above).
    const Array<T>& values() const { return values_; }
    /// The shared pattern in CSR form on the host (whatever the format).
    const std::vector<std::int32_t>& host_row_ptrs() const { return host_row_ptrs_; }
    /// The shared pattern's column indices on the host (CSR order).
    const std::vector<std::int32_t>& host_col_idxs() const { return host_col_idxs_; }

    /// y_s = A_s x_s for every system s.
    void apply(const Array<T>& x, Array<T>& y) const;

private:
    Format format_;
    std::size_t num_systems_ = 0, n_ = 0, stored_ = 0, nnz_ = 0;
    int ell_width_ = 0;
    std::vector<std::int32_t> host_row_ptrs_, host_col_idxs_;
    Array<std::int32_t> row_ptrs_, col_idxs_;
    Array<T> values_;
};

}  // namespace portla::batch
