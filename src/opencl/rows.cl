// The OpenCL side of the row functions of src/common/sparse/sparse_rows.h and
// src/common/amg/aggregation_rows.h (built before them into sparse_kernels.cl's program).
#define U64 ulong
#define I64 long
#define PORTLA_FN
#define PORTLA_GLOBAL global
#define PORTLA_ABS(v) fabs(v)
#define PORTLA_ATOMIC_INC(p) atomic_inc(p)
