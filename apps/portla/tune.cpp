// portla tune: the bench harness's size sweeps over launch configurations on one device, the
// model T = T0 + bytes / W_a fitted per configuration, and per kernel and size band the
// configuration chosen by bench::choose_bands, written as the device's tuning profile
// (portla/tuning.hpp); then the shipped defaults against the new profile, measured again.
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "bench/bench.hpp"
#include "output.hpp"
#include "portla/environment.hpp"
#include "portla/portla.hpp"
#include "portla/tuning.hpp"
#include "subcommands.hpp"
#include "sweep.hpp"

namespace portla::cli {
namespace {

struct TuneOptions {
    std::string backend;  // cuda or omp; "" picks cuda when a GPU is present
    std::vector<std::string> kernels{"copy", "axpby", "dot", "norm2", "fused-cg"};
    std::string sizes;  // "" picks the backend's default
    std::string wg = "128,256,512,1024";
    std::string items = "1,2,4,8";
    std::string threads;  // "" picks 1, 2, 4, ... and every thread
    int reps = 20;
    double max_time = 0.2;
    double margin = 0.01;
    std::string out;
    bool dry_run = false;
    bool no_compare = false;
    JsonOutput json;
    bool quiet = false;
};

// The candidate launch configurations: wg x items on cuda, team sizes on omp; with every
// configuration the shipped defaults use for `kernel`, so that each size has its default.
std::vector<LaunchConfig> candidates(const TuneOptions& o, bool gpu, const tuning::Profile& shipped,
                                     tuning::Kernel kernel) {
    std::vector<LaunchConfig> out;
    const auto add = [&](const LaunchConfig& c) {
        for (const auto& e : out)
            if (e.work_group_size == c.work_group_size &&
                e.items_per_thread == c.items_per_thread && e.threads == c.threads)
                return;
        out.push_back(c);
    };
    if (gpu) {
        for (int w : parse_ints(o.wg, "work-group size"))
            for (int i : parse_ints(o.items, "items per thread")) add({w, i, 0});
    } else {
        std::vector<int> threads;
        if (o.threads.empty()) {
            for (int t = 1; t < omp_max_threads(); t *= 2) threads.push_back(t);
            threads.push_back(omp_max_threads());
        } else {
            threads = parse_ints(o.threads, "thread count");
        }
        for (int t : threads) add({256, 4, t});
    }
    for (const auto& b : shipped.bands.at(kernel)) add(b.launch);
    for (const auto& c : out) {
        const std::string problem = tuning::launch_problem(c);
        if (!problem.empty()) throw BadInput("tune: " + problem);
    }
    return out;
}

// Throws BadInput when `path` holds a readable profile of another backend or device.
void refuse_foreign_profile(const std::string& path, const tuning::DeviceIdentity& here) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return;
    tuning::Profile old;
    try {
        old = tuning::read_profile_file(path);
    } catch (const std::exception&) {
        return;  // not a profile: replaced, as any output file
    }
    if (old.identity.backend != here.backend || old.identity.device != here.device)
        throw BadInput("tune: '" + path + "' holds the profile of " + old.identity.backend + " '" +
                       old.identity.device + "', not of this " + here.backend + " '" + here.device +
                       "': give another --out FILE");
}

nlohmann::json launch_json(const bench::Point& p) {
    return {{"wg", p.wg}, {"items", p.items}, {"threads", p.threads}};
}

std::string band_range(const tuning::Band& b) {
    return std::to_string(b.n_min) + " ... " +
           (b.n_max == tuning::unbounded ? std::string("inf") : std::to_string(b.n_max));
}

int run(const TuneOptions& o) {
    const std::string backend =
        !o.backend.empty() ? o.backend : (device_count(Backend::cuda) > 0 ? "cuda" : "omp");
    if (backend != "cuda" && backend != "omp")
        throw BadInput("tune: --backend must be cuda or omp, got '" + backend + "'");
    if (!backend_runs_here(backend))
        throw DeviceError("tune: backend '" + backend + "' needs a GPU, and none was found");
    if (!(o.margin >= 0 && o.margin < 1)) throw BadInput("tune: --margin must be in [0, 1)");
    if (o.reps < 1) throw BadInput("tune: --reps must be >= 1");
    const Executor exec = executor_from_environment(backend);
    const bool gpu = !exec.is_host();
    const auto sizes = parse_sizes(!o.sizes.empty() ? o.sizes : gpu ? "2^12:2^26" : "2^10:2^22");
    std::vector<tuning::Kernel> kernels;
    for (const auto& k : o.kernels) kernels.push_back(tuning::kernel_from_string(k));
    const tuning::Profile shipped = tuning::shipped_defaults(exec);
    const std::string out_path = !o.out.empty() ? o.out : tuning::profile_path(exec);
    if (out_path.empty() && !o.dry_run)
        throw BadInput(
            "tune: nowhere to write the profile (no HOME, XDG_CACHE_HOME or "
            "PORTLA_TUNING_FILE): give --out FILE");
    require_distinct_files({}, {{"--out", o.dry_run ? "" : out_path}, {"--json", o.json.path}});
    // One file holds one device's profile: never replace another device's or backend's (a cuda
    // profile in PORTLA_TUNING_FILE overwritten by `tune --backend omp`), before any sweep.
    if (!o.dry_run) refuse_foreign_profile(out_path, tuning::identify(exec));

    // The sweep: every candidate configuration at every size, through the bench harness.
    std::vector<bench::Point> points;
    const auto measure = [&](bench::CaseConfig c) {
        c.backend = backend;
        c.precision = "double";
        c.reps = o.reps;
        c.max_time_s = o.max_time;
        const bench::Point p = bench::measure(c);
        if (!p.correct)
            throw Error("tune: " + p.kernel + " on " + backend + " at n = " + std::to_string(p.n) +
                        launch_text(p) + " gave a wrong result (relative error " +
                        std::to_string(p.error) + ")");
        if (!o.quiet)
            std::cerr << "  " << p.kernel << " " << backend
                      << (p.variant.empty() ? "" : ":" + p.variant) << " n=" << p.n
                      << launch_text(p) << ": " << std::setprecision(4) << p.time_s * 1e6 << " us, "
                      << p.bandwidth_gbs << " GB/s\n";
        points.push_back(p);
    };
    for (tuning::Kernel k : kernels)
        for (const auto& cfg : candidates(o, gpu, shipped, k))
            for (std::size_t n : sizes) {
                bench::CaseConfig c;
                c.kernel = tuning::to_string(k);
                c.size = n;
                c.launch = cfg;
                try {
                    measure(c);
                } catch (const OutOfMemory& e) {
                    std::cerr << "  " << c.kernel << " size " << n << ": skipped, does not fit ("
                              << e.what() << ")\n";
                    break;
                }
            }
    const auto fits = bench::fit_model(points, 0);

    // The profile: the chosen bands of the tuned kernels, the shipped ones of the others.
    tuning::Profile profile = shipped;
    profile.identity = tuning::identify(exec);
    profile.origin = o.dry_run ? "(not written)" : out_path;
    profile.created = now_utc();
    profile.commit = build_commit();
    char rule[256];
    std::snprintf(rule, sizeof rule,
                  "per size: least time (model T0 + bytes / W_a where R^2 >= 0.95, else the "
                  "median), kept when > %g%% below the shipped default; portla tune",
                  o.margin * 100);
    profile.rule = rule;
    for (tuning::Kernel k : kernels) {
        std::vector<bench::Point> measured;
        for (const auto& p : points)
            if (p.kernel == tuning::to_string(k)) measured.push_back(p);
        if (measured.empty()) continue;  // nothing fitted in memory: keep the shipped bands
        profile.bands[k] = bench::choose_bands(
            measured, fits, tuning::to_string(k),
            [&](std::size_t n) { return shipped.lookup(k, n); }, o.margin);
    }
    if (!o.dry_run) {
        const std::filesystem::path parent = std::filesystem::path(out_path).parent_path();
        std::error_code ec;
        if (!parent.empty()) std::filesystem::create_directories(parent, ec);
        const std::string text = tuning::to_json(profile);
        (void)tuning::from_json(text, out_path);  // never write what would not be read back
        write_output(out_path, [&](std::ostream& out) { out << text; });
        tuning::reload();
    }

    // The shipped defaults against the new profile, measured again (explicit launches).
    std::vector<bench::Point> compared;
    if (!o.no_compare) {
        std::swap(points, compared);
        for (tuning::Kernel k : kernels)
            for (std::size_t n : sizes)
                for (const char* variant : {"default", "tuned"}) {
                    bench::CaseConfig c;
                    c.kernel = tuning::to_string(k);
                    c.size = n;
                    c.variant = variant;
                    c.launch = std::string(variant) == "default" ? shipped.lookup(k, n)
                                                                 : profile.lookup(k, n);
                    try {
                        measure(c);
                    } catch (const OutOfMemory&) {
                        break;
                    }
                }
        std::swap(points, compared);
    }

    if (!o.json.to_stdout()) {
        std::cout << "portla tune: " << profile.identity.backend << " '" << profile.identity.device
                  << "'"
                  << (profile.identity.versions.empty() ? ""
                                                        : " (" + profile.identity.versions + ")")
                  << "\nrule: " << profile.rule << "\n\n"
                  << std::left << std::setw(10) << "kernel" << std::setw(26) << "n" << std::right
                  << std::setw(6) << (gpu ? "wg" : "") << std::setw(8)
                  << (gpu ? "items" : "threads") << std::setw(10) << "T0_us" << std::setw(10)
                  << "W_a_GB/s" << std::setw(9) << "speedup\n";
        for (tuning::Kernel k : kernels)
            for (const auto& b : profile.bands.at(k))
                std::cout << std::left << std::setw(10) << tuning::to_string(k) << std::setw(26)
                          << band_range(b) << std::right << std::setw(6)
                          << (gpu ? std::to_string(b.launch.work_group_size) : "") << std::setw(8)
                          << (gpu ? b.launch.items_per_thread : b.launch.threads) << std::fixed
                          << std::setprecision(2) << std::setw(10) << b.t0_us
                          << std::setprecision(1) << std::setw(10) << b.wa_gbs
                          << std::setprecision(3) << std::setw(9) << b.speedup << std::defaultfloat
                          << "\n";
        if (!compared.empty()) print_comparison(compared);
        std::cout << (o.dry_run ? "\nprofile not written (--dry-run)\n"
                                : "\nprofile written to " + out_path + "\n");
    }
    if (o.json.requested()) {
        nlohmann::json j;
        j["profile"] = nlohmann::json::parse(tuning::to_json(profile));
        j["written"] = !o.dry_run;
        j["path"] = o.dry_run ? "" : out_path;
        j["fits"] = nlohmann::json::array();
        for (const auto& f : fits) j["fits"].push_back(fit_json(f));
        j["comparison"] = nlohmann::json::array();
        for (const auto& d : compared)
            for (const auto& t : compared)
                if (d.variant == "default" && t.variant == "tuned" && d.kernel == t.kernel &&
                    d.n == t.n)
                    j["comparison"].push_back({{"kernel", d.kernel},
                                               {"n", d.n},
                                               {"default", launch_json(d)},
                                               {"default_time_s", d.time_s},
                                               {"tuned", launch_json(t)},
                                               {"tuned_time_s", t.time_s},
                                               {"speedup", d.time_s / t.time_s}});
        emit_json(j, o.json.path);
    }
    return exit_ok;
}

}  // namespace

Runner add_tune(CLI::App& app) {
    auto o = std::make_shared<TuneOptions>();
    app.add_option("--backend", o->backend,
                   "cuda or omp (default: cuda when a GPU is present, else omp)");
    app.add_option("--kernels", o->kernels, "kernels to tune: copy, axpby, dot, norm2, fused-cg")
        ->delimiter(',');
    app.add_option("--sizes", o->sizes,
                   "vector lengths, as in portla bench (default: 2^12:2^26 on cuda, 2^10:2^22 "
                   "on omp)");
    app.add_option("--wg", o->wg, "cuda: work-group sizes to try");
    app.add_option("--items", o->items, "cuda: items per thread to try");
    app.add_option("--threads", o->threads,
                   "omp: team sizes to try (default: 1, 2, 4, ... and every thread)");
    app.add_option("--reps", o->reps, "timed calls per point (at most)");
    app.add_option("--max-time", o->max_time,
                   "seconds per point after which repetitions stop (at least 5 run)")
        ->check(positive_number());
    app.add_option("--margin", o->margin,
                   "a configuration replaces the shipped default at a size only when it is this "
                   "fraction faster");
    app.add_option("--out", o->out,
                   "profile file (default: $PORTLA_TUNING_FILE, else "
                   "$XDG_CACHE_HOME/portla/tuning-DEVICE.json, which the kernels read)")
        ->check(output_file(/*create_parent=*/true));
    app.add_flag("--dry-run", o->dry_run, "measure and choose, write no profile");
    app.add_flag("--no-compare", o->no_compare,
                 "skip the second measurement of the shipped defaults against the profile");
    add_json_option(app, o->json);
    app.add_flag("--quiet", o->quiet, "no progress on stderr");
    return [o] { return run(*o); };
}

}  // namespace portla::cli
