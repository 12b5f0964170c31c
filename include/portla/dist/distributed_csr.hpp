// dist::DistributedCsr: a CSR matrix partitioned over the ranks of a Communicator by contiguous
// blocks of rows, as a LinearOperator the single-device solvers take unchanged (their
// reductions go through communicator()). Vectors are each rank's part: rows() = cols() = the
// local row count. Only in builds with PORTLA_WITH_MPI.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "portla/dist/communicator.hpp"
#include "portla/matrix/csr.hpp"
#include "portla/matrix/matrix_data.hpp"
#include "portla/operator.hpp"

namespace portla::dist {

/// Row offsets of `parts` contiguous row blocks of `data` with about equal non-zeros each:
/// parts + 1 values from 0 to data.rows (blocks may be empty when rows < parts).
std::vector<std::int64_t> balanced_partition(const MatrixData& data, int parts);

template <typename T>
class DistributedCsr : public LinearOperator<T> {
public:
    /// The library API, collective over `comm`: this rank's rows [row_offset, row_offset + n)
    /// of a square matrix of `global_rows` rows, in CSR (row_ptrs of n + 1 entries from 0) with
    /// GLOBAL column indices; rank r's rows must follow rank r - 1's. Finds the halo once (the
    /// ghost columns this rank needs, their owners, and what it must send them). Every rank
    /// throws (BadInput, DimensionMismatch) when any rank's part is invalid: offsets that do not
    /// tile [0, global_rows), a column out of range, a value that is NaN or Inf. `comm` must
    /// outlive the operator.
    DistributedCsr(const Executor& exec, std::shared_ptr<const Communicator> comm,
                   std::int64_t global_rows, std::int64_t row_offset,
                   const std::vector<std::int64_t>& row_ptrs,
                   const std::vector<std::int64_t>& col_idxs, const std::vector<T>& values);

    /// Rank `root` holds the whole matrix in `data` (the other ranks' `data` is not read) and
    /// sends each rank its rows of balanced_partition(). Collective.
    static DistributedCsr scatter(const Executor& exec, std::shared_ptr<const Communicator> comm,
                                  const MatrixData& data, int root = 0);
    /// Every rank holds the same `data` (e.g. generated) and keeps its rows of
    /// balanced_partition(). Collective.
    static DistributedCsr from_global(const Executor& exec,
                                      std::shared_ptr<const Communicator> comm,
                                      const MatrixData& data);

    std::size_t rows() const override { return local_rows_; }
    std::size_t cols() const override { return local_rows_; }
    const Executor& executor() const override { return diag_.executor(); }
    /// y = A x over the ranks (collective): the halo values are sent and received while the
    /// diagonal block runs on the local columns; then y += the off-diagonal block times the
    /// ghosts. Sizes rows(); blocks until done.
    void apply(const_view<T> x, view<T> y) const override;
    std::size_t nnz() const override { return diag_.nnz() + offdiag_.nnz(); }
    std::string format() const override { return "distributed-csr"; }
    bool has_diagonal() const override { return true; }
    /// This rank's part of diag(A).
    void diagonal(view<T> d) const override { diag_.diagonal(d); }
    /// An empty local row (columns are global, so only rows are checked).
    std::string structural_defect() const override { return defect_; }
    const Communicator* communicator() const override { return comm_.get(); }
    /// The local rows and local columns, a Csr of rows() x rows().
    const LinearOperator<T>& diagonal_block() const override { return diag_; }

    std::int64_t global_rows() const { return global_rows_; }
    std::int64_t row_offset() const { return offsets_[comm_->rank()]; }
    /// Row offsets of every rank (size() + 1 values).
    const std::vector<std::int64_t>& offsets() const { return offsets_; }
    /// Ghost entries this rank receives per apply.
    std::size_t ghosts() const { return ghost_.size(); }

    /// The whole vector on `root` from every rank's part `x` (host vector; empty on the other
    /// ranks). Collective.
    std::vector<T> gather(const_view<T> x, int root = 0) const;
    /// This rank's part of the vector `global` that rank `root` holds (not read elsewhere).
    /// Collective.
    std::vector<T> scatter_vector(const std::vector<T>& global, int root = 0) const;

    struct Setup;  // what the collective set-up finds (src/dist/distributed_csr.cpp)

private:
    DistributedCsr(const Executor& exec, std::shared_ptr<const Communicator> comm,
                   std::int64_t global_rows, Setup&& setup);

    std::shared_ptr<const Communicator> comm_;
    std::int64_t global_rows_;
    std::size_t local_rows_;
    std::vector<std::int64_t> offsets_;
    Csr<T> diag_;     // local rows x local columns
    Csr<T> offdiag_;  // local rows x ghost columns (in ghost order)
    std::string defect_;
    // The halo: ghosts received from recv_peers_[i] into [recv_starts_[i], recv_starts_[i+1]),
    // local entries send_idx_[send_starts_[i] ...] sent to send_peers_[i].
    std::vector<int> recv_peers_, send_peers_;
    std::vector<std::size_t> recv_starts_, send_starts_;
    std::vector<std::int32_t> send_idx_;
    mutable std::vector<T> send_buf_, recv_buf_, x_host_;
    mutable Array<T> ghost_, offdiag_y_;
};

}  // namespace portla::dist
