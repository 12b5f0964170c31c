/// \file
/// The PORTLA_* environment variables: how the command line (apps/portla) and the Python package
/// let a user set the typed options (portla/kernel_options.hpp, dist::HaloMode, the tuning file)
/// without code. The library reads none of them by itself: an executor made by
/// Executor::create, and every executor a library call makes on its own, takes the defaults.
/// These functions are the one place that reads them (src/core/environment.cpp); the table of
/// variables is docs/kernel-choices.md, "Options".
///
/// Unset, or set to the empty string, means the default. Any other value a variable does not
/// accept throws BadInput with one line naming the variable, the value and what it accepts
/// ("PORTLA_CG_DIRECTION=flyy: expected pass or fly"), never a silent fall-back.
#pragma once

#include <string>

#include "portla/dist/communicator.hpp"
#include "portla/executor.hpp"
#include "portla/kernel_options.hpp"

namespace portla {

/// The kernel options PORTLA_PACKED_LOADS, PORTLA_CLUSTER_SUMS, PORTLA_CLUSTER_MAX,
/// PORTLA_CSR_ROW, PORTLA_CSR_SPLIT, PORTLA_HOST_SPARSE, PORTLA_CG_DIRECTION, PORTLA_CG_STENCIL,
/// PORTLA_SLAB_STENCIL, PORTLA_CG_BLOCK_LOOP, PORTLA_GEMM_FAST_TILE, PORTLA_BATCH_WARP_MAX_ROWS,
/// PORTLA_BATCH_REGISTERS and PORTLA_BATCH_REG_MIN_BLOCKS name. Throws BadInput.
KernelOptions kernel_options_from_environment();

/// The OpenCL runtime's settings PORTLA_OPENCL_NO_WARP and PORTLA_OPENCL_CACHE name. Throws
/// BadInput.
OpenclSettings opencl_settings_from_environment();

/// PORTLA_OMP_MIN_PARALLEL, else 4096. Throws BadInput.
std::size_t omp_parallel_threshold_from_environment();

/// PORTLA_TUNING_FILE ("" when unset).
std::string tuning_file_from_environment();

/// PORTLA_HALO: staged, else automatic. Throws BadInput.
dist::HaloMode halo_mode_from_environment();

/// PORTLA_COMMIT: the commit `portla bench` and `portla gemm` record instead of the one the
/// binary was built from ("" when unset).
std::string commit_from_environment();

/// Reads every variable above, so that a bad value of any is refused at once, and sets the
/// process-wide settings: set_opencl_settings, set_omp_parallel_threshold and
/// tuning::set_profile_file. Throws BadInput (and then sets nothing).
void apply_environment();

/// Executor::create(name) with exec.set_kernel_options(kernel_options_from_environment()); for
/// a plain "opencl", the device PORTLA_OPENCL_DEVICE names (N or P:D), else device 0. Calls
/// apply_environment() first. Throws BadInput, and what Executor::create throws.
Executor executor_from_environment(const std::string& name);

/// `exec` with the kernel options of the environment; calls apply_environment() first. Throws
/// BadInput.
Executor with_environment(Executor exec);

}  // namespace portla
