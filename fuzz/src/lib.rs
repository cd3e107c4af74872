//! What the fuzz targets run, as functions (so that a crash found by libFuzzer can be
//! replayed with `cargo fuzz run TARGET ARTIFACT`, and checked in a debugger).

use inkwell::context::Context;
use std::path::Path;
use zyg_driver::{DriverError, GradOptions};

/// Parses `text` as zyg-ir's text form; when it parses, prints it and parses the printing,
/// which must succeed and print the same. Returns the parse error, if any.
pub fn text_round_trip(text: &str) -> Option<String> {
    let module = match zyg_ir::text::parse_module(text) {
        Ok(m) => m,
        Err(e) => return Some(e.to_string()),
    };
    let printed = zyg_ir::text::print_module(&module);
    let again = zyg_ir::text::parse_module(&printed).unwrap_or_else(|e| panic!("the printing does not parse: {e}\n{printed}"));
    assert_eq!(zyg_ir::text::print_module(&again), printed, "printing is not stable");
    None
}

/// Reads `text` as LLVM IR and, when LLVM parses it and it passes zyg's input checks, fills
/// in its gradient requests and exports the gradient of its first defined function (at
/// `-O0`: LLVM's pipeline is not what is fuzzed here). Errors are fine; the module zyg
/// leaves must verify.
pub fn differentiate_text(text: &str) {
    let path = Path::new("fuzz.ll");
    zyg_driver::input::configure_reader();
    let context = Context::create();
    let Ok(module) = zyg_driver::llvm_io::parse_ir(&context, text.as_bytes(), path) else { return };
    if zyg_driver::input::check(&module, path).is_err() {
        return;
    }
    let Ok(machine) = zyg_driver::llvm_io::target_machine(&module, path) else { return };
    let function = module.get_functions().find(|f| f.count_basic_blocks() > 0).map(|f| f.get_name().to_string_lossy().into_owned());
    let opts = GradOptions {
        input: path.into(),
        output: "-".into(),
        opt_level: 0,
        text: true,
        function,
        args: None,
        export_name: None,
        header: None,
        forward: false,
        width: 1,
    };
    match zyg_driver::grad::differentiate(&module, &machine, path, &opts) {
        Ok(_) => {
            if let Err(e) = module.verify() {
                panic!("zyg's output does not verify:\n{}", e.to_string_lossy());
            }
        }
        Err(e @ DriverError::Verify { .. }) => panic!("{e}"),
        Err(_) => {}
    }
}

