//! Criterion bench of the `modes` cases (sizes and variants in src/lib.rs): forward-mode
//! Jacobian-vector products and forward-over-reverse Hessian-vector products.
fn main() {
    zyg_bench::bench_family("modes");
}
