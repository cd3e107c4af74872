//! Errors of the transform: what could not be differentiated, and where.

use zyg_ir::{Callee, Diagnostic, Function, Inst, InstKind};

#[derive(Debug, Clone, thiserror::Error)]
#[error("{diagnostic}")]
pub struct TransformError {
    pub diagnostic: Diagnostic,
    /// The called function, when the problem is a call (lets the driver add what it knows).
    pub callee: Option<String>,
}

impl TransformError {
    pub fn in_function(func: &Function, message: impl Into<String>) -> TransformError {
        let diagnostic = Diagnostic { function: func.name.clone(), instruction: None, loc: None, message: message.into() };
        TransformError { diagnostic, callee: None }
    }

    pub fn at(func: &Function, inst: Inst, message: impl Into<String>) -> TransformError {
        let data = &func.insts[inst];
        let callee = match &data.kind {
            InstKind::Call { callee: Callee::Direct(name), .. } => Some(name.to_string()),
            _ => None,
        };
        let diagnostic = Diagnostic {
            function: func.name.clone(),
            instruction: Some(describe(func, inst)),
            loc: data.loc.clone(),
            message: message.into(),
        };
        TransformError { diagnostic, callee }
    }
}

/// The instruction in zyg's text form (`%5 = call double @mystery(double %3)`), for
/// messages; the long tail of a very long one (a call with many arguments) is cut.
pub fn describe(func: &Function, inst: Inst) -> String {
    const LIMIT: usize = 200;
    let text = zyg_ir::text::print_inst(func, inst);
    match text.char_indices().nth(LIMIT) {
        Some((cut, _)) => format!("{} ...", &text[..cut]),
        None => text,
    }
}
