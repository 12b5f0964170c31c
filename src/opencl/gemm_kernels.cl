// The dense matrix product C = alpha A B + beta C (core/kernels/gemm_kernels.hpp) in OpenCL C,
// row-major; C is not read when beta == 0. Sums in ACC, in the order l = 0, 1, ..., k - 1.

// one work-item per element of C, operands read from global memory
kernel void gemm_naive(ulong m, ulong n, ulong k, REAL alpha, PORTLA_BUFFER(const REAL, a),
                       PORTLA_BUFFER(const REAL, b), REAL beta, PORTLA_BUFFER(REAL, c)) {
    global const REAL *ap = PORTLA_AT(const REAL, a);
    global const REAL *bp = PORTLA_AT(const REAL, b);
    global REAL *cp = PORTLA_AT(REAL, c);
    PORTLA_FOR_EACH(e, m * n) {
        const ulong i = e / n, j = e - i * n;
        ACC sum = 0;
        for (ulong l = 0; l < k; ++l) sum += (ACC)ap[i * k + l] * (ACC)bp[l * n + j];
        const REAL scaled = alpha * (REAL)sum;
        cp[e] = beta == (REAL)0 ? scaled : scaled + beta * cp[e];
    }
}

// TILE x TILE tiles of A and B staged in local memory; a work-group of any size WG computes one
// tile of C at a time (work-item t takes the tile's elements t, t + WG, ...).
#define TILE 16
#define PER_ITEM ((TILE * TILE + WG - 1) / WG)

kernel void gemm_tiled(ulong m, ulong n, ulong k, REAL alpha, PORTLA_BUFFER(const REAL, a),
                       PORTLA_BUFFER(const REAL, b), REAL beta, PORTLA_BUFFER(REAL, c)) {
    global const REAL *ap = PORTLA_AT(const REAL, a);
    global const REAL *bp = PORTLA_AT(const REAL, b);
    global REAL *cp = PORTLA_AT(REAL, c);
    local REAL as[TILE * TILE], bs[TILE * TILE];
    const uint lid = get_local_id(0);
    const ulong tiles_n = (n + TILE - 1) / TILE, tiles = (m + TILE - 1) / TILE * tiles_n;
    for (ulong tile = get_group_id(0); tile < tiles; tile += get_num_groups(0)) {
        const ulong i0 = tile / tiles_n * TILE, j0 = tile % tiles_n * TILE;
        ACC sum[PER_ITEM];
        for (uint p = 0; p < PER_ITEM; ++p) sum[p] = 0;
        for (ulong l0 = 0; l0 < k; l0 += TILE) {
            for (uint t = lid; t < TILE * TILE; t += WG) {
                const uint r = t / TILE, s = t % TILE;
                as[t] = i0 + r < m && l0 + s < k ? ap[(i0 + r) * k + l0 + s] : (REAL)0;
                bs[t] = l0 + r < k && j0 + s < n ? bp[(l0 + r) * n + j0 + s] : (REAL)0;
            }
            barrier(CLK_LOCAL_MEM_FENCE);
            for (uint p = 0; p < PER_ITEM; ++p) {
                const uint t = lid + p * WG;
                if (t < TILE * TILE) {
                    const uint r = t / TILE, s = t % TILE;
                    for (uint l = 0; l < TILE; ++l)
                        sum[p] += (ACC)as[r * TILE + l] * (ACC)bs[l * TILE + s];
                }
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        for (uint p = 0; p < PER_ITEM; ++p) {
            const uint t = lid + p * WG;
            const ulong i = i0 + t / TILE, j = j0 + t % TILE;
            if (t < TILE * TILE && i < m && j < n) {
                const REAL scaled = alpha * (REAL)sum[p];
                cp[i * n + j] = beta == (REAL)0 ? scaled : scaled + beta * cp[i * n + j];
            }
        }
    }
}

#ifdef PORTLA_SUB_GROUPS
// The sub-group variant (the cuda backend's): a work-group computes WG consecutive elements of a
// row i of C, one per work-item; lane t of each sub-group loads A[i][l0 + t] and the sub-group
// hands it to every lane (common.cl's sg_read_real: a warp shuffle, or sub_group_broadcast; no
// local memory). Every lane stays in the loops; only the update is guarded. The host launches
// it where the device has sub-groups (gemm_kernels.cpp).
kernel void gemm_subgroup(ulong m, ulong n, ulong k, REAL alpha, PORTLA_BUFFER(const REAL, a),
                          PORTLA_BUFFER(const REAL, b), REAL beta, PORTLA_BUFFER(REAL, c)) {
    global const REAL *ap = PORTLA_AT(const REAL, a);
    global const REAL *bp = PORTLA_AT(const REAL, b);
    global REAL *cp = PORTLA_AT(REAL, c);
    const uint lane = sg_lane(), width = sg_size();
    const ulong col_blocks = (n + WG - 1) / WG;
    for (ulong blk = get_group_id(0); blk < m * col_blocks; blk += get_num_groups(0)) {
        const ulong i = blk / col_blocks, j = blk % col_blocks * WG + get_local_id(0);
        const bool active = j < n;
        global const REAL *arow = ap + i * k;
        ACC sum = 0;
        for (ulong l0 = 0; l0 < k; l0 += width) {
            const REAL mine = l0 + lane < k ? arow[l0 + lane] : (REAL)0;
            const uint len = (uint)min((ulong)width, k - l0);
            for (uint t = 0; t < len; ++t) {
                const REAL at = sg_read_real(mine, t);
                if (active) sum += (ACC)at * (ACC)bp[(l0 + t) * n + j];
            }
        }
        if (active) {
            const REAL scaled = alpha * (REAL)sum;
            cp[i * n + j] = beta == (REAL)0 ? scaled : scaled + beta * cp[i * n + j];
        }
    }
}
#endif
