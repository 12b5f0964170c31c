/// \file
/// Sparse matrix algebra on an executor: the product of two CSR matrices (SpGEMM) and the
/// transpose, computed where the matrices live (on cuda without a copy to the host), on every
/// backend. Smoothed aggregation builds its hierarchy with them (solver/amg.hpp).
#pragma once

#include <cstddef>

#include "portla/matrix/csr.hpp"

namespace portla::sparse {

/// C = A B, each row of C sorted by column, explicit zeros of cancelling products kept. Row by
/// row (Gustavson) with a hash table per row, in chunks of rows whose tables fit
/// `workspace_bytes` (0: half of the executor's free memory, at least 768 MiB; a row's
/// table always fits, whatever the limit); on omp (unless KernelOptions::host_sparse is off,
/// or B has more columns than A's and B's entries and A's rows) with a dense accumulator per
/// thread instead, which needs no workspace. The sums of a
/// row run in the order of A's row and then B's rows on every backend. Throws
/// DimensionMismatch (A.cols() != B.rows()), BadInput (the executors differ), Unsupported
/// (64-bit indices, or a product of 2^31 or more entries).
template <typename T>
Csr<T> multiply(const Csr<T>& A, const Csr<T>& B, std::size_t workspace_bytes = 0);

/// A^T, each row sorted by column (on omp, unless KernelOptions::host_sparse is off, placed in
/// row order by each thread's share of the rows, with no sort). Throws Unsupported for 64-bit
/// indices.
template <typename T>
Csr<T> transpose(const Csr<T>& A);

/// A B C (the Galerkin product R A P of multigrid), as multiply(multiply(A, B), C).
template <typename T>
Csr<T> multiply(const Csr<T>& A, const Csr<T>& B, const Csr<T>& C);

}  // namespace portla::sparse
