// RUN: %clang -O2 -fopenmp -S -emit-llvm -g %s -o %t.omp.ll -DOPENMP
// RUN: not %zyg grad %t.omp.ll -o %t.omp.grad.ll 2>&1 | FileCheck --check-prefix=OMP %s
// RUN: not test -e %t.omp.grad.ll
// RUN: %clang -O0 -fopenmp -S -emit-llvm -g %s -o %t.omp0.ll -DOPENMP
// RUN: not %zyg grad %t.omp0.ll -o %t.omp0.grad.ll 2>&1 | FileCheck --check-prefix=OMP %s
// RUN: %clang -O2 -S -emit-llvm -g %s -o %t.mpi.ll -DMPI
// RUN: not %zyg grad %t.mpi.ll -o %t.mpi.grad.ll 2>&1 | FileCheck --check-prefix=MPI %s
// RUN: %clang -O2 -S -emit-llvm -g %s -o %t.put.ll -DONE_SIDED
// RUN: not %zyg grad %t.put.ll -o %t.put.grad.ll 2>&1 | FileCheck --check-prefix=PUT %s
// RUN: %clang -O2 -fopenmp -S -emit-llvm -g %s -o %t.inactive.ll -DOPENMP -DINACTIVE
// RUN: not %zyg grad %t.inactive.ll -o %t.inactive.grad.ll 2>&1 | FileCheck --check-prefix=INACTIVE %s
// OpenMP constructs and MPI calls zyg does not differentiate: zyg names the construct (as the
// program wrote it, not only the runtime function clang lowered it to), says what makes it
// active, and refuses to have a data-moving runtime call declared inactive, which would
// drop its derivatives without a word (tests/errors/openmp_refused.c: inside regions).
// OMP: zyg: error: {{.*}}in function `model`
// OMP-SAME: the OpenMP runtime call `omp_init_lock` is not supported yet, and argument 1 points to differentiated memory
// OMP-SAME: declaring `omp_init_lock` inactive would drop the derivatives
// MPI: zyg: error: {{.*}}in function `model`
// MPI-SAME: `MPI_Allreduce`: zyg's MPI rules expect OpenMPI's declaration
// PUT: zyg: error: {{.*}}in function `model`
// PUT-SAME: one-sided MPI communication (`MPI_Put`) is not supported yet
// INACTIVE: zyg: error: {{.*}}`__kmpc_fork_call` is declared inactive, but it runs or moves data between OpenMP threads or MPI ranks
#include <math.h>

#ifdef OPENMP
#include <omp.h>
double model(const double *x, double *y, int n) {
#ifdef INACTIVE
#pragma omp parallel for
    for (int i = 0; i < n; i++)
        y[i] = sin(x[i]) * x[i];
#else
    // A lock in memory that may hold differentiated pointers (zyg cannot tell).
    omp_lock_t lock;
    omp_init_lock(&lock);
    omp_destroy_lock(&lock);
    for (int i = 0; i < n; i++)
        y[i] = sin(x[i]) * x[i];
#endif
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += y[i];
    return s;
}
#ifdef INACTIVE
void __kmpc_fork_call(void *, int, void *, ...);
void *__enzyme_inactivefn[] = {(void *)__kmpc_fork_call};
#endif
#else
/* MPI's calls, declared with integer handles as MPICH's mpi.h does (no MPI installation
   needed): zyg's MPI rules (OpenMPI's pointer handles) refuse the declaration by name. */
typedef int MPI_Comm, MPI_Datatype, MPI_Op, MPI_Win;
int MPI_Allreduce(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm);
int MPI_Put(const void *, int, MPI_Datatype, int, long, int, MPI_Datatype, MPI_Win);
double model(const double *x, double *y, int n) {
    double local = 0.0, total = 0.0;
    for (int i = 0; i < n; i++)
        local += x[i] * x[i];
#ifdef ONE_SIDED
    MPI_Put(&local, 1, 0, 0, 0, 1, 0, 0);
    total = local + y[0];
#else
    MPI_Allreduce(&local, &total, 1, 0, 0, 0);
#endif
    return total;
}
#endif

extern double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;
double use(const double *x, double *dx, double *y, double *dy, int n) {
    return __enzyme_autodiff((void *)model, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_const, n);
}
