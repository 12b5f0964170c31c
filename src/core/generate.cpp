#include "portla/matrix/generate.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <utility>
#include <vector>

#include "portla/error.hpp"
#include "portla/executor.hpp"
#include "portla/matrix/stencil.hpp"

namespace portla {
namespace {

constexpr std::pair<GeneratedKind, const char*> kKinds[] = {
    {GeneratedKind::poisson1d, "poisson1d"},   {GeneratedKind::poisson2d, "poisson2d"},
    {GeneratedKind::poisson3d, "poisson3d"},   {GeneratedKind::anisotropic3d, "anisotropic3d"},
    {GeneratedKind::contrast3d, "contrast3d"}, {GeneratedKind::fem2d, "fem2d"},
};

// The seeds of the generators' pseudo-random choices (fixed: the matrices are test problems).
constexpr std::uint64_t kContrastSeed = 0x636f6e7472617374ULL;
constexpr std::uint64_t kJitterSeed = 0x6a69747465723264ULL;
constexpr std::uint64_t kDiagonalSeed = 0x646961676f6e616cULL;

// SplitMix64's finaliser (Steele, Lea and Flood, OOPSLA 2014): a well-mixed 64-bit hash of
// `key` and `seed`, integer arithmetic only, so the same on every machine.
std::uint64_t mix(std::uint64_t key, std::uint64_t seed) {
    std::uint64_t z = key + seed + 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

// A number in [-1, 1) from the top 53 bits of a hash: exact in double.
double unit_interval(std::uint64_t h) { return double(h >> 11) * 0x1p-52 - 1.0; }

// Rows of a 7-point operator on an n^3 grid in lexicographic order (x fastest), each row's
// entries in column order. coupling(r, s, axis) >= 0 couples the neighbours r and s (the same
// for (s, r)), face(r, axis) >= 0 is the coupling of row r to the Dirichlet boundary across a
// face of the grid's boundary; the diagonal sums a row's couplings, axis by axis, in the same
// order in every row.
template <typename Coupling, typename Face>
CsrData seven_point(std::size_t points, Coupling&& coupling, Face&& face) {
    const auto n = static_cast<std::int64_t>(points);
    CsrData d;
    d.rows = d.cols = n * n * n;
    d.row_ptrs.reserve(static_cast<std::size_t>(d.rows) + 1);
    d.col_idxs.reserve(static_cast<std::size_t>(7 * d.rows));
    d.values.reserve(static_cast<std::size_t>(7 * d.rows));
    const std::int64_t steps[3] = {1, n, n * n};
    for (std::int64_t k = 0; k < n; ++k)
        for (std::int64_t j = 0; j < n; ++j)
            for (std::int64_t i = 0; i < n; ++i) {
                const std::int64_t r = (k * n + j) * n + i;
                const std::int64_t at[3] = {i, j, k};
                double lower[3], upper[3];
                double diagonal = 0;
                for (int a = 0; a < 3; ++a) {
                    lower[a] = at[a] > 0 ? coupling(r, r - steps[a], a) : face(r, a);
                    upper[a] = at[a] + 1 < n ? coupling(r, r + steps[a], a) : face(r, a);
                    diagonal += lower[a] + upper[a];
                }
                for (int a = 2; a >= 0; --a)
                    if (at[a] > 0) {
                        d.col_idxs.push_back(static_cast<std::int32_t>(r - steps[a]));
                        d.values.push_back(-lower[a]);
                    }
                d.col_idxs.push_back(static_cast<std::int32_t>(r));
                d.values.push_back(diagonal);
                for (int a = 0; a < 3; ++a)
                    if (at[a] + 1 < n) {
                        d.col_idxs.push_back(static_cast<std::int32_t>(r + steps[a]));
                        d.values.push_back(-upper[a]);
                    }
                d.row_ptrs.push_back(static_cast<std::int64_t>(d.values.size()));
            }
    return d;
}

CsrData anisotropic3d(std::size_t n) {
    constexpr double kWeights[3] = {1.0, 1.0, 0.001};  // x, y, z
    // A Dirichlet neighbour couples as an interior one: the diagonal is the same in every row.
    const auto weight = [&](std::int64_t, int axis) { return kWeights[axis]; };
    return seven_point(
        n, [&](std::int64_t r, std::int64_t, int axis) { return weight(r, axis); }, weight);
}

CsrData contrast3d(std::size_t points) {
    const auto n = static_cast<std::int64_t>(points);
    const std::int64_t c = std::min<std::int64_t>(8, std::max<std::int64_t>(1, n / 6));
    const std::int64_t cubes = (n + c - 1) / c;  // per dimension
    // k of every cell, from its cube's exponent.
    constexpr double kPowers[7] = {1e-3, 1e-2, 1e-1, 1.0, 1e1, 1e2, 1e3};
    std::vector<double> k(static_cast<std::size_t>(n * n * n));
    for (std::int64_t z = 0; z < n; ++z)
        for (std::int64_t y = 0; y < n; ++y)
            for (std::int64_t x = 0; x < n; ++x) {
                const auto cube = std::uint64_t(((z / c) * cubes + y / c) * cubes + x / c);
                k[std::size_t((z * n + y) * n + x)] = kPowers[mix(cube, kContrastSeed) % 7];
            }
    return seven_point(
        points,
        [&](std::int64_t r, std::int64_t s, int) {
            const double a = k[std::size_t(r)], b = k[std::size_t(s)];
            // Symmetric in (a, b) as computed: a_rs == a_sr exactly.
            return 2.0 * (a * b) / (a + b);
        },
        [&](std::int64_t r, int) { return 2.0 * k[std::size_t(r)]; });
}

CsrData fem2d(std::size_t squares) {
    const auto n = static_cast<std::int64_t>(squares);
    const double h = 1.0 / double(n);
    // The vertices, (n + 1)^2, interior ones moved by a point of the disc of radius 0.3 h
    // (rejection sampling from the square: no square root or trigonometry).
    const std::int64_t side = n + 1;
    std::vector<double> vx(static_cast<std::size_t>(side * side)), vy(vx.size());
    for (std::int64_t j = 0; j <= n; ++j)
        for (std::int64_t i = 0; i <= n; ++i) {
            const std::size_t v = std::size_t(j * side + i);
            double dx = 0, dy = 0;
            if (i > 0 && i < n && j > 0 && j < n) {
                for (std::uint64_t attempt = 0;; ++attempt) {
                    const std::uint64_t key = (std::uint64_t(v) << 8) + attempt;
                    dx = unit_interval(mix(2 * key, kJitterSeed));
                    dy = unit_interval(mix(2 * key + 1, kJitterSeed));
                    if (dx * dx + dy * dy <= 1.0) break;
                }
            }
            vx[v] = double(i) * h + 0.3 * h * dx;
            vy[v] = double(j) * h + 0.3 * h * dy;
        }
    // Unknown of a vertex, or -1 on the boundary.
    const std::int64_t m = n - 1;
    auto unknown = [&](std::int64_t i, std::int64_t j) -> std::int64_t {
        return i > 0 && i < n && j > 0 && j < n ? (j - 1) * m + (i - 1) : -1;
    };
    MatrixData coo;
    coo.rows = coo.cols = m * m;
    coo.row_idx.reserve(static_cast<std::size_t>(18 * n * n));
    coo.col_idx.reserve(coo.row_idx.capacity());
    coo.values.reserve(coo.row_idx.capacity());
    using Corner = std::array<std::int64_t, 2>;  // (i, j) of a vertex
    auto element = [&](const std::array<Corner, 3>& corner) {
        double x[3], y[3];
        std::int64_t u[3];
        for (int a = 0; a < 3; ++a) {
            const std::size_t v = std::size_t(corner[a][1] * side + corner[a][0]);
            x[a] = vx[v], y[a] = vy[v];
            u[a] = unknown(corner[a][0], corner[a][1]);
        }
        // grad phi_a = (b_a, c_a) / (2 area), so K_ab = (b_a b_b + c_a c_b) / (4 area).
        double b[3], c[3];
        for (int a = 0; a < 3; ++a) {
            const int p = (a + 1) % 3, q = (a + 2) % 3;
            b[a] = y[p] - y[q];
            c[a] = x[q] - x[p];
        }
        const double twice_area = (x[1] - x[0]) * (y[2] - y[0]) - (x[2] - x[0]) * (y[1] - y[0]);
        const double scale = 1.0 / (2.0 * std::abs(twice_area));
        for (int a = 0; a < 3; ++a)
            for (int e = 0; e < 3; ++e)
                if (u[a] >= 0 && u[e] >= 0)
                    coo.add(u[a], u[e], (b[a] * b[e] + c[a] * c[e]) * scale);
    };
    for (std::int64_t j = 0; j < n; ++j)
        for (std::int64_t i = 0; i < n; ++i) {
            const Corner p00{i, j}, p10{i + 1, j}, p01{i, j + 1}, p11{i + 1, j + 1};
            if (mix(std::uint64_t(j * n + i), kDiagonalSeed) & 1) {  // cut along p00 - p11
                element({p00, p10, p11});
                element({p00, p11, p01});
            } else {  // cut along p10 - p01
                element({p00, p10, p01});
                element({p10, p11, p01});
            }
        }
    // Sorted, duplicates summed in input order: a_ij and a_ji sum the same triangles' equal
    // terms in the same order, so they are equal.
    return CsrData::from(coo);
}

// A stored matrix's rows must fit its 32-bit column indices.
void require_stored_size(const GeneratorSpec& g) {
    if (g.rows() < double(std::numeric_limits<std::int32_t>::max())) return;
    char rows[32];
    std::snprintf(rows, sizeof rows, "%.4g", g.rows());
    throw BadInput("'" + g.to_string() + "' has " + rows +
                   " rows, beyond the 32-bit column indices of a stored matrix (2^31 - 1)");
}

}  // namespace

std::string to_string(GeneratedKind kind) {
    for (const auto& [k, name] : kKinds)
        if (k == kind) return name;
    return "unknown";
}

double GeneratorSpec::rows() const {
    const double N = double(n);
    switch (kind) {
        case GeneratedKind::poisson1d:
            return N;
        case GeneratedKind::poisson2d:
            return N * N;
        case GeneratedKind::fem2d:
            return (N - 1) * (N - 1);
        default:
            return N * N * N;
    }
}

double GeneratorSpec::max_entries() const {
    switch (kind) {
        case GeneratedKind::poisson1d:
            return 3 * rows();
        case GeneratedKind::poisson2d:
            return 5 * rows();
        case GeneratedKind::fem2d:
            return 9 * rows();
        default:
            return 7 * rows();
    }
}

bool GeneratorSpec::is_poisson() const {
    return kind == GeneratedKind::poisson1d || kind == GeneratedKind::poisson2d ||
           kind == GeneratedKind::poisson3d;
}

int GeneratorSpec::dim() const {
    return kind == GeneratedKind::poisson1d ? 1 : kind == GeneratedKind::poisson2d ? 2 : 3;
}

std::string GeneratorSpec::to_string() const {
    return portla::to_string(kind) + ":" + std::to_string(n);
}

std::string generator_forms() {
    return "poisson1d:N, poisson2d:N, poisson3d:N, anisotropic3d:N, contrast3d:N or fem2d:N";
}

GeneratorSpec parse_generator_spec(const std::string& spec) {
    // KIND:N with N of 1 to 9 digits, read without std::regex or streams: no locale involved
    const std::size_t colon = spec.find(':');
    const std::string kind = spec.substr(0, colon);
    const std::string digits = colon == std::string::npos ? "" : spec.substr(colon + 1);
    GeneratorSpec g;
    bool known =
        !digits.empty() && digits.size() <= 9 &&
        std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (known) {
        known = false;
        for (const auto& [k, name] : kKinds)
            if (kind == name) g.kind = k, known = true;
    }
    if (!known) throw BadInput("expected " + generator_forms() + ", got '" + spec + "'");
    g.n = 0;
    for (const char c : digits) g.n = 10 * g.n + static_cast<std::size_t>(c - '0');
    const std::size_t least = g.kind == GeneratedKind::fem2d ? 2 : 1;
    if (g.n < least) throw BadInput("N must be >= " + std::to_string(least) + " in '" + spec + "'");
    // The Poisson operators may be larger without a stored matrix (Stencil).
    if (!g.is_poisson()) require_stored_size(g);
    return g;
}

CsrData generate_csr(const GeneratorSpec& spec) {
    require_stored_size(spec);
    switch (spec.kind) {
        case GeneratedKind::anisotropic3d:
            return anisotropic3d(spec.n);
        case GeneratedKind::contrast3d:
            return contrast3d(spec.n);
        case GeneratedKind::fem2d:
            return fem2d(spec.n);
        default:
            return CsrData::from(
                Stencil<double>(Executor::reference(), spec.dim(), spec.n).assemble());
    }
}

CsrData generate_csr(const std::string& spec) { return generate_csr(parse_generator_spec(spec)); }

MatrixData generate_matrix_data(const std::string& spec) {
    return generate_csr(spec).to_matrix_data();
}

}  // namespace portla
