// One matrix-product measurement: random inputs, every requested variant timed on the same
// inputs (median of repeated calls, device events on the GPU), and each result checked
// against an independent computation.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "portla/gemm.hpp"

namespace portla::bench {

struct GemmCase {
    std::string backend = "auto";  ///< an Executor::create name
    std::string precision = "float";
    std::size_t m = 0, n = 0, k = 0;
    std::vector<GemmVariant> variants{GemmVariant::fast};
    double alpha = 1.0, beta = 0.0;
    int reps = 10;            ///< at most this many timed calls per variant ...
    double max_time_s = 2.0;  ///< ... and no more time than this (at least 3 calls)
};

struct GemmResult {
    GemmVariant variant = GemmVariant::fast;
    std::string backend, precision, device;
    std::size_t m = 0, n = 0, k = 0;
    double time_s = 0;  ///< median of the timed calls
    double time_min_s = 0, time_max_s = 0;
    int reps = 0;
    double gflops = 0;  ///< 2 m n k / time_s / 1e9
    /// ||C - C_check||_F / ||C_check||_F of the first call's result
    double relative_error = 0;
    /// what C_check came from: "reference" (sequential, summing in double) when
    /// m n k <= reference_limit(), else "vendor" (cuBLAS / OpenBLAS), or "fast" for the vendor
    /// variant itself
    std::string checked_against;
};

/// Largest m n k checked against the sequential reference (about a second of host time).
double reference_limit();

/// Runs every variant of `c` on the same inputs. Throws BadInput (precision, sizes),
/// Unsupported (a variant the backend lacks), OutOfMemory, DeviceError.
std::vector<GemmResult> run_gemm(const GemmCase& c);

}  // namespace portla::bench
