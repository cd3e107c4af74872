//! What the driver reports: every failure names the input file and, where it can, the
//! function, the instruction and the source line.

use std::path::PathBuf;
use zyg_ir::llvm::ReadError;
use zyg_transform::TransformError;

#[derive(Debug, thiserror::Error)]
pub enum DriverError {
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{path}: cannot parse LLVM IR: {message}")]
    Parse { path: PathBuf, message: String },
    /// An input that parses but that LLVM's verifier rejects (`input::check`).
    #[error("{path}: the input is not valid LLVM IR (LLVM's verifier):\n{message}")]
    Invalid { path: PathBuf, message: String },
    #[error("{path}: {source}")]
    Read { path: PathBuf, source: Box<ReadError> },
    /// A valid input zyg cannot take (`input::check`), said in words.
    #[error("{path}: {message}")]
    Unsupported { path: PathBuf, message: String },
    #[error("{path}: {source}{note}")]
    Transform { path: PathBuf, source: Box<TransformError>, note: String },
    #[error("{path}: {message}")]
    Request { path: PathBuf, message: String },
    #[error("{path}: LLVM: {message}")]
    Llvm { path: PathBuf, message: String },
    #[error("{path}: internal error: the generated module does not verify (please report this):\n{message}")]
    Verify { path: PathBuf, message: String },
    #[error("{0}")]
    Usage(String),
    /// `.mlir` input or output: MLIR's diagnostics, `FILE:LINE:COL: message` (src/mlir/).
    #[error("{0}")]
    Mlir(String),
}

pub type Result<T> = std::result::Result<T, DriverError>;

impl DriverError {
    /// Whether zyg refused the code it was asked to differentiate (a construct it does not
    /// support, a value it cannot type): raised while reading and differentiating, before
    /// anything is written into the module.
    pub fn is_refusal(&self) -> bool {
        matches!(self, DriverError::Transform { .. } | DriverError::Unsupported { .. } | DriverError::Read { .. })
    }
}
