// What zyg.hpp refuses at compile time, each with a `zyg:` message saying what to do:
// a lambda with captures beside Duplicated memory (what it captures by reference could be
// that memory, whose derivatives would be lost: CAPTURE), a class passed by value (it would
// reach zyg as several arguments: BYVALUE), zyg::Active in forward mode (ACTIVE), and
// reverse mode's Duplicated on a float by value (DUPFLOAT).
// RUN: not %clangxx -fsyntax-only -I%S/../../include -DCASE=1 %s 2>&1 | FileCheck %s --check-prefix=CAPTURE
// RUN: not %clangxx -fsyntax-only -I%S/../../include -DCASE=2 %s 2>&1 | FileCheck %s --check-prefix=BYVALUE
// RUN: not %clangxx -fsyntax-only -I%S/../../include -DCASE=3 %s 2>&1 | FileCheck %s --check-prefix=ACTIVE
// RUN: not %clangxx -fsyntax-only -I%S/../../include -DCASE=4 %s 2>&1 | FileCheck %s --check-prefix=DUPFLOAT
// RUN: %clangxx -fsyntax-only -I%S/../../include -DCASE=5 %s
// CAPTURE: error: static assertion failed{{.*}}zyg: a lambda with captures (or a function object with state) is read as a constant{{.*}}wrap the callable in zyg::Const(f)
// BYVALUE: error: static assertion failed{{.*}}zyg: pass a class or array through a pointer or a reference
// ACTIVE: error: static assertion failed{{.*}}zyg: forward mode has no zyg::Active arguments
// DUPFLOAT: error: static assertion failed{{.*}}zyg: reverse mode's zyg::Duplicated is for a pointer or reference parameter
#include "zyg/zyg.hpp"

struct pair {
    double x, y;
};
double norm2(pair p) { return p.x * p.x + p.y * p.y; }
double square(double x) { return x * x; }

int main() {
    double x[2] = {1.5, 2.5}, dx[2] = {0, 0};
#if CASE == 1
    auto f = [&](double *p) { return p[0] * x[1]; };
    zyg::autodiff<zyg::Reverse>(f, zyg::Duplicated(x, dx));
#elif CASE == 2
    zyg::autodiff<zyg::Reverse>(norm2, zyg::Const(pair{1, 2}));
#elif CASE == 3
    zyg::autodiff<zyg::Forward>(square, zyg::Active(x[0]));
#elif CASE == 4
    zyg::autodiff<zyg::Reverse>(square, zyg::Duplicated(x[0], dx[0]));
#else
    /* The same lambda wrapped in zyg::Const compiles: the caller's promise. */
    auto f = [&](double *p) { return p[0] * x[1]; };
    zyg::autodiff<zyg::Reverse>(zyg::Const(f), zyg::Duplicated(x, dx));
#endif
    return 0;
}
