// Host-side batch data: format names, consistency checks, the directory reader, the 3-point
// stencil generator and replication.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <random>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "portla/batch/matrix.hpp"
#include "portla/error.hpp"
#include "portla/io/matrix_market.hpp"

namespace portla::batch {

namespace {

// a * b, or BadInput naming `where` when it does not fit in size_t.
std::size_t checked_product(std::size_t a, std::size_t b, const std::string& where) {
    if (a != 0 && b > std::numeric_limits<std::size_t>::max() / a)
        throw BadInput(where + ": size " + std::to_string(a) + " x " + std::to_string(b) +
                       " overflows");
    return a * b;
}

void expect_size(const std::string& where, const char* what, std::size_t got, std::size_t expected,
                 const char* expected_what) {
    if (got != expected)
        throw BadInput(where + ": " + what + " has " + std::to_string(got) + " entries, expected " +
                       expected_what + " = " + std::to_string(expected));
}

}  // namespace

void BatchData::validate(const std::string& where) const {
    if (n == 0) throw BadInput(where + ": systems of size 0 (n must be >= 1)");
    if (num_systems > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
        throw BadInput(where + ": " + std::to_string(num_systems) +
                       " systems is more than a batch holds (2^31 - 1)");
    expect_size(where, "row_ptrs", row_ptrs.size(), n + 1, "n + 1");
    const std::size_t max_index =
        static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max());
    if (n > max_index || nnz() > max_index)
        throw BadInput(where + ": n = " + std::to_string(n) + ", nnz = " + std::to_string(nnz()) +
                       " do not fit 32-bit indices");
    if (row_ptrs[0] != 0)
        throw BadInput(where + ": row_ptrs[0] is " + std::to_string(row_ptrs[0]) + ", expected 0");
    for (std::size_t i = 0; i < n; ++i) {
        const std::int32_t begin = row_ptrs[i], end = row_ptrs[i + 1];
        if (end < begin || static_cast<std::size_t>(end) > nnz())
            throw BadInput(where + ": row_ptrs not monotone within [0, nnz] at row " +
                           std::to_string(i) + " (" + std::to_string(begin) + " -> " +
                           std::to_string(end) + ", nnz " + std::to_string(nnz()) + ")");
        for (std::int32_t k = begin; k < end; ++k) {
            const std::int32_t c = col_idxs[static_cast<std::size_t>(k)];
            if (c < 0 || static_cast<std::size_t>(c) >= n)
                throw BadInput(where + ": column index " + std::to_string(c) + " in row " +
                               std::to_string(i) + " is outside [0, " + std::to_string(n) + ")");
            if (k > begin && c <= col_idxs[static_cast<std::size_t>(k) - 1])
                throw BadInput(where + ": column indices of row " + std::to_string(i) +
                               " are not strictly ascending");
        }
    }
    if (static_cast<std::size_t>(row_ptrs[n]) != nnz())
        throw BadInput(where + ": row_ptrs[n] is " + std::to_string(row_ptrs[n]) +
                       ", expected nnz = " + std::to_string(nnz()));
    expect_size(where, "values", values.size(), checked_product(num_systems, nnz(), where),
                "num_systems * nnz");
    if (!rhs.empty())
        expect_size(where, "rhs", rhs.size(), checked_product(num_systems, n, where),
                    "num_systems * n");
    if (!names.empty()) expect_size(where, "names", names.size(), num_systems, "num_systems");
}

namespace {

// Numbered sub-directories of `dir` ("0", "1", ..., any run of decimal digits), in numeric order.
std::vector<std::filesystem::path> numbered_subdirectories(const std::string& dir) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::exists(dir, ec)) throw BadInput(dir, 0, "no such directory");
    if (!fs::is_directory(dir, ec)) throw BadInput(dir, 0, "not a directory");
    std::vector<std::pair<std::string, fs::path>> found;  // (number without leading zeros, path)
    fs::directory_iterator it(dir, ec), end;
    if (ec) throw BadInput(dir, 0, "cannot read directory: " + ec.message());
    for (; it != end; it.increment(ec)) {
        if (ec) throw BadInput(dir, 0, "cannot read directory: " + ec.message());
        const std::string name = it->path().filename().string();
        if (name.empty() ||
            !std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; }))
            continue;
        // A numbered entry is a system: one that cannot be followed (a symbolic link loop, a
        // dangling link, permission denied) or is no directory is an error, never skipped.
        const bool is_dir = it->is_directory(ec);
        if (ec)
            throw BadInput(it->path().string(), 0, "cannot read system directory: " + ec.message());
        if (!is_dir)
            throw BadInput(it->path().string(), 0,
                           "numbered entry is not a directory (expected a system directory "
                           "holding A.mtx and b.mtx)");
        const std::size_t first = std::min(name.find_first_not_of('0'), name.size() - 1);
        found.emplace_back(name.substr(first), it->path());
    }
    // Numeric order of arbitrarily long numbers: shorter first, then by digits; ties ("7", "007")
    // by name, so the order never depends on the directory listing.
    std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
        if (a.first.size() != b.first.size()) return a.first.size() < b.first.size();
        if (a.first != b.first) return a.first < b.first;
        return a.second < b.second;
    });
    std::vector<fs::path> paths;
    paths.reserve(found.size());
    for (auto& f : found) paths.push_back(std::move(f.second));
    return paths;
}

std::string shape(std::int64_t rows, std::int64_t cols) {
    return std::to_string(rows) + " x " + std::to_string(cols);
}

// The first difference between a system's sorted pattern and system 0's, for the message.
std::string pattern_difference(const BatchData& batch, const MatrixData& a) {
    const std::size_t nnz0 = batch.nnz();
    if (a.entries() != nnz0)
        return std::to_string(a.entries()) + " entries, system 0 has " + std::to_string(nnz0);
    std::size_t row = 0;
    for (std::size_t k = 0; k < nnz0; ++k) {
        while (static_cast<std::size_t>(batch.row_ptrs[row + 1]) <= k) ++row;
        if (static_cast<std::size_t>(a.row_idx[k]) != row || a.col_idx[k] != batch.col_idxs[k])
            return "entry (" + std::to_string(a.row_idx[k] + 1) + ", " +
                   std::to_string(a.col_idx[k] + 1) + ") where system 0 has (" +
                   std::to_string(row + 1) + ", " + std::to_string(batch.col_idxs[k] + 1) + ")";
    }
    return {};
}

}  // namespace

std::vector<std::string> list_directory(const std::string& dir) {
    const auto systems = numbered_subdirectories(dir);
    if (systems.empty())
        throw BadInput(dir, 0,
                       "no numbered system directories (expected " + dir + "/0/A.mtx and " + dir +
                           "/0/b.mtx)");
    std::vector<std::string> names;
    names.reserve(systems.size());
    for (const auto& path : systems) names.push_back(path.string());
    return names;
}

namespace {

// System s's A.mtx, square and not empty, its entries sorted.
MatrixData read_system_matrix(const std::string& system, const io::ReadOptions& options) {
    const std::string a_path = system + "/A.mtx";
    MatrixData a = io::read_matrix_market(a_path, options);
    if (a.rows != a.cols)
        throw BadInput(a_path, 0, "matrix is " + shape(a.rows, a.cols) + ", expected square");
    if (a.rows == 0) throw BadInput(a_path, 0, "matrix is empty (0 x 0)");
    a.sort_and_sum_duplicates();
    return a;
}

// The pattern of system 0's matrix `a` (read from `a_path`) as the batch's pattern.
void set_pattern(BatchData& batch, const MatrixData& a, const std::string& a_path) {
    if (static_cast<std::uint64_t>(a.rows) >
            static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max()) ||
        a.entries() > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
        throw BadInput(a_path, 0, "too large for 32-bit indices");
    batch.n = static_cast<std::size_t>(a.rows);
    batch.row_ptrs.assign(batch.n + 1, 0);
    batch.col_idxs.resize(a.entries());
    for (std::size_t k = 0; k < a.entries(); ++k) {
        ++batch.row_ptrs[static_cast<std::size_t>(a.row_idx[k]) + 1];
        batch.col_idxs[k] = static_cast<std::int32_t>(a.col_idx[k]);
    }
    for (std::size_t i = 0; i < batch.n; ++i) batch.row_ptrs[i + 1] += batch.row_ptrs[i];
}

}  // namespace

namespace {

// Systems [first, first + count) of the listed `systems` of `dir`.
BatchData read_systems(const std::string& dir, const std::vector<std::string>& systems,
                       std::size_t first, std::size_t count) {
    if (first > systems.size() || count > systems.size() - first)
        throw BadInput(dir, 0,
                       "systems " + std::to_string(first) + " ... " +
                           std::to_string(first + count) + " asked for, the directory has " +
                           std::to_string(systems.size()));
    io::ReadOptions options;
    options.require_finite = false;  // a NaN system is flagged by the solver, not rejected here
    BatchData batch;
    batch.num_systems = count;
    batch.names.reserve(count);
    if (first > 0 || count == 0)  // the pattern every system must share
        set_pattern(batch, read_system_matrix(systems[0], options), systems[0] + "/A.mtx");
    for (std::size_t s = first; s < first + count; ++s) {
        const std::string a_path = systems[s] + "/A.mtx";
        const std::string b_path = systems[s] + "/b.mtx";
        const MatrixData a = read_system_matrix(systems[s], options);
        if (s == 0) {
            set_pattern(batch, a, a_path);
        } else {
            if (static_cast<std::size_t>(a.rows) != batch.n)
                throw BadInput(a_path, 0,
                               "size " + shape(a.rows, a.cols) + " differs from system 0 (" +
                                   shape(static_cast<std::int64_t>(batch.n),
                                         static_cast<std::int64_t>(batch.n)) +
                                   ")");
            const std::string diff = pattern_difference(batch, a);
            if (!diff.empty())
                throw BadInput(a_path, 0, "sparsity pattern differs from system 0 (" + diff + ")");
        }
        if (s == first) {
            batch.values.reserve(checked_product(count, a.entries(), dir));
            batch.rhs.reserve(checked_product(count, batch.n, dir));
        }
        batch.values.insert(batch.values.end(), a.values.begin(), a.values.end());

        const MatrixData b = io::read_matrix_market(b_path, options);
        if (b.cols != 1 || static_cast<std::size_t>(b.rows) != batch.n)
            throw BadInput(b_path, 0,
                           "right-hand side is " + shape(b.rows, b.cols) + ", expected " +
                               shape(static_cast<std::int64_t>(batch.n), 1));
        const std::size_t offset = batch.rhs.size();
        batch.rhs.resize(offset + batch.n, 0.0);
        for (std::size_t k = 0; k < b.entries(); ++k)
            batch.rhs[offset + static_cast<std::size_t>(b.row_idx[k])] += b.values[k];
        batch.names.push_back(systems[s]);
    }
    batch.validate(dir);
    return batch;
}

}  // namespace

BatchData read_directory(const std::string& dir, std::size_t first, std::size_t count) {
    return read_systems(dir, list_directory(dir), first, count);
}

BatchData read_directory(const std::string& dir) {
    const std::vector<std::string> systems = list_directory(dir);
    return read_systems(dir, systems, 0, systems.size());
}

namespace {

// Uniform in (0, 1]: the top 53 bits of one 64-bit draw, shifted off zero (log(0) is avoided).
double uniform_open0(std::mt19937_64& gen) {
    return (static_cast<double>(gen() >> 11) + 1.0) * 0x1.0p-53;
}

}  // namespace

BatchData generate_stencil3pt(std::size_t n, std::size_t num_systems, std::uint64_t seed,
                              std::size_t first) {
    const std::string where = "generate_stencil3pt(" + std::to_string(n) + ", " +
                              std::to_string(num_systems) +
                              (first > 0 ? ", first " + std::to_string(first) : "") + ")";
    if (n == 0) throw BadInput(where + ": n must be >= 1");
    if (n > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max() / 3))
        throw BadInput(where + ": n too large for 32-bit indices");
    BatchData batch;
    batch.num_systems = num_systems;
    batch.n = n;
    batch.row_ptrs.resize(n + 1);
    batch.row_ptrs[0] = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (i > 0) batch.col_idxs.push_back(static_cast<std::int32_t>(i - 1));
        batch.col_idxs.push_back(static_cast<std::int32_t>(i));
        if (i + 1 < n) batch.col_idxs.push_back(static_cast<std::int32_t>(i + 1));
        batch.row_ptrs[i + 1] = static_cast<std::int32_t>(batch.col_idxs.size());
    }
    const std::size_t nnz = batch.col_idxs.size();
    batch.values.resize(checked_product(num_systems, nnz, where));
    batch.rhs.resize(checked_product(num_systems, n, where));

    // One stream for the whole batch, consumed system after system: per system n normals
    // (Box-Muller on pairs of draws; for odd n the last pair's second value is dropped), then
    // one uniform right-hand side. So a system does not depend on how many follow it. Box-Muller
    // written out rather than std::normal_distribution, whose algorithm differs between standard
    // libraries; mt19937_64 output is fixed by the standard.
    constexpr double mean = 0.5, deviation = 0.1, h_min = 0.05, h_max = 1.0;
    constexpr double two_pi = 6.283185307179586476925286766559;
    std::mt19937_64 gen(seed);
    // Each system takes n rounded up to even draws for its h_i and one for its right-hand side.
    gen.discard(checked_product(first, n + n % 2 + 1, where));
    std::vector<double> h(n + 1);
    for (std::size_t s = 0; s < num_systems; ++s) {
        for (std::size_t i = 0; i < n; i += 2) {
            const double radius = std::sqrt(-2.0 * std::log(uniform_open0(gen)));
            const double angle = two_pi * uniform_open0(gen);
            h[i] = mean + deviation * radius * std::cos(angle);
            h[i + 1] = mean + deviation * radius * std::sin(angle);
        }
        double* v = batch.values.data() + s * nnz;
        for (std::size_t i = 0, k = 0; i < n; ++i) {
            const double hi = std::clamp(h[i], h_min, h_max);
            if (i > 0) v[k++] = -1.0;
            v[k++] = 2.0 / hi;
            if (i + 1 < n) v[k++] = -1.0;
        }
        const double b = 0.5 + (static_cast<double>(gen() >> 11) * 0x1.0p-53);  // [0.5, 1.5)
        std::fill_n(batch.rhs.begin() + static_cast<std::ptrdiff_t>(s * n), n, b);
    }
    return batch;
}

BatchData replicate(const BatchData& data, std::size_t num_systems, std::size_t first) {
    data.validate("replicate");
    if (num_systems > 0 && data.num_systems == 0)
        throw BadInput("replicate: the batch to repeat has no systems");
    const std::string where = "replicate(" + std::to_string(num_systems) + ")";
    BatchData out;
    out.num_systems = num_systems;
    out.n = data.n;
    out.row_ptrs = data.row_ptrs;
    out.col_idxs = data.col_idxs;
    const std::size_t nnz = data.nnz();
    out.values.resize(checked_product(num_systems, nnz, where));
    if (!data.rhs.empty()) out.rhs.resize(checked_product(num_systems, data.n, where));
    if (!data.names.empty()) out.names.resize(num_systems);
    for (std::size_t s = 0; s < num_systems; ++s) {
        const std::size_t src =
            (first % data.num_systems + s % data.num_systems) % data.num_systems;
        std::copy_n(data.values.begin() + static_cast<std::ptrdiff_t>(src * nnz), nnz,
                    out.values.begin() + static_cast<std::ptrdiff_t>(s * nnz));
        if (!data.rhs.empty())
            std::copy_n(data.rhs.begin() + static_cast<std::ptrdiff_t>(src * data.n), data.n,
                        out.rhs.begin() + static_cast<std::ptrdiff_t>(s * data.n));
        if (!data.names.empty()) out.names[s] = data.names[src];
    }
    return out;
}

}  // namespace portla::batch
