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
        let diagnostic =
            Diagnostic { function: func.name.clone(), instruction: None, loc: None, message: message.into() };
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

/// `%5 = call double @mystery(...)`-style rendering for messages.
pub fn describe(func: &Function, inst: Inst) -> String {
    let data = &func.insts[inst];
    let lhs = data.result.map(|v| format!("{v} = ")).unwrap_or_default();
    let ty = data.result.map(|v| format!(" {}", func.ty(v))).unwrap_or_default();
    let callee = match &data.kind {
        InstKind::Call { callee: Callee::Direct(name), .. } => format!(" @{name}(...)"),
        _ => String::new(),
    };
    format!("{lhs}{}{ty}{callee}", data.kind.opcode_name())
}
