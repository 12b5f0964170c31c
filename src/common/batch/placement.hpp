// Where the work of one batched solve lives on a GPU-like backend (cuda, opencl): in the fast
// memory of a block / work-group (shared / local memory) while it fits, else in a global
// workspace of one region per block. The order, as the kernels first use them: GMRES's small
// dense arrays, the work vectors in slot order (once one misses, the later ones go to global
// memory too), the preconditioner storage, then the system's matrix values. x and the matrix
// values that do not fit are used in place (no region). Settings::shared_memory = false puts
// everything in global memory.
#pragma once

#include "common/batch/system_solvers.hpp"
#include "portla/batch/solver.hpp"

namespace portla::batch::detail {

/// Where each item of the workspace lives: items [0, slots) are the work vectors, then the
/// preconditioner storage, GMRES's scalars and the matrix values.
struct Layout {
    int slots = 0;
    bool shared[kMaxSlots + 3] = {};
    /// in elements, in fast memory or in the block's global region
    long long offset[kMaxSlots + 3] = {};
    long long global_elems = 0;  ///< per block
    long long shared_elems = 0;
    bool registers = false;  ///< the owner-only vectors in registers (see plan)
};
PORTLA_HD constexpr int item_precond(int slots) { return slots; }
PORTLA_HD constexpr int item_scalars(int slots) { return slots + 1; }
PORTLA_HD constexpr int item_matrix(int slots) { return slots + 2; }

/// Whether solver S leaves slot k unused (it aliases another vector without a preconditioner).
/// `registers`: the owner-only vectors are in registers (a group of kRows > 0), where p-hat and
/// s-hat are copies, not aliases, and z of CG is in registers too.
inline bool unused_slot(Solver S, Preconditioner precond, int k, bool registers = false) {
    if (registers) return false;
    if (precond != Preconditioner::none) return false;
    return (S == Solver::cg && k == slot_z) || (S == Solver::gmres && k == slot_gm_z) ||
           (S == Solver::bicgstab && (k == slot_bi_phat || k == slot_bi_shat));
}

/// The placement of a solve with solver S within `capacity` elements of fast memory.
/// `registers`: the owner-only vectors (owner_only) take no memory, x is used in place.
template <typename T>
Layout plan(const BatchArgs<T>& a, Solver S, long long capacity, bool registers = false) {
    const Options& o = a.options;
    Layout lay;
    lay.slots = slots_needed(S, o.restart);
    lay.registers = registers;
    const auto round4 = [](long long v) { return (v + 3) / 4 * 4; };
    const long long n = round4(a.n);  // every vector starts 4-element aligned (16/32 bytes)
    if (!a.shared_memory) capacity = 0;
    long long used = 0;
    // in fast memory when allowed and it fits; else in the block's global region, or (in
    // place) nowhere for x and the matrix values
    auto put = [&](int item, long long elems, bool may_share, bool in_place) {
        if (may_share && elems <= capacity - used) {
            lay.shared[item] = true;
            lay.offset[item] = used;
            used += elems;
            return true;
        }
        lay.shared[item] = false;
        lay.offset[item] = in_place ? 0 : lay.global_elems;
        if (!in_place) lay.global_elems += elems;
        return false;
    };
    put(item_scalars(lay.slots), round4(scalar_elems(S, o.restart)), true, false);
    bool room = true;  // once a vector misses, the later ones (used later) go to global memory
    for (int k = 0; k < lay.slots; ++k) {
        if (unused_slot(S, o.precond, k, registers)) continue;
        if (registers && owner_only(S, k))
            put(k, 0, false, true);  // no memory (x: in place, loaded into registers)
        else
            room = put(k, n, room, k == x_slot(S)) && room;
    }
    put(item_precond(lay.slots), round4(precond_elems(o.precond, a.n, o.block_size, a.nnz)), true,
        false);
    put(item_matrix(lay.slots), a.stored, true, true);
    lay.shared_elems = used;
    return lay;
}

/// The placement's part of LaunchInfo: the work vectors (in fast memory or registers), the
/// matrix.
inline void describe(const Layout& lay, Solver S, Preconditioner precond, LaunchInfo& info) {
    info.matrix_in_shared = lay.shared[item_matrix(lay.slots)];
    for (int k = 0; k < lay.slots; ++k) {
        if (unused_slot(S, precond, k, lay.registers)) continue;
        ++info.vectors_total;
        if (lay.registers && owner_only(S, k))
            ++info.vectors_in_registers;
        else if (lay.shared[k])
            ++info.vectors_in_shared;
    }
}

}  // namespace portla::batch::detail
