//! Gradient time / primal time for scalar code: `x^n` by a loop (n = 10^6) and a branchy
//! function over 1000 inputs, each timed in the same run as its primal.

use criterion::Criterion;
use std::hint::black_box;
use zyg_bench::*;

fn main() {
    let mut c = Criterion::default().configure_from_args();

    let n = 1_000_000;
    let mut g = c.benchmark_group("pow_loop_1e6");
    g.bench_function("primal", |b| b.iter(|| unsafe { pow_loop(black_box(1.000_000_1), black_box(n)) }));
    g.bench_function("zyg", |b| b.iter(|| unsafe { pow_loop_grad(black_box(1.000_000_1), black_box(n)) }));
    g.bench_function("hand", |b| b.iter(|| unsafe { pow_loop_hand(black_box(1.000_000_1), black_box(n)) }));
    g.finish();

    let count = 1000;
    let xs: Vec<f64> = (0..count).map(|i| ((i * 37 % 101) as f64 / 25.0) - 2.0).collect();
    let ys: Vec<f64> = (0..count).map(|i| ((i * 53 % 97) as f64 / 20.0) - 2.4).collect();
    let (mut dx, mut dy) = (vec![0.0; count], vec![0.0; count]);
    let mut g = c.benchmark_group("branchy_1000");
    g.bench_function("primal", |b| b.iter(|| unsafe { branchy_many(xs.as_ptr(), ys.as_ptr(), count as i32) }));
    g.bench_function("zyg", |b| {
        b.iter(|| unsafe { branchy_grad_many(xs.as_ptr(), ys.as_ptr(), count as i32, dx.as_mut_ptr(), dy.as_mut_ptr()) })
    });
    g.finish();

    c.final_summary();
    report(&[("pow_loop_1e6", &["primal", "zyg", "hand"]), ("branchy_1000", &["primal", "zyg"])]);
}
