// The one file that reads the PORTLA_* environment variables (portla/environment.hpp): each maps
// onto a typed option; the parser of common/env_switch.hpp refuses a value a variable does not
// accept.
#include "portla/environment.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "common/env_switch.hpp"
#include "portla/error.hpp"
#include "portla/tuning.hpp"

namespace portla {
namespace {

constexpr long long kLongMax = std::numeric_limits<long long>::max();

// parse_choice of environment variable `name`.
int choice(const char* name, std::initializer_list<const char*> choices) {
    return common::parse_choice(name, std::getenv(name), choices);
}

// parse_integer of environment variable `name`.
long long integer(const char* name, long long lo, long long hi, long long fallback,
                  std::initializer_list<std::pair<const char*, long long>> words = {}) {
    return common::parse_integer(name, std::getenv(name), lo, hi, fallback, words);
}

// PORTLA_CG_STENCIL: points, or lines, lines1024 or ring with an optional :PLANES (1 ... 512,
// decimal digits only).
void read_cg_stencil(KernelOptions& o) {
    using Stencil = KernelOptions::CgStencil;
    const char* how = std::getenv("PORTLA_CG_STENCIL");
    if (!how || !*how) return;  // set but empty: as unset
    const char* rest = how;
    auto take = [&rest](const char* word) {
        const std::size_t n = std::strlen(word);
        if (std::strncmp(rest, word, n) != 0 || (rest[n] != '\0' && rest[n] != ':')) return false;
        rest += n;
        return true;
    };
    Stencil kernel = Stencil::automatic;
    int planes = 0;
    const bool points = take("points");  // takes no :PLANES
    if (points)
        kernel = Stencil::points;
    else if (take("lines1024"))
        kernel = Stencil::lines1024;
    else if (take("lines"))
        kernel = Stencil::lines;
    else if (take("ring"))
        kernel = Stencil::ring;
    else
        rest = nullptr;
    if (rest && *rest == ':' && points) rest = nullptr;
    if (rest && *rest == ':') {
        // plain decimal digits only, as every variable: no sign, space or suffix, which strtoul
        // alone would take
        const char* digits = rest + 1;
        const std::size_t len = std::strlen(digits);
        const bool plain = len > 0 && len <= 4 && std::all_of(digits, digits + len, [](char d) {
                               return d >= '0' && d <= '9';
                           });
        const unsigned long n = plain ? std::strtoul(digits, nullptr, 10) : 0;
        if (n == 0 || n > 512)
            rest = nullptr;
        else
            planes = static_cast<int>(n);
    }
    if (!rest)
        throw BadInput(std::string("PORTLA_CG_STENCIL=") + how +
                       ": expected points, lines, lines1024 or ring, the last three with an "
                       "optional :PLANES (1 ... 512)");
    o.cg_stencil = kernel;
    o.cg_stencil_planes = planes;
}

}  // namespace

KernelOptions kernel_options_from_environment() {
    KernelOptions o;
    o.packed_loads = choice("PORTLA_PACKED_LOADS", {"on", "off"}) != 1;
    o.cluster_sums = choice("PORTLA_CLUSTER_SUMS", {"on", "off"}) != 1;
    o.cluster_max = choice("PORTLA_CLUSTER_MAX", {"16", "8"}) == 1 ? 8 : 16;
    o.csr_row = choice("PORTLA_CSR_ROW", {"chunked", "loop"}) == 1 ? KernelOptions::CsrRow::loop
                                                                   : KernelOptions::CsrRow::chunked;
    o.csr_split = choice("PORTLA_CSR_SPLIT", {"on", "off"}) != 1;
    o.host_sparse = choice("PORTLA_HOST_SPARSE", {"on", "off"}) != 1;
    switch (choice("PORTLA_CG_DIRECTION", {"pass", "fly"})) {
        case 0:
            o.cg_direction = KernelOptions::CgDirection::pass;
            break;
        case 1:
            o.cg_direction = KernelOptions::CgDirection::fly;
            break;
        default:
            break;
    }
    read_cg_stencil(o);
    if (const int slab = choice("PORTLA_SLAB_STENCIL", {"points", "ring"}); slab >= 0)
        o.slab_stencil =
            slab == 0 ? KernelOptions::SlabStencil::points : KernelOptions::SlabStencil::ring;
    o.cg_block_loop_rows = static_cast<std::size_t>(
        integer("PORTLA_CG_BLOCK_LOOP", 0, kLongMax, static_cast<long long>(o.cg_block_loop_rows),
                {{"off", 0}}));
    switch (choice("PORTLA_GEMM_FAST_TILE", {"large", "small"})) {
        case 0:
            o.gemm_fast_tile = KernelOptions::GemmTile::large;
            break;
        case 1:
            o.gemm_fast_tile = KernelOptions::GemmTile::small;
            break;
        default:
            break;
    }
    o.batch_warp_max_rows = static_cast<int>(integer(
        "PORTLA_BATCH_WARP_MAX_ROWS", 0, std::numeric_limits<int>::max(), o.batch_warp_max_rows));
    o.batch_registers = choice("PORTLA_BATCH_REGISTERS", {"1", "0"}) != 1;
    constexpr int reg_blocks[] = {0, 5, 6, 8};
    const int r = choice("PORTLA_BATCH_REG_MIN_BLOCKS", {"0", "5", "6", "8"});
    o.batch_reg_min_blocks = r < 0 ? 0 : reg_blocks[r];
    return o;
}

OpenclSettings opencl_settings_from_environment() {
    OpenclSettings s;
    s.warp_shuffles = choice("PORTLA_OPENCL_NO_WARP", {"0", "1"}) != 1;
    s.program_cache = choice("PORTLA_OPENCL_CACHE", {"1", "0"}) != 1;
    return s;
}

std::size_t omp_parallel_threshold_from_environment() {
    return static_cast<std::size_t>(integer("PORTLA_OMP_MIN_PARALLEL", 0, kLongMax, 4096));
}

std::string tuning_file_from_environment() {
    const char* env = std::getenv("PORTLA_TUNING_FILE");
    return env ? env : "";
}

dist::HaloMode halo_mode_from_environment() {
    return choice("PORTLA_HALO", {"staged"}) == 0 ? dist::HaloMode::staged
                                                  : dist::HaloMode::automatic;
}

std::string commit_from_environment() {
    const char* env = std::getenv("PORTLA_COMMIT");
    return env ? env : "";
}

void apply_environment() {
    (void)kernel_options_from_environment();
    (void)halo_mode_from_environment();
    const OpenclSettings opencl = opencl_settings_from_environment();
    const std::size_t threshold = omp_parallel_threshold_from_environment();
    set_opencl_settings(opencl);
    set_omp_parallel_threshold(threshold);
    tuning::set_profile_file(tuning_file_from_environment());
}

Executor executor_from_environment(const std::string& name) {
    apply_environment();
    Executor exec = [&] {
        // Plain "opencl": the device PORTLA_OPENCL_DEVICE names (N or P:D), else device 0
        // (PoCL's CPU and NVIDIA's GPU on one machine: the tests and benchmarks that say
        // "opencl" run on either).
        if (name == "opencl")
            if (const char* env = std::getenv("PORTLA_OPENCL_DEVICE"); env && *env) {
                try {
                    return Executor::create("opencl:" + std::string(env));
                } catch (const BadInput&) {
                    throw BadInput("PORTLA_OPENCL_DEVICE=" + std::string(env) +
                                   ": expected a device number N or platform and device P:D");
                }
            }
        return Executor::create(name);
    }();
    exec.set_kernel_options(kernel_options_from_environment());
    return exec;
}

Executor with_environment(Executor exec) {
    apply_environment();
    exec.set_kernel_options(kernel_options_from_environment());
    return exec;
}

}  // namespace portla
