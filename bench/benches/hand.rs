//! Criterion bench of the `hand` cases (sizes and variants in src/lib.rs): primal, zyg's
//! gradient and a hand-written gradient, timed in one run.
fn main() {
    zyg_bench::bench_family("hand");
}
