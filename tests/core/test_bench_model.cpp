// The benchmark harness's model fit and plot, on synthetic points with known answers.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "bench/bench.hpp"

namespace portla::bench {
namespace {

Point point(const std::string& backend, std::size_t n, double bytes, double time) {
    Point p;
    p.kernel = "axpby";
    p.backend = backend;
    p.precision = "double";
    p.n = n;
    p.bytes = bytes;
    p.time_s = time;
    p.bandwidth_gbs = bytes / time / 1e9;
    p.correct = true;
    return p;
}

TEST(BenchModel, RecoversLatencyAndBandwidthOfExactData) {
    // T = 7 us + bytes / 2900 GB/s, sizes 2^10 ... 2^27 doubles of an axpby (24 B each).
    std::vector<Point> pts;
    for (int e = 10; e <= 27; ++e) {
        const double bytes = 24.0 * std::pow(2.0, e);
        pts.push_back(point("cuda", std::size_t(1) << e, bytes, 7e-6 + bytes / 2900e9));
    }
    const auto fits = fit_model(pts, 0);
    ASSERT_EQ(fits.size(), 1u);
    EXPECT_NEAR(fits[0].t0_us, 7.0, 1e-6);
    EXPECT_NEAR(fits[0].wa_gbs, 2900.0, 1e-6);
    EXPECT_NEAR(fits[0].r2, 1.0, 1e-12);
    EXPECT_EQ(fits[0].points, 18);
    EXPECT_EQ(fits[0].n_min, std::size_t(1) << 10);
    EXPECT_EQ(fits[0].n_max, std::size_t(1) << 27);
}

TEST(BenchModel, NoisyDataLowersRSquaredAndSizeFilterApplies) {
    std::vector<Point> pts;
    for (int e = 10; e <= 27; ++e) {
        const double bytes = 24.0 * std::pow(2.0, e);
        const double noise = (e % 2 ? 1.15 : 0.87);  // +-15%, alternating
        pts.push_back(point("omp", std::size_t(1) << e, bytes, (2e-6 + bytes / 20e9) * noise));
    }
    const auto all = fit_model(pts, 0);
    ASSERT_EQ(all.size(), 1u);
    EXPECT_LT(all[0].r2, 0.999);
    EXPECT_GT(all[0].wa_gbs, 15.0);
    EXPECT_LT(all[0].wa_gbs, 25.0);
    // Only sizes past 2^24 doubles (400 MB): 3 points remain, enough for a fit; 2^26 leaves 2.
    EXPECT_EQ(fit_model(pts, 24.0 * std::pow(2.0, 25))[0].points, 3);
    EXPECT_TRUE(fit_model(pts, 24.0 * std::pow(2.0, 26)).empty());
}

TEST(BenchModel, GroupsByConfiguration) {
    std::vector<Point> pts;
    for (int wg : {128, 256})
        for (int e = 10; e <= 14; ++e) {
            auto p = point("cuda", std::size_t(1) << e, 24.0 * std::pow(2.0, e),
                           5e-6 + 24.0 * std::pow(2.0, e) / (wg * 10e9));
            p.wg = wg;
            p.items = 4;
            pts.push_back(p);
        }
    const auto fits = fit_model(pts, 0);
    ASSERT_EQ(fits.size(), 2u);
    for (const auto& f : fits) EXPECT_NEAR(f.wa_gbs, f.wg * 10.0, 1e-6 * f.wg);
}

TEST(BenchPlot, WritesAnSvgWithOneLinePerSeriesAndTheFit) {
    std::vector<Point> pts;
    for (const char* b : {"cuda", "cublas"})
        for (int e = 10; e <= 20; ++e)
            pts.push_back(point(b, std::size_t(1) << e, 24.0 * std::pow(2.0, e),
                                7e-6 + 24.0 * std::pow(2.0, e) / 2900e9));
    const auto fits = fit_model(pts, 0);
    std::ostringstream ss;
    write_plot(ss, pts, fits, "test");
    const std::string svg = ss.str();
    EXPECT_EQ(svg.rfind("<svg", 0), 0u);
    EXPECT_NE(svg.find("</svg>"), std::string::npos);
    EXPECT_NE(svg.find("cublas double"), std::string::npos);
    EXPECT_NE(svg.find("stroke-width='3.5'"), std::string::npos);  // the vendor line is heavy
    EXPECT_NE(svg.find("stroke-dasharray"), std::string::npos);    // the fitted model, dotted
}

}  // namespace
}  // namespace portla::bench
