//! Forward mode of the vector reductions it once refused (a product and a minimum of
//! lanes): the tangent entry builds and every generated function verifies (the numbers are
//! checked in the lit suite: `e2e/forward_reductions.c`).

use super::common::module_of;
use crate::ArgActivity::{Active, Const};
use crate::{Differentiator, Entry, Spec};

#[test]
fn products_and_minima_of_lanes_have_tangents() {
    let m = module_of(
        "declare double @llvm.vector.reduce.fmul.v2f64(double, <2 x double>)\n\
         declare double @llvm.vector.reduce.fmin.v2f64(<2 x double>)\n\n\
         define double @f(double %a, double %b, double %s) {\nentry:\n  \
         %v0 = insertelement <2 x double> poison, double %a, i32 0\n  \
         %v = insertelement <2 x double> %v0, double %b, i32 1\n  \
         %p = call double (double, <2 x double>) @llvm.vector.reduce.fmul.v2f64(double %s, <2 x double> %v)\n  \
         %m = call double (<2 x double>) @llvm.vector.reduce.fmin.v2f64(<2 x double> %v)\n  \
         %r = fadd double %p, %m\n  \
         ret double %r\n}\n",
    );
    for args in [vec![Active, Active, Active], vec![Active, Active, Const]] {
        let spec = Spec::new("f", args);
        let mut d = Differentiator::new(&m, "zyg");
        d.gradient(&spec).expect("reverse mode differentiates it");
        d.entry(&spec, Entry::Forward).unwrap_or_else(|e| panic!("forward mode: {e}"));
        for f in d.finish().functions {
            zyg_ir::verify(&f).unwrap_or_else(|e| panic!("{}: {e}", f.name));
        }
    }
}
