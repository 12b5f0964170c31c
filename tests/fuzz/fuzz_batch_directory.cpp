// libFuzzer target: the batch directory reader (portla::batch::read_directory). The input is
// split at each line "%%--" into up to four files, written to a fresh temporary directory as
// 0/A.mtx, 0/b.mtx, 1/A.mtx, 1/b.mtx (a missing part leaves that file out). A malformed batch
// must throw a portla::Error; anything else is a finding.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "portla/batch/matrix.hpp"
#include "portla/error.hpp"

namespace fs = std::filesystem;

namespace {

std::vector<std::string> split_parts(const std::string& bytes) {
    const std::string separator = "\n%%--\n";
    std::vector<std::string> parts;
    std::size_t begin = 0;
    while (parts.size() < 3) {
        const std::size_t at = bytes.find(separator, begin);
        if (at == std::string::npos) break;
        parts.push_back(bytes.substr(begin, at + 1 - begin));
        begin = at + separator.size();
    }
    parts.push_back(bytes.substr(begin));
    return parts;
}

// One directory per process, emptied before each input.
const fs::path& work_dir() {
    static const fs::path dir = [] {
        std::string pattern = (fs::temp_directory_path() / "portla-fuzz-batch-XXXXXX").string();
        if (!mkdtemp(pattern.data())) std::abort();
        std::atexit([] {
            std::error_code ignored;
            fs::remove_all(work_dir(), ignored);
        });
        return fs::path(pattern);
    }();
    return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::vector<std::string> parts =
        split_parts(std::string(reinterpret_cast<const char*>(data), size));
    const fs::path& dir = work_dir();
    for (const auto& entry : fs::directory_iterator(dir)) fs::remove_all(entry.path());
    for (std::size_t i = 0; i < parts.size(); ++i) {
        const fs::path system = dir / std::to_string(i / 2);
        fs::create_directories(system);
        std::ofstream(system / (i % 2 == 0 ? "A.mtx" : "b.mtx"), std::ios::binary) << parts[i];
    }
    try {
        const portla::batch::BatchData batch = portla::batch::read_directory(dir.string());
        batch.validate("fuzz");
    } catch (const portla::Error&) {
        // malformed batch, reported as the reader documents
    }
    return 0;
}
