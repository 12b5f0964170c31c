// portla-comm-bench: the two choices of a distributed solve on GPUs, measured.
//   1. allreduce of a few doubles that live in device memory (the solver's sums): staged
//      through the host into MPI_Allreduce (portla's path), against ncclAllReduce on the device;
//      and MPI_Allreduce of host values alone, for reference;
//   2. the halo exchange of a slab (one plane of doubles to each neighbour): staged through
//      page-locked host buffers into MPI (portla's path unless MPI is CUDA-aware), against
//      ncclSend/ncclRecv between the devices (direct, over NVLink or PCIe).
// One rank per GPU (local rank modulo the GPUs), ring neighbours. Prints a table and writes
// JSON (rank 0). Run: mpirun -np 2 portla-comm-bench [out.json]. Keep NCCL_NVLS_ENABLE=0.
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace {

void check_cuda(cudaError_t e, const char* what) {
    if (e == cudaSuccess) return;
    std::fprintf(stderr, "portla-comm-bench: error: %s: %s\n", what, cudaGetErrorString(e));
    MPI_Abort(MPI_COMM_WORLD, 1);
}

void check_nccl(ncclResult_t e, const char* what) {
    if (e == ncclSuccess) return;
    std::fprintf(stderr, "portla-comm-bench: error: %s: %s\n", what, ncclGetErrorString(e));
    MPI_Abort(MPI_COMM_WORLD, 1);
}

// Median seconds of `reps` runs of `f` (each rank times its own; the max over ranks is kept).
template <typename F>
double median_time(int reps, F&& f) {
    for (int i = 0; i < 5; ++i) f();  // warm-up
    std::vector<double> t(reps);
    for (auto& s : t) {
        MPI_Barrier(MPI_COMM_WORLD);
        const auto start = std::chrono::steady_clock::now();
        f();
        s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    std::sort(t.begin(), t.end());
    double m = t[t.size() / 2];
    MPI_Allreduce(MPI_IN_PLACE, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1, local = 0, gpus = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local);
    check_cuda(cudaGetDeviceCount(&gpus), "cudaGetDeviceCount");
    check_cuda(cudaSetDevice(local % gpus), "cudaSetDevice");
    cudaStream_t stream;
    check_cuda(cudaStreamCreate(&stream), "cudaStreamCreate");
    ncclUniqueId id;
    if (rank == 0) check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
    MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
    ncclComm_t nccl;
    check_nccl(ncclCommInitRank(&nccl, size, id, rank), "ncclCommInitRank");

    std::string json = "{\"ranks\": " + std::to_string(size) +
                       ", \"gpus\": " + std::to_string(gpus) + ", \"allreduce\": [";
    if (rank == 0)
        std::printf(
            "%d ranks on %d GPUs\nallreduce of doubles in device memory (us):\n"
            "%10s %14s %14s %14s\n",
            size, gpus, "count", "mpi-host-only", "mpi-staged", "nccl");
    const int reps = 200;
    bool first = true;
    for (const int count : {1, 2, 8, 64, 1024, 65536, 1 << 20}) {
        double *d = nullptr, *h = nullptr;
        check_cuda(cudaMalloc(&d, count * sizeof(double)), "cudaMalloc");
        check_cuda(cudaMallocHost(&h, count * sizeof(double)), "cudaMallocHost");
        check_cuda(cudaMemset(d, 0, count * sizeof(double)), "cudaMemset");
        const double host = median_time(reps, [&] {
            MPI_Allreduce(MPI_IN_PLACE, h, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        });
        const double staged = median_time(reps, [&] {
            cudaMemcpyAsync(h, d, count * sizeof(double), cudaMemcpyDeviceToHost, stream);
            cudaStreamSynchronize(stream);
            MPI_Allreduce(MPI_IN_PLACE, h, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            cudaMemcpyAsync(d, h, count * sizeof(double), cudaMemcpyHostToDevice, stream);
            cudaStreamSynchronize(stream);
        });
        const double nc = median_time(reps, [&] {
            ncclAllReduce(d, d, count, ncclDouble, ncclSum, nccl, stream);
            cudaStreamSynchronize(stream);
        });
        if (rank == 0)
            std::printf("%10d %14.1f %14.1f %14.1f\n", count, host * 1e6, staged * 1e6, nc * 1e6);
        json += std::string(first ? "" : ", ") + "{\"count\": " + std::to_string(count) +
                ", \"mpi_host_only_s\": " + std::to_string(host) +
                ", \"mpi_staged_s\": " + std::to_string(staged) +
                ", \"nccl_s\": " + std::to_string(nc) + "}";
        first = false;
        cudaFree(d);
        cudaFreeHost(h);
    }
    json += "], \"halo\": [";
    if (rank == 0)
        std::printf("halo: one plane to each ring neighbour (us):\n%10s %12s %14s %14s\n", "plane",
                    "bytes", "staged-mpi", "nccl-direct");
    first = true;
    const int up = (rank + 1) % size, down = (rank + size - 1) % size;
    for (const int side : {64, 128, 256, 512, 768, 1024}) {
        const std::size_t n = std::size_t(side) * side, bytes = n * sizeof(double);
        double *send = nullptr, *recv = nullptr, *hs = nullptr, *hr = nullptr;
        check_cuda(cudaMalloc(&send, 2 * bytes), "cudaMalloc");
        check_cuda(cudaMalloc(&recv, 2 * bytes), "cudaMalloc");
        check_cuda(cudaMallocHost(&hs, 2 * bytes), "cudaMallocHost");
        check_cuda(cudaMallocHost(&hr, 2 * bytes), "cudaMallocHost");
        const double staged = median_time(50, [&] {
            cudaMemcpyAsync(hs, send, 2 * bytes, cudaMemcpyDeviceToHost, stream);
            cudaStreamSynchronize(stream);
            MPI_Request req[4];
            MPI_Irecv(hr, int(n), MPI_DOUBLE, down, 1, MPI_COMM_WORLD, &req[0]);
            MPI_Irecv(hr + n, int(n), MPI_DOUBLE, up, 2, MPI_COMM_WORLD, &req[1]);
            MPI_Isend(hs, int(n), MPI_DOUBLE, up, 1, MPI_COMM_WORLD, &req[2]);
            MPI_Isend(hs + n, int(n), MPI_DOUBLE, down, 2, MPI_COMM_WORLD, &req[3]);
            MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
            cudaMemcpyAsync(recv, hr, 2 * bytes, cudaMemcpyHostToDevice, stream);
            cudaStreamSynchronize(stream);
        });
        const double direct = median_time(50, [&] {
            ncclGroupStart();
            ncclRecv(recv, n, ncclDouble, down, nccl, stream);
            ncclRecv(recv + n, n, ncclDouble, up, nccl, stream);
            ncclSend(send, n, ncclDouble, up, nccl, stream);
            ncclSend(send + n, n, ncclDouble, down, nccl, stream);
            ncclGroupEnd();
            cudaStreamSynchronize(stream);
        });
        if (rank == 0)
            std::printf("%7d^2 %12zu %14.1f %14.1f\n", side, bytes, staged * 1e6, direct * 1e6);
        json += std::string(first ? "" : ", ") + "{\"plane\": " + std::to_string(side) +
                ", \"bytes\": " + std::to_string(bytes) +
                ", \"staged_mpi_s\": " + std::to_string(staged) +
                ", \"nccl_direct_s\": " + std::to_string(direct) + "}";
        first = false;
        cudaFree(send);
        cudaFree(recv);
        cudaFreeHost(hs);
        cudaFreeHost(hr);
    }
    json += "]}\n";
    if (rank == 0 && argc > 1) std::ofstream(argv[1]) << json;
    ncclCommDestroy(nccl);
    MPI_Comm_free(&node);
    MPI_Finalize();
    return 0;
}
