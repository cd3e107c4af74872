//! LLVM IR text through zyg's whole in-memory path: LLVM's parser, zyg's input checks, the
//! preparation, the reader, the transform, the writer and the request rewriting. A panic,
//! an LLVM abort, or an output that does not verify is a bug; an error is not.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        zyg_fuzz::differentiate_text(text);
    }
});
