//! What the transform's unit tests share: parsing a module of the text form, and
//! naming a function's values by position.

use zyg_ir::text::parse_module;
use zyg_ir::{Function, Module, Value};

/// A module of zyg's text form; a parse error fails the test with its message.
pub fn module_of(text: &str) -> Module {
    parse_module(text).unwrap_or_else(|e| panic!("{e}"))
}

/// The n-th instruction result in layout order.
pub fn value(f: &Function, index: usize) -> Value {
    f.inst_order().filter_map(|(_, i)| f.result(i)).nth(index).expect("result")
}
