// Runtime of the omp backend: host memory, every OpenMP thread.
#include "host/runtime.hpp"

#if PORTLA_WITH_OMP
#include <omp.h>
#endif

namespace portla::kernels::omp {

int device_count(tag) { return 1; }

std::shared_ptr<const detail::Runtime> make_runtime(tag, int) {
#if PORTLA_WITH_OMP
    return std::make_shared<host::HostRuntime>(omp_get_max_threads());
#else
    return std::make_shared<host::HostRuntime>(1);
#endif
}

}  // namespace portla::kernels::omp
