// REQUIRES: mpi
// RUN: %clang -O2 -g %mpi-cflags -S -emit-llvm %s -o %t.max.ll -DMAX
// RUN: not %zyg grad %t.max.ll -o %t.max.grad.ll 2>&1 | FileCheck --check-prefix=MAX %s
// RUN: not test -e %t.max.grad.ll
// RUN: %clang -O0 -g %mpi-cflags -S -emit-llvm %s -o %t.byte.ll -DBYTE
// RUN: not %zyg grad %t.byte.ll -o %t.byte.grad.ll 2>&1 | FileCheck --check-prefix=BYTE %s
// RUN: %clang -O2 -g %mpi-cflags -S -emit-llvm %s -o %t.any.ll -DANY
// RUN: not %zyg grad %t.any.ll -o %t.any.grad.ll 2>&1 | FileCheck --check-prefix=ANY %s
// RUN: %clang -O2 -g %mpi-cflags -S -emit-llvm %s -o %t.inplace.ll -DINPLACE
// RUN: not %zyg grad %t.inplace.ll -o %t.inplace.grad.ll 2>&1 | FileCheck --check-prefix=INPLACE %s
// RUN: %clang -O2 -g %mpi-cflags -S -emit-llvm %s -o %t.test.ll -DTEST
// RUN: not %zyg grad %t.test.ll -o %t.test.grad.ll 2>&1 | FileCheck --check-prefix=TEST %s
// RUN: %clang -O2 -g %mpi-cflags -S -emit-llvm %s -o %t.global.ll -DGLOBAL
// RUN: not %zyg grad %t.global.ll -o %t.global.grad.ll 2>&1 | FileCheck --check-prefix=GLOBAL %s
// RUN: %clang -O2 -g %mpi-cflags -S -emit-llvm %s -o %t.fwd.ll -DFORWARD
// RUN: not %zyg grad %t.fwd.ll -o %t.fwd.grad.ll 2>&1 | FileCheck --check-prefix=FWD %s
// RUN: %clang -O2 -g %mpi-cflags -S -emit-llvm %s -o %t.dtype.ll -DDERIVED
// RUN: not %zyg grad %t.dtype.ll -o %t.dtype.grad.ll 2>&1 | FileCheck --check-prefix=DERIVED %s
// What zyg's MPI rules (rules/mpi.rs) refuse, each named with the call and what to do:
// reductions other than MPI_SUM of floats, datatypes other than MPI_DOUBLE, MPI_FLOAT and
// the integer ones, wildcard receives, MPI_IN_PLACE in the gathers and scatter, MPI calls
// without a rule, receive buffers zyg does not differentiate (a `const` argument's), forward mode, and datatypes
// not known at compile time (derived ones).
// MAX: zyg: error: {{.*}}in function `model`{{.*}}`MPI_Allreduce`: the reduction `MPI_MAX` of floats is not supported
// BYTE: zyg: error: {{.*}}in function `model`{{.*}}`MPI_Send`: its datatype `MPI_BYTE` is not supported
// ANY: zyg: error: {{.*}}in function `model`{{.*}}`MPI_Recv`: a receive with `MPI_ANY_SOURCE` is not supported
// INPLACE: zyg: error: {{.*}}in function `model`{{.*}}`MPI_Gather`: `MPI_IN_PLACE` (argument 1) is not supported for this call yet
// TEST: zyg: error: {{.*}}in function `model`{{.*}}the MPI call `MPI_Test` is not supported yet: zyg differentiates MPI's point-to-point
// GLOBAL: zyg: error: {{.*}}in function `model`{{.*}}`MPI_Allreduce`: it writes doubles into memory zyg does not differentiate (argument 2
// FWD: zyg: error: {{.*}}in function `model`{{.*}}`MPI_Allreduce`: forward mode does not handle MPI calls yet (rule family `MPI calls`)
// DERIVED: zyg: error: {{.*}}in function `model`{{.*}}an MPI derived datatype (`MPI_Type_contiguous`) is not supported yet
#include <mpi.h>

double model(double *x, double *out, int n) {
    double local = 0.0, total = 0.0;
    for (int i = 0; i < n; i++)
        local += x[i] * x[i];
#if defined(MAX)
    MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
#elif defined(BYTE)
    MPI_Send(x, n * (int)sizeof(double), MPI_BYTE, 1, 0, MPI_COMM_WORLD);
    total = local;
#elif defined(ANY)
    MPI_Recv(x, n, MPI_DOUBLE, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    total = local + x[0];
#elif defined(INPLACE)
    double all[16];
    MPI_Gather(MPI_IN_PLACE, 1, MPI_DOUBLE, x, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    total = local + x[1];
    (void)all;
#elif defined(TEST)
    MPI_Request r;
    int done = 0;
    MPI_Isend(x, n, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, &r);
    MPI_Test(&r, &done, MPI_STATUS_IGNORE);
    total = local;
#elif defined(GLOBAL)
    MPI_Allreduce(&local, out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    total = out[0] * local;
#elif defined(DERIVED)
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_DOUBLE, &pair);
    MPI_Send(x, n / 2, pair, 1, 0, MPI_COMM_WORLD);
    total = local;
#else
    MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
#endif
    return total;
}

extern double __enzyme_autodiff(void *, ...);
extern double __enzyme_fwddiff(void *, ...);
extern int enzyme_dup, enzyme_const;
double use(double *x, double *dx, double *out, int n) {
#ifdef FORWARD
    return __enzyme_fwddiff((void *)model, enzyme_dup, x, dx, enzyme_const, out, enzyme_const, n);
#else
    return __enzyme_autodiff((void *)model, enzyme_dup, x, dx, enzyme_const, out, enzyme_const, n);
#endif
}
