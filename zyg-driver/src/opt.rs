//! `zyg opt --passes=PIPELINE`: LLVM's pass pipeline syntax with zyg's `grad` step among
//! the passes, so a build script can differentiate and optimise in one step:
//! `zyg opt in.ll -o out.ll --passes='grad,default<O3>'`. The pipeline runs left to right;
//! the LLVM passes between `grad` steps go to LLVM's pass builder as one pipeline each.

use crate::error::{DriverError, Result};
use crate::grad::{self, GradOptions};
use crate::llvm_io;
use inkwell::context::Context;
use inkwell::passes::PassBuilderOptions;

/// The pipeline's top-level elements (commas inside `<...>` and `(...)` are not split).
pub fn split_pipeline(passes: &str) -> Vec<String> {
    let (mut out, mut current, mut depth) = (Vec::new(), String::new(), 0i32);
    for ch in passes.chars() {
        match ch {
            '<' | '(' => depth += 1,
            '>' | ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(std::mem::take(&mut current).trim().to_string());
                continue;
            }
            _ => {}
        }
        current.push(ch);
    }
    out.push(current.trim().to_string());
    out.into_iter().filter(|s| !s.is_empty()).collect()
}

/// `grad` options come from `opts` (its input, output and `-O` level are not used: the
/// pipeline says what to run).
pub fn run(opts: &GradOptions, passes: &str) -> Result<()> {
    let path = opts.input.as_path();
    let context = Context::create();
    let module = llvm_io::read_module(&context, path)?;
    let machine = llvm_io::target_machine(&module, path)?;
    let llvm = |message: String| DriverError::Llvm { path: path.to_path_buf(), message };
    let mut header = None;
    let mut pending: Vec<String> = Vec::new();
    let flush = |pending: &mut Vec<String>| -> Result<()> {
        if pending.is_empty() {
            return Ok(());
        }
        let pipeline = pending.join(",");
        tracing::info!(%pipeline, "running LLVM passes");
        grad::limit_vector_combine(&module);
        module.run_passes(&pipeline, &machine, PassBuilderOptions::create()).map_err(|e| llvm(format!("`{pipeline}`: {}", e.to_string_lossy())))?;
        pending.clear();
        module.verify().map_err(|e| DriverError::Verify { path: path.to_path_buf(), message: e.to_string() })
    };
    for step in split_pipeline(passes) {
        if step == "grad" || step == "zyg-grad" {
            flush(&mut pending)?;
            header = grad::differentiate(&module, &machine, path, opts)?.or(header);
        } else {
            pending.push(step);
        }
    }
    flush(&mut pending)?;
    llvm_io::write_module(&module, &opts.output, llvm_io::wants_text(&opts.output, opts.text))?;
    if let (Some(file), Some(text)) = (&opts.header, &header) {
        crate::header::write(file, text)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::split_pipeline;

    #[test]
    fn splits_at_top_level_commas_only() {
        assert_eq!(
            split_pipeline("grad, default<O3>,function(sroa,instcombine<no-verify-fixpoint>),grad"),
            ["grad", "default<O3>", "function(sroa,instcombine<no-verify-fixpoint>)", "grad"]
        );
        assert!(split_pipeline(" , ").is_empty());
    }
}
