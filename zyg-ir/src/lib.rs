//! zyg-ir: zyg's own SSA IR (Cranelift-style entity tables), its CFG analyses, a text form
//! for tests, and the bridge to LLVM IR (`llvm` feature).

pub mod cfg;
pub mod constant;
pub mod diagnostic;
pub mod dominance;
pub mod entities;
pub mod function;
pub mod inst;
pub mod interp;
#[cfg(feature = "llvm")]
pub mod llvm;
pub mod loops;
pub mod text;
pub mod types;
pub mod verify;

pub use constant::Constant;
pub use diagnostic::Diagnostic;
pub use entities::{Block, Inst, Value};
pub use function::{
    BlockData, Function, GlobalVar, InstData, Linkage, Module, ScalarKind, SourceLoc, TypeHint, ValueData, ValueDef,
    SHARED_MEMORY,
};
pub use inst::{AtomicOrdering, BinOp, Callee, CastOp, FloatPred, InstKind, IntPred, RmwOp, UnOp};
pub use types::{FloatTy, Signature, Type};
pub use verify::{verify, VerifyError};
