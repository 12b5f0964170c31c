// portla portability: the performance-portability metric PP of Pennycook et al. from the
// cg-dense (dense CG) or cg (sparse CG: 3-D Poisson) results of one or more `portla bench
// --json` runs.
//
// A point is one CG iteration at size N on one backend (--kernel: cg-dense, N x N dense; cg,
// N unknowns of the 7-point 3-D Poisson problem, which portla's backends apply matrix-free and
// cuSPARSE as CSR: application efficiency compares the time to solve the same problem). Its
// platform is the GPU (cuda, cublas, cusparse) or the CPU with its thread count (reference, omp,
// openblas); an opencl point's is its device's (the file's `opencl_device`: a GPU by its name, a
// CPU device such as PoCL's the host's CPU). Programs: "sequential" (reference), "portla omp",
// "portla cuda", "portla opencl" (one source on every device), "vendor BLAS" (openblas on CPUs,
// cublas on GPUs) and "portla" (per platform, the fastest of its omp, cuda and opencl backends).
//
// Performance = FLOPs / time with FLOPs per dense CG iteration = 51/25 N^2 + 224/25 N + 1 (the
// count of the thesis this reproduces, Tables 7.3 and 7.4); per sparse CG iteration 2 nnz + 10 N
// (SpMV, two dots, three vector updates) with nnz = 7 N - 6 m^2 for N = m^3. Application efficiency
// = performance / the best performance of any program on the platform; architectural efficiency =
// performance / the platform's peak FLOP rate. PP over the set H of all platforms in the inputs
// is the harmonic mean |H| / sum 1/e_i of a program's efficiencies, and 0 where the program does
// not run on some platform of H (S. J. Pennycook, J. D. Sewall, V. W. Lee, "Implications of a
// metric for performance portability", Future Generation Computer Systems 92, 2019).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/bench.hpp"
#include "input.hpp"
#include "output.hpp"
#include "portla/error.hpp"
#include "subcommands.hpp"

namespace portla::cli {
namespace {

using nlohmann::json;

struct PortabilityOptions {
    std::vector<std::string> files;
    std::string kernel = "cg-dense";
    std::size_t n = 0;  ///< 0: the kernel's default (4096 for cg-dense, 128^3 for cg)
    std::vector<std::string> peaks;
    JsonOutput json;
};

const char* const program_names[] = {"sequential",    "portla omp",  "portla cuda",
                                     "portla opencl", "vendor BLAS", "portla"};

/// The program a backend's points belong to ("" for a backend that is none of them).
std::string program_of(const std::string& backend) {
    if (backend == "reference") return "sequential";
    if (backend == "omp") return "portla omp";
    if (backend == "cuda") return "portla cuda";
    if (backend == "opencl") return "portla opencl";
    if (backend == "openblas" || backend == "cublas" || backend == "cusparse") return "vendor BLAS";
    return "";
}

/// Whether a backend (portla's or a vendor library's) runs on the GPU.
bool gpu_backend(const std::string& b) {
    if (b == to_string(Backend::cuda)) return true;
    for (const auto& v : bench::vendor_libraries())
        if (b == v.name) return v.backend == Backend::cuda;
    return false;
}

/// FLOPs of one dense CG iteration at size N (thesis, Tables 7.3 and 7.4).
double cg_dense_flops(double n) { return 51.0 / 25.0 * n * n + 224.0 / 25.0 * n + 1.0; }
/// FLOPs of one sparse CG iteration on the 7-point 3-D Poisson problem of N = m^3 unknowns.
double cg_sparse_flops(double n) {
    const double m = std::round(std::cbrt(n));
    return 2.0 * (7.0 * n - 6.0 * m * m) + 10.0 * n;
}
double flops_of(const std::string& kernel, double n) {
    return kernel == "cg" ? cg_sparse_flops(n) : cg_dense_flops(n);
}

/// The best (fastest) measurement of one program on one platform.
struct Entry {
    double time_s = 0;
    std::string backend;
    std::string file;
    std::set<std::string> files;  ///< every file that gave a point for this (program, platform)
};

struct Peak {
    std::optional<double> gflops;
    std::string source;  ///< where the number comes from
};

std::string lower(std::string s) {
    for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// Peak FLOP rates of GPUs from the vendor's datasheets (GFLOP/s, no tensor cores): NVIDIA H100
// Tensor Core GPU datasheet (H100 SXM: FP64 34 TFLOPS, FP64 Tensor Core 67, FP32 67; H100 PCIe:
// 26, 51, 51) and NVIDIA H200 datasheet (H200 SXM: FP64 34, FP32 67; H200 NVL: 30, 60). The
// first entry whose key is a substring of the platform name wins. CPUs are not listed: cores x
// clock x FLOPs per cycle cannot be read reliably from a result file (turbo, AVX-512 clocks).
struct TablePeak {
    const char* key;
    double fp64, fp32;
    const char* what;
};
const TablePeak peak_table[] = {
    {"H100 80GB HBM3", 34000, 67000, "H100 SXM datasheet"},
    {"H100 PCIe", 26000, 51000, "H100 PCIe datasheet"},
    {"H200 NVL", 30000, 60000, "H200 NVL datasheet"},
    {"H200", 34000, 67000, "H200 SXM datasheet"},
};

/// "NAME=GFLOPS" from --peak.
std::pair<std::string, double> parse_peak(const std::string& s) {
    const auto eq = s.rfind('=');
    const auto bad = [&] {
        return BadInput(
            "portability: bad --peak '" + s +
            "' (expected NAME=GFLOPS with NAME part of a platform name, e.g. --peak H100=34000)");
    };
    if (eq == std::string::npos || eq == 0 || eq + 1 == s.size()) throw bad();
    const std::string value = s.substr(eq + 1);
    char* end = nullptr;
    const double v = std::strtod(value.c_str(), &end);
    if (end != value.c_str() + value.size() || !std::isfinite(v) || !(v > 0)) throw bad();
    return {s.substr(0, eq), v};
}

Peak peak_of(const std::string& platform, const std::vector<std::pair<std::string, double>>& flags,
             bool fp32) {
    // The longest matching --peak name is the most specific one.
    const std::pair<std::string, double>* best = nullptr;
    for (const auto& f : flags)
        if (lower(platform).find(lower(f.first)) != std::string::npos &&
            (!best || f.first.size() > best->first.size()))
            best = &f;
    if (best) return {best->second, "--peak " + best->first};
    for (const auto& t : peak_table)
        if (platform.find(t.key) != std::string::npos)
            return {fp32 ? t.fp32 : t.fp64,
                    std::string(t.what) + (fp32 ? ", FP32" : ", FP64 vector")};
    return {std::nullopt, ""};
}

// ---- reading result files ------------------------------------------------------------------

json read_json(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw BadInput(path, 0, "cannot open file");
    try {
        return json::parse(in);
    } catch (const json::exception& e) {
        std::string what = e.what();
        // "[json.exception.parse_error.101] parse error at line 1, ...": keep from "parse error".
        const auto at = what.find("] ");
        if (at != std::string::npos) what = what.substr(at + 2);
        throw BadInput(path, 0, "not a JSON file of portla bench (" + what + ")");
    }
}

std::string get_string(const json& j, const char* key, const std::string& file,
                       const std::string& where) {
    if (!j.contains(key) || !j[key].is_string())
        throw BadInput(
            file, 0,
            where + "'" + key + "' is missing or not a string (not a portla bench --json file?)");
    return j[key].get<std::string>();
}

double get_number(const json& j, const char* key, const std::string& file,
                  const std::string& where) {
    if (!j.contains(key) || !j[key].is_number())
        throw BadInput(
            file, 0,
            where + "'" + key + "' is missing or not a number (not a portla bench --json file?)");
    return j[key].get<double>();
}

struct Data {
    std::vector<std::string> platforms;                           ///< in order of first appearance
    std::map<std::string, std::map<std::string, Entry>> entries;  ///< program -> platform -> best
    std::string precision;
    std::set<std::size_t> sizes_seen;  ///< the kernel's sizes in the inputs (for the error message)
    std::vector<std::string> notes;    ///< printed on stderr at the end, when nothing failed
};

void read_file(const std::string& path, const std::string& kernel, std::size_t n, Data& d) {
    const json j = read_json(path);
    if (!j.is_object())
        throw BadInput(path, 0, "not a JSON object (not a portla bench --json file?)");
    if (!j.contains("points") || !j["points"].is_array())
        throw BadInput(path, 0,
                       "'points' is missing or not a list (not a portla bench --json file?)");
    const std::string file_precision = j.contains("precision") && j["precision"].is_string()
                                           ? j["precision"].get<std::string>()
                                           : "double";
    std::optional<std::string> cpu_platform, gpu_platform;  // looked up when first needed
    const auto& points = j["points"];
    for (std::size_t i = 0; i < points.size(); ++i) {
        const json& p = points[i];
        const std::string where = "points[" + std::to_string(i) + "]: ";
        if (!p.is_object()) throw BadInput(path, 0, where + "not an object");
        if (get_string(p, "kernel", path, where) != kernel) continue;
        const double pn = get_number(p, "n", path, where);
        if (!(pn >= 1) || pn != std::floor(pn))
            throw BadInput(path, 0, where + "'n' is not a positive integer");
        d.sizes_seen.insert(static_cast<std::size_t>(pn));
        if (static_cast<std::size_t>(pn) != n) continue;
        const std::string backend = get_string(p, "backend", path, where);
        const std::string program = program_of(backend);
        if (program.empty()) continue;
        if (!p.contains("correct") || !p["correct"].is_boolean())
            throw BadInput(path, 0, where + "'correct' is missing or not true/false");
        if (!p["correct"].get<bool>()) {
            d.notes.push_back(path + ": " + kernel + " on " + backend + " at N = " +
                              std::to_string(n) + " gave a wrong result; point ignored");
            continue;
        }
        const double t = get_number(p, "time_s", path, where);
        if (!std::isfinite(t) || !(t > 0))
            throw BadInput(path, 0, where + "'time_s' is not a positive number");
        const std::string precision = p.contains("precision") && p["precision"].is_string()
                                          ? p["precision"].get<std::string>()
                                          : file_precision;
        if (precision != "double" && precision != "float")
            throw BadInput(path, 0,
                           where + "precision '" + precision + "' is neither double nor float");
        if (d.precision.empty()) d.precision = precision;
        if (precision != d.precision)
            throw BadInput(path, 0,
                           "its " + precision + " results cannot be compared with the " +
                               d.precision +
                               " results of the other files (give files of one precision)");

        std::string platform;
        if (backend == "opencl" &&
            !(j.contains("opencl_device_is_cpu") && j["opencl_device_is_cpu"].is_boolean()))
            throw BadInput(path, 0,
                           "opencl results but no 'opencl_device_is_cpu' (results of an older "
                           "portla bench: run it again)");
        if (backend == "opencl" && !j["opencl_device_is_cpu"].get<bool>()) {
            platform = get_string(j, "opencl_device", path, "");  // a GPU: by its name
            if (platform.empty()) throw BadInput(path, 0, "opencl results but no 'opencl_device'");
        } else if (gpu_backend(backend)) {
            if (!gpu_platform) {
                gpu_platform = get_string(j, "gpu", path, "");
                if (gpu_platform->empty() && j.contains("device") && j["device"].is_string())
                    gpu_platform = j["device"].get<std::string>();
                if (gpu_platform->empty())
                    throw BadInput(path, 0, "GPU results but no GPU name in 'gpu'");
            }
            platform = *gpu_platform;
        } else {
            if (!cpu_platform) {
                const std::string cpu = get_string(j, "cpu", path, "");
                if (!j.contains("cpu_threads") ||
                    !(j["cpu_threads"].is_number_integer() || j["cpu_threads"].is_string()))
                    throw BadInput(path, 0, "'cpu_threads' is missing or not an integer");
                const std::string threads = j["cpu_threads"].is_string()
                                                ? j["cpu_threads"].get<std::string>()
                                                : std::to_string(j["cpu_threads"].get<long long>());
                cpu_platform = cpu + " (" + threads + " threads)";
            }
            platform = *cpu_platform;
        }
        if (std::find(d.platforms.begin(), d.platforms.end(), platform) == d.platforms.end())
            d.platforms.push_back(platform);
        auto [it, fresh] = d.entries[program].try_emplace(platform);
        Entry& e = it->second;
        e.files.insert(path);
        if (fresh ||
            t < e.time_s) {  // several points of one file (launch configurations): the fastest
            e.time_s = t;
            e.backend = backend;
            e.file = path;
        }
    }
}

// ---- the metric ----------------------------------------------------------------------------

struct ProgramResult {
    std::string name;
    std::map<std::string, double> gflops;               ///< platforms where it runs
    std::map<std::string, std::string> backend;         ///< platforms where it runs
    std::map<std::string, double> app;                  ///< application efficiency
    std::map<std::string, std::optional<double>> arch;  ///< architectural efficiency
    double pp_app = 0;
    std::optional<double> pp_arch;
};

/// Harmonic mean over all of `platforms`; 0 when one is missing, nullopt when one is unknown.
template <typename Map>
std::optional<double> pp(const std::vector<std::string>& platforms, const Map& eff) {
    double sum = 0;
    bool unknown = false;
    for (const auto& p : platforms) {
        const auto it = eff.find(p);
        if (it == eff.end()) return 0.0;
        const std::optional<double> e = it->second;
        if (!e)
            unknown = true;
        else if (!(*e > 0))
            return 0.0;
        else
            sum += 1.0 / *e;
    }
    if (unknown) return std::nullopt;
    return double(platforms.size()) / sum;
}

std::string percent(std::optional<double> v) {
    if (!v) return "?";
    std::ostringstream s;
    s << std::fixed << std::setprecision(1) << 100.0 * *v;
    return s.str();
}

std::string gflops_text(double v) {
    std::ostringstream s;
    s << std::fixed << std::setprecision(v >= 9.9995 ? 1 : 3) << v;
    return s.str();
}

int run(const PortabilityOptions& o) {
    if (o.files.empty()) throw BadInput("portability: no result files given");
    const std::string& kernel = o.kernel;
    const std::size_t n = o.n ? o.n : kernel == "cg" ? std::size_t(128 * 128 * 128) : 4096;
    std::vector<std::pair<std::string, double>> peak_flags;
    for (const auto& s : o.peaks) peak_flags.push_back(parse_peak(s));

    Data d;
    for (const auto& f : o.files) read_file(f, kernel, n, d);
    if (d.platforms.empty()) {
        std::string sizes;
        for (auto s : d.sizes_seen) sizes += (sizes.empty() ? "" : ", ") + std::to_string(s);
        throw BadInput(
            "portability: no correct " + kernel + " results at N = " + std::to_string(n) + " in " +
            (o.files.size() == 1 ? "'" + o.files[0] + "'"
                                 : "any of the " + std::to_string(o.files.size()) + " files") +
            (sizes.empty() ? " (no " + kernel + " results at all; run portla bench " + kernel +
                                 " --json FILE)"
                           : " (" + kernel + " sizes found: " + sizes + "; choose one with --n)"));
    }
    for (const auto& [program, by_platform] : d.entries)
        for (const auto& [platform, e] : by_platform)
            if (e.files.size() > 1)
                d.notes.push_back(std::to_string(e.files.size()) + " files give " + program +
                                  " on " + platform + "; keeping the fastest, from " + e.file);

    // "portla": the fastest of its omp, cuda and opencl backends on each platform.
    for (const char* backend_program : {"portla omp", "portla cuda", "portla opencl"}) {
        const auto it = d.entries.find(backend_program);
        if (it == d.entries.end()) continue;
        for (const auto& [platform, e] : it->second) {
            auto [jt, fresh] = d.entries["portla"].try_emplace(platform, e);
            if (!fresh && e.time_s < jt->second.time_s) jt->second = e;
        }
    }

    const bool fp32 = d.precision == "float";
    const double flops = flops_of(kernel, double(n));
    std::map<std::string, Peak> peaks;
    for (const auto& p : d.platforms) {
        peaks[p] = peak_of(p, peak_flags, fp32);
        if (!peaks[p].gflops)
            d.notes.push_back(
                std::string("no peak ") + (fp32 ? "FP32" : "FP64") + " FLOP rate known for '" + p +
                "'; its architectural efficiency is unknown (give --peak NAME=GFLOPS)");
    }

    std::vector<ProgramResult> programs;
    for (const char* name : program_names) {
        const auto it = d.entries.find(name);
        if (it == d.entries.end() || it->second.empty()) continue;
        ProgramResult r;
        r.name = name;
        for (const auto& [platform, e] : it->second) {
            r.gflops[platform] = flops / e.time_s / 1e9;
            r.backend[platform] = e.backend;
        }
        programs.push_back(std::move(r));
    }
    for (const auto& platform : d.platforms) {
        double best = 0;
        for (const auto& r : programs)
            if (r.gflops.count(platform)) best = std::max(best, r.gflops.at(platform));
        for (auto& r : programs) {
            if (!r.gflops.count(platform)) continue;
            const double g = r.gflops.at(platform);
            r.app[platform] = g / best;
            const auto& peak = peaks.at(platform).gflops;
            r.arch[platform] = peak ? std::optional<double>(g / *peak) : std::nullopt;
        }
    }
    for (auto& r : programs) {
        r.pp_app = *pp(d.platforms, r.app);
        r.pp_arch = pp(d.platforms, r.arch);
    }

    // ---- JSON ----
    if (o.json.requested()) {
        json j;
        j["kernel"] = kernel;
        j["n"] = n;
        j["precision"] = d.precision;
        j["flops_per_iteration"] = flops;
        j["platforms"] = d.platforms;
        j["peak_gflops"] = json::object();
        for (const auto& p : d.platforms) {
            const auto& pk = peaks.at(p);
            j["peak_gflops"][p] = pk.gflops ? json(*pk.gflops) : json(nullptr);
        }
        j["programs"] = json::array();
        for (const auto& r : programs) {
            json pj;
            pj["name"] = r.name;
            pj["performance_gflops"] = r.gflops;
            pj["backend"] = r.backend;
            pj["app_efficiency"] = r.app;
            pj["arch_efficiency"] = json::object();
            for (const auto& [p, v] : r.arch)
                pj["arch_efficiency"][p] = v ? json(*v) : json(nullptr);
            pj["pp_app"] = r.pp_app;
            pj["pp_arch"] = r.pp_arch ? json(*r.pp_arch) : json(nullptr);
            j["programs"].push_back(pj);
        }
        emit_json(j, o.json.path, 1);
    }
    for (const auto& note : d.notes) std::cerr << "portla: note: " << note << "\n";
    if (o.json.to_stdout()) return exit_ok;
    // ---- text ----
    std::cout << kernel
              << (kernel == "cg" ? " (one sparse CG iteration, 3-D Poisson)"
                                 : " (one dense CG iteration)")
              << ", N = " << n << ", " << d.precision << " precision, " << std::setprecision(6)
              << flops << " FLOPs per iteration\n\nplatforms (H, |H| = " << d.platforms.size()
              << "):\n";
    for (std::size_t i = 0; i < d.platforms.size(); ++i) {
        const auto& pk = peaks.at(d.platforms[i]);
        std::cout << "  [" << i + 1 << "] " << d.platforms[i] << ", peak "
                  << (pk.gflops ? gflops_text(*pk.gflops) + " GFLOP/s (" + pk.source + ")"
                                : std::string("unknown"))
                  << "\n";
    }
    const int name_w = 13, col_w = 10;
    auto header = [&](const std::string& title, bool with_pp) {
        std::cout << "\n"
                  << title << "\n"
                  << std::left << std::setw(name_w) << "program" << std::right;
        for (std::size_t i = 0; i < d.platforms.size(); ++i)
            std::cout << std::setw(col_w) << "[" + std::to_string(i + 1) + "]";
        if (with_pp) std::cout << std::setw(col_w) << "PP";
        std::cout << "\n";
    };
    header("performance (GFLOP/s)", false);
    for (const auto& r : programs) {
        std::cout << std::left << std::setw(name_w) << r.name << std::right;
        for (const auto& p : d.platforms)
            std::cout << std::setw(col_w)
                      << (r.gflops.count(p) ? gflops_text(r.gflops.at(p)) : "-");
        std::cout << "\n";
    }
    header("application efficiency (%)", true);
    for (const auto& r : programs) {
        std::cout << std::left << std::setw(name_w) << r.name << std::right;
        for (const auto& p : d.platforms)
            std::cout << std::setw(col_w) << (r.app.count(p) ? percent(r.app.at(p)) : "-");
        std::cout << std::setw(col_w) << percent(r.pp_app) << "\n";
    }
    header("architectural efficiency (%)", true);
    for (const auto& r : programs) {
        std::cout << std::left << std::setw(name_w) << r.name << std::right;
        for (const auto& p : d.platforms)
            std::cout << std::setw(col_w) << (r.arch.count(p) ? percent(r.arch.at(p)) : "-");
        std::cout << std::setw(col_w) << percent(r.pp_arch) << "\n";
    }
    std::cout << "\n-: does not run there (PP = 0); ?: peak unknown. PP: harmonic mean of the "
                 "efficiencies over H "
                 "(Pennycook et al.)\n";
    return exit_ok;
}

}  // namespace

Runner add_portability(CLI::App& app) {
    auto o = std::make_shared<PortabilityOptions>();
    app.add_option("results", o->files,
                   "result files of portla bench cg-dense (or cg) --json (one per machine)")
        ->required()
        ->check(regular_file());
    app.add_option("--kernel", o->kernel,
                   "cg-dense (dense CG, the thesis's) or cg (sparse CG on 3-D Poisson)")
        ->check(CLI::IsMember({"cg-dense", "cg"}));
    app.add_option("--n", o->n,
                   "size N of the points to compare: matrix rows for cg-dense (default 4096), "
                   "unknowns for cg (default 2097152 = 128^3)")
        ->check(CLI::PositiveNumber);
    app.add_option(
           "--peak", o->peaks,
           "peak FLOP rate of a platform, NAME=GFLOPS (FP64, or FP32 for float results); NAME is "
           "matched against the platform names; repeat for several platforms")
        ->allow_extra_args(false);
    add_json_option(app, o->json);  // the efficiencies and PP
    return [o] {
        std::vector<NamedPath> inputs;
        for (const auto& f : o->files) inputs.push_back({"input", f});
        require_distinct_files(inputs, {{"--json", o->json.path}});
        return run(*o);
    };
}

}  // namespace portla::cli
