/// \file
/// Which kernel variant each step of the library took: what it chose by size, device or switch
/// (the 3-D stencil's direction step by tiles or by points, a sum through a thread block cluster
/// or a ticket, ...). `portla solve --json` reports them as "kernels"; tests that force a variant
/// check that it ran.
#pragma once

#include <string>
#include <vector>

namespace portla {

/// One recorded choice: the kernel variant one step took.
struct KernelChoice {
    std::string step;    ///< e.g. "cg.direction"
    std::string kernel;  ///< e.g. "stencil-ring"
};

/// The choices made on the calling thread since clear_kernel_choices(), the last one of each
/// step, in the order the steps first chose. Only the backends that choose between variants
/// record (cuda); the others leave the list empty.
std::vector<KernelChoice> kernel_choices();

/// Forgets the calling thread's choices.
void clear_kernel_choices();

namespace detail {
/// Records that `step` took `kernel` on the calling thread. Both are names with static storage
/// (string literals): the record keeps the pointers. Cheap enough for every launch (a few
/// pointer comparisons). At most 32 steps are kept; later new steps are dropped.
void note_kernel(const char* step, const char* kernel) noexcept;
}  // namespace detail

}  // namespace portla
