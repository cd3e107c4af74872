//! Criterion bench of the `memory` cases (issue 16: a recursive determinant, a recursive tree
//! reduction and a long RK4 integration; sizes and variants in src/lib.rs): primal, zyg's
//! gradient and a hand-written adjoint of the same code, timed in one run.
fn main() {
    zyg_bench::bench_family("memory");
}
