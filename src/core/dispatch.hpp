// From backend-independent code to a backend's kernel: the one place that turns an executor's
// backend into a call, generated from the list in include/portla/backend_list.hpp.
//
// Each backend has a namespace portla::kernels::<name> with a tag type `tag`. A kernel family
// declares its kernels once for every backend of the list (e.g. core/kernels/blas1_kernels.hpp)
// as templates whose first parameter is that tag; each backend defines them in
// src/<name>/<family>_kernels.{cpp,cu}. An algorithm calls
//
//     dispatch(exec, [&](auto backend) { dot(backend, exec, x, y, result); });
//
// and the unqualified call finds kernels::<name>::dot through the tag (argument-dependent
// lookup): an ordinary call that an IDE, ctags or a debugger follows into src/<name>/. A backend
// that is switched off (PORTLA_ENABLED_<name> = 0, set by CMake) is never instantiated: its
// kernels need no stubs, and dispatching to it throws NotCompiled{"<name>"}.
#pragma once

#include "portla/backend_list.hpp"
#include "portla/error.hpp"
#include "portla/executor.hpp"

namespace portla::kernels {

#define PORTLA_BACKEND_TAG(name)                                    \
    namespace name {                                                \
    struct tag {                                                    \
        static constexpr Backend backend = Backend::name;           \
        static constexpr const char* name_string = #name;           \
        static constexpr bool enabled = PORTLA_ENABLED_##name != 0; \
    };                                                              \
    }
PORTLA_FOR_EACH_BACKEND(PORTLA_BACKEND_TAG)
#undef PORTLA_BACKEND_TAG

}  // namespace portla::kernels

namespace portla {

/// Calls kernel(kernels::<name>::tag{}) for the backend `backend`; throws NotCompiled when that
/// backend was switched off. (For the kernels of a family some backend lacks, dispatch<Family>.)
template <typename Kernel>
decltype(auto) dispatch(Backend backend, Kernel&& kernel) {
    switch (backend) {
#define PORTLA_DISPATCH_CASE(name)                              \
    case Backend::name:                                         \
        if constexpr (kernels::name::tag::enabled) {            \
            return kernel(kernels::name::tag{});                \
        } else {                                                \
            throw NotCompiled(kernels::name::tag::name_string); \
        }
        PORTLA_FOR_EACH_BACKEND(PORTLA_DISPATCH_CASE)
#undef PORTLA_DISPATCH_CASE
    }
    throw Error("dispatch: unknown backend " + std::to_string(static_cast<int>(backend)));
}

/// dispatch(exec.backend(), kernel).
template <typename Kernel>
decltype(auto) dispatch(const Executor& exec, Kernel&& kernel) {
    return dispatch(exec.backend(), std::forward<Kernel>(kernel));
}

/// dispatch for a kernel of `family`: a backend that does not implement the family (see
/// PORTLA_FOR_EACH_MISSING_KERNEL_FAMILY) is never instantiated, and dispatching to it throws
/// Unsupported naming the family and the backend.
template <KernelFamily family, typename Kernel>
decltype(auto) dispatch(const Executor& exec, Kernel&& kernel) {
    switch (exec.backend()) {
#define PORTLA_DISPATCH_FAMILY_CASE(name)                          \
    case Backend::name:                                            \
        if constexpr (!kernels::name::tag::enabled) {              \
            throw NotCompiled(kernels::name::tag::name_string);    \
        } else if constexpr (!implements(Backend::name, family)) { \
            throw Unsupported("the " + to_string(family) +         \
                              " kernels are not implemented on "   \
                              "the " #name " backend yet");        \
        } else {                                                   \
            return kernel(kernels::name::tag{});                   \
        }
        PORTLA_FOR_EACH_BACKEND(PORTLA_DISPATCH_FAMILY_CASE)
#undef PORTLA_DISPATCH_FAMILY_CASE
    }
    throw Error("dispatch: unknown backend " + std::to_string(static_cast<int>(exec.backend())));
}

}  // namespace portla
