//! zyg-ir's text form: an LLVM-like syntax that prints and parses, for tests and debugging.
//!
//! ```text
//! declare double @sin(double)
//! declare i32 @printf(ptr, ...)
//!
//! define internal double @f(double %0, i32 %1) #alwaysinline {
//! entry:
//!   %2 = fmul double %0, double 2.5
//!   %3 = call double @sin(double %2)
//!   %4 = fcmp olt double %3, double 0.0
//!   br i1 %4, label %loop, label %exit
//! loop:
//!   %5 = phi double [ %3, %entry ], [ %6, %loop ]
//!   %6 = fadd double %5, double 1.0
//!   switch i32 %1, label %exit [ i32 0, label %loop  i32 3, label %exit ]
//! exit:
//!   ret double %3
//! }
//! ```
//!
//! It departs from LLVM in a few places, to keep the printed form explicit:
//! - every operand carries its type (`fadd double %0, double %1`); the parser also takes
//!   LLVM's form, where a binary operator's or comparison's second operand omits it;
//! - values print as `%<entity number>` and blocks as their name, or `bb<entity number>`;
//! - a call names its callee's full signature only when it cannot be read from the
//!   arguments (`call i32 (ptr, ...) @printf(ptr %0, double %1)`);
//! - a source location follows an instruction as `, !loc("file.c", 12, 5)`;
//! - floats print as the shortest decimal that reads back to the same bits, else as hex
//!   bits: `double 0x7FF8000000000000`, `float 0x7FC00001` (8 digits: the float's own bits),
//!   `x86_fp80 0xK3FFF8000000000000000` (always). The parser also takes LLVM's 16-digit hex
//!   for a `float` (the bits of the equal double, which must be exact);
//! - attributes follow the parameters as `#alwaysinline`, or quoted when not a bare word.
//!
//! The parser also accepts and ignores LLVM's fast-math and wrap flags, `tail`, `, align N`
//! and attributes on declarations, so that snippets of LLVM text read as they are. It checks
//! what it must to build valid entities: names are defined once, every use is defined
//! (forward uses resolve at the definition), operand types agree, literals fit their type,
//! every block ends in its one terminator. Any other problem is the verifier's to find.

mod cursor;
mod lex;
mod parse;
mod parse_inst;
mod print;
#[cfg(test)]
mod tests;

use crate::function::{Function, Module};
use std::fmt;

pub use parse::{parse_function, parse_module};
pub use print::{print_function, print_inst, print_module};

/// Why text could not be parsed, and where (1-based line and column).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{column}: {message}")]
pub struct ParseError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl fmt::Display for Function {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&print_function(self))
    }
}

impl fmt::Display for Module {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&print_module(self))
    }
}

/// `name` with its sigil, quoted (with `\XX` escapes) when it is not a bare LLVM name.
pub(crate) fn sigil_name(sigil: char, name: &str) -> String {
    if !name.is_empty() && name.chars().all(lex::is_name_char) && !name.contains('+') {
        return format!("{sigil}{name}");
    }
    format!("{sigil}{}", quote(name))
}

/// `s` in double quotes; `"`, `\` and bytes outside printable ASCII become `\XX`.
pub(crate) fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for b in s.bytes() {
        if b == b'"' || b == b'\\' || !(0x20..0x7f).contains(&b) {
            out.push_str(&format!("\\{b:02X}"));
        } else {
            out.push(char::from(b));
        }
    }
    out.push('"');
    out
}
