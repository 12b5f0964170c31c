// cuBLAS and cuSPARSE are opened at their first use (src/cuda/vendor_library.hpp), not linked.
// Without a GPU (this runs in CI): the libraries open, every function portla calls through
// PORTLA_VENDOR resolves to the symbol its header declares, a missing symbol is a one-line
// DeviceError naming it, and a process that only runs the CPU backends never maps them.
#include <cublas_v2.h>
#include <cusparse.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "cuda/vendor_library.hpp"
#include "portla/error.hpp"
#include "portla/executor.hpp"

namespace portla::test {
namespace {

using kernels::cuda::vendor_symbol;
using kernels::cuda::VendorLibrary;

// Every function src/cuda calls through PORTLA_VENDOR (the names macro-expanded as there).
#define PORTLA_CUBLAS_USED(X)                                                                   \
    X(cublasCreate)                                                                             \
    X(cublasDestroy)                                                                            \
    X(cublasSetStream) X(cublasSetPointerMode) X(cublasGetStatusString) X(cublasDaxpy_64)       \
        X(cublasSaxpy_64) X(cublasDcopy_64) X(cublasScopy_64) X(cublasDdot_64) X(cublasSdot_64) \
            X(cublasDnrm2_64) X(cublasSnrm2_64) X(cublasDscal_64) X(cublasSscal_64)             \
                X(cublasDgemv_64) X(cublasSgemv_64) X(cublasGemmEx) X(cublasDgetrfBatched)      \
                    X(cublasSgetrfBatched) X(cublasDgetrsBatched) X(cublasSgetrsBatched)
#define PORTLA_CUSPARSE_USED(X)                                                                   \
    X(cusparseCreate)                                                                             \
    X(cusparseDestroy)                                                                            \
    X(cusparseSetStream) X(cusparseGetErrorString) X(cusparseCreateCsr) X(cusparseCreateConstCsr) \
        X(cusparseDestroySpMat) X(cusparseSpMatSetAttribute) X(cusparseCreateDnVec)               \
            X(cusparseCreateConstDnVec) X(cusparseDestroyDnVec) X(cusparseSpMV)                   \
                X(cusparseSpMV_bufferSize) X(cusparseSpSV_createDescr)                            \
                    X(cusparseSpSV_destroyDescr) X(cusparseSpSV_bufferSize)                       \
                        X(cusparseSpSV_analysis) X(cusparseSpSV_solve)

TEST(VendorLibrary, EveryUsedFunctionResolves) {
    int count = 0;
#define PORTLA_RESOLVE(lib, f)                                                     \
    EXPECT_NE(vendor_symbol(VendorLibrary::lib, PORTLA_VENDOR_STRING(f)), nullptr) \
        << PORTLA_VENDOR_STRING(f);                                                \
    ++count;
#define PORTLA_RESOLVE_CUBLAS(f) PORTLA_RESOLVE(cublas, f)
#define PORTLA_RESOLVE_CUSPARSE(f) PORTLA_RESOLVE(cusparse, f)
    PORTLA_CUBLAS_USED(PORTLA_RESOLVE_CUBLAS)
    PORTLA_CUSPARSE_USED(PORTLA_RESOLVE_CUSPARSE)
    EXPECT_EQ(count, 40);
    // The macro-expanded names are the exported ones, not the header's spelling.
    EXPECT_STREQ(PORTLA_VENDOR_STRING(cublasDaxpy_64), "cublasDaxpy_v2_64");
    // And the call-site macro gives a typed pointer to the same function.
    EXPECT_EQ(reinterpret_cast<void*>(PORTLA_VENDOR(cublas, cublasDdot_64)),
              vendor_symbol(VendorLibrary::cublas, "cublasDdot_v2_64"));
}

TEST(VendorLibrary, MissingSymbolIsOneLineError) {
    try {
        (void)vendor_symbol(VendorLibrary::cusparse, "cusparseNoSuchFunction");
        FAIL() << "no DeviceError";
    } catch (const DeviceError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("cusparseNoSuchFunction"), std::string::npos) << what;
        EXPECT_NE(what.find(kernels::cuda::vendor_library_name(VendorLibrary::cusparse)),
                  std::string::npos)
            << what;
        EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
}

// A process that runs only the CPU backends never opens cuBLAS or cuSPARSE (their pages were
// 180 MB of every portla process's resident set when they were linked): the dynamic loader's
// own log (LD_DEBUG=libs, every library it loads, dlopen too) of the CLI solving on omp.
TEST(VendorLibrary, CpuProcessDoesNotLoadThem) {
    const std::string cmd = std::string("LD_DEBUG=libs '") + PORTLA_BINARY + "' solve '" +
                            PORTLA_TEST_DATA_DIR + "/spd_small.mtx' --backend omp 2>&1 >/dev/null";
    FILE* pipe = popen(cmd.c_str(), "r");
    ASSERT_NE(pipe, nullptr);
    std::string log;
    char buffer[4096];
    while (std::fgets(buffer, sizeof buffer, pipe)) log += buffer;
    const int status = pclose(pipe);
    EXPECT_EQ(status, 0) << log.substr(0, 2000);
    ASSERT_NE(log.find("calling init"), std::string::npos)
        << "no loader log: " << log.substr(0, 500);
    EXPECT_EQ(log.find("libcublas"), std::string::npos);
    EXPECT_EQ(log.find("libcusparse"), std::string::npos);
}

}  // namespace
}  // namespace portla::test
