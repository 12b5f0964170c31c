/// \file
/// Tuning profiles: the launch configuration of each vector kernel per size band, measured on one
/// device by `portla tune` and read by the kernels at run time.
///
/// The vector kernels of an executor whose launch was never set (Executor::set_launch) ask
/// launch_for(exec, kernel, n) for theirs. It answers from the profile of exec's device, loaded
/// once per process and device from the first of:
///   1. the file set_profile_file names (the CLI and Python: $PORTLA_TUNING_FILE),
///   2. $XDG_CACHE_HOME/portla/tuning-SLUG.json ($HOME/.cache when XDG_CACHE_HOME is unset),
///   3. the shipped defaults compiled in (shipped_defaults).
/// A file that is malformed or was tuned on another device of the same backend is not used: one
/// warning line on stderr, and the shipped defaults. A profile of another backend is not used
/// either, silently (one named file beside the omp executor of a cuda run).
#pragma once

#include <cstddef>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "portla/executor.hpp"

/// Tuning profiles: the launch configuration of each vector kernel per size band and device.
namespace portla::tuning {

/// The kernels a profile configures (names as in `portla bench`).
enum class Kernel { copy, axpby, dot, norm2, fused_cg };
/// Every kernel, in the order above.
const std::vector<Kernel>& kernels();
/// "copy", "axpby", "dot", "norm2", "fused-cg".
std::string to_string(Kernel kernel);
/// Throws BadInput for a name that is not one of to_string's.
Kernel kernel_from_string(const std::string& name);

/// Band::n_max of the last band: no upper limit.
inline constexpr std::size_t unbounded = std::numeric_limits<std::size_t>::max();

/// Vectors of n_min <= n <= n_max elements run with `launch`. t0_us, wa_gbs: the fit of the
/// winning configuration (T = T0 + bytes / W_a); speedup: the default configuration's time over
/// the winner's, largest over the band's measured sizes (1 where nothing beat the default; 0
/// where the band was not measured).
struct Band {
    /// Smallest vector length of the band.
    std::size_t n_min = 0;
    /// Largest vector length of the band (`unbounded`: no limit).
    std::size_t n_max = unbounded;
    /// The configuration the band's kernels run with.
    LaunchConfig launch{};
    ///@{
    /// T0 in microseconds, W_a in GB/s and the speed-up over the default (see above).
    double t0_us = 0, wa_gbs = 0, speedup = 0;
    ///@}
};

/// The device a profile was tuned on. A profile is used only on a device of the same backend
/// and `device`; other `versions` only give a note.
struct DeviceIdentity {
    std::string backend;   ///< "cuda", "omp"
    std::string device;    ///< "NVIDIA H100 80GB HBM3, sm_90"; "Intel(R) Xeon(R) ..., 16 threads"
    std::string versions;  ///< cuda: "driver 13000, runtime 13000"; empty on CPUs
    /// backend and device in lower case, other characters as '-':
    /// "cuda-nvidia-h100-80gb-hbm3-sm-90".
    std::string slug() const;
};

/// Identity of exec's device. Throws DeviceError when the device cannot be queried.
DeviceIdentity identify(const Executor& exec);

/// A tuning profile: per kernel, the launch configuration of each size band, and where it came
/// from (portla tune writes it as JSON; to_json / from_json).
struct Profile {
    /// The device tuned on.
    DeviceIdentity identity;
    std::string origin;   ///< the file it was read from, or "shipped defaults (...)"
    std::string created;  ///< UTC time of the tuning run ("" for shipped defaults)
    std::string commit;   ///< portla commit of the tuning run
    std::string rule;     ///< how the configurations were chosen, in words
    /// Per kernel: bands sorted by size, from 0 to unbounded without gaps.
    std::map<Kernel, std::vector<Band>> bands;
    /// The configuration of the band of `kernel` holding n; LaunchConfig{} when the profile has
    /// no band for `kernel`.
    LaunchConfig lookup(Kernel kernel, std::size_t n) const;
};

/// Why Executor::set_launch refuses `config` ("" when it does not): a work-group size that is
/// not a multiple of 32 in [32, 1024], items per thread outside [1, 64], threads outside
/// [0, 4096]. A profile's bands are held to the same rule.
std::string launch_problem(const LaunchConfig& config);

/// The profile as JSON text (format "portla-tuning", version 1; docs/benchmarks.md, "portla tune").
std::string to_json(const Profile& profile);
/// Parses to_json's format. Throws BadInput naming `origin` and what is wrong: not JSON, another
/// format or version, an unknown kernel, bands that are unsorted, overlap, leave a gap or do not
/// reach from 0 to unbounded, or a launch configuration that Executor::set_launch refuses.
Profile from_json(const std::string& text, const std::string& origin);

/// Reads and parses the profile file at `path`. Throws BadInput: not a regular file, larger
/// than 1 MiB, unreadable, or what from_json refuses.
Profile read_profile_file(const std::string& path);

/// The compiled-in profile of exec's device: the configurations measured on the H100 (sm_90,
/// name containing "H100"); LaunchConfig{} (256 threads, 4 items) on every other GPU; threads 0
/// (the omp backend's behaviour before tuning) on CPUs.
Profile shipped_defaults(const Executor& exec);
/// The same for a device described by `id` (identify's form): the H100 table when the backend
/// is cuda and the device names an H100 and ends in ", sm_90".
Profile shipped_defaults(const DeviceIdentity& id);

/// Names the profile file of every device of the process ("": none, the default): the profiles
/// loaded afterwards (after reload() for those loaded already) come from it; the CLI and Python
/// set it from PORTLA_TUNING_FILE. A named file that does not exist is warned about once per
/// device; one tuned on another backend leaves that backend's defaults.
void set_profile_file(const std::string& path);
/// The file set_profile_file named ("" when none).
std::string profile_file();
/// Where the profile of exec's device is looked for: profile_file() when one is named, else the
/// per-user cache file; "" when neither it nor HOME can be found.
std::string profile_path(const Executor& exec);
/// The per-user cache file of exec's device: $XDG_CACHE_HOME/portla/tuning-SLUG.json, or
/// $HOME/.cache/portla/tuning-SLUG.json; "" when neither variable is set.
std::string cache_path(const Executor& exec);

/// The profile in force for exec's device (see the top of this file), loaded on first use; the
/// reference stays valid for the life of the process. Never throws for a bad file.
const Profile& active_profile(const Executor& exec);

/// The launch configuration of `kernel` on n elements: exec.launch() when it was set, else
/// active_profile(exec).lookup(kernel, n). Cheap after the first call on a device (no lock).
LaunchConfig launch_for(const Executor& exec, Kernel kernel, std::size_t n);

/// Forgets the loaded profiles: the next call reads the files again (`portla tune` after
/// writing one, tests). Must not run concurrently with kernels that read the profile.
void reload();

}  // namespace portla::tuning
