// The parser of the PORTLA_* environment variables (src/common/env_switch.hpp): a choice among
// named values or a bounded integer; unset or empty is the default; anything else is a
// one-line BadInput naming the variable, the value and what is accepted. And the one reader of
// the variables (portla/environment.hpp): each maps onto its typed option.
#include <gtest/gtest.h>

#include <climits>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "common/env_switch.hpp"
#include "portla/environment.hpp"
#include "portla/tuning.hpp"

namespace portla {
namespace {

using common::parse_choice;
using common::parse_integer;

/// The message of the BadInput `f` throws ("" and a failure when it throws nothing).
template <typename F>
std::string refusal(F f) {
    try {
        f();
    } catch (const BadInput& e) {
        return e.what();
    }
    ADD_FAILURE() << "no BadInput thrown";
    return "";
}

TEST(EnvSwitch, ChoiceNamesItsIndex) {
    EXPECT_EQ(parse_choice("PORTLA_X", "pass", {"pass", "fly"}), 0);
    EXPECT_EQ(parse_choice("PORTLA_X", "fly", {"pass", "fly"}), 1);
    EXPECT_EQ(parse_choice("PORTLA_X", "8", {"16", "8"}), 1);
}

TEST(EnvSwitch, ChoiceUnsetOrEmptyIsTheDefault) {
    EXPECT_EQ(parse_choice("PORTLA_X", nullptr, {"pass", "fly"}), -1);
    EXPECT_EQ(parse_choice("PORTLA_X", "", {"pass", "fly"}), -1);
}

TEST(EnvSwitch, ChoiceRefusesATypoInOneLine) {
    EXPECT_EQ(refusal([] {
                  parse_choice("PORTLA_CG_DIRECTION", "flyy", {"pass", "fly"});
              }),
              "PORTLA_CG_DIRECTION=flyy: expected pass or fly");
    EXPECT_EQ(refusal([] { parse_choice("PORTLA_HALO", "stagd", {"staged"}); }),
              "PORTLA_HALO=stagd: expected staged");
    EXPECT_EQ(refusal([] {
                  parse_choice("PORTLA_B", "7", {"0", "5", "6", "8"});
              }),
              "PORTLA_B=7: expected 0, 5, 6 or 8");
    // exact words only: no case folding, no prefix, no surrounding space
    for (const char* typo : {"Fly", "FLY", "fl", "flyer", " fly", "fly ", "fly\n", "pass,fly"})
        EXPECT_EQ(refusal([typo] {
                      parse_choice("PORTLA_X", typo, {"pass", "fly"});
                  }),
                  std::string("PORTLA_X=") + typo + ": expected pass or fly");
}

TEST(EnvSwitch, IntegerInRange) {
    EXPECT_EQ(parse_integer("PORTLA_X", "0", 0, 100, 7), 0);
    EXPECT_EQ(parse_integer("PORTLA_X", "12", 0, 100, 7), 12);
    EXPECT_EQ(parse_integer("PORTLA_X", "100", 0, 100, 7), 100);
    EXPECT_EQ(parse_integer("PORTLA_X", "007", 0, 100, 7), 7);
    EXPECT_EQ(parse_integer("PORTLA_X", "-5", -5, 5, 7), -5);
    EXPECT_EQ(parse_integer("PORTLA_X", "9223372036854775807", 0, LLONG_MAX, 7), LLONG_MAX);
    EXPECT_EQ(parse_integer("PORTLA_X", "-9223372036854775808", LLONG_MIN, 0, 7), LLONG_MIN);
}

TEST(EnvSwitch, IntegerUnsetOrEmptyIsTheDefault) {
    EXPECT_EQ(parse_integer("PORTLA_X", nullptr, 0, 100, 42), 42);
    EXPECT_EQ(parse_integer("PORTLA_X", "", 0, 100, 42), 42);
}

TEST(EnvSwitch, IntegerWordsHaveTheirOwnValue) {
    EXPECT_EQ(parse_integer("PORTLA_X", "off", 1, 100, 42, {{"off", 0}}), 0);
    EXPECT_EQ(parse_integer("PORTLA_X", "50", 1, 100, 42, {{"off", 0}}), 50);
}

TEST(EnvSwitch, IntegerRefusesJunkAndOutOfRangeInOneLine) {
    const std::string range = ": expected an integer from 0 to 100";
    for (const char* bad : {"12x", "x12", "1 2", " 12", "12 ", "+12", "1e3", "0x10", "12.0", "-",
                            "-1", "101", "99999999999999999999", "off"})
        EXPECT_EQ(refusal([bad] { parse_integer("PORTLA_X", bad, 0, 100, 42); }),
                  std::string("PORTLA_X=") + bad + range);
    EXPECT_EQ(refusal([] {
                  parse_integer("PORTLA_CG_BLOCK_LOOP", "of", 0, 100, 42, {{"off", 0}});
              }),
              "PORTLA_CG_BLOCK_LOOP=of: expected off or an integer from 0 to 100");
    EXPECT_EQ(refusal([] { parse_integer("PORTLA_OMP_MIN_PARALLEL", "-1", 0, LLONG_MAX, 42); }),
              "PORTLA_OMP_MIN_PARALLEL=-1: expected an integer >= 0");
    EXPECT_EQ(refusal([] {
                  parse_integer("PORTLA_X", "9223372036854775808", 0, LLONG_MAX, 42);  // 2^63
              }),
              "PORTLA_X=9223372036854775808: expected an integer >= 0");
}

/// Sets `name` for the scope (unset on the way out).
class ScopedVariable {
public:
    ScopedVariable(const char* name, const char* value) : name_(name) { ::setenv(name, value, 1); }
    ~ScopedVariable() { ::unsetenv(name_); }
    ScopedVariable(const ScopedVariable&) = delete;
    ScopedVariable& operator=(const ScopedVariable&) = delete;

private:
    const char* name_;
};

// Every variable portla/environment.hpp reads: unset, the defaults of the typed options.
const char* const variables[] = {"PORTLA_PACKED_LOADS",
                                 "PORTLA_CLUSTER_SUMS",
                                 "PORTLA_CLUSTER_MAX",
                                 "PORTLA_CSR_ROW",
                                 "PORTLA_CSR_SPLIT",
                                 "PORTLA_HOST_SPARSE",
                                 "PORTLA_CG_DIRECTION",
                                 "PORTLA_CG_STENCIL",
                                 "PORTLA_SLAB_STENCIL",
                                 "PORTLA_CG_BLOCK_LOOP",
                                 "PORTLA_GEMM_FAST_TILE",
                                 "PORTLA_BATCH_WARP_MAX_ROWS",
                                 "PORTLA_BATCH_REGISTERS",
                                 "PORTLA_BATCH_REG_MIN_BLOCKS",
                                 "PORTLA_OMP_MIN_PARALLEL",
                                 "PORTLA_OPENCL_NO_WARP",
                                 "PORTLA_OPENCL_CACHE",
                                 "PORTLA_TUNING_FILE",
                                 "PORTLA_HALO",
                                 "PORTLA_OPENCL_DEVICE",
                                 "PORTLA_COMMIT"};

class Environment : public ::testing::Test {
protected:
    void SetUp() override {
        for (const char* v : variables) {
            if (const char* old = std::getenv(v)) saved_.emplace_back(v, old);
            ::unsetenv(v);
        }
    }
    void TearDown() override {
        for (const auto& [name, value] : saved_) ::setenv(name.c_str(), value.c_str(), 1);
        set_omp_parallel_threshold(4096);
        set_opencl_settings(OpenclSettings{});
        tuning::set_profile_file("");
    }

private:
    std::vector<std::pair<std::string, std::string>> saved_;
};

bool same(const KernelOptions& a, const KernelOptions& b) {
    return a.packed_loads == b.packed_loads && a.cluster_sums == b.cluster_sums &&
           a.cluster_max == b.cluster_max && a.csr_row == b.csr_row && a.csr_split == b.csr_split &&
           a.host_sparse == b.host_sparse && a.cg_direction == b.cg_direction &&
           a.cg_stencil == b.cg_stencil && a.cg_stencil_planes == b.cg_stencil_planes &&
           a.slab_stencil == b.slab_stencil && a.cg_block_loop_rows == b.cg_block_loop_rows &&
           a.gemm_fast_tile == b.gemm_fast_tile && a.batch_warp_max_rows == b.batch_warp_max_rows &&
           a.batch_registers == b.batch_registers &&
           a.batch_reg_min_blocks == b.batch_reg_min_blocks;
}

TEST_F(Environment, UnsetOrEmptyIsTheDefault) {
    EXPECT_TRUE(same(kernel_options_from_environment(), KernelOptions{}));
    for (const char* v : variables) ::setenv(v, "", 1);
    EXPECT_TRUE(same(kernel_options_from_environment(), KernelOptions{}));
    EXPECT_EQ(omp_parallel_threshold_from_environment(), 4096u);
    EXPECT_TRUE(opencl_settings_from_environment().warp_shuffles);
    EXPECT_TRUE(opencl_settings_from_environment().program_cache);
    EXPECT_EQ(halo_mode_from_environment(), dist::HaloMode::automatic);
    EXPECT_EQ(tuning_file_from_environment(), "");
    EXPECT_EQ(commit_from_environment(), "");
    for (const char* v : variables) ::unsetenv(v);
}

// Each variable sets its option, and nothing else.
TEST_F(Environment, EachVariableSetsItsOption) {
    struct Case {
        const char* name;
        const char* value;
        void (*expect)(KernelOptions&);  // the defaults changed as the variable says
    };
    const Case cases[] = {
        {"PORTLA_PACKED_LOADS", "off", [](KernelOptions& o) { o.packed_loads = false; }},
        {"PORTLA_PACKED_LOADS", "on", [](KernelOptions&) {}},
        {"PORTLA_CLUSTER_SUMS", "off", [](KernelOptions& o) { o.cluster_sums = false; }},
        {"PORTLA_CLUSTER_MAX", "8", [](KernelOptions& o) { o.cluster_max = 8; }},
        {"PORTLA_CLUSTER_MAX", "16", [](KernelOptions&) {}},
        {"PORTLA_CSR_ROW", "loop",
         [](KernelOptions& o) { o.csr_row = KernelOptions::CsrRow::loop; }},
        {"PORTLA_CSR_SPLIT", "off", [](KernelOptions& o) { o.csr_split = false; }},
        {"PORTLA_HOST_SPARSE", "off", [](KernelOptions& o) { o.host_sparse = false; }},
        {"PORTLA_CG_DIRECTION", "pass",
         [](KernelOptions& o) { o.cg_direction = KernelOptions::CgDirection::pass; }},
        {"PORTLA_CG_DIRECTION", "fly",
         [](KernelOptions& o) { o.cg_direction = KernelOptions::CgDirection::fly; }},
        {"PORTLA_CG_STENCIL", "points",
         [](KernelOptions& o) { o.cg_stencil = KernelOptions::CgStencil::points; }},
        {"PORTLA_CG_STENCIL", "lines1024",
         [](KernelOptions& o) { o.cg_stencil = KernelOptions::CgStencil::lines1024; }},
        {"PORTLA_CG_STENCIL", "lines:7",
         [](KernelOptions& o) {
             o.cg_stencil = KernelOptions::CgStencil::lines;
             o.cg_stencil_planes = 7;
         }},
        {"PORTLA_CG_STENCIL", "ring:512",
         [](KernelOptions& o) {
             o.cg_stencil = KernelOptions::CgStencil::ring;
             o.cg_stencil_planes = 512;
         }},
        {"PORTLA_SLAB_STENCIL", "points",
         [](KernelOptions& o) { o.slab_stencil = KernelOptions::SlabStencil::points; }},
        {"PORTLA_SLAB_STENCIL", "ring",
         [](KernelOptions& o) { o.slab_stencil = KernelOptions::SlabStencil::ring; }},
        {"PORTLA_CG_BLOCK_LOOP", "off", [](KernelOptions& o) { o.cg_block_loop_rows = 0; }},
        {"PORTLA_CG_BLOCK_LOOP", "20000", [](KernelOptions& o) { o.cg_block_loop_rows = 20000; }},
        {"PORTLA_GEMM_FAST_TILE", "small",
         [](KernelOptions& o) { o.gemm_fast_tile = KernelOptions::GemmTile::small; }},
        {"PORTLA_GEMM_FAST_TILE", "large",
         [](KernelOptions& o) { o.gemm_fast_tile = KernelOptions::GemmTile::large; }},
        {"PORTLA_BATCH_WARP_MAX_ROWS", "0", [](KernelOptions& o) { o.batch_warp_max_rows = 0; }},
        {"PORTLA_BATCH_REGISTERS", "0", [](KernelOptions& o) { o.batch_registers = false; }},
        {"PORTLA_BATCH_REG_MIN_BLOCKS", "6", [](KernelOptions& o) { o.batch_reg_min_blocks = 6; }},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(std::string(c.name) + "=" + c.value);
        const ScopedVariable v(c.name, c.value);
        KernelOptions want;
        c.expect(want);
        EXPECT_TRUE(same(kernel_options_from_environment(), want));
        EXPECT_TRUE(same(executor_from_environment("reference").kernel_options(), want));
        // a plain library call's executor takes the defaults, whatever the environment says
        EXPECT_TRUE(same(Executor::create("reference").kernel_options(), KernelOptions{}));
    }
    {
        const ScopedVariable v("PORTLA_OMP_MIN_PARALLEL", "0");
        EXPECT_EQ(omp_parallel_threshold_from_environment(), 0u);
        EXPECT_EQ(omp_parallel_threshold(), 4096u);  // not applied yet
        apply_environment();
        EXPECT_EQ(omp_parallel_threshold(), 0u);
    }
    {
        const ScopedVariable a("PORTLA_OPENCL_NO_WARP", "1"), b("PORTLA_OPENCL_CACHE", "0");
        EXPECT_FALSE(opencl_settings_from_environment().warp_shuffles);
        EXPECT_FALSE(opencl_settings_from_environment().program_cache);
        apply_environment();
        EXPECT_FALSE(opencl_settings().warp_shuffles);
        EXPECT_FALSE(opencl_settings().program_cache);
    }
    {
        const ScopedVariable v("PORTLA_TUNING_FILE", "/some/profile.json");
        apply_environment();
        EXPECT_EQ(tuning::profile_file(), "/some/profile.json");
    }
    {
        const ScopedVariable v("PORTLA_HALO", "staged");
        EXPECT_EQ(halo_mode_from_environment(), dist::HaloMode::staged);
    }
    {
        const ScopedVariable v("PORTLA_COMMIT", "abc123");
        EXPECT_EQ(commit_from_environment(), "abc123");
    }
}

// A value a variable does not accept is one line naming it, from the reader and from every
// function over it; apply_environment then sets nothing.
TEST_F(Environment, BadValuesAreOneLine) {
    const struct {
        const char* name;
        const char* typo;
        const char* accepted;
    } cases[] = {
        {"PORTLA_PACKED_LOADS", "ON", "on or off"},
        {"PORTLA_CLUSTER_SUMS", "off ", "on or off"},
        {"PORTLA_CLUSTER_MAX", "9", "16 or 8"},
        {"PORTLA_CSR_ROW", "loops", "chunked or loop"},
        {"PORTLA_CSR_SPLIT", "yes", "on or off"},
        {"PORTLA_HOST_SPARSE", "no", "on or off"},
        {"PORTLA_CG_DIRECTION", "flyy", "pass or fly"},
        {"PORTLA_CG_STENCIL", "ring:513",
         "points, lines, lines1024 or ring, the last three with an optional :PLANES (1 ... 512)"},
        {"PORTLA_SLAB_STENCIL", "rings", "points or ring"},
        {"PORTLA_CG_BLOCK_LOOP", "12x", "off or an integer >= 0"},
        {"PORTLA_GEMM_FAST_TILE", "big", "large or small"},
        {"PORTLA_BATCH_WARP_MAX_ROWS", "128x", "an integer from 0 to 2147483647"},
        {"PORTLA_BATCH_REGISTERS", "on", "1 or 0"},
        {"PORTLA_BATCH_REG_MIN_BLOCKS", "7", "0, 5, 6 or 8"},
        {"PORTLA_OMP_MIN_PARALLEL", "12x", "an integer >= 0"},
        {"PORTLA_OPENCL_NO_WARP", "yes", "0 or 1"},
        {"PORTLA_OPENCL_CACHE", "off", "1 or 0"},
        {"PORTLA_HALO", "stagd", "staged"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.name);
        const ScopedVariable v(c.name, c.typo);
        const std::string message = std::string(c.name) + "=" + c.typo + ": expected " + c.accepted;
        EXPECT_EQ(refusal([] { apply_environment(); }), message);
        EXPECT_EQ(refusal([] { (void)executor_from_environment("reference"); }), message);
        EXPECT_EQ(refusal([] { (void)with_environment(Executor::reference()); }), message);
        EXPECT_EQ(omp_parallel_threshold(), 4096u);
    }
    const ScopedVariable v("PORTLA_OPENCL_DEVICE", "x1");
    if (compiled(Backend::opencl)) {
        EXPECT_EQ(refusal([] { (void)executor_from_environment("opencl"); }),
                  "PORTLA_OPENCL_DEVICE=x1: expected a device number N or platform and device P:D");
    }
}

}  // namespace
}  // namespace portla
