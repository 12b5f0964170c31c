// The latency-bandwidth model T = T0 + bytes / W_a, fitted by least squares on relative
// residuals (weights 1/T^2), so small sizes (which fix T0) weigh as much as large ones (W_a).
#include <cmath>
#include <map>
#include <tuple>

#include "bench/bench.hpp"

namespace portla::bench {

std::vector<Fit> fit_model(const std::vector<Point>& points, double min_bytes) {
    using Key = std::tuple<std::string, std::string, std::string, std::string, int, int, int>;
    std::map<Key, std::vector<const Point*>> groups;
    for (const auto& p : points) {
        if (!(p.bytes >= min_bytes && p.time_s > 0)) continue;
        if (p.variant.empty())
            groups[{p.kernel, p.backend, p.precision, "", p.wg, p.items, p.threads}].push_back(&p);
        else
            groups[{p.kernel, p.backend, p.precision, p.variant, 0, 0, 0}].push_back(&p);
    }
    std::vector<Fit> fits;
    for (const auto& [key, pts] : groups) {
        if (pts.size() < 3) continue;
        // Minimise sum w (t - t0 - b s)^2 with w = 1/t^2, s = 1/W_a.
        double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
        for (const Point* p : pts) {
            const double w = 1.0 / (p->time_s * p->time_s), x = p->bytes, y = p->time_s;
            sw += w;
            sx += w * x;
            sy += w * y;
            sxx += w * x * x;
            sxy += w * x * y;
        }
        const double det = sw * sxx - sx * sx;
        if (!(std::abs(det) > 0)) continue;
        const double slope = (sw * sxy - sx * sy) / det;
        const double t0 = (sy - slope * sx) / sw;
        const double mean = sy / sw;
        double ss_res = 0, ss_tot = 0;
        for (const Point* p : pts) {
            const double w = 1.0 / (p->time_s * p->time_s);
            const double model = t0 + slope * p->bytes;
            ss_res += w * (p->time_s - model) * (p->time_s - model);
            ss_tot += w * (p->time_s - mean) * (p->time_s - mean);
        }
        Fit f;
        std::tie(f.kernel, f.backend, f.precision, f.variant, f.wg, f.items, f.threads) = key;
        f.t0_us = t0 * 1e6;
        f.wa_gbs = slope > 0 ? 1e-9 / slope : INFINITY;
        f.r2 = ss_tot > 0 ? 1 - ss_res / ss_tot : 1;
        f.points = static_cast<int>(pts.size());
        f.n_min = pts.front()->n;
        f.n_max = pts.back()->n;
        for (const Point* p : pts) {
            f.n_min = std::min(f.n_min, p->n);
            f.n_max = std::max(f.n_max, p->n);
        }
        fits.push_back(f);
    }
    return fits;
}

}  // namespace portla::bench
