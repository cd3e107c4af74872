//! zyg-ir's text form: LLVM-like, so people can read it, and exact, so tests can write IR
//! by hand and compare printed output. `parse_module(print_module(m))` rebuilds `m`.
//!
//! ```text
//! declare double @sin(double)
//!
//! define internal double @f(double %0, i32 %1) #alwaysinline {
//! entry:
//!   %2 = fmul double %0, double 2.5
//!   %3 = call double @sin(double %2)
//!   %4 = fcmp olt double %3, double 0.0
//!   br i1 %4, label %loop, label %exit
//! loop:
//!   %5 = phi double [ %3, %entry ], [ %6, %loop ]
//!   ...
//! }
//! ```
//! Every operand carries its type (`double %2`, `i32 7`), so constants need no context.

mod parse;
mod print;

pub use parse::{parse_module, ParseError};
pub use print::{print_function, print_module};
