//! zyg-bench: the C kernels of the benchmarks, differentiated by zyg at build time
//! (`build.rs`), and the ratio report the benches print.

use std::path::PathBuf;

extern "C" {
    pub fn pow_loop(x: f64, n: i32) -> f64;
    pub fn pow_loop_grad(x: f64, n: i32) -> f64;
    pub fn pow_loop_hand(x: f64, n: i32) -> f64;
    pub fn branchy_many(xs: *const f64, ys: *const f64, n: i32) -> f64;
    pub fn branchy_grad_many(xs: *const f64, ys: *const f64, n: i32, dx: *mut f64, dy: *mut f64);
}

/// Criterion's median estimate (ns) for `group/function` of the last run.
pub fn median_ns(group: &str, function: &str) -> Option<f64> {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target"));
    let path = target.join("criterion").join(group).join(function).join("new/estimates.json");
    let text = std::fs::read_to_string(path).ok()?;
    let json: serde_json::Value = serde_json::from_str(&text).ok()?;
    json["median"]["point_estimate"].as_f64()
}

/// Prints, per group, each function's median and its ratio to the group's `primal`.
pub fn report(groups: &[(&str, &[&str])]) {
    println!("\n{:<22} {:<12} {:>14} {:>10}", "case", "variant", "median", "/ primal");
    for (group, functions) in groups {
        let primal = median_ns(group, "primal");
        for f in *functions {
            let Some(t) = median_ns(group, f) else { continue };
            let ratio = primal.map(|p| format!("{:.2}x", t / p)).unwrap_or_default();
            println!("{group:<22} {f:<12} {:>11.1} µs {ratio:>10}", t / 1000.0);
        }
    }
}
