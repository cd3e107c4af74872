// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %valgrind %t.O0.exe > /dev/null
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %valgrind %t.O2.exe > /dev/null
// RUN: %grad-run -O3 %s %t.native -march=native | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Virtual calls (exceptions on): a scene of heap objects of three classes behind `Shape *`,
// chosen at run time, whose energies are summed through a virtual method, then destroyed
// through the virtual destructor; an object made outside the gradient, passed with a shadow
// object of its class (Enzyme's convention: the shadow is a real object, its fields the
// adjoints), so the derivative reaches its members; and forward mode. zyg turns each call
// through a vtable into a comparison with the functions of its type whose address the
// module takes (the vtables' entries) and a direct call of the one it is. Against closed
// forms and central differences, several inputs.
// Under valgrind (%valgrind) the generated code makes no invalid access or free, frees
// what it allocates, and frees shadows with `free` (forward mode once released calloc'ed
// shadows with operator delete: a mismatched free).
#include "zyg_check.h"
#include <memory>

struct Shape {
    virtual ~Shape() = default;
    virtual double energy(const double *x) const = 0;
    virtual double scale() const { return 1.0; }
};

struct Spring : Shape {
    double k;
    explicit Spring(double k) : k(k) {}
    double energy(const double *x) const override { return 0.5 * k * x[0] * x[0]; }
};

struct Pendulum : Shape {
    double len;
    explicit Pendulum(double l) : len(l) {}
    double energy(const double *x) const override { return len * (1 - cos(x[1])) + x[0] * x[1]; }
    double scale() const override { return len; }
};

struct Coupled : Spring {
    double c;
    Coupled(double k, double c) : Spring(k), c(c) {}
    double energy(const double *x) const override { return Spring::energy(x) + c * sin(x[0] * x[1]); }
    double scale() const override { return 2.0; }
};

/* Which class each slot holds is decided at run time (`kinds`), so clang cannot devirtualise. */
__attribute__((noinline)) static std::unique_ptr<Shape> make(int kind, double p) {
    switch (kind) {
    case 0:
        return std::make_unique<Spring>(p);
    case 1:
        return std::make_unique<Pendulum>(p);
    default:
        return std::make_unique<Coupled>(p, 0.5 * p);
    }
}

static double scene(const double *x, const int *kinds, int n) {
    std::unique_ptr<Shape> shapes[4];
    for (int i = 0; i < n; i++)
        shapes[i] = make(kinds[i], 1.0 + 0.5 * i);
    double e = 0;
    for (int i = 0; i < n; i++)
        e += shapes[i]->scale() * shapes[i]->energy(x);
    return e;
}

/* d scene / d x, by hand. */
static void scene_grad(const double *x, const int *kinds, int n, double *g) {
    g[0] = g[1] = 0;
    for (int i = 0; i < n; i++) {
        double p = 1.0 + 0.5 * i;
        switch (kinds[i]) {
        case 0:
            g[0] += p * x[0];
            break;
        case 1:
            g[0] += p * x[1];
            g[1] += p * (p * sin(x[1]) + x[0]);
            break;
        default: {
            double c = 0.5 * p, co = cos(x[0] * x[1]);
            g[0] += 2 * (p * x[0] + c * co * x[1]);
            g[1] += 2 * c * co * x[0];
        }
        }
    }
}

static double energy_of(const Shape *s, const double *x) { return s->energy(x) * s->scale(); }

/* Central difference of scene in x[k]. */
static double scene_fd(const double *x, const int *kinds, int n, int k) {
    double up[2] = {x[0], x[1]}, down[2] = {x[0], x[1]}, h = ZYG_STEP(x[k]);
    up[k] += h;
    down[k] -= h;
    return (scene(up, kinds, n) - scene(down, kinds, n)) / (2 * h);
}

int main() {
    const int layouts[3][4] = {{0, 1, 2, 1}, {2, 2, 0, 1}, {1, 0, 0, 2}};
    for (int t = 0; t < 3; t++) {
        const int *kinds = layouts[t];
        double x[2] = {0.7 - 0.3 * t, 0.3 + 0.4 * t}, dx[2] = {0, 0}, want[2];
        __enzyme_autodiff((void *)scene, enzyme_dup, x, dx, enzyme_const, kinds, enzyme_const, 4);
        scene_grad(x, kinds, 4, want);
        check_close("scene d/dx0", dx[0], want[0], 1e-12, 1e-12);
        check_close("scene d/dx1", dx[1], want[1], 1e-12, 1e-12);
        check_close("scene d/dx0 vs FD", dx[0], scene_fd(x, kinds, 4, 0), FD_RTOL, FD_ATOL);
        check_close("scene d/dx1 vs FD", dx[1], scene_fd(x, kinds, 4, 1), FD_RTOL, FD_ATOL);

        /* forward mode: the tangent along (1, -0.5) */
        double tx[2] = {1.0, -0.5};
        double tangent = __enzyme_fwddiff((void *)scene, enzyme_dup, x, tx, enzyme_const, kinds, enzyme_const, 4);
        check_close("scene tangent", tangent, want[0] - 0.5 * want[1], 1e-12, 1e-12);

        /* an object of the caller's, with a shadow object: d/dk and d/dc reach its fields */
        Coupled obj(1.5 + t, 0.25), dobj(0.0, 0.0);
        double y[2] = {x[0], x[1]}, dy[2] = {0, 0};
        __enzyme_autodiff((void *)energy_of, enzyme_dup, (const Shape *)&obj, (const Shape *)&dobj, enzyme_dup, y, dy);
        check_close("object d/dk", dobj.k, 2 * 0.5 * y[0] * y[0], 1e-12, 1e-12);
        check_close("object d/dc", dobj.c, 2 * sin(y[0] * y[1]), 1e-12, 1e-12);
        check_close("object d/dx0", dy[0], 2 * (obj.k * y[0] + obj.c * cos(y[0] * y[1]) * y[1]), 1e-12, 1e-12);
    }
    return zyg_report();
}
