// Tuning profiles: JSON form, shipped defaults, and the once-per-device lookup the vector kernels
// use (portla/tuning.hpp).
#include "portla/tuning.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <iostream>
#include <memory>
#include <mutex>
#include <sstream>
#include <utility>

#include <nlohmann/json.hpp>

#include "common/user_cache.hpp"
#include "portla/error.hpp"

namespace portla::tuning {

namespace {

constexpr const char* format_name = "portla-tuning";
constexpr int format_version = 1;

const std::vector<std::pair<Kernel, const char*>>& kernel_table() {
    static const std::vector<std::pair<Kernel, const char*>> table{{Kernel::copy, "copy"},
                                                                   {Kernel::axpby, "axpby"},
                                                                   {Kernel::dot, "dot"},
                                                                   {Kernel::norm2, "norm2"},
                                                                   {Kernel::fused_cg, "fused-cg"}};
    return table;
}

std::string cpu_model() {
    std::ifstream f("/proc/cpuinfo");
    std::string line;
    while (std::getline(f, line))
        if (line.rfind("model name", 0) == 0) {
            const auto colon = line.find(':');
            if (colon != std::string::npos && colon + 2 <= line.size())
                return line.substr(colon + 2);
        }
    return "unknown CPU";
}

// A fit's figure for JSON: null when not finite (JSON has no inf; a flat sweep fits W_a = inf).
nlohmann::json finite_or_null(double v) {
    return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

// One band of every kernel, all sizes, with `launch`.
Profile uniform_profile(const DeviceIdentity& id, const std::string& origin,
                        const LaunchConfig& launch) {
    Profile p;
    p.identity = id;
    p.origin = origin;
    p.rule = "one configuration for every size";
    for (Kernel k : kernels()) p.bands[k] = {Band{0, unbounded, launch, 0, 0, 0}};
    return p;
}

void warn(const std::string& message) { std::cerr << "portla: warning: " << message << "\n"; }

}  // namespace

std::string launch_problem(const LaunchConfig& c) {
    if (c.work_group_size < 32 || c.work_group_size > 1024 || c.work_group_size % 32 != 0)
        return "work-group size " + std::to_string(c.work_group_size) +
               " is not a multiple of 32 in [32, 1024]";
    // More items than 64 leave a 2^27-element vector to a few blocks: valid, but a profile or
    // caller asking for it is mistaken.
    if (c.items_per_thread < 1 || c.items_per_thread > 64)
        return "items per thread " + std::to_string(c.items_per_thread) + " is not in [1, 64]";
    if (c.threads < 0 || c.threads > 4096)
        return "threads " + std::to_string(c.threads) + " is not in [0, 4096]";
    return "";
}

const std::vector<Kernel>& kernels() {
    static const std::vector<Kernel> all = [] {
        std::vector<Kernel> out;
        for (const auto& [k, name] : kernel_table()) out.push_back(k);
        return out;
    }();
    return all;
}

std::string to_string(Kernel kernel) {
    for (const auto& [k, name] : kernel_table())
        if (k == kernel) return name;
    return "unknown";
}

Kernel kernel_from_string(const std::string& name) {
    std::string names;
    for (const auto& [k, n] : kernel_table()) {
        if (name == n) return k;
        names += std::string(names.empty() ? "" : ", ") + n;
    }
    throw BadInput("unknown tuned kernel '" + name + "' (expected " + names + ")");
}

std::string DeviceIdentity::slug() const {
    std::string s = backend + "-" + device, out;
    for (char c : s) {
        const bool keep = std::isalnum(static_cast<unsigned char>(c)) != 0;
        if (keep)
            out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        else if (!out.empty() && out.back() != '-')
            out += '-';
    }
    while (!out.empty() && out.back() == '-') out.pop_back();
    return out;
}

DeviceIdentity identify(const Executor& exec) {
    DeviceIdentity id;
    id.backend = exec.name();
    const DeviceInfo info = exec.device_info();
    if (exec.is_host()) {
        id.device = cpu_model() + ", " + std::to_string(info.multiprocessors) + " threads";
    } else {
        id.device = info.name + ", sm_" + std::to_string(info.compute_major) +
                    std::to_string(info.compute_minor);
        id.versions = "driver " + std::to_string(info.cuda_driver_version) + ", runtime " +
                      std::to_string(info.runtime_version);
    }
    return id;
}

LaunchConfig Profile::lookup(Kernel kernel, std::size_t n) const {
    const auto it = bands.find(kernel);
    if (it == bands.end()) return LaunchConfig{};
    for (const Band& b : it->second)
        if (n >= b.n_min && n <= b.n_max) return b.launch;
    return LaunchConfig{};
}

std::string to_json(const Profile& profile) {
    nlohmann::json j;
    j["format"] = format_name;
    j["version"] = format_version;
    j["backend"] = profile.identity.backend;
    j["device"] = profile.identity.device;
    j["versions"] = profile.identity.versions;
    j["created"] = profile.created;
    j["commit"] = profile.commit;
    j["rule"] = profile.rule;
    j["kernels"] = nlohmann::json::object();
    for (const auto& [kernel, bands] : profile.bands) {
        auto& list = j["kernels"][to_string(kernel)] = nlohmann::json::array();
        for (const Band& b : bands)
            list.push_back({{"n_min", b.n_min},
                            {"n_max", b.n_max == unbounded ? nlohmann::json(nullptr)
                                                           : nlohmann::json(b.n_max)},
                            {"wg", b.launch.work_group_size},
                            {"items", b.launch.items_per_thread},
                            {"threads", b.launch.threads},
                            {"t0_us", finite_or_null(b.t0_us)},
                            {"wa_gbs", finite_or_null(b.wa_gbs)},
                            {"speedup", finite_or_null(b.speedup)}});
    }
    return j.dump(1) + "\n";
}

Profile from_json(const std::string& text, const std::string& origin) {
    const auto bad = [&](const std::string& what) {
        return BadInput("tuning profile '" + origin + "': " + what);
    };
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
        throw bad(std::string("not JSON (") + e.what() + ")");
    }
    if (!j.is_object() || !j.contains("format") || !j["format"].is_string() ||
        j["format"].get<std::string>() != format_name)
        throw bad(std::string("not a \"") + format_name + "\" file");
    if (!j.contains("version") || j["version"] != format_version)
        throw bad("version " + (j.contains("version") ? j["version"].dump() : "missing") +
                  ", this build reads " + std::to_string(format_version));
    // An integer field within [lo, hi]: never a float cast out of range, a wrapped or truncated
    // value.
    const auto integer = [&](const nlohmann::json& e, const char* key, long long lo, long long hi) {
        const nlohmann::json& v = e.at(key);
        if (!v.is_number_integer())
            throw bad(std::string(key) + " " + v.dump() + " is not an integer");
        if (v.is_number_unsigned()
                ? v.get<unsigned long long>() > static_cast<unsigned long long>(hi)
                : (v.get<long long>() < lo || v.get<long long>() > hi))
            throw bad(std::string(key) + " " + v.dump() + " is not in [" + std::to_string(lo) +
                      ", " + std::to_string(hi) + "]");
        return v.get<long long>();
    };
    // The fit's figures, informational: a number, or null (a fit without a finite value).
    const auto figure = [&](const nlohmann::json& e, const char* key) {
        if (!e.contains(key) || e[key].is_null()) return 0.0;
        if (!e[key].is_number()) throw bad(std::string(key) + " is not a number");
        return e[key].get<double>();
    };
    constexpr long long largest = std::numeric_limits<std::int64_t>::max();
    Profile p;
    p.origin = origin;
    try {
        p.identity.backend = j.at("backend").get<std::string>();
        p.identity.device = j.at("device").get<std::string>();
        p.identity.versions = j.value("versions", std::string());
        p.created = j.value("created", std::string());
        p.commit = j.value("commit", std::string());
        p.rule = j.value("rule", std::string());
        for (const auto& [name, list] : j.at("kernels").items()) {
            Kernel kernel;
            try {
                kernel = kernel_from_string(name);
            } catch (const BadInput& e) {
                throw bad(e.what());
            }
            if (!list.is_array() || list.empty()) throw bad(name + ": no bands");
            std::vector<Band> bands;
            for (const auto& e : list) {
                Band b;
                if (!e.is_object()) throw bad(name + ": a band is not an object");
                b.n_min = static_cast<std::size_t>(integer(e, "n_min", 0, largest));
                b.n_max = e.at("n_max").is_null()
                              ? unbounded
                              : static_cast<std::size_t>(integer(e, "n_max", 0, largest));
                b.launch.work_group_size = static_cast<int>(integer(e, "wg", 1, 1 << 20));
                b.launch.items_per_thread = static_cast<int>(integer(e, "items", 1, 1 << 20));
                b.launch.threads =
                    e.contains("threads") ? static_cast<int>(integer(e, "threads", 0, 1 << 20)) : 0;
                b.t0_us = figure(e, "t0_us");
                b.wa_gbs = figure(e, "wa_gbs");
                b.speedup = figure(e, "speedup");
                const std::string problem = launch_problem(b.launch);
                if (!problem.empty()) throw bad(name + ": " + problem);
                if (b.n_max < b.n_min) throw bad(name + ": a band ends before it starts");
                const std::size_t expected = bands.empty() ? 0 : bands.back().n_max + 1;
                if (!bands.empty() && bands.back().n_max == unbounded)
                    throw bad(name + ": a band follows the unbounded one");
                if (b.n_min != expected)
                    throw bad(name + ": band starting at " + std::to_string(b.n_min) + " where " +
                              std::to_string(expected) +
                              " was expected (bands must be sorted, without gaps or overlaps)");
                bands.push_back(b);
            }
            if (bands.back().n_max != unbounded)
                throw bad(name + ": the last band must be unbounded (n_max null)");
            p.bands[kernel] = std::move(bands);
        }
    } catch (const nlohmann::json::exception& e) {
        throw bad(std::string("missing or mistyped field (") + e.what() + ")");
    }
    return p;
}

Profile shipped_defaults(const Executor& exec) { return shipped_defaults(identify(exec)); }

Profile shipped_defaults(const DeviceIdentity& id) {
    if (id.backend != "cuda")
        return uniform_profile(id, "shipped defaults (CPU: the omp backend's own threads)",
                               LaunchConfig{256, 4, 0});
    const auto ends_with = [](const std::string& s, const std::string& tail) {
        return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
    };
    if (id.device.find("H100") == std::string::npos || !ends_with(id.device, ", sm_90"))
        return uniform_profile(id, "shipped defaults (GPU: 256 threads, 4 items)", LaunchConfig{});
    // H100 80GB HBM3: the launch sweep of bench/baselines/h100.json (2026-11-21, commit 74bf9ae,
    // double, wg 128...1024 x items 1,4,8, fits over 2^10...2^26). The rule of `portla tune`
    // applied to the fits: at each size 2^10...2^26 the configuration of least predicted time
    // T0 + bytes / W_a, kept only when it beats wg 256 x 4 items by more than 1%; band edges
    // at the geometric midpoint of neighbouring sizes. Gains are 1-3%, the order of run-to-run
    // noise: `portla tune` on an H100 confirms or replaces them.
    Profile p = uniform_profile(id, "shipped defaults (H100, gpu_launch_sweep_fits 2026-11-21)",
                                LaunchConfig{});
    p.rule = "least predicted time T0 + bytes / W_a per size, > 1% below wg 256 x 4 items";
    p.bands[Kernel::axpby] = {{0, 5931641, {256, 4, 0}, 6.92, 2889.9, 1.0},
                              {5931642, unbounded, {512, 4, 0}, 7.39, 2946.7, 1.019}};
    p.bands[Kernel::dot] = {{0, 741455, {256, 1, 0}, 8.14, 2990.9, 1.027},
                            {741456, 5931641, {256, 4, 0}, 8.36, 3089.7, 1.0},
                            {5931642, unbounded, {1024, 4, 0}, 8.74, 3156.1, 1.020}};
    p.bands[Kernel::fused_cg] = {{0, 2965820, {256, 4, 0}, 8.85, 2888.0, 1.0},
                                 {2965821, 11863283, {512, 4, 0}, 9.18, 2938.8, 1.014},
                                 {11863284, unbounded, {1024, 8, 0}, 10.99, 2959.5, 1.023}};
    return p;
}

std::string cache_path(const Executor& exec) {
    const std::string dir = common::user_cache_dir();
    return dir.empty() ? "" : dir + "/tuning-" + identify(exec).slug() + ".json";
}

namespace {

std::mutex named_file_mutex;
std::string named_file;

}  // namespace

void set_profile_file(const std::string& path) {
    std::lock_guard<std::mutex> lock(named_file_mutex);
    named_file = path;
}

std::string profile_file() {
    std::lock_guard<std::mutex> lock(named_file_mutex);
    return named_file;
}

std::string profile_path(const Executor& exec) {
    const std::string named = profile_file();
    if (!named.empty()) return named;
    return cache_path(exec);
}

Profile read_profile_file(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
        throw BadInput("tuning profile '" + path + "' is not a regular file");
    // A profile is a few kilobytes: a larger file is not one (and is not read into memory).
    constexpr std::uintmax_t largest_profile = 1 << 20;
    const std::uintmax_t size = std::filesystem::file_size(path, ec);
    if (ec || size > largest_profile)
        throw BadInput("tuning profile '" + path + "' is " +
                       (ec ? "unreadable (" + ec.message() + ")" : "larger than 1 MiB"));
    std::ifstream f(path);
    std::stringstream text;
    text << f.rdbuf();
    if (!f) throw BadInput("cannot read tuning profile '" + path + "'");
    return from_json(text.str(), path);
}

namespace {

Profile load_profile(const Executor& exec) {
    Profile defaults = shipped_defaults(exec);
    const std::string path = profile_path(exec);
    if (path.empty()) return defaults;
    const bool named = !profile_file().empty();
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
        // A missing cache file is the normal untuned state; a missing named file is a mistake.
        if (named)
            warn("tuning profile '" + path + "' does not exist; using the " + defaults.origin);
        return defaults;
    }
    Profile p;
    try {
        p = read_profile_file(path);
    } catch (const std::exception& e) {  // BadInput, and whatever a hostile file provokes
        warn(std::string(e.what()) + "; using the " + defaults.origin);
        return defaults;
    }
    const DeviceIdentity& here = defaults.identity;
    // One named profile file serves one backend: the others of the process (the omp executor
    // beside a cuda run) keep their defaults without a word.
    if (p.identity.backend != here.backend) return defaults;
    if (p.identity.device != here.device) {
        warn("tuning profile '" + path + "' was tuned on " + p.identity.backend + " '" +
             p.identity.device + "', not this " + here.backend + " '" + here.device +
             "'; using the " + defaults.origin);
        return defaults;
    }
    if (p.identity.versions != here.versions)
        warn("tuning profile '" + path + "' was tuned under " + p.identity.versions + ", this is " +
             here.versions + "; using it (portla tune refreshes it)");
    for (auto& [kernel, bands] : defaults.bands)
        if (!p.bands.count(kernel)) p.bands[kernel] = bands;  // kernels the run did not tune
    return p;
}

struct Cache {
    std::mutex mutex;
    std::map<std::pair<int, int>, std::unique_ptr<Profile>> loaded;
    // Profiles dropped by reload(), kept so that references handed out stay valid.
    std::vector<std::unique_ptr<Profile>> retired;
    std::atomic<unsigned> generation{1};
};

Cache& cache() {
    static Cache* c = new Cache;  // never destroyed: kernels may run during static destruction
    return *c;
}

}  // namespace

const Profile& active_profile(const Executor& exec) {
    Cache& c = cache();
    // Per thread, the last device asked about: no lock on the kernels' path.
    struct Last {
        unsigned generation = 0;
        int backend = -1, device = -1;
        const Profile* profile = nullptr;
    };
    thread_local Last last;
    const int backend = static_cast<int>(exec.backend()), device = exec.device_id();
    const unsigned generation = c.generation.load(std::memory_order_acquire);
    if (last.generation == generation && last.backend == backend && last.device == device)
        return *last.profile;
    std::lock_guard<std::mutex> lock(c.mutex);
    auto& slot = c.loaded[{backend, device}];
    if (!slot) slot = std::make_unique<Profile>(load_profile(exec));
    last = Last{generation, backend, device, slot.get()};
    return *slot;
}

LaunchConfig launch_for(const Executor& exec, Kernel kernel, std::size_t n) {
    if (exec.launch_is_set()) return exec.launch();
    return active_profile(exec).lookup(kernel, n);
}

void reload() {
    Cache& c = cache();
    std::lock_guard<std::mutex> lock(c.mutex);
    for (auto& [key, profile] : c.loaded) c.retired.push_back(std::move(profile));
    c.loaded.clear();
    c.generation.fetch_add(1, std::memory_order_acq_rel);
}

}  // namespace portla::tuning
