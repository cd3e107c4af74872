// A program of two files through full LTO: this file asks for the gradient of `energy`,
// which Inputs/lto_other.c defines, with a helper there that has a registered derivative
// and that -flto's compile-time optimisation would otherwise inline. The plugin defers the
// request at each compile (keeping the registered function out of line) and fills it in at
// the link, where lld runs it on the whole program. Gradients against central differences
// at several points, compiled at -O0 and -O2. Without LTO the request cannot see the other
// file: refused, naming the function and how to build; ThinLTO is refused.
// REQUIRES: lld
// RUN: %clang -O2 -flto -fpass-plugin=%plugin -I %include -c %s -o %t.O2.main.o
// RUN: %clang -O2 -flto -fpass-plugin=%plugin -c %S/Inputs/lto_other.c -o %t.O2.other.o
// RUN: %clang -O2 -flto -fuse-ld=lld -Wl,--load-pass-plugin=%plugin %t.O2.main.o %t.O2.other.o -lm -o %t.O2.exe
// RUN: %t.O2.exe | FileCheck %s
// RUN: %clang -O0 -flto -fpass-plugin=%plugin -I %include -c %s -o %t.O0.main.o
// RUN: %clang -O0 -flto -fpass-plugin=%plugin -c %S/Inputs/lto_other.c -o %t.O0.other.o
// RUN: %clang -O0 -flto -fuse-ld=lld -Wl,--load-pass-plugin=%plugin %t.O0.main.o %t.O0.other.o -lm -o %t.O0.exe
// RUN: %t.O0.exe | FileCheck %s
// RUN: not %clang -O2 -fpass-plugin=%plugin -I %include -c %s -o %t.nolto.o 2>&1 | FileCheck %s --check-prefix=NOLTO
// RUN: not %clang -O2 -flto=thin -fpass-plugin=%plugin -I %include -c %s -o %t.thin.o 2>&1 | FileCheck %s --check-prefix=THIN
// NOLTO: zyg: error: {{.*}}lto_two_files.c: {{.*}}`energy`
// NOLTO: -flto
// THIN: zyg: error: {{.*}}lto_two_files.c: gradient requests or -zyg-fn exports in a ThinLTO build (-flto=thin)
// CHECK-NOT: FAIL
// CHECK: ALL OK
#include "zyg_check.h"

double energy(const double *x, int n);

static double energy_of(const double *x, void *ctx) { return energy(x, *(int *)ctx); }

int main(void) {
    int n = 5;
    for (int p = 0; p < 3; p++) {
        double x[5], dx[5] = {0};
        for (int i = 0; i < n; i++)
            x[i] = 0.4 * i - 0.9 + 0.6 * p;
        __enzyme_autodiff((void *)energy, enzyme_dup, x, dx, enzyme_const, n);
        check_array_fd("energy", energy_of, &n, x, n, dx);
    }
    return zyg_report();
}
