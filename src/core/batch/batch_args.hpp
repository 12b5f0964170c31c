// BatchArgs from a BatchMatrix (the matrix part; the solver fills in the rest).
#pragma once

#include "common/batch/system_solvers.hpp"
#include "portla/batch/matrix.hpp"

namespace portla::batch::detail {

template <typename T>
BatchArgs<T> matrix_args(const BatchMatrix<T>& A) {
    BatchArgs<T> a;
    a.num_systems = static_cast<int>(A.num_systems());
    a.n = static_cast<int>(A.size());
    a.format = A.format();
    a.width = A.ell_width();
    a.stored = static_cast<long long>(A.stored_per_system());
    a.nnz = static_cast<long long>(A.nnz_per_system());
    a.row_ptrs = A.row_ptrs().data();
    a.col_idxs = A.col_idxs().data();
    a.values = A.values().data();
    return a;
}

}  // namespace portla::batch::detail
