// Runtime of the reference backend: host memory, one thread.
#include "host/runtime.hpp"

namespace portla::kernels::reference {

int device_count(tag) { return 1; }

std::shared_ptr<const detail::Runtime> make_runtime(tag, int) {
    return std::make_shared<host::HostRuntime>(1);
}

}  // namespace portla::kernels::reference
