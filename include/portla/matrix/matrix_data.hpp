/// \file
/// Host-side coordinate (COO) data: the exchange format between readers, generators and the
/// stored matrix formats. Entries are in any order; duplicates are summed on conversion.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace portla {

/// A matrix as coordinate (COO) entries on the host: entry k is values[k] at (row_idx[k],
/// col_idx[k]), 0-based. Readers and generators produce it; Csr, Ell and Dense are built from it.
struct MatrixData {
    /// Number of rows.
    std::int64_t rows = 0;
    /// Number of columns.
    std::int64_t cols = 0;
    /// Row of each entry, 0-based.
    std::vector<std::int64_t> row_idx;
    /// Column of each entry, 0-based.
    std::vector<std::int64_t> col_idx;
    /// Value of each entry.
    std::vector<double> values;

    /// Number of entries (duplicates counted).
    std::size_t entries() const { return values.size(); }
    /// Appends the entry v at (r, c) (not checked; duplicates are summed on conversion).
    void add(std::int64_t r, std::int64_t c, double v) {
        row_idx.push_back(r);
        col_idx.push_back(c);
        values.push_back(v);
    }
    /// Sorts entries by (row, col) and sums duplicates (in input order, so the result is
    /// deterministic). O(entries) when already sorted without duplicates.
    void sort_and_sum_duplicates();
    /// Whether the entries are sorted by (row, col) without duplicates: what
    /// sort_and_sum_duplicates() leaves (an O(entries) check).
    bool is_sorted() const;
    /// True when square and |a_ij - a_ji| <= rel_tol * max |a| for every i, j (after summing
    /// duplicates; rel_tol = 0: A == A^T exactly; NaN is never symmetric). No sort on data that
    /// is already sorted without duplicates; otherwise one sort of a copy.
    bool is_symmetric(double rel_tol = 0.0) const;
    /// The rel_tol of is_symmetric under which a matrix counts as symmetric to rounding (about
    /// 4500 ulps of its largest entry: FEM matrices written as `general` differ from their
    /// transpose by a few ulps of their entries). What CG accepts.
    static constexpr double rounding_symmetry = 1e-12;
    /// Why a square matrix with this structure is singular whatever its values ("matrix has an
    /// empty row (row 17 of 20, counting from 1): the system is singular", or an empty column),
    /// or "" when every row and column holds an entry (explicit zeros count) or the matrix is
    /// not square. Indices must lie in the matrix. O(entries + rows) time, rows + cols bits: a
    /// check to run right after reading, before any matrix is built from the data.
    std::string structural_defect() const;
};

/// Host-side compressed sparse rows: what a Matrix Market file becomes on its way to a stored
/// matrix without a coordinate copy (io::read_matrix_market_csr). Each row's columns are
/// strictly increasing (duplicates summed); explicit zeros are kept. The row offsets are 64-bit,
/// so a matrix may hold 2^31 or more entries (Csr::from_data then stores them as
/// CsrIndex::offsets64, and as int32 whenever they fit); rows and columns stay below 2^31 - 1
/// (32-bit column indices).
struct CsrData {
    /// Number of rows.
    std::int64_t rows = 0;
    /// Number of columns.
    std::int64_t cols = 0;
    std::vector<std::int64_t> row_ptrs{0};  ///< rows + 1 offsets into col_idxs and values
    /// Column of each entry, 0-based, strictly increasing within a row.
    std::vector<std::int32_t> col_idxs;
    /// Value of each entry, row after row.
    std::vector<double> values;

    /// Number of stored entries.
    std::size_t entries() const { return values.size(); }
    /// The same matrix from coordinate data in any order: sorted, duplicates summed in input
    /// order (as MatrixData::sort_and_sum_duplicates). Throws BadInput for rows or columns
    /// beyond the int32 range (2^31 - 1 or more) or indices outside the matrix,
    /// DimensionMismatch for ragged arrays. Any number of entries.
    static CsrData from(const MatrixData& data);
    /// The entries as coordinate data, sorted by (row, col).
    MatrixData to_matrix_data() const;
    /// As MatrixData::is_symmetric (same tolerance, NaN never symmetric), on the rows in place:
    /// each entry's mirror found by binary search in its column's row, rows shared out over the
    /// host's threads.
    bool is_symmetric(double rel_tol = 0.0) const;
    /// As MatrixData::structural_defect.
    std::string structural_defect() const;
};

}  // namespace portla
