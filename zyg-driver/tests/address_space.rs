//! `llvm_io::AddressSpaceBound`, which zyg puts around LLVM's bitcode reader: while it is
//! there an allocation beyond it fails at once (LLVM then reports "out of memory") instead
//! of being granted and filled; dropped, the process's limit is what it was. Alone in its
//! test binary, since the bound holds for the whole process.

use std::hint::black_box;
use zyg_driver::llvm_io::AddressSpaceBound;

fn limit() -> u64 {
    nix::sys::resource::getrlimit(nix::sys::resource::Resource::RLIMIT_AS).expect("the limit can be read").0
}

/// Whether 1 GiB can be had from the allocator now (freed at once).
fn gigabyte_available() -> bool {
    let mut block: Vec<u8> = Vec::new();
    black_box(block.try_reserve_exact(1 << 30)).is_ok()
}

#[test]
fn a_bound_refuses_large_allocations_until_dropped() {
    let before = limit();
    let bound = AddressSpaceBound::new(256 << 20).expect("the limit can be lowered");
    assert!(!gigabyte_available(), "1 GiB past a bound of 256 MiB over what is used");
    drop(bound);
    assert_eq!(limit(), before);
    assert!(gigabyte_available(), "the bound is lifted");
}
