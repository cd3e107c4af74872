//! `zyg opt --passes=PIPELINE`: LLVM's pass pipeline syntax with zyg's `grad` step among
//! the passes, so a build script can differentiate and optimise in one step:
//! `zyg opt in.ll -o out.ll --passes='grad,default<O3>'`. The pipeline runs left to right;
//! the LLVM passes between `grad` steps go to LLVM's pass builder as one pipeline each,
//! with InstCombine's fixed-point check off (`without_fixpoint_checks`).

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

/// The pipeline with `<no-verify-fixpoint>` given to each `instcombine` that does not say
/// otherwise. Named in a pipeline, LLVM's InstCombine checks that one round reaches its fixed
/// point and stops the process ("LLVM ERROR: ... did not reach a fixpoint") when it does
/// not: a check for LLVM's own tests, which its default pipelines (`default<O2>`) leave off.
/// Whether a round finds everything depends on how far InstCombine looks, so ordinary code
/// can fail it, and zyg's output did (`--passes=grad,instcombine`, most e2e programs): the
/// adjoint computes a tape field's address and loads it again at each use, InstCombine
/// forwards a load from an earlier one only within six instructions, and only once its
/// first round has erased the duplicate addresses are more loads near enough; phis of
/// adjoints that add zero fold the same way, a round at a time.
/// `instcombine<verify-fixpoint>` keeps the check.
pub fn without_fixpoint_checks(passes: &str) -> String {
    const NAME: &str = "instcombine";
    let is_name_char = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.';
    let mut out = String::with_capacity(passes.len() + 32);
    let mut rest = passes;
    while let Some(at) = rest.find(NAME) {
        let before = rest[..at].chars().next_back();
        let after = rest[at + NAME.len()..].chars().next();
        out.push_str(&rest[..at + NAME.len()]);
        rest = &rest[at + NAME.len()..];
        if before.is_some_and(is_name_char) || after.is_some_and(|c| is_name_char(c) && c != '<') {
            continue; // part of another pass's name
        }
        if after != Some('<') {
            out.push_str("<no-verify-fixpoint>");
            continue;
        }
        let Some(close) = rest.find('>') else { continue };
        let params = &rest[1..close];
        let says = params.split(';').any(|p| p.trim() == "verify-fixpoint" || p.trim() == "no-verify-fixpoint");
        out.push('<');
        out.push_str(params);
        if !says {
            out.push_str(if params.trim().is_empty() { "no-verify-fixpoint" } else { ";no-verify-fixpoint" });
        }
        out.push('>');
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    out
}

/// `grad` options come from `opts` (its input, output and `-O` level are not used: the
/// pipeline says what to run).
pub fn run(all: &[GradOptions], passes: &str) -> Result<()> {
    let opts = all.first().expect("at least one set of options");
    grad::check_paths(opts)?;
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
        crate::supervisor::phase(&format!("running LLVM's passes `{pipeline}`"));
        grad::limit_vector_combine(&module);
        module
            .run_passes(&pipeline, &machine, PassBuilderOptions::create())
            .map_err(|e| llvm(format!("`{pipeline}`: {}", e.to_string_lossy())))?;
        pending.clear();
        module.verify().map_err(|e| DriverError::Verify { path: path.to_path_buf(), message: e.to_string() })
    };
    let steps = split_pipeline(&without_fixpoint_checks(passes));
    if opts.function.is_some() && !steps.iter().any(|s| s == "grad" || s == "zyg-grad") {
        // Else `--fn` and `--header` would be silently ignored.
        return Err(DriverError::Usage(format!(
            "--passes={passes}: --fn exports a gradient from the `grad` step, and this pipeline has none"
        )));
    }
    for step in steps {
        if step == "grad" || step == "zyg-grad" {
            flush(&mut pending)?;
            header = grad::differentiate_all(&module, &machine, path, all)?.or(header);
        } else {
            pending.push(step);
        }
    }
    flush(&mut pending)?;
    grad::write_outputs(&module, opts, header.as_deref())
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

    #[test]
    fn instcombine_does_not_check_its_fixpoint_unless_asked() {
        use super::without_fixpoint_checks as quiet;
        assert_eq!(quiet("grad,instcombine"), "grad,instcombine<no-verify-fixpoint>");
        assert_eq!(
            quiet("function(instcombine<max-iterations=2>)"),
            "function(instcombine<max-iterations=2;no-verify-fixpoint>)"
        );
        assert_eq!(
            quiet("instcombine<verify-fixpoint>,instcombine<>"),
            "instcombine<verify-fixpoint>,instcombine<no-verify-fixpoint>"
        );
        assert_eq!(quiet("instcombine<no-verify-fixpoint>"), "instcombine<no-verify-fixpoint>");
        assert_eq!(quiet("aggressive-instcombine,default<O2>"), "aggressive-instcombine,default<O2>");
    }
}
