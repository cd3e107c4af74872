//! zyg-runtime: support for running what zyg generates.
//!
//! CPU gradients need nothing from here: their stacks are emitted inline in the IR and use
//! only libc's `realloc`/`free`. This crate is where loading and launching gradient PTX
//! through the CUDA driver API will live (the CUDA issue); it is empty until then.
