// cuBLAS and cuSPARSE are opened at their first use (src/cuda/vendor_library.hpp), not linked.
// Without a GPU (this runs in CI): the libraries open, every function portla calls through
// PORTLA_VENDOR resolves to the symbol its header declares, a missing symbol is a one-line
// DeviceError naming it, and a process that only runs the CPU backends never maps them.
#include <cublas_v2.h>
#include <cusparse.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <string>

#include "cuda/vendor_library.hpp"
#include "portla/error.hpp"
#include "portla/executor.hpp"

namespace portla::test {
namespace {

using kernels::cuda::vendor_symbol;
using kernels::cuda::VendorLibrary;

// Every function src/cuda calls through PORTLA_VENDOR: the name at the call site and the
// symbol it becomes (macro-expanded as there).
struct Used {
    const char* name;
    const char* symbol;
};
#define PORTLA_ENTRY(f) \
    Used { #f, PORTLA_VENDOR_STRING(f) }
const Used cublas_used[] = {PORTLA_ENTRY(cublasCreate),          PORTLA_ENTRY(cublasDestroy),
                            PORTLA_ENTRY(cublasSetStream),       PORTLA_ENTRY(cublasSetPointerMode),
                            PORTLA_ENTRY(cublasGetStatusString), PORTLA_ENTRY(cublasDaxpy_64),
                            PORTLA_ENTRY(cublasSaxpy_64),        PORTLA_ENTRY(cublasDcopy_64),
                            PORTLA_ENTRY(cublasScopy_64),        PORTLA_ENTRY(cublasDdot_64),
                            PORTLA_ENTRY(cublasSdot_64),         PORTLA_ENTRY(cublasDnrm2_64),
                            PORTLA_ENTRY(cublasSnrm2_64),        PORTLA_ENTRY(cublasDscal_64),
                            PORTLA_ENTRY(cublasSscal_64),        PORTLA_ENTRY(cublasDgemv_64),
                            PORTLA_ENTRY(cublasSgemv_64),        PORTLA_ENTRY(cublasGemmEx),
                            PORTLA_ENTRY(cublasDgetrfBatched),   PORTLA_ENTRY(cublasSgetrfBatched),
                            PORTLA_ENTRY(cublasDgetrsBatched),   PORTLA_ENTRY(cublasSgetrsBatched)};
const Used cusparse_used[] = {PORTLA_ENTRY(cusparseCreate),
                              PORTLA_ENTRY(cusparseDestroy),
                              PORTLA_ENTRY(cusparseSetStream),
                              PORTLA_ENTRY(cusparseGetErrorString),
                              PORTLA_ENTRY(cusparseCreateCsr),
                              PORTLA_ENTRY(cusparseCreateConstCsr),
                              PORTLA_ENTRY(cusparseDestroySpMat),
                              PORTLA_ENTRY(cusparseSpMatSetAttribute),
                              PORTLA_ENTRY(cusparseCreateDnVec),
                              PORTLA_ENTRY(cusparseCreateConstDnVec),
                              PORTLA_ENTRY(cusparseDestroyDnVec),
                              PORTLA_ENTRY(cusparseSpMV),
                              PORTLA_ENTRY(cusparseSpMV_bufferSize),
                              PORTLA_ENTRY(cusparseSpSV_createDescr),
                              PORTLA_ENTRY(cusparseSpSV_destroyDescr),
                              PORTLA_ENTRY(cusparseSpSV_bufferSize),
                              PORTLA_ENTRY(cusparseSpSV_analysis),
                              PORTLA_ENTRY(cusparseSpSV_solve)};
#undef PORTLA_ENTRY

TEST(VendorLibrary, EveryUsedFunctionResolves) {
    for (const Used& f : cublas_used)
        EXPECT_NO_THROW((void)vendor_symbol(VendorLibrary::cublas, f.symbol)) << f.name;
    for (const Used& f : cusparse_used)
        EXPECT_NO_THROW((void)vendor_symbol(VendorLibrary::cusparse, f.symbol)) << f.name;
    // The macro-expanded names are the exported ones, not the header's spelling.
    EXPECT_STREQ(PORTLA_VENDOR_STRING(cublasDaxpy_64), "cublasDaxpy_v2_64");
    // And the call-site macro gives a typed pointer to the same function.
    EXPECT_EQ(reinterpret_cast<void*>(PORTLA_VENDOR(cublas, cublasDdot_64)),
              vendor_symbol(VendorLibrary::cublas, "cublasDdot_v2_64"));
}

// The lists above hold every name src/cuda passes to PORTLA_VENDOR / PORTLA_VENDOR_AS, so a new
// call site cannot go untested: the sources are read and their names looked up.
TEST(VendorLibrary, ListsCoverEveryCallSite) {
    const std::string dir = std::string(PORTLA_TEST_DATA_DIR) + "/../../src/cuda";
    const std::regex call(R"(PORTLA_VENDOR(_AS)?\(\s*(cublas|cusparse)\s*,\s*(\w+))");
    std::set<std::string> listed;
    for (const Used& f : cublas_used) listed.insert(std::string("cublas ") + f.name);
    for (const Used& f : cusparse_used) listed.insert(std::string("cusparse ") + f.name);
    std::size_t sites = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        const std::string ext = entry.path().extension().string();
        if (ext != ".cu" && ext != ".hpp" && ext != ".cuh") continue;
        if (entry.path().filename() == "vendor_library.hpp") continue;  // the macro itself
        std::ifstream in(entry.path());
        const std::string text((std::istreambuf_iterator<char>(in)),
                               std::istreambuf_iterator<char>());
        for (std::sregex_iterator it(text.begin(), text.end(), call), end; it != end; ++it) {
            ++sites;
            const std::string key = (*it)[2].str() + " " + (*it)[3].str();
            EXPECT_EQ(listed.count(key), 1u) << key << " in " << entry.path();
        }
    }
    EXPECT_GE(sites, 60u) << "no call sites found under " << dir;
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
