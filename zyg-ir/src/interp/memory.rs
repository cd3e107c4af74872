//! The interpreter's memory: one byte heap with a bump allocator. Addresses are never
//! reused, so an access through a dangling pointer is caught, as is one outside every live
//! allocation (null included).

use super::InterpError;
use std::collections::BTreeMap;

/// Where the heap starts: addresses below are never valid (null, and small offsets from it,
/// such as the `getelementptr null, 1` that computes a size).
pub const HEAP_BASE: u64 = 0x1_0000;
/// Unused bytes after each allocation, so that running off its end is an error.
const RED_ZONE: u64 = 16;
/// The most bytes the heap grows to.
const HEAP_LIMIT: u64 = 1 << 30;

/// What made an allocation (for messages, and to pair `free` with `malloc`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    Alloca,
    Heap,
    Global,
}

#[derive(Clone, Debug)]
struct Allocation {
    size: u64,
    origin: Origin,
    live: bool,
}

#[derive(Clone, Debug, Default)]
pub struct Memory {
    bytes: Vec<u8>,
    allocations: BTreeMap<u64, Allocation>,
}

impl Memory {
    /// `size` fresh zeroed bytes aligned to `align` (at least 16).
    pub fn allocate(&mut self, size: u64, align: u64, origin: Origin) -> Result<u64, InterpError> {
        let align = align.max(16).next_power_of_two();
        let start = (HEAP_BASE + self.bytes.len() as u64).next_multiple_of(align);
        let end = start.checked_add(size).and_then(|e| e.checked_add(RED_ZONE)).ok_or(InterpError::OutOfMemory(size))?;
        if end - HEAP_BASE > HEAP_LIMIT {
            return Err(InterpError::OutOfMemory(size));
        }
        self.bytes.resize((end - HEAP_BASE) as usize, 0);
        self.allocations.insert(start, Allocation { size, origin, live: true });
        Ok(start)
    }

    /// Ends an allocation made by `origin`, which must start at `addr` and be live.
    pub fn release(&mut self, addr: u64, origin: Origin) -> Result<u64, InterpError> {
        match self.allocations.get_mut(&addr) {
            Some(a) if a.live && a.origin == origin => {
                a.live = false;
                Ok(a.size)
            }
            _ => Err(InterpError::BadFree(addr)),
        }
    }

    /// The size of the live heap allocation starting at `addr`.
    pub fn heap_size(&self, addr: u64) -> Result<u64, InterpError> {
        match self.allocations.get(&addr) {
            Some(a) if a.live && a.origin == Origin::Heap => Ok(a.size),
            _ => Err(InterpError::BadFree(addr)),
        }
    }

    /// The index into `bytes` of `len` bytes at `addr`, all inside one live allocation.
    fn check(&self, addr: u64, len: u64) -> Result<usize, InterpError> {
        let bad = |reason: &'static str| InterpError::BadAccess { addr, len, reason };
        if addr == 0 {
            return Err(bad("null"));
        }
        let (start, a) = self.allocations.range(..=addr).next_back().ok_or(bad("outside every allocation"))?;
        if addr.checked_add(len).is_none_or(|end| end > start + a.size) {
            return Err(bad("outside every allocation"));
        }
        if !a.live {
            return Err(bad(if a.origin == Origin::Alloca { "a stack slot of a returned call" } else { "freed memory" }));
        }
        Ok((addr - HEAP_BASE) as usize)
    }

    pub fn read(&self, addr: u64, len: u64) -> Result<&[u8], InterpError> {
        let i = self.check(addr, len)?;
        Ok(&self.bytes[i..i + len as usize])
    }

    pub fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), InterpError> {
        let i = self.check(addr, data.len() as u64)?;
        self.bytes[i..i + data.len()].copy_from_slice(data);
        Ok(())
    }

    /// `memmove`: overlapping ranges are fine.
    pub fn copy(&mut self, dest: u64, src: u64, len: u64) -> Result<(), InterpError> {
        if len == 0 {
            return Ok(());
        }
        let s = self.check(src, len)?;
        let d = self.check(dest, len)?;
        self.bytes.copy_within(s..s + len as usize, d);
        Ok(())
    }

    pub fn fill(&mut self, dest: u64, byte: u8, len: u64) -> Result<(), InterpError> {
        if len == 0 {
            return Ok(());
        }
        let d = self.check(dest, len)?;
        self.bytes[d..d + len as usize].fill(byte);
        Ok(())
    }

    /// Bytes in live heap allocations (`malloc` and friends, not yet freed).
    pub fn live_heap_bytes(&self) -> u64 {
        self.allocations.values().filter(|a| a.live && a.origin == Origin::Heap).map(|a| a.size).sum()
    }
}
