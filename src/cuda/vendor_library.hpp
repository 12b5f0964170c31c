// cuBLAS and cuSPARSE opened at their first use (dlopen), not linked: linked, they were mapped
// into every portla process, also one that never touches a GPU (libcublasLt alone 152 MB of
// resident memory at load, cuSPARSE 30 MB more; `portla solve` of a 1e6-row file peaked at 391
// MB against 214 MB without them, 2-core VM, 2026-11-26). Internal to src/cuda.
#pragma once

namespace portla::kernels::cuda {

enum class VendorLibrary { cublas, cusparse };

/// The address of `symbol` in the library, which is opened on first use (libcublas.so.N,
/// libcusparse.so.M: the major versions of the headers portla was built with). Thread-safe.
/// Throws DeviceError naming the library and dlerror() when it cannot be opened, or the symbol
/// when the library lacks it.
void* vendor_symbol(VendorLibrary library, const char* symbol);

/// Opens both libraries (once; a later call returns at once). The vendor paths call it before
/// they create a handle or register anything to run at exit: a library registers its own exit
/// handlers when it is opened, and those run before the handlers registered earlier, so both
/// must be open before portla's releaser of their handles exists (vendor_kernels.cu).
void open_vendor_libraries();

/// The file name vendor_symbol opens for `library` (libcublas.so.13, ...).
const char* vendor_library_name(VendorLibrary library);

}  // namespace portla::kernels::cuda

#define PORTLA_VENDOR_STRING_(x) #x
#define PORTLA_VENDOR_STRING(x) PORTLA_VENDOR_STRING_(x)
/// `PORTLA_VENDOR(cublas, cublasDaxpy_64)(args...)` calls the library's function, looked up once
/// per call site and typed by the header's declaration. The name is macro-expanded first, so the
/// symbol is the one the library exports (cublas_v2.h maps cublasDaxpy_64 to cublasDaxpy_v2_64).
#define PORTLA_VENDOR(library, function) PORTLA_VENDOR_AS(library, function, decltype(&function))
/// The same for a name the C++ header overloads (cublasGemmEx): `Pointer` picks the exported
/// declaration, and the compiler checks that the header has it.
#define PORTLA_VENDOR_AS(library, function, Pointer)                                               \
    ([]() {                                                                                        \
        using portla_vendor_checked_ = decltype(static_cast<Pointer>(&function));                  \
        static const auto portla_vendor_fn_ =                                                      \
            reinterpret_cast<portla_vendor_checked_>(::portla::kernels::cuda::vendor_symbol(       \
                ::portla::kernels::cuda::VendorLibrary::library, PORTLA_VENDOR_STRING(function))); \
        return portla_vendor_fn_;                                                                  \
    }())
