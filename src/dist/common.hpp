// What the distributed operators of include/portla/dist/ share: vectors distributed by
// contiguous row blocks (rank p holds rows [offsets[p], offsets[p + 1])), gathered on one rank
// and scattered back, and the page-locked host buffers their halos are staged through.
#pragma once

#include <algorithm>
#include <memory>
#include <cstdint>
#include <string>
#include <vector>

#include "core/dispatch.hpp"
#include "core/kernels/matrix_kernels.hpp"
#include "core/runtime.hpp"
#include "portla/array.hpp"
#include "portla/dist/communicator.hpp"
#include "portla/error.hpp"
#include "portla/executor.hpp"

namespace portla::dist::detail {

template <typename V>
Communicator::Message message(int peer, std::vector<V>& v) {
    return {peer, v.data(), v.size() * sizeof(V)};
}

/// out[i] = x[idx[i]] on the executor (the entries a halo sends).
template <typename T>
void gather_entries(const Executor& exec, const_view<std::int32_t> idx, const_view<T> x,
                    view<T> out) {
    dispatch(exec, [&](auto backend) { gather(backend, exec, idx, x, out); });
}

/// `count` values of host memory that copies to and from `exec` reach at full speed
/// (page-locked for a device), freed with the pointer.
template <typename T>
std::shared_ptr<T> pinned_buffer(const Executor& exec, std::size_t count) {
    T* ptr = static_cast<T*>(exec.runtime().allocate_pinned(count * sizeof(T)));
    return std::shared_ptr<T>(ptr, [exec](T* p) { exec.runtime().deallocate_pinned(p); });
}

/// The whole vector on `root` from every rank's part `x` (in the memory of `exec`); empty on
/// the other ranks. Collective. `what` names the operator in errors.
template <typename T>
std::vector<T> gather_rows(const Communicator& comm, const std::vector<std::int64_t>& offsets,
                           const Executor& exec, const_view<T> x, int root, const char* what) {
    const int rank = comm.rank(), size = comm.size();
    const auto local_rows = static_cast<std::size_t>(offsets[rank + 1] - offsets[rank]);
    if (x.size != local_rows)
        throw DimensionMismatch(std::string(what) + " gather: x", local_rows, x.size);
    std::vector<T> local(local_rows);
    Executor::copy_bytes(Executor::reference(), local.data(), exec, x.data, local_rows * sizeof(T));
    if (rank != root) {
        if (!local.empty()) comm.exchange({}, {message(root, local)});
        return {};
    }
    std::vector<T> global(static_cast<std::size_t>(offsets.back()));
    std::vector<Communicator::Message> receives;
    for (int p = 0; p < size; ++p) {
        const auto count = static_cast<std::size_t>(offsets[p + 1] - offsets[p]);
        if (p == root || count == 0) continue;
        receives.push_back({p, global.data() + offsets[p], count * sizeof(T)});
    }
    comm.exchange(receives, {});
    std::copy(local.begin(), local.end(), global.begin() + offsets[root]);
    return global;
}

/// This rank's part of the vector `global` that rank `root` holds (not read elsewhere).
/// Collective; every rank throws when root's vector has the wrong size.
template <typename T>
std::vector<T> scatter_rows(const Communicator& comm, const std::vector<std::int64_t>& offsets,
                            const std::vector<T>& global, int root, const char* what) {
    const int rank = comm.rank(), size = comm.size();
    std::vector<T> local(static_cast<std::size_t>(offsets[rank + 1] - offsets[rank]));
    on_every_rank(&comm, [&] {
        if (rank == root && global.size() != static_cast<std::size_t>(offsets.back()))
            throw DimensionMismatch(std::string(what) + " scatter: vector", offsets.back(),
                                    global.size());
    });
    if (rank != root) {
        if (!local.empty()) comm.exchange({message(root, local)}, {});
        return local;
    }
    std::vector<T> copy(global);
    std::vector<Communicator::Message> sends;
    for (int p = 0; p < size; ++p) {
        const auto count = static_cast<std::size_t>(offsets[p + 1] - offsets[p]);
        if (p == root || count == 0) continue;
        sends.push_back({p, copy.data() + offsets[p], count * sizeof(T)});
    }
    comm.exchange({}, sends);
    std::copy(global.begin() + offsets[root], global.begin() + offsets[root + 1], local.begin());
    return local;
}

}  // namespace portla::dist::detail
