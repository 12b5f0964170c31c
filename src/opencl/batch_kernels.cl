// The batched solvers' kernels (core/kernels/batch_kernels.hpp) in OpenCL C, built after
// batch_constants.h, batch_group.cl and system_algorithms.h (the shared algorithms, the solvers
// among them): the kernel entry points, the copies into and out of local memory.

// ---- the kernels -------------------------------------------------------------------------

#define SOLVER_CG 0
#define SOLVER_BICGSTAB 1
#define SOLVER_GMRES 2

// The batch: matrix (BatchArgs' matrix part), right-hand sides and solutions.
#define PORTLA_BATCH_PARAMS                                                             \
    int num_systems, int n, int width, long stored, PORTLA_BUFFER(const int, row_ptrs), \
        PORTLA_BUFFER(const int, col_idxs), PORTLA_BUFFER(REAL, values)

// count elements into / out of local memory (count < 2^31: it fits there)
void copy_in(global const REAL *from, local REAL *to, long count) {
    for (int i = RANK; i < count; i += SIZE) to[i] = from[i];
}
void copy_out(local const REAL *from, global REAL *to, long count) {
    for (int i = RANK; i < count; i += SIZE) to[i] = from[i];
}

// Every system of the batch with `solver`, one work-group per system at a time (the cuda
// kernel's loop). `lmem` holds the items placed in local memory (and, under PLACE_LOCAL, b at
// b_place), `workspace` one region of global_elems per work-group for the others.
void solve_batch(int solver, int num_systems, int n, int width, long stored,
                 global const int *row_ptrs, global const int *col_idxs, global REAL *values,
                 global REAL *b, global REAL *x, Options o, Ilu ilu, global int *iterations,
                 global uchar *reasons, global const long *place, int slots, long global_elems,
                 long b_place, global REAL *workspace, local REAL *lmem, local ACC *scratch) {
    Work w;
    w.lmem = lmem;
    w.gmem = workspace + (long)get_group_id(0) * global_elems;
    w.place = place;
    w.slots = slots;
    w.x_slot = solver == SOLVER_CG         ? PORTLA_SLOT_X
               : solver == SOLVER_BICGSTAB ? PORTLA_SLOT_BI_X
                                           : PORTLA_SLOT_GM_X;
    const long x_place = place[w.x_slot], matrix_place = place[ITEM_MATRIX(&w)];
    for (int s = get_group_id(0); s < num_systems; s += get_num_groups(0)) {
        global REAL *const values_s = values + (long)s * stored;
        global REAL *const xs = x + (long)s * n, *const bs = b + (long)s * n;
        Matrix A;
        A.n = n;
        A.width = width;
        A.row_ptrs = row_ptrs;
        A.col_idxs = col_idxs;
#if BATCH_PLACE == PLACE_LOCAL
        copy_in(bs, lmem + b_place, n);
        copy_in(values_s, lmem + matrix_place, stored);
        A.values = lmem + matrix_place;
        w.x = lmem + x_place;
        if (o.use_initial_guess) copy_in(xs, w.x, n);
        const Vec bv = lmem + b_place;
#elif BATCH_PLACE == PLACE_GLOBAL
        A.values = values_s;
        w.x = xs;
        const Vec bv = bs;
#else
        A.values = global_vec(values_s);
        if (matrix_place >= 0) {
            copy_in(values_s, lmem + matrix_place, stored);
            A.values = local_vec(lmem + matrix_place);
        }
        w.x = global_vec(xs);
        if (x_place >= 0) {
            w.x = local_vec(lmem + x_place);
            if (o.use_initial_guess) copy_in(xs, lmem + x_place, n);
        }
        const Vec bv = global_vec(bs);
#endif
        SYNC();
        // solve_system_with: x = 0 unless guessed, the preconditioner, the iteration
        if (!o.use_initial_guess) fill(scratch, n, w.x, 0);
        SYNC();
        int its = 0, reason;
        Vec x_view = w.x;
        if (BATCH_PRECOND != PORTLA_PRECOND_NONE &&
            !precond_setup(scratch, &A, &o, &ilu, item(&w, ITEM_PRECOND(&w))))
            reason = PORTLA_STOP_SINGULAR_PRECONDITIONER;
        else if (solver == SOLVER_CG)
            reason = cg(scratch, &A, bv, &o, &ilu, &w, &x_view, &its);
        else if (solver == SOLVER_BICGSTAB)
            reason = bicgstab(scratch, &A, bv, &o, &ilu, &w, &x_view, &its);
        else
            reason = gmres(scratch, &A, bv, &o, &ilu, &w, &its);
        SYNC();
#if BATCH_PLACE == PLACE_LOCAL
        copy_out(w.x, xs, n);
#elif BATCH_PLACE == PLACE_MIXED
        if (x_place >= 0) copy_out(lmem + x_place, xs, n);
#endif
        if (get_local_id(0) == 0) {
            iterations[s] = its;
            reasons[s] = (uchar)reason;
        }
        SYNC();  // local memory is reused by the next system
    }
}

#define PORTLA_BATCH_SOLVE_PARAMS                                                         \
    PORTLA_BATCH_PARAMS, PORTLA_BUFFER(REAL, b), PORTLA_BUFFER(REAL, x), int relative,    \
        ACC tolerance, int max_iters, int restart, int block_size, int use_initial_guess, \
        PORTLA_BUFFER(const int, diag), PORTLA_BUFFER(const int, lower_level_ptrs),       \
        PORTLA_BUFFER(const int, lower_rows), int lower_levels,                           \
        PORTLA_BUFFER(const int, upper_level_ptrs), PORTLA_BUFFER(const int, upper_rows), \
        int upper_levels, PORTLA_BUFFER(int, iterations), PORTLA_BUFFER(uchar, reasons),  \
        PORTLA_BUFFER(const long, place), int slots, long global_elems, long b_place,     \
        PORTLA_BUFFER(REAL, workspace), local REAL *lmem, local ACC *scratch

#define PORTLA_BATCH_SOLVE(solver)                                                                \
    do {                                                                                          \
        Options o;                                                                                \
        o.relative = relative;                                                                    \
        o.tolerance = tolerance;                                                                  \
        o.max_iters = max_iters;                                                                  \
        o.restart = restart;                                                                      \
        o.block_size = block_size;                                                                \
        o.use_initial_guess = use_initial_guess;                                                  \
        Ilu ilu;                                                                                  \
        ilu.diag = PORTLA_AT(const int, diag);                                                    \
        ilu.lower_level_ptrs = PORTLA_AT(const int, lower_level_ptrs);                            \
        ilu.lower_rows = PORTLA_AT(const int, lower_rows);                                        \
        ilu.lower_levels = lower_levels;                                                          \
        ilu.upper_level_ptrs = PORTLA_AT(const int, upper_level_ptrs);                            \
        ilu.upper_rows = PORTLA_AT(const int, upper_rows);                                        \
        ilu.upper_levels = upper_levels;                                                          \
        solve_batch(solver, num_systems, n, width, stored, PORTLA_AT(const int, row_ptrs),        \
                    PORTLA_AT(const int, col_idxs), PORTLA_AT(REAL, values), PORTLA_AT(REAL, b),  \
                    PORTLA_AT(REAL, x), o, ilu, PORTLA_AT(int, iterations),                       \
                    PORTLA_AT(uchar, reasons), PORTLA_AT(const long, place), slots, global_elems, \
                    b_place, PORTLA_AT(REAL, workspace), lmem, scratch);                          \
    } while (0)

kernel void batch_cg(PORTLA_BATCH_SOLVE_PARAMS) { PORTLA_BATCH_SOLVE(SOLVER_CG); }
kernel void batch_bicgstab(PORTLA_BATCH_SOLVE_PARAMS) { PORTLA_BATCH_SOLVE(SOLVER_BICGSTAB); }
kernel void batch_gmres(PORTLA_BATCH_SOLVE_PARAMS) { PORTLA_BATCH_SOLVE(SOLVER_GMRES); }

// The residual and product kernels: built without BATCH_PLACE (their vectors are in global
// memory, their matrices' values too).
#if BATCH_PLACE == PLACE_MIXED
Matrix system_of(int n, int width, global const int *row_ptrs, global const int *col_idxs,
                 global REAL *values, long stored, int s) {
    Matrix A;
    A.n = n;
    A.width = width;
    A.row_ptrs = row_ptrs;
    A.col_idxs = col_idxs;
    A.values = global_vec(values + (long)s * stored);
    return A;
}
#define PORTLA_SYSTEM(s)                                                                \
    system_of(n, width, PORTLA_AT(const int, row_ptrs), PORTLA_AT(const int, col_idxs), \
              PORTLA_AT(REAL, values), stored, s)

// res[s] = ||b_s - A_s x_s|| (row_dot in ACC), bnorm[s] = ||b_s|| (residual_norm)
kernel void batch_residual_norms(PORTLA_BATCH_PARAMS, PORTLA_BUFFER(REAL, b),
                                 PORTLA_BUFFER(REAL, x), PORTLA_BUFFER(ACC, res),
                                 PORTLA_BUFFER(ACC, bnorm), local ACC *scratch) {
    for (int s = get_group_id(0); s < num_systems; s += get_num_groups(0)) {
        const Matrix A = PORTLA_SYSTEM(s);
        const Vec bs = global_vec(PORTLA_AT(REAL, b) + (long)s * n);
        const Vec xs = global_vec(PORTLA_AT(REAL, x) + (long)s * n);
        ACC norm_r = 0, norm_b = 0;
        residual_norm(scratch, &A, bs, xs, &norm_r, &norm_b);
        if (RANK == 0) {
            PORTLA_AT(ACC, res)[s] = norm_r;
            PORTLA_AT(ACC, bnorm)[s] = norm_b;
        }
    }
}

// y_s = A_s x_s
kernel void batch_apply(PORTLA_BATCH_PARAMS, PORTLA_BUFFER(REAL, x), PORTLA_BUFFER(REAL, y)) {
    for (int s = get_group_id(0); s < num_systems; s += get_num_groups(0)) {
        const Matrix A = PORTLA_SYSTEM(s);
        spmv((local ACC *)0, &A, global_vec(PORTLA_AT(REAL, x) + (long)s * n),
             global_vec(PORTLA_AT(REAL, y) + (long)s * n));
    }
}
#endif
