/// \file
/// A batch spread over the ranks of a dist::Communicator: each rank solves a contiguous block of
/// the systems (its own BatchMatrix on its own executor) and the per-system results are
/// gathered on one rank, in system order. Through the Communicator interface alone, so in every
/// build (with MPI: dist::MpiCommunicator, portla/dist/mpi_communicator.hpp).
#pragma once

#include <cstddef>
#include <vector>

#include "portla/batch/solver.hpp"
#include "portla/dist/communicator.hpp"

namespace portla::batch {

/// Contiguous blocks of `num_systems` systems over `parts` ranks, balanced: parts + 1 offsets
/// from 0 to num_systems, rank r's systems being [offsets[r], offsets[r + 1]). The first
/// num_systems % parts blocks hold one system more than the others; blocks are empty when
/// parts > num_systems. Throws BadInput when parts < 1.
std::vector<std::size_t> split_systems(std::size_t num_systems, int parts);

/// Every rank's per-system results (iterations, reason, residual_norm, rhs_norm), rank after
/// rank, on `root`; the other ranks get no systems. time_s is the maximum over the ranks (on
/// every rank: the batch takes as long as its slowest rank), launch is root's. Collective; a
/// rank with no systems passes an empty Result. Throws Unsupported when one rank's results
/// exceed 2^31 - 1 bytes (67 million systems).
Result gather(const dist::Communicator& comm, const Result& local, int root = 0);

}  // namespace portla::batch
