/// \file
/// dist::DistributedCsr: a CSR matrix partitioned over the ranks of a Communicator by contiguous
/// blocks of rows, as a LinearOperator the single-device solvers take unchanged (their
/// reductions go through communicator()). Vectors are each rank's part: rows() = cols() = the
/// local row count. Only in builds with PORTLA_WITH_MPI.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "portla/dist/communicator.hpp"
#include "portla/dist/distributed_operator.hpp"
#include "portla/matrix/csr.hpp"
#include "portla/matrix/matrix_data.hpp"
#include "portla/operator.hpp"

namespace portla::dist {

/// Row offsets of `parts` contiguous row blocks of `data` with about equal non-zeros each:
/// parts + 1 values from 0 to data.rows (blocks may be empty when rows < parts).
std::vector<std::int64_t> balanced_partition(const MatrixData& data, int parts);

template <typename T>
/// A square CSR matrix whose rows are spread over the ranks of a Communicator, in contiguous
/// blocks; apply() exchanges the halo (ghost entries of x) with the neighbouring ranks. The
/// single-process solvers (solver::cg, bicgstab, gmres, pipecg) take it unchanged. Only in builds
/// with PORTLA_WITH_MPI.
class DistributedCsr : public DistributedOperator<T> {
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
    /// The dim-D Poisson matrix of matrix/stencil.hpp on points^dim grid points, each rank
    /// generating only its rows: the slabs of dist::slab_partition (the rows that
    /// DistributedStencil gives the rank). Collective.
    static DistributedCsr poisson(const Executor& exec, std::shared_ptr<const Communicator> comm,
                                  int dim, std::size_t points);

    /// This rank's rows.
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
    /// The local rows and local columns, a Csr of rows() x rows().
    const LinearOperator<T>& diagonal_block() const override { return diag_; }

    /// Ghost entries this rank receives per apply.
    std::size_t ghosts() const { return ghost_.size(); }

    struct Setup;  // what the collective set-up finds (src/dist/distributed_csr.cpp)

private:
    DistributedCsr(const Executor& exec, std::shared_ptr<const Communicator> comm, Setup&& setup);

    using DistributedOperator<T>::comm_;
    using DistributedOperator<T>::offsets_;
    std::size_t local_rows_;
    Csr<T> diag_;     // local rows x local columns
    Csr<T> offdiag_;  // local rows x ghost columns (in ghost order)
    std::string defect_;
    // The halo: ghosts received from recv_peers_[i] into [recv_starts_[i], recv_starts_[i+1]),
    // local entries send_idx_[send_starts_[i] ...] sent to send_peers_[i].
    std::vector<int> recv_peers_, send_peers_;
    std::vector<std::size_t> recv_starts_, send_starts_;
    std::vector<std::int32_t> send_idx_;
    // Messages straight from and into the executor's memory (host, CUDA-aware MPI, NCCL), else
    // staged through page-locked host memory (stage_: the send entries, then the ghosts).
    using DistributedOperator<T>::direct_;
    using DistributedOperator<T>::peer_;
    Array<std::int32_t> send_idx_dev_;
    mutable Array<T> send_, ghost_, offdiag_y_;
    std::shared_ptr<T> stage_;
};

}  // namespace portla::dist
