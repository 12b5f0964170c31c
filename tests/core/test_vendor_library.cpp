// cuBLAS and cuSPARSE are opened at their first use (src/cuda/vendor_library.hpp), not linked.
// Without a GPU (this runs in CI): the libraries open, every function portla calls through
// PORTLA_VENDOR resolves to the symbol its header declares, a missing symbol is a one-line
// DeviceError naming it, and a process that only runs the CPU backends never maps them.
#include <cublas_v2.h>
#include <cusparse.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <iterator>
#include <string>

#include "cuda/vendor_library.hpp"
#include "portla/error.hpp"
#include "portla/executor.hpp"

namespace portla::test {
namespace {

using kernels::cuda::vendor_symbol;
using kernels::cuda::VendorLibrary;

// Every function src/cuda calls through PORTLA_VENDOR, its name macro-expanded as there.
#define PORTLA_NAME(f) PORTLA_VENDOR_STRING(f)
const char* const cublas_used[] = {
    PORTLA_NAME(cublasCreate),          PORTLA_NAME(cublasDestroy),
    PORTLA_NAME(cublasSetStream),       PORTLA_NAME(cublasSetPointerMode),
    PORTLA_NAME(cublasGetStatusString), PORTLA_NAME(cublasDaxpy_64),
    PORTLA_NAME(cublasSaxpy_64),        PORTLA_NAME(cublasDcopy_64),
    PORTLA_NAME(cublasScopy_64),        PORTLA_NAME(cublasDdot_64),
    PORTLA_NAME(cublasSdot_64),         PORTLA_NAME(cublasDnrm2_64),
    PORTLA_NAME(cublasSnrm2_64),        PORTLA_NAME(cublasDscal_64),
    PORTLA_NAME(cublasSscal_64),        PORTLA_NAME(cublasDgemv_64),
    PORTLA_NAME(cublasSgemv_64),        PORTLA_NAME(cublasGemmEx),
    PORTLA_NAME(cublasDgetrfBatched),   PORTLA_NAME(cublasSgetrfBatched),
    PORTLA_NAME(cublasDgetrsBatched),   PORTLA_NAME(cublasSgetrsBatched)};
const char* const cusparse_used[] = {PORTLA_NAME(cusparseCreate),
                                     PORTLA_NAME(cusparseDestroy),
                                     PORTLA_NAME(cusparseSetStream),
                                     PORTLA_NAME(cusparseGetErrorString),
                                     PORTLA_NAME(cusparseCreateCsr),
                                     PORTLA_NAME(cusparseCreateConstCsr),
                                     PORTLA_NAME(cusparseDestroySpMat),
                                     PORTLA_NAME(cusparseSpMatSetAttribute),
                                     PORTLA_NAME(cusparseCreateDnVec),
                                     PORTLA_NAME(cusparseCreateConstDnVec),
                                     PORTLA_NAME(cusparseDestroyDnVec),
                                     PORTLA_NAME(cusparseSpMV),
                                     PORTLA_NAME(cusparseSpMV_bufferSize),
                                     PORTLA_NAME(cusparseSpSV_createDescr),
                                     PORTLA_NAME(cusparseSpSV_destroyDescr),
                                     PORTLA_NAME(cusparseSpSV_bufferSize),
                                     PORTLA_NAME(cusparseSpSV_analysis),
                                     PORTLA_NAME(cusparseSpSV_solve)};
#undef PORTLA_NAME

TEST(VendorLibrary, EveryUsedFunctionResolves) {
    for (const char* name : cublas_used)
        EXPECT_NE(vendor_symbol(VendorLibrary::cublas, name), nullptr) << name;
    for (const char* name : cusparse_used)
        EXPECT_NE(vendor_symbol(VendorLibrary::cusparse, name), nullptr) << name;
    EXPECT_EQ(std::size(cublas_used) + std::size(cusparse_used), 40u);
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
