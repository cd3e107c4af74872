//! `llvm_io::ResourceBound`, which zyg puts around LLVM's bitcode reader. On the address
//! space: while it is there an allocation beyond it fails at once (LLVM then reports "out
//! of memory") instead of being granted and filled. On CPU time: the soft limit is lowered
//! to a few seconds past what the process used. Dropped, the process's limits are what they
//! were. Alone in its test binary, since a bound holds for the whole process.

use nix::sys::resource::{getrlimit, Resource};
use std::hint::black_box;
use zyg_driver::llvm_io::ResourceBound;

fn limit() -> u64 {
    getrlimit(Resource::RLIMIT_AS).expect("the limit can be read").0
}

/// Whether 1 GiB can be had from the allocator now (freed at once).
fn gigabyte_available() -> bool {
    let mut block: Vec<u8> = Vec::new();
    black_box(block.try_reserve_exact(1 << 30)).is_ok()
}

#[test]
fn a_bound_refuses_large_allocations_until_dropped() {
    let before = limit();
    let bound = ResourceBound::address_space(256 << 20).expect("the limit can be lowered");
    assert!(!gigabyte_available(), "1 GiB past a bound of 256 MiB over what is used");
    drop(bound);
    assert_eq!(limit(), before);
    assert!(gigabyte_available(), "the bound is lifted");
}

#[test]
fn a_cpu_time_bound_is_seconds_past_what_was_used_until_dropped() {
    let before = getrlimit(Resource::RLIMIT_CPU).expect("the limit can be read");
    let bound = ResourceBound::cpu_time(30).expect("the limit can be lowered");
    let during = getrlimit(Resource::RLIMIT_CPU).expect("the limit can be read");
    assert!(during.0 >= 30 && during.0 < 30 + 600, "soft limit {} s: 30 s past a test's CPU time", during.0);
    assert_eq!(during.1, before.1, "the hard limit stays");
    drop(bound);
    assert_eq!(getrlimit(Resource::RLIMIT_CPU).expect("the limit can be read"), before);
}
