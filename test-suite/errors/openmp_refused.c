// What zyg does not differentiate in OpenMP programs yet is refused, named as the program
// wrote it, at -O0 and -O2, and no output is written.
// RUN: %clang -O2 -fopenmp -S -emit-llvm -g %s -o %t.critical.ll -DCRITICAL
// RUN: not %zyg grad %t.critical.ll -o %t.critical.grad.ll 2>&1 | FileCheck --check-prefix=CRITICAL %s
// RUN: not test -e %t.critical.grad.ll
// RUN: %clang -O0 -fopenmp -S -emit-llvm -g %s -o %t.critical0.ll -DCRITICAL
// RUN: not %zyg grad %t.critical0.ll -o %t.critical0.grad.ll 2>&1 | FileCheck --check-prefix=CRITICAL %s
// RUN: %clang -O2 -fopenmp -S -emit-llvm -g %s -o %t.lock.ll -DLOCK
// RUN: not %zyg grad %t.lock.ll -o %t.lock.grad.ll 2>&1 | FileCheck --check-prefix=LOCK %s
// RUN: %clang -O2 -fopenmp -S -emit-llvm -g %s -o %t.task.ll -DTASK
// RUN: not %zyg grad %t.task.ll -o %t.task.grad.ll 2>&1 | FileCheck --check-prefix=TASK %s
// RUN: %clang -O2 -fopenmp -S -emit-llvm -g %s -o %t.capture.ll -DCAPTURE
// RUN: not %zyg grad %t.capture.ll -o %t.capture.grad.ll 2>&1 | FileCheck --check-prefix=CAPTURE %s
// RUN: %clang -O0 -fopenmp -S -emit-llvm -g %s -o %t.capture0.ll -DCAPTURE
// RUN: not %zyg grad %t.capture0.ll -o %t.capture0.grad.ll 2>&1 | FileCheck --check-prefix=CAPTURE %s
// RUN: %clang -O2 -fopenmp -S -emit-llvm -g %s -o %t.fp.ll -DFIRSTPRIVATE
// RUN: not %zyg grad %t.fp.ll -o %t.fp.grad.ll 2>&1 | FileCheck --check-prefix=FIRSTPRIVATE %s
// RUN: %clang -O0 -fopenmp -S -emit-llvm -g %s -o %t.fp0.ll -DFIRSTPRIVATE
// RUN: not %zyg grad %t.fp0.ll -o %t.fp0.grad.ll 2>&1 | FileCheck --check-prefix=FIRSTPRIVATE %s
// CRITICAL: zyg: error: {{.*}}in function `model.omp_outlined{{[^`]*}}` at {{.*}}openmp_refused.c:
// CRITICAL-SAME: an OpenMP critical section (`#pragma omp critical`) in a parallel region zyg differentiates is not supported yet
// CRITICAL-SAME: accumulate with `reduction(+: ...)` or `#pragma omp atomic` instead
// LOCK: zyg: error: {{.*}}the OpenMP runtime call `omp_init_lock` is not supported yet
// TASK: zyg: error: {{.*}}an OpenMP task (`#pragma omp task`, `taskloop`)
// TASK-SAME: is not supported yet
// CAPTURE: zyg: error: {{.*}}in function `model.omp_outlined{{[^`]*}}`
// CAPTURE-SAME: an atomic addition whose old value is used (`#pragma omp atomic capture`
// FIRSTPRIVATE: zyg: error: {{.*}}in function `model`
// FIRSTPRIVATE-SAME: an OpenMP parallel region captures a float with a derivative by value (`firstprivate`
#include <omp.h>

double model(const double *x, double *y, double a, int n) {
    double s = 0.0;
#if defined(CRITICAL)
#pragma omp parallel for
    for (int i = 0; i < n; i++) {
        double v = x[i] * x[i];
#pragma omp critical
        s = s * 0.5 + v;
    }
#elif defined(LOCK)
    omp_lock_t lock;
    omp_init_lock(&lock);
#pragma omp parallel for
    for (int i = 0; i < n; i++) {
        double v = x[i] * x[i];
        omp_set_lock(&lock);
        s += v;
        omp_unset_lock(&lock);
    }
    omp_destroy_lock(&lock);
#elif defined(TASK)
#pragma omp parallel
#pragma omp single
    for (int i = 0; i < n; i++) {
#pragma omp task
        y[i] = x[i] * x[i];
    }
    for (int i = 0; i < n; i++)
        s += y[i];
#elif defined(CAPTURE)
#pragma omp parallel for
    for (int i = 0; i < n; i++) {
        double old;
#pragma omp atomic capture
        {
            old = s;
            s += x[i];
        }
        y[i] = old * x[i];
    }
    for (int i = 0; i < n; i++)
        s += y[i];
#else
#pragma omp parallel for firstprivate(a)
    for (int i = 0; i < n; i++)
        y[i] = a * x[i];
    for (int i = 0; i < n; i++)
        s += y[i];
#endif
    return s * a;
}

extern double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;
double gradient(const double *x, double *dx, double *y, double *dy, double a, int n) {
    return __enzyme_autodiff((void *)model, enzyme_dup, x, dx, enzyme_dup, y, dy, a, enzyme_const, n);
}
