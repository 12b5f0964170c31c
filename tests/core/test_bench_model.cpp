// The benchmark harness's model fit and plot, on synthetic points with known answers.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <map>
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

TEST(BenchModel, VariantsFitAsOneSeriesWhateverTheirLaunch) {
    std::vector<Point> pts;
    for (int e = 10; e <= 14; ++e) {
        auto p = point("cuda", std::size_t(1) << e, 24.0 * std::pow(2.0, e),
                       5e-6 + 24.0 * std::pow(2.0, e) / 2000e9);
        p.variant = "tuned";
        p.wg = e < 12 ? 128 : 512;  // the profile changes the launch with the size
        p.items = 4;
        pts.push_back(p);
    }
    const auto fits = fit_model(pts, 0);
    ASSERT_EQ(fits.size(), 1u);
    EXPECT_EQ(fits[0].variant, "tuned");
    EXPECT_EQ(fits[0].points, 5);
    EXPECT_EQ(fits[0].wg, 0);
}

// Two configurations of axpby on cuda at 2^10 ... 2^20: `def` (wg 256) with the lower T0,
// `fast` (wg 512) with the higher bandwidth by `gain`. Times exact on the model.
std::vector<Point> two_configs(double gain) {
    std::vector<Point> pts;
    for (int wg : {256, 512})
        for (int e = 10; e <= 20; ++e) {
            const double bytes = 24.0 * std::pow(2.0, e);
            const double t = wg == 256 ? 5e-6 + bytes / 1000e9 : 6e-6 + bytes / (1000e9 * gain);
            auto p = point("cuda", std::size_t(1) << e, bytes, t);
            p.wg = wg;
            p.items = 4;
            pts.push_back(p);
        }
    return pts;
}

TEST(Tune, ChoosesTheFasterConfigurationPerSizeBand) {
    const auto pts = two_configs(2.0);
    const auto fits = fit_model(pts, 0);
    const auto bands = choose_bands(
        pts, fits, "axpby",
        [](std::size_t) {
            return LaunchConfig{256, 4};
        },
        0.01);
    // fast wins where bytes / 2000 GB/s saves more than 1 us and 1%: from 2^17 (24 * 2^17 B:
    // 3.1 us vs 2.6 us + 1 us) on; the band edge lies at the geometric midpoint of 2^16 and 2^17.
    ASSERT_EQ(bands.size(), 2u);
    EXPECT_EQ(bands[0].n_min, 0u);
    EXPECT_EQ(bands[0].launch.work_group_size, 256);
    EXPECT_EQ(bands[0].n_max, std::size_t(std::floor(std::pow(2.0, 16.5))));
    EXPECT_EQ(bands[1].n_min, bands[0].n_max + 1);
    EXPECT_EQ(bands[1].n_max, tuning::unbounded);
    EXPECT_EQ(bands[1].launch.work_group_size, 512);
    EXPECT_NEAR(bands[1].t0_us, 6.0, 1e-6);
    EXPECT_NEAR(bands[1].wa_gbs, 2000.0, 1e-6);
    // Largest measured ratio in the band: at 2^20, (5 + 25.2) / (6 + 12.6) us.
    const double bytes = 24.0 * std::pow(2.0, 20);
    EXPECT_NEAR(bands[1].speedup, (5e-6 + bytes / 1000e9) / (6e-6 + bytes / 2000e9), 1e-9);
    EXPECT_DOUBLE_EQ(bands[0].speedup, 1.0);
}

TEST(Tune, KeepsTheDefaultWithinTheMargin) {
    // 0.5% more bandwidth never beats the 1% margin (and costs 1 us of T0).
    const auto pts = two_configs(1.005);
    const auto bands = choose_bands(
        pts, fit_model(pts, 0), "axpby",
        [](std::size_t) {
            return LaunchConfig{256, 4};
        },
        0.01);
    ASSERT_EQ(bands.size(), 1u);
    EXPECT_EQ(bands[0].launch.work_group_size, 256);
    EXPECT_EQ(bands[0].n_min, 0u);
    EXPECT_EQ(bands[0].n_max, tuning::unbounded);
}

TEST(Tune, NeedsThePointsOfTheDefaultConfiguration) {
    const auto pts = two_configs(2.0);
    EXPECT_THROW(choose_bands(
                     pts, fit_model(pts, 0), "axpby",
                     [](std::size_t) {
                         return LaunchConfig{1024, 4};
                     },
                     0.01),
                 BadInput);
    EXPECT_THROW(choose_bands(
                     pts, fit_model(pts, 0), "dot",
                     [](std::size_t) {
                         return LaunchConfig{256, 4};
                     },
                     0.01),
                 BadInput);
}

TEST(Tune, OmpChoosesTeamSizes) {
    // Serial (threads 1) wins below 2^14, the whole team (threads 0) above: a fork costs 4 us.
    std::vector<Point> pts;
    for (int threads : {0, 1})
        for (int e = 10; e <= 18; ++e) {
            const double bytes = 24.0 * std::pow(2.0, e);
            auto p = point("omp", std::size_t(1) << e, bytes,
                           threads == 1 ? bytes / 10e9 : 4e-6 + bytes / 20e9);
            p.threads = threads;
            pts.push_back(p);
        }
    const auto bands = choose_bands(
        pts, {}, "axpby",
        [](std::size_t) {
            return LaunchConfig{256, 4, 0};
        },
        0.01);
    ASSERT_EQ(bands.size(), 2u);
    EXPECT_EQ(bands[0].launch.threads, 1);
    EXPECT_EQ(bands[1].launch.threads, 0);
    // 24 n / 10e9 = 4e-6 + 24 n / 20e9 at n = 3333: serial wins at 2^11, loses at 2^12.
    EXPECT_EQ(bands[0].n_max, std::size_t(std::floor(std::pow(2.0, 11.5))));
}

// The shipped H100 bands (tuning::shipped_defaults) are choose_bands applied to the recorded
// sweep: points on the fitted model of every configuration in bench/baselines/h100.json
// ("launch_sweep") at 2^10 ... 2^26, default wg 256 x 4 items, margin 1%.
TEST(Tune, ShippedH100BandsFollowFromTheRecordedSweep) {
    std::ifstream in(std::string(PORTLA_TEST_DATA_DIR) + "/../../bench/baselines/h100.json");
    ASSERT_TRUE(in) << "bench/baselines/h100.json";
    const auto baseline = nlohmann::json::parse(in);
    const std::map<std::string, double> bytes_per_element{
        {"axpby", 24}, {"dot", 16}, {"fused-cg", 48}};
    std::vector<Point> pts;
    for (const auto& fit : baseline.at("launch_sweep").at("fits")) {
        if (fit.at("backend") != "cuda") continue;
        const std::string kernel = fit.at("kernel");
        const int wg = fit.at("wg");
        const int items = fit.at("items");
        const double t0_us = fit.at("t0_us");
        const double wa_gbs = fit.at("wa_gbs");
        for (int e = 10; e <= 26; ++e) {
            const double bytes = bytes_per_element.at(kernel) * std::pow(2.0, e);
            auto p =
                point("cuda", std::size_t(1) << e, bytes, t0_us * 1e-6 + bytes / (wa_gbs * 1e9));
            p.kernel = kernel;
            p.wg = wg;
            p.items = items;
            pts.push_back(p);
        }
    }
    ASSERT_EQ(pts.size(), 36u * 17u);
    const auto fits = fit_model(pts, 0);
    const tuning::Profile shipped = tuning::shipped_defaults(tuning::DeviceIdentity{
        "cuda", "NVIDIA H100 80GB HBM3, sm_90", "driver 13000, runtime 13000"});
    for (const auto& [kernel, tk] :
         {std::pair{"axpby", tuning::Kernel::axpby}, std::pair{"dot", tuning::Kernel::dot},
          std::pair{"fused-cg", tuning::Kernel::fused_cg}}) {
        SCOPED_TRACE(kernel);
        const auto bands = choose_bands(
            pts, fits, kernel,
            [](std::size_t) {
                return LaunchConfig{256, 4};
            },
            0.01);
        const auto& want = shipped.bands.at(tk);
        ASSERT_EQ(bands.size(), want.size());
        for (std::size_t i = 0; i < bands.size(); ++i) {
            EXPECT_EQ(bands[i].n_min, want[i].n_min);
            EXPECT_EQ(bands[i].n_max, want[i].n_max);
            EXPECT_EQ(bands[i].launch.work_group_size, want[i].launch.work_group_size);
            EXPECT_EQ(bands[i].launch.items_per_thread, want[i].launch.items_per_thread);
            EXPECT_NEAR(bands[i].t0_us, want[i].t0_us, 0.01);
            EXPECT_NEAR(bands[i].wa_gbs, want[i].wa_gbs, 0.1);
            EXPECT_NEAR(bands[i].speedup, want[i].speedup, 2e-3);
        }
    }
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
