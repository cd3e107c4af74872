//! Criterion bench of the `gmm` cases (sizes and variants in src/lib.rs): primal, zyg's
//! gradient and a hand-written gradient, timed in one run.
fn main() {
    zyg_bench::bench_family("gmm");
}
