// Globals the program declares inactive (`__enzyme_inactive_global`, zyg.h's
// ZYG_INACTIVE_GLOBAL, the clang annotation `enzyme_inactive`) get no shadow: an active value
// stored there (a log of the last input) is dropped, and a value read there is a constant.
// A global not so declared still gets its shadow.
// RUN: %grad-run -O0 %s %t -I%S/../../include | FileCheck %s
// RUN: %grad-run -O2 %s %t -I%S/../../include | FileCheck %s
// RUN: FileCheck %s --check-prefix=IR < %t.O0.grad.ll
// RUN: FileCheck %s --check-prefix=IR < %t.O2.grad.ll
// CHECK-NOT: FAIL
// CHECK: ALL OK
// IR-NOT: @__zyg_shadow_last_input =
// IR-NOT: @__zyg_shadow_scale =
// IR-NOT: @__zyg_shadow_offset =
// IR: @__zyg_shadow_weight =
#include "zyg_check.h"
#include "zyg/zyg.h"

double last_input;
double scale = 3;
__attribute__((annotate("enzyme_inactive"))) double offset = 0.5;
double weight = 2;
ZYG_INACTIVE_GLOBAL(last_input);
void *__enzyme_inactive_global_scale = &scale;

double model(double x) {
    last_input = x;
    return scale * x * x + weight * x + offset * sin(x);
}

int main(void) {
    for (int k = 0; k < 3; k++) {
        double x = 0.2 + 0.5 * k;
        scale = 3 + k;
        offset = 0.5 * k;
        double d = __enzyme_autodiff((void *)model, x);
        check_close("the primal ran: logged", last_input, x, 0, 0);
        check_close("d model / dx", d, FD1(model, x), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
