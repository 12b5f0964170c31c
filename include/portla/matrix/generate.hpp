/// \file
/// Generated test problems, named by a spec "KIND:N" (the CLI's --generate, C++ tests, Python):
///
///  - poisson1d:N, poisson2d:N, poisson3d:N: the Poisson operators of matrix/stencil.hpp (3-, 5-
///    and 7-point, N points per dimension, N^dim rows, homogeneous Dirichlet boundary), as
///    Stencil::assemble stores them.
///  - anisotropic3d:N: 7-point finite differences of -(u_xx + u_yy + 0.001 u_zz) on an N^3 grid
///    of interior points, homogeneous Dirichlet boundary, scaled by h^2: 2 + 2 + 0.002 on the
///    diagonal, -1 to the x and y neighbours, -0.001 to the z neighbours. N^3 rows. SPD; the weak
///    z coupling defeats smoothers that treat every direction alike.
///  - contrast3d:N: cell-centred finite volumes of -div(k grad u) on N^3 cells of the unit cube,
///    scaled by h. k is constant on cubes of c^3 cells, c = min(8, max(1, N / 6)) (the cubes at
///    the far faces are cut), each cube's k = 10^e with e in {-3, ..., 3} chosen by a fixed hash
///    of the cube's index: k jumps over 6 orders of magnitude. A face between two cells couples
///    them by the harmonic mean 2 k1 k2 / (k1 + k2); a face on the boundary (homogeneous
///    Dirichlet, h / 2 away from the cell centre) adds 2 k to the diagonal. N^3 rows; an SPD
///    M-matrix (irreducibly diagonally dominant).
///  - fem2d:N: the P1 finite-element stiffness matrix of -Laplace on an unstructured
///    triangulation of the unit square: an (N + 1)^2 grid of vertices (h = 1 / N), each interior
///    vertex moved by a pseudo-random offset of length at most 0.3 h (no triangle folds: each
///    height of an undisturbed triangle is at least h / sqrt(2) > 0.6 h), each square cut along
///    a pseudo-randomly chosen diagonal. The boundary vertices carry homogeneous Dirichlet values
///    and are eliminated: (N - 1)^2 rows (N >= 2), the interior vertices in lexicographic order
///    (x fastest). SPD; not an M-matrix where a triangle is obtuse.
///
/// Rows are in lexicographic order (x fastest). Every generator is deterministic: its
/// pseudo-random choices come from an integer hash with a fixed seed and its values from
/// additions, multiplications and divisions only (no library functions), so every machine gives
/// the same matrix. The result is sorted CSR (columns increasing in each row) with every
/// diagonal entry stored, and symmetric values (a_ij == a_ji exactly).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "portla/matrix/matrix_data.hpp"

namespace portla {

/// The kinds of generated problem (file comment).
enum class GeneratedKind { poisson1d, poisson2d, poisson3d, anisotropic3d, contrast3d, fem2d };

/// "poisson1d", "poisson2d", "poisson3d", "anisotropic3d", "contrast3d", "fem2d".
std::string to_string(GeneratedKind kind);

/// A parsed spec "KIND:N".
struct GeneratorSpec {
    /// The kind, before the colon.
    GeneratedKind kind = GeneratedKind::poisson3d;
    /// N of the spec (points, cells or squares per dimension).
    std::size_t n = 1;
    /// Rows (and columns) of the matrix it generates: N, N^2 or N^3, (N - 1)^2 for fem2d.
    double rows() const;
    /// Stored entries at most: 3, 5 or 7 per row for the finite differences and volumes, 9 for
    /// fem2d (a vertex's 4 grid neighbours and, for each of its 4 squares cut through it, the
    /// opposite corner).
    double max_entries() const;
    /// Whether it is one of the Poisson operators (which Stencil applies without a matrix).
    bool is_poisson() const;
    /// 1, 2 or 3 for the Poisson operators (their Stencil's dim).
    int dim() const;
    /// The spec as written canonically, "KIND:N".
    std::string to_string() const;
};

/// The accepted forms, "poisson1d:N, poisson2d:N, poisson3d:N, anisotropic3d:N, contrast3d:N or
/// fem2d:N", for messages.
std::string generator_forms();

/// Parses "KIND:N" (N decimal, 1 to 9 digits). Throws BadInput, one line naming the accepted
/// forms and the spec given, for an unknown kind or a malformed N; N >= 1 (>= 2 for fem2d).
/// A matrix of 2^31 - 1 rows or more (beyond a stored matrix's 32-bit column indices) is refused
/// here, the Poisson operators' by generate_csr only (Stencil applies them without a matrix).
GeneratorSpec parse_generator_spec(const std::string& spec);

/// The matrix of `spec` as sorted host CSR (file comment). Throws BadInput for 2^31 - 1 rows or
/// more.
CsrData generate_csr(const GeneratorSpec& spec);
/// generate_csr(parse_generator_spec(spec)).
CsrData generate_csr(const std::string& spec);
/// The same matrix as coordinate data, sorted by (row, col).
MatrixData generate_matrix_data(const std::string& spec);

}  // namespace portla
