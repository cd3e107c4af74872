//! Derivative rules, declarative: one table per family of operations.

pub mod expr;
pub mod instructions;
pub mod library;
pub mod math;

pub use expr::{Node, E};
pub use math::{family, MathRule, MATH_RULES};
