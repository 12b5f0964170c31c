// `portla tune`'s rule: from measured points and their fits to size bands of launch
// configurations (bench.hpp, choose_bands).
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "bench/bench.hpp"

namespace portla::bench {
namespace {

using ConfigKey = std::tuple<int, int, int>;  // wg, items, threads

ConfigKey key_of(const LaunchConfig& c, bool gpu) {
    return gpu ? ConfigKey{c.work_group_size, c.items_per_thread, 0} : ConfigKey{0, 0, c.threads};
}

}  // namespace

std::vector<tuning::Band> choose_bands(const std::vector<Point>& points,
                                       const std::vector<Fit>& fits, const std::string& kernel,
                                       const std::function<LaunchConfig(std::size_t)>& default_for,
                                       double margin) {
    // Measured medians and bytes per (configuration, n); configurations as measured.
    std::map<ConfigKey, std::map<std::size_t, const Point*>> measured;
    std::map<ConfigKey, LaunchConfig> launch_of;
    std::set<std::size_t> sizes;
    bool gpu = true;
    for (const auto& p : points) {
        if (p.kernel != kernel || !p.variant.empty() || !(p.time_s > 0)) continue;
        if (!has_launch_config(p.kernel, p.backend) && !has_thread_config(p.kernel, p.backend))
            continue;
        gpu = has_launch_config(p.kernel, p.backend);
        const ConfigKey k{p.wg, p.items, p.threads};
        measured[k][p.n] = &p;
        launch_of[k] = LaunchConfig{gpu ? p.wg : 256, gpu ? p.items : 4, p.threads};
        sizes.insert(p.n);
    }
    if (sizes.empty()) throw BadInput("tune: no measured sizes of " + kernel);
    std::map<ConfigKey, const Fit*> fit_of;
    for (const auto& f : fits)
        if (f.kernel == kernel && f.variant.empty() && f.r2 >= 0.95)
            fit_of[ConfigKey{f.wg, f.items, f.threads}] = &f;

    // Time of configuration k at n: the model inside its fit's range, else the median.
    const auto time_at = [&](const ConfigKey& k, const Point& p) {
        const auto it = fit_of.find(k);
        if (it != fit_of.end() && p.n >= it->second->n_min && p.n <= it->second->n_max &&
            std::isfinite(it->second->wa_gbs))
            return it->second->t0_us * 1e-6 + p.bytes / (it->second->wa_gbs * 1e9);
        return p.time_s;
    };

    struct Choice {
        std::size_t n;
        ConfigKey winner;
        double speedup;  // measured medians, default / winner
    };
    std::vector<Choice> choices;
    for (std::size_t n : sizes) {
        const ConfigKey def = key_of(default_for(n), gpu);
        const auto d = measured.find(def);
        if (d == measured.end() || !d->second.count(n))
            throw BadInput("tune: " + kernel + " at n = " + std::to_string(n) +
                           " has no point of its default configuration");
        const Point& def_point = *d->second.at(n);
        const double t_def = time_at(def, def_point);
        ConfigKey best = def;
        double t_best = t_def;
        for (const auto& [k, by_n] : measured) {
            const auto it = by_n.find(n);
            if (it == by_n.end()) continue;
            const double t = time_at(k, *it->second);
            if (t < t_best) {
                best = k;
                t_best = t;
            }
        }
        const ConfigKey winner = t_best < (1 - margin) * t_def ? best : def;
        choices.push_back({n, winner, def_point.time_s / measured[winner].at(n)->time_s});
    }

    std::vector<tuning::Band> bands;
    for (std::size_t i = 0; i < choices.size(); ++i) {
        const Choice& c = choices[i];
        if (!bands.empty() && key_of(bands.back().launch, gpu) == c.winner) {
            bands.back().speedup = std::max(bands.back().speedup, c.speedup);
        } else {
            tuning::Band b;
            b.n_min = bands.empty() ? 0 : bands.back().n_max + 1;
            b.launch = launch_of.at(c.winner);
            b.speedup = c.speedup;
            const auto f = fit_of.find(c.winner);
            if (f != fit_of.end()) {
                b.t0_us = f->second->t0_us;
                b.wa_gbs = f->second->wa_gbs;
            }
            bands.push_back(b);
        }
        bands.back().n_max = i + 1 < choices.size() ? static_cast<std::size_t>(std::floor(std::sqrt(
                                                          double(c.n) * double(choices[i + 1].n))))
                                                    : tuning::unbounded;
    }
    return bands;
}

}  // namespace portla::bench
