// A file without gradient requests compiles through the plugin exactly as without it (the
// same IR at -O0 and -O2), as every file of a program built with the plugin's flags does.
// RUN: %clang -O2 -S -emit-llvm %s -o %t.plain.O2.ll
// RUN: %clang -O2 -fpass-plugin=%plugin -S -emit-llvm %s -o %t.plugin.O2.ll
// RUN: diff %t.plain.O2.ll %t.plugin.O2.ll
// RUN: %clang -O0 -S -emit-llvm %s -o %t.plain.O0.ll
// RUN: %clang -O0 -fpass-plugin=%plugin -S -emit-llvm %s -o %t.plugin.O0.ll
// RUN: diff %t.plain.O0.ll %t.plugin.O0.ll
#include <math.h>

double model(const double *x, int n) {
    double s = 0;
    for (int i = 0; i < n; i++)
        s += sin(x[i]) * x[(i + 1) % n];
    return s;
}
