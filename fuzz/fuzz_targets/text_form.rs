//! zyg-ir's text form: whatever the parser accepts prints, and the printing parses back to
//! the same text. A panic anywhere is a bug.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = zyg_fuzz::text_round_trip(text);
    }
});
