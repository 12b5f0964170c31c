// The preconditioner kernels (core/kernels/precond_kernels.hpp) in OpenCL C.

// z = blockdiag(B_0, B_1, ...) r, one row per work-item; block b covers rows [b bs, (b+1) bs)
// (the last may have m < bs rows), B_b column-major at b bs^2; sums over j in order.
kernel void block_jacobi_apply(ulong n, ulong bs, PORTLA_BUFFER(const REAL, blocks),
                               PORTLA_BUFFER(const REAL, r), PORTLA_BUFFER(REAL, z)) {
    global const REAL *bp = PORTLA_AT(const REAL, blocks);
    global const REAL *rp = PORTLA_AT(const REAL, r);
    global REAL *zp = PORTLA_AT(REAL, z);
    PORTLA_FOR_EACH(row, n) {
        const ulong b = row / bs, start = b * bs, i = row - start;
        const ulong m = min(bs, n - start);
        global const REAL *block = bp + b * bs * bs;
        REAL sum = 0;
        for (ulong j = 0; j < m; ++j) sum += v_mul(block[j * bs + i], rp[start + j]);
        zp[row] = sum;
    }
}
