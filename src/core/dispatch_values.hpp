// dispatch for kernels over a value type T that may be complex: the backends with complex
// kernels are listed here, and a complex T sent to another backend throws Unsupported instead of
// instantiating a kernel that does not exist.
#pragma once

#include <string>
#include <utility>

#include "common/scalar.hpp"
#include "core/dispatch.hpp"

namespace portla {

/// X(name) for every backend with kernels over complex values (std::complex<float>, <double>).
#define PORTLA_FOR_EACH_COMPLEX_BACKEND(X) X(reference) X(omp) X(cuda) X(opencl)

/// Whether `backend` has kernels over complex values.
constexpr bool supports_complex(Backend backend) {
#define PORTLA_COMPLEX_BACKEND(b) \
    if (backend == Backend::b) return true;
    PORTLA_FOR_EACH_COMPLEX_BACKEND(PORTLA_COMPLEX_BACKEND)
#undef PORTLA_COMPLEX_BACKEND
    return false;
}

/// dispatch for a kernel over values of type T: for a complex T, a backend without complex
/// kernels (supports_complex) is never instantiated, and dispatching to it throws Unsupported
/// naming the value type and the backend. A real T dispatches as dispatch().
template <typename T, typename Kernel>
decltype(auto) dispatch_values(const Executor& exec, Kernel&& kernel) {
    if constexpr (!common::is_complex_v<T>) {
        return dispatch(exec, std::forward<Kernel>(kernel));
    } else {
        switch (exec.backend()) {
#define PORTLA_DISPATCH_VALUES_CASE(name)                                                 \
    case Backend::name:                                                                   \
        if constexpr (!kernels::name::tag::enabled) {                                     \
            throw NotCompiled(kernels::name::tag::name_string);                           \
        } else if constexpr (!supports_complex(Backend::name)) {                          \
            throw Unsupported(std::string("complex values (") + common::dtype_name<T>() + \
                              ") are not supported on the " #name " backend yet");        \
        } else {                                                                          \
            return kernel(kernels::name::tag{});                                          \
        }
            PORTLA_FOR_EACH_BACKEND(PORTLA_DISPATCH_VALUES_CASE)
#undef PORTLA_DISPATCH_VALUES_CASE
        }
        throw Error("dispatch: unknown backend " +
                    std::to_string(static_cast<int>(exec.backend())));
    }
}

}  // namespace portla
