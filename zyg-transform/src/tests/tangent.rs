//! Forward mode's refusals: what it does not handle yet is an error naming the construct
//! (the numbers it computes are checked in `tests/phases.rs` and the lit suite).

use super::common::module_of;
use crate::ArgActivity::{Active, Const};
use crate::{Differentiator, Entry, Spec};

#[test]
fn a_product_of_lanes_is_refused_in_forward_mode_only() {
    let m = module_of(
        "declare double @llvm.vector.reduce.fmul.v2f64(double, <2 x double>)\n\n\
         define double @f(<2 x double> %v, double %s) {\nentry:\n  \
         %p = call double (double, <2 x double>) @llvm.vector.reduce.fmul.v2f64(double %s, <2 x double> %v)\n  \
         ret double %p\n}\n",
    );
    let spec = Spec::new("f", vec![Const, Active]);
    let mut d = Differentiator::new(&m, "zyg");
    d.gradient(&spec).expect("reverse mode differentiates it");
    let err = d.entry(&spec, Entry::Forward).expect_err("forward mode does not, yet");
    let text = err.to_string();
    assert!(text.contains("forward mode does not handle products") && text.contains("use reverse mode"), "{text}");
}
