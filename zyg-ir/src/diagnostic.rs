//! Where a problem is in the user's program: function, instruction and source line. The
//! reader and the transform report through it, so their messages read alike.

use crate::function::SourceLoc;
use std::fmt;

#[derive(Debug, Clone)]
pub struct Diagnostic {
    pub function: String,
    /// A rendering of the offending instruction.
    pub instruction: Option<String>,
    pub loc: Option<SourceLoc>,
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "in function `{}`", self.function)?;
        if let Some(loc) = &self.loc {
            write!(f, " at {loc}")?;
        }
        write!(f, ": {}", self.message)?;
        if let Some(inst) = &self.instruction {
            write!(f, "\n    {}", inst.trim())?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostic {}
