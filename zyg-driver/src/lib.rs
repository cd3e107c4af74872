//! zyg-driver: the pipeline behind the `zyg` command — reading LLVM modules, preparing
//! them, running the transform, filling in the C entry points, optimising and writing.

#![forbid(unsafe_code)]

pub mod callsite;
pub mod compile;
pub mod conventions;
pub mod custom;
pub mod error;
pub mod grad;
pub mod header;
pub mod inlining;
pub mod input;
pub mod libdevice;
pub mod llvm_io;
pub mod markers;
pub mod mlir;
pub mod names;
pub mod nesting;
pub mod opt;
pub mod paths;
pub mod plugin;
pub mod prepare;
pub mod supervisor;
pub mod tape_cache;
pub mod target;
pub mod unfilled;

pub use error::DriverError;
pub use grad::{run as grad, Exports, GradOptions};
