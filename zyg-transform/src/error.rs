//! Errors of the transform: what could not be differentiated, and where.

use std::fmt;
use zyg_ir::{Callee, Function, Inst, InstKind, SourceLoc};

#[derive(Debug, Clone, thiserror::Error)]
pub struct TransformError {
    pub function: String,
    /// A short rendering of the offending instruction.
    pub instruction: Option<String>,
    pub loc: Option<SourceLoc>,
    /// The called function, when the problem is a call (lets the driver add what it knows).
    pub callee: Option<String>,
    pub message: String,
}

impl TransformError {
    pub fn in_function(func: &Function, message: impl Into<String>) -> TransformError {
        TransformError { function: func.name.clone(), instruction: None, loc: None, callee: None, message: message.into() }
    }

    pub fn at(func: &Function, inst: Inst, message: impl Into<String>) -> TransformError {
        let data = &func.insts[inst];
        let callee = match &data.kind {
            InstKind::Call { callee: Callee::Direct(name), .. } => Some(name.to_string()),
            _ => None,
        };
        TransformError {
            function: func.name.clone(),
            instruction: Some(describe(func, inst)),
            loc: data.loc.clone(),
            callee,
            message: message.into(),
        }
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

impl fmt::Display for TransformError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "in function `{}`", self.function)?;
        if let Some(loc) = &self.loc {
            write!(f, " at {loc}")?;
        }
        write!(f, ": {}", self.message)?;
        if let Some(inst) = &self.instruction {
            write!(f, "\n    {inst}")?;
        }
        Ok(())
    }
}
