// Exported gradients in a program of two files through full LTO: every file is compiled
// with the same `-mllvm -zyg-fn=... -mllvm -zyg-args=...`; the file defining the function
// records the export, the link makes it (the function calls into this file), and this file
// calls it through its own declaration. Checked against central differences at -O0 and
// -O2; ThinLTO is refused, and a header
// cannot be written under LTO (the gradients exist only at the link): refused.
// REQUIRES: lld
// RUN: %clang -O2 -flto -fpass-plugin=%plugin -mllvm -zyg-fn=energy -mllvm -zyg-args=dup,const -I %include -c %s -o %t.main.o
// RUN: %clang -O2 -flto -fpass-plugin=%plugin -mllvm -zyg-fn=energy -mllvm -zyg-args=dup,const -c %S/Inputs/lto_export_model.c -o %t.model.o
// RUN: %clang -O2 -flto -fuse-ld=lld -Wl,--load-pass-plugin=%plugin %t.main.o %t.model.o -lm -o %t.exe
// RUN: %t.exe | FileCheck %s
// RUN: %clang -O0 -flto -fpass-plugin=%plugin -mllvm -zyg-fn=energy -mllvm -zyg-args=dup,const -I %include -c %s -o %t.O0.main.o
// RUN: %clang -O0 -flto -fpass-plugin=%plugin -mllvm -zyg-fn=energy -mllvm -zyg-args=dup,const -c %S/Inputs/lto_export_model.c -o %t.O0.model.o
// RUN: %clang -O0 -flto -fuse-ld=lld -Wl,--load-pass-plugin=%plugin %t.O0.main.o %t.O0.model.o -lm -o %t.O0.exe
// RUN: %t.O0.exe | FileCheck %s
// RUN: not %clang -O2 -flto=thin -fpass-plugin=%plugin -mllvm -zyg-fn=energy -c %S/Inputs/lto_export_model.c -o %t.thin.o 2>&1 | FileCheck %s --check-prefix=THIN
// RUN: not %clang -O2 -flto -fpass-plugin=%plugin -mllvm -zyg-fn=energy -mllvm -zyg-header=%t.h -c %S/Inputs/lto_export_model.c -o %t.bad.o 2>&1 | FileCheck %s --check-prefix=HEADER
// THIN: zyg: error: {{.*}}lto_export_model.c: gradient requests or -zyg-fn exports in a ThinLTO build
// HEADER: zyg: error: {{.*}}lto_export_model.c: -zyg-header={{.*}}: with -flto the gradients are made at the link
// CHECK-NOT: FAIL
// CHECK: ALL OK
#include "zyg_check.h"

double energy(const double *x, int n);
void energy_grad(const double *x, double *dx, int n);
double weight(int i) { return 1.0 + 0.25 * i; }

static double energy_of(const double *x, void *ctx) { return energy(x, *(int *)ctx); }

int main(void) {
    int n = 6;
    for (int p = 0; p < 3; p++) {
        double x[6], dx[6] = {0};
        for (int i = 0; i < n; i++)
            x[i] = cos(0.9 * i + p);
        energy_grad(x, dx, n);
        check_array_fd("energy", energy_of, &n, x, n, dx);
    }
    return zyg_report();
}
