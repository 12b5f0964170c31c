// The generated test matrices (matrix/generate.hpp): their specs, sizes, structure and values.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "portla/error.hpp"
#include "portla/matrix/generate.hpp"
#include "portla/matrix/stencil.hpp"

namespace {

using portla::CsrData;
using portla::generate_csr;

// The entries of row r as (column, value) pairs.
std::vector<std::pair<std::int32_t, double>> row(const CsrData& d, std::int64_t r) {
    std::vector<std::pair<std::int32_t, double>> entries;
    for (auto k = d.row_ptrs[r]; k < d.row_ptrs[r + 1]; ++k)
        entries.emplace_back(d.col_idxs[k], d.values[k]);
    return entries;
}

double diagonal(const CsrData& d, std::int64_t r) {
    for (const auto& [c, v] : row(d, r))
        if (c == r) return v;
    return 0;
}

// Sorted rows, every diagonal entry stored and positive, exactly symmetric.
void check_structure(const CsrData& d) {
    ASSERT_EQ(d.rows, d.cols);
    ASSERT_EQ(d.row_ptrs.size(), static_cast<std::size_t>(d.rows) + 1);
    for (std::int64_t r = 0; r < d.rows; ++r) {
        const auto entries = row(d, r);
        for (std::size_t k = 1; k < entries.size(); ++k)
            ASSERT_LT(entries[k - 1].first, entries[k].first) << "row " << r;
        ASSERT_GT(diagonal(d, r), 0.0) << "row " << r;
    }
    EXPECT_TRUE(d.is_symmetric(0.0));
}

TEST(Generate, SpecsAndSizes) {
    const auto spec = portla::parse_generator_spec("contrast3d:12");
    EXPECT_EQ(spec.kind, portla::GeneratedKind::contrast3d);
    EXPECT_EQ(spec.n, 12u);
    EXPECT_EQ(spec.to_string(), "contrast3d:12");
    EXPECT_FALSE(spec.is_poisson());
    EXPECT_DOUBLE_EQ(spec.rows(), 1728);
    EXPECT_DOUBLE_EQ(portla::parse_generator_spec("fem2d:10").rows(), 81);
    EXPECT_TRUE(portla::parse_generator_spec("poisson2d:7").is_poisson());
    EXPECT_EQ(portla::parse_generator_spec("poisson2d:7").dim(), 2);
    for (const char* s : {"poisson1d:9", "poisson2d:5", "poisson3d:4", "anisotropic3d:5",
                          "contrast3d:7", "fem2d:6"}) {
        SCOPED_TRACE(s);
        const auto g = portla::parse_generator_spec(s);
        const CsrData d = generate_csr(g);
        EXPECT_EQ(double(d.rows), g.rows());
        EXPECT_LE(double(d.entries()), g.max_entries());
        check_structure(d);
    }
}

TEST(Generate, BadSpecsNameTheAcceptedForms) {
    for (const char* s :
         {"", "poisson4d:3", "fem3d:4", "contrast3d", "contrast3d:", "fem2d:-3", "fem2d:1",
          "anisotropic3d:0", "fem2d:4x", "FEM2D:4", "contrast3d:1234567890", "contrast3d:2000"}) {
        SCOPED_TRACE(s);
        try {
            (void)generate_csr(s);
            ADD_FAILURE() << "accepted";
        } catch (const portla::BadInput& e) {
            const std::string what = e.what();
            EXPECT_EQ(what.find('\n'), std::string::npos) << what;
            EXPECT_NE(what.find(s), std::string::npos) << what;
        }
    }
    try {
        (void)portla::parse_generator_spec("grid:4");
    } catch (const portla::BadInput& e) {
        EXPECT_NE(std::string(e.what()).find(portla::generator_forms()), std::string::npos);
    }
    // A Poisson operator past 32-bit indices is a valid spec (Stencil applies it) but no
    // stored matrix.
    EXPECT_NO_THROW((void)portla::parse_generator_spec("poisson3d:2000"));
    EXPECT_THROW((void)generate_csr("poisson3d:2000"), portla::BadInput);
}

TEST(Generate, PoissonIsTheStencilsMatrix) {
    const CsrData d = generate_csr("poisson3d:5");
    const CsrData s =
        CsrData::from(portla::Stencil<double>(portla::Executor::reference(), 3, 5).assemble());
    EXPECT_EQ(d.row_ptrs, s.row_ptrs);
    EXPECT_EQ(d.col_idxs, s.col_idxs);
    EXPECT_EQ(d.values, s.values);
}

TEST(Generate, AnisotropicValues) {
    const CsrData d = generate_csr("anisotropic3d:3");
    // The centre point (1, 1, 1) = row 13: z, y, x neighbours below, itself, x, y, z above.
    const std::vector<std::pair<std::int32_t, double>> centre{
        {4, -0.001}, {10, -1.0}, {12, -1.0}, {13, 4.002}, {14, -1.0}, {16, -1.0}, {22, -0.001}};
    const auto got = row(d, 13);
    ASSERT_EQ(got.size(), centre.size());
    for (std::size_t k = 0; k < got.size(); ++k) {
        EXPECT_EQ(got[k].first, centre[k].first);
        EXPECT_NEAR(got[k].second, centre[k].second, 1e-15);
    }
    // The Dirichlet neighbours count on the diagonal: the same in every row, bit for bit.
    for (std::int64_t r = 0; r < d.rows; ++r) EXPECT_EQ(diagonal(d, r), diagonal(d, 13));
    EXPECT_EQ(d.entries(), 7u * 27 - 6 * 9);
}

TEST(Generate, ContrastIsAnMMatrixWithJumpingCoefficients) {
    const CsrData d = generate_csr("contrast3d:24");  // cubes of 4^3 cells, 6^3 of them
    check_structure(d);
    std::set<double> diagonals;
    double smallest = 1e300, largest = 0;
    for (std::int64_t r = 0; r < d.rows; ++r) {
        double off = 0;
        for (const auto& [c, v] : row(d, r)) {
            if (c == r) continue;
            ASSERT_LT(v, 0.0) << "row " << r;  // M-matrix: non-positive off the diagonal
            off -= v;
            smallest = std::min(smallest, -v);
            largest = std::max(largest, -v);
        }
        // Diagonally dominant (strictly at the boundary, by the Dirichlet faces).
        ASSERT_GE(diagonal(d, r), off * (1 - 1e-14)) << "row " << r;
        diagonals.insert(diagonal(d, r));
    }
    // Harmonic means of 10^-3 ... 10^3: within [1e-3, 2e3), spanning 6 orders of magnitude.
    EXPECT_GE(smallest, 1e-3 * (1 - 1e-12));
    EXPECT_LT(largest, 2e3);
    EXPECT_GE(largest / smallest, 1e5);
    // An interior cell inside a cube couples to its 6 neighbours by the cube's k: 6 k.
    const std::int64_t n = 24, inside = (1 * n + 1) * n + 1;  // (1, 1, 1), cube (0, 0, 0)
    const double k = -row(d, inside)[0].second;
    EXPECT_DOUBLE_EQ(diagonal(d, inside), 6 * k);
    bool power_of_ten = false;
    for (int e = -3; e <= 3; ++e) power_of_ten |= std::abs(k / std::pow(10.0, e) - 1) < 1e-12;
    EXPECT_TRUE(power_of_ten) << k;
}

TEST(Generate, FemStiffness) {
    const CsrData d = generate_csr("fem2d:16");
    check_structure(d);
    ASSERT_EQ(d.rows, 15 * 15);
    // An interior vertex none of whose neighbours is on the boundary: the row sums to zero
    // (constants are in the kernel of the stiffness matrix), to rounding.
    const std::int64_t m = 15;
    for (std::int64_t j = 2; j < m - 2; ++j)
        for (std::int64_t i = 2; i < m - 2; ++i) {
            double sum = 0, scale = 0;
            for (const auto& [c, v] : row(d, j * m + i)) sum += v, scale += std::abs(v);
            ASSERT_LE(std::abs(sum), 1e-13 * scale) << "row " << j * m + i;
        }
    // Each row couples its 4 grid neighbours and, for each square cut through it, the opposite
    // corner: between 5 and 9 entries. A diagonal edge between two unknowns shows in both rows.
    std::size_t diagonal_couplings = 0;
    for (std::int64_t r = 0; r < d.rows; ++r) {
        const std::size_t k = row(d, r).size();
        ASSERT_LE(k, 9u);
        const std::int64_t i = r % m, j = r / m;
        if (i > 0 && i < m - 1 && j > 0 && j < m - 1) {
            ASSERT_GE(k, 5u);
            diagonal_couplings += k - 5;
        }
    }
    EXPECT_GT(diagonal_couplings, 0u);
    // Deterministic: the same spec, the same matrix bit for bit.
    const CsrData again = generate_csr("fem2d:16");
    EXPECT_EQ(again.col_idxs, d.col_idxs);
    EXPECT_EQ(again.values, d.values);
}

}  // namespace
