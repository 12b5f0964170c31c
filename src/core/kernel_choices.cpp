#include "portla/kernel_choices.hpp"

#include <cstring>

namespace portla {
namespace {

constexpr int kMaxSteps = 32;

struct Record {
    const char* step[kMaxSteps];
    const char* kernel[kMaxSteps];
    int count = 0;
};

thread_local Record record;

}  // namespace

namespace detail {

void note_kernel(const char* step, const char* kernel) noexcept {
    for (int i = 0; i < record.count; ++i)
        if (record.step[i] == step || std::strcmp(record.step[i], step) == 0) {
            record.kernel[i] = kernel;
            return;
        }
    if (record.count == kMaxSteps) return;
    record.step[record.count] = step;
    record.kernel[record.count] = kernel;
    ++record.count;
}

}  // namespace detail

std::vector<KernelChoice> kernel_choices() {
    std::vector<KernelChoice> out;
    out.reserve(static_cast<std::size_t>(record.count));
    for (int i = 0; i < record.count; ++i) out.push_back({record.step[i], record.kernel[i]});
    return out;
}

void clear_kernel_choices() { record.count = 0; }

}  // namespace portla
