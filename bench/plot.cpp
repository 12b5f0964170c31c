// SVG plots of effective bandwidth against size: one panel per kernel, one line per
// configuration, the fitted model dotted, vendor libraries heavy. No plotting dependency.
#include <algorithm>
#include <cmath>
#include <ostream>
#include <map>
#include <sstream>

#include "bench/bench.hpp"

namespace portla::bench {
namespace {

const char* colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                         "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};

bool is_vendor(const std::string& backend) {
    const auto& v = vendor_libraries();
    return std::any_of(v.begin(), v.end(),
                       [&](const VendorLibrary& l) { return backend == l.name; });
}

std::string label(const std::string& backend, const std::string& precision, int wg, int items) {
    std::string s = backend + " " + precision;
    if (wg > 0) s += " wg=" + std::to_string(wg) + " items=" + std::to_string(items);
    return s;
}

}  // namespace

void write_plot(std::ostream& out, const std::vector<Point>& points, const std::vector<Fit>& fits,
                const std::string& title) {
    std::map<std::string, std::vector<const Point*>> by_kernel;
    for (const auto& p : points) by_kernel[p.kernel].push_back(&p);
    const int W = 960, H = 440, left = 80, right = 300, top = 50, bottom = 60;
    const int pw = W - left - right, ph = H - top - bottom;
    std::ostringstream svg;
    svg << "<svg xmlns='http://www.w3.org/2000/svg' width='" << W << "' height='"
        << H * std::max<std::size_t>(1, by_kernel.size()) + 30
        << "' font-family='sans-serif' font-size='12'>\n"
        << "<rect width='100%' height='100%' fill='white'/>\n"
        << "<text x='10' y='20' font-size='15'>" << title << "</text>\n";
    int panel = 0;
    for (const auto& [kernel, pts] : by_kernel) {
        const int y0 = 30 + panel++ * H;
        double xmin = INFINITY, xmax = 0, ymax = 0;
        for (const Point* p : pts) {
            xmin = std::min(xmin, std::log2(double(std::max<std::size_t>(p->n, 1))));
            xmax = std::max(xmax, std::log2(double(std::max<std::size_t>(p->n, 1))));
            ymax = std::max(ymax, p->bandwidth_gbs);
        }
        if (xmax <= xmin) xmax = xmin + 1;
        ymax = ymax > 0 ? ymax * 1.1 : 1;
        auto X = [&](double n) { return left + (std::log2(n) - xmin) / (xmax - xmin) * pw; };
        auto Y = [&](double gbs) { return y0 + top + ph - gbs / ymax * ph; };
        svg << "<text x='" << left << "' y='" << y0 + top - 12 << "' font-size='14'>" << kernel
            << "</text>\n<rect x='" << left << "' y='" << y0 + top << "' width='" << pw
            << "' height='" << ph << "' fill='none' stroke='black'/>\n";
        for (int i = 0; i <= 5; ++i) {  // y grid
            const double v = ymax * i / 5;
            svg << "<line x1='" << left << "' x2='" << left + pw << "' y1='" << Y(v) << "' y2='"
                << Y(v) << "' stroke='#ddd'/><text x='" << left - 8 << "' y='" << Y(v) + 4
                << "' text-anchor='end'>" << std::round(v) << "</text>\n";
        }
        const int step = std::max(1, int(std::ceil((xmax - xmin) / 8)));
        for (int e = int(std::ceil(xmin)); e <= int(xmax); e += step) {
            svg << "<text x='" << X(std::pow(2.0, e)) << "' y='" << y0 + top + ph + 16
                << "' text-anchor='middle'>2^" << e << "</text>\n";
        }
        svg << "<text x='" << left + pw / 2 << "' y='" << y0 + top + ph + 38
            << "' text-anchor='middle'>n (elements / unknowns / rows)</text>\n<text x='20' y='"
            << y0 + top + ph / 2 << "' transform='rotate(-90 20 " << y0 + top + ph / 2
            << ")' text-anchor='middle'>effective bandwidth (GB/s)</text>\n";
        std::map<std::string, std::vector<const Point*>> series;
        for (const Point* p : pts)
            series[label(p->backend, p->precision, p->wg, p->items)].push_back(p);
        int s = 0;
        for (auto& [name, sp] : series) {
            std::sort(sp.begin(), sp.end(), [](auto a, auto b) { return a->n < b->n; });
            const char* colour = colours[s % 10];
            const bool vendor = is_vendor(sp.front()->backend);
            svg << "<polyline fill='none' stroke='" << colour << "' stroke-width='"
                << (vendor ? 3.5 : 1.5) << "' points='";
            for (const Point* p : sp) svg << X(double(p->n)) << "," << Y(p->bandwidth_gbs) << " ";
            svg << "'/>\n";
            for (const Point* p : sp)
                svg << "<circle cx='" << X(double(p->n)) << "' cy='" << Y(p->bandwidth_gbs)
                    << "' r='2.5' fill='" << (p->correct ? colour : "black") << "'/>\n";
            for (const auto& f : fits) {
                if (f.kernel != kernel || label(f.backend, f.precision, f.wg, f.items) != name)
                    continue;
                // Model bandwidth B / (T0 + B / W_a), bytes per n taken from the measured points.
                const double bytes_per_n = sp.back()->bytes / double(sp.back()->n);
                svg << "<polyline fill='none' stroke='" << colour
                    << "' stroke-width='1.2' stroke-dasharray='2,3' points='";
                for (double e = xmin; e <= xmax + 1e-9; e += (xmax - xmin) / 60) {
                    const double n = std::pow(2.0, e), b = bytes_per_n * n;
                    const double bw = b / (f.t0_us * 1e-6 + b / (f.wa_gbs * 1e9)) / 1e9;
                    if (bw > 0 && bw < ymax) svg << X(n) << "," << Y(bw) << " ";
                }
                svg << "'/>\n";
            }
            svg << "<line x1='" << left + pw + 15 << "' x2='" << left + pw + 45 << "' y1='"
                << y0 + top + 10 + 18 * s << "' y2='" << y0 + top + 10 + 18 * s << "' stroke='"
                << colour << "' stroke-width='" << (vendor ? 3.5 : 1.5) << "'/><text x='"
                << left + pw + 50 << "' y='" << y0 + top + 14 + 18 * s << "'>" << name
                << "</text>\n";
            ++s;
        }
        svg << "<text x='" << left + pw + 15 << "' y='" << y0 + top + 14 + 18 * s + 8
            << "' fill='#555'>dotted: fitted T0 + bytes/W_a</text>\n";
    }
    svg << "</svg>\n";
    out << svg.str();
}

}  // namespace portla::bench
