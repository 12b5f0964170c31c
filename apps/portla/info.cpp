// portla info: backends compiled in, devices found, CPU threads, tuning profiles in use.
#include <iostream>

#include <nlohmann/json.hpp>

#include "output.hpp"
#include "portla/executor.hpp"
#include "portla/tuning.hpp"
#include "mpi.hpp"
#include "portla/dist/communicator.hpp"
#include "subcommands.hpp"

namespace portla::cli {
namespace {

// Whether a backend runs as designed here: compiled in, and for omp with OpenMP (without it
// the omp backend is compiled but runs serially).
bool available(Backend b) { return b == Backend::omp ? omp_compiled() : compiled(b); }

}  // namespace

Runner add_info(CLI::App& app) {
    auto json = std::make_shared<JsonOutput>();
    add_json_option(app, *json);
    return [json] {
        nlohmann::json out;
        out["backends"] = nlohmann::json::object();
        for (const Backend b : all_backends()) out["backends"][to_string(b)] = available(b);
        out["cpu_threads"] = omp_max_threads();
        out["devices"] = nlohmann::json::array();
        for (const auto& d : cuda_devices())
            out["devices"].push_back({{"id", d.id},
                                      {"name", d.name},
                                      {"memory_bytes", d.memory_bytes},
                                      {"multiprocessors", d.multiprocessors},
                                      {"compute_capability", std::to_string(d.compute_major) + "." +
                                                                 std::to_string(d.compute_minor)},
                                      {"l2_bytes", d.l2_bytes}});
        // The tuning profile each device's vector kernels use (portla tune).
        out["tuning"] = nlohmann::json::object();
        std::vector<Executor> tuned;
        if (omp_compiled()) tuned.push_back(Executor::omp());
        for (const auto& d : cuda_devices()) tuned.push_back(Executor::cuda(d.id));
        for (const auto& e : tuned)
            out["tuning"][e.name() + ":" + std::to_string(e.device_id())] =
                tuning::active_profile(e).origin;
        const auto cl_devices = opencl_devices();
        out["opencl_devices"] = nlohmann::json::array();
        for (const auto& d : cl_devices)
            out["opencl_devices"].push_back({{"id", d.id},
                                             {"backend", "opencl:" + std::to_string(d.id)},
                                             {"platform", d.platform},
                                             {"platform_device", d.platform_device},
                                             {"platform_name", d.platform_name},
                                             {"name", d.name},
                                             {"driver_version", d.driver_version},
                                             {"memory_bytes", d.memory_bytes},
                                             {"compute_units", d.multiprocessors},
                                             {"sub_groups", d.sub_groups}});
        out["auto_backend"] = Executor::create("auto").name();
        out["mpi"] = has_mpi();
        out["mpi_ranks"] = world_size();
        if (world_rank() != 0) return exit_ok;  // under mpirun: rank 0 reports
        if (json->requested()) emit_json(out, json->path);
        if (json->to_stdout()) return exit_ok;
        std::cout << "portla backends\n"
                  << "  reference  yes (sequential)\n"
                  << "  omp        " << (available(Backend::omp) ? "yes" : "no") << " ("
                  << omp_max_threads() << " CPU threads)\n"
                  << "  cuda       " << (available(Backend::cuda) ? "yes" : "no (not compiled)")
                  << "\n";
        if (cuda_compiled()) {
            const auto devices = cuda_devices();
            if (devices.empty()) std::cout << "CUDA devices: none found\n";
            for (const auto& d : devices)
                std::cout << "  GPU " << d.id << ": " << d.name << ", "
                          << d.memory_bytes / (1024.0 * 1024 * 1024) << " GiB, "
                          << d.multiprocessors << " multiprocessors, compute capability "
                          << d.compute_major << "." << d.compute_minor << "\n";
        }
        std::cout << "  opencl     " << (available(Backend::opencl) ? "yes" : "no (not compiled)")
                  << "\n";
        if (compiled(Backend::opencl)) {
            if (cl_devices.empty())
                std::cout << "OpenCL devices: none found (no OpenCL platform or device)\n";
            for (const auto& d : cl_devices)
                std::cout << "  opencl:" << d.id << " (opencl:" << d.platform << ":"
                          << d.platform_device << "): " << d.name << ", " << d.platform_name
                          << ", driver " << d.driver_version << ", "
                          << d.memory_bytes / (1024.0 * 1024 * 1024) << " GiB, "
                          << d.multiprocessors << " compute units, "
                          << (d.sub_groups.empty() ? "no sub-groups"
                                                   : "sub-groups: " + d.sub_groups)
                          << "\n";
        }
        for (const auto& [device, origin] : out["tuning"].items())
            std::cout << "tuning profile of " << device << ": " << origin.get<std::string>()
                      << "\n";
        std::cout << "auto backend: " << out["auto_backend"].get<std::string>() << "\n"
                  << "MPI: "
                  << (has_mpi() ? std::to_string(world_size()) + " rank(s)" : "no (not compiled)")
                  << "\n";
        return exit_ok;
    };
}

}  // namespace portla::cli
