// cuBLAS and cuSPARSE at their first use: see vendor_library.hpp.
#include "cuda/vendor_library.hpp"

#include <cublas_v2.h>
#include <cusparse.h>
#include <dlfcn.h>

#include <mutex>
#include <string>

#include "portla/error.hpp"

namespace portla::kernels::cuda {
namespace {

#define PORTLA_SO_NAME(stem, major) "lib" stem ".so." PORTLA_VENDOR_STRING(major)
constexpr const char* kCublas = PORTLA_SO_NAME("cublas", CUBLAS_VER_MAJOR);
constexpr const char* kCusparse = PORTLA_SO_NAME("cusparse", CUSPARSE_VER_MAJOR);
#undef PORTLA_SO_NAME

void* open_library(VendorLibrary library) {
    static std::mutex mutex;
    static void* handles[2] = {nullptr, nullptr};
    std::lock_guard<std::mutex> lock(mutex);
    void*& handle = handles[static_cast<int>(library)];
    if (handle) return handle;
    // Never closed: its functions and handles live until the process ends.
    handle = dlopen(vendor_library_name(library), RTLD_NOW | RTLD_LOCAL);
    if (handle) return handle;
    const char* why = dlerror();
    std::string reasons = why ? why : "unknown error";
#ifdef PORTLA_CUDA_LIBRARY_DIR
    // Not on the loader's paths: the toolkit portla was built with.
    const std::string path =
        std::string(PORTLA_CUDA_LIBRARY_DIR) + "/" + vendor_library_name(library);
    handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle) return handle;
    why = dlerror();
    reasons += "; " + (why ? std::string(why) : path + ": unknown error");
#endif
    throw DeviceError(std::string("cuda: cannot open ") + vendor_library_name(library) +
                      " (the vendor library path needs it): " + reasons);
}

}  // namespace

void open_vendor_libraries() {
    static const bool opened =
        (open_library(VendorLibrary::cublas), open_library(VendorLibrary::cusparse), true);
    (void)opened;
}

const char* vendor_library_name(VendorLibrary library) {
    return library == VendorLibrary::cublas ? kCublas : kCusparse;
}

void* vendor_symbol(VendorLibrary library, const char* symbol) {
    void* handle = open_library(library);
    dlerror();
    void* address = dlsym(handle, symbol);
    if (!address)
        throw DeviceError(std::string("cuda: ") + vendor_library_name(library) + " has no " +
                          symbol);
    return address;
}

}  // namespace portla::kernels::cuda
