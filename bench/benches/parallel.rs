//! Criterion bench of the `parallel` cases (issue 17: an OpenMP stencil time loop at 1 and
//! 2 threads; sizes in src/lib.rs): primal, zyg's gradient and a hand-written parallel
//! adjoint, timed in one run.
fn main() {
    zyg_bench::bench_family("parallel");
}
