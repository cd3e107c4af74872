//! Adjoints of the memory intrinsics. `memset` overwrites: its adjoint zeroes the shadow.
//! `memcpy`/`memmove` copy values: the destination's adjoint flows back to the source
//! through the float bytes, and the primal copies the shadows of the pointer bytes (a copy
//! of a struct with a pointer field must leave the shadow pointer in the copy's shadow).
//! Which bytes are which comes from the type analysis of memory (`memtypes`): a `CopyPlan`.

use crate::builder::Cursor;
use crate::error::TransformError;
use crate::memtypes::{describe_known, CopyLayout, Known, MemTypes};
use std::collections::HashSet;
use std::sync::Arc;
use zyg_ir::{
    BinOp, Block, Callee, CastOp, Constant, FloatTy, Function, Inst, InstKind, IntPred, Linkage, ScalarKind, Signature, Type,
    Value,
};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemOp {
    Set,
    Copy,
}

/// The memory operation a call is, and its (destination, source or value, byte count).
pub fn mem_op(kind: &InstKind) -> Option<(MemOp, Value, Value, Value)> {
    let InstKind::Call { callee: Callee::Direct(name), args, .. } = kind else { return None };
    // With `_FORTIFY_SOURCE`, glibc's checked forms take the destination's size last.
    let op = if name.starts_with("llvm.memset.") || matches!(&**name, "memset" | "__memset_chk") {
        MemOp::Set
    } else if name.starts_with("llvm.memcpy.")
        || name.starts_with("llvm.memmove.")
        || matches!(&**name, "memcpy" | "memmove" | "__memcpy_chk" | "__memmove_chk")
    {
        MemOp::Copy
    } else {
        return None;
    };
    (args.len() >= 3).then(|| (op, args[0], args[1], args[2]))
}

/// The object a pointer points into: the value its address arithmetic starts from.
pub(crate) fn root(func: &Function, mut p: Value) -> Value {
    while let Some(i) = func.def_inst(p) {
        match &func.insts[i].kind {
            InstKind::Gep { base, .. } | InstKind::Cast { arg: base, .. } => p = *base,
            _ => break,
        }
    }
    p
}

/// The float format of the elements a `realloc` `inst` moves: that of the
/// function's float loads and stores into the same objects, or failing one, of all its
/// accesses to differentiated memory; an error when they disagree.
pub fn element_type(func: &Function, inst: Inst, shadowed: &dyn Fn(Value) -> bool) -> Result<FloatTy, TransformError> {
    let objects: HashSet<Value> =
        func.insts[inst].kind.operands().into_iter().filter(|v| func.ty(*v).is_ptr()).map(|v| root(func, v)).collect();
    let (mut near, mut seen): (HashSet<FloatTy>, HashSet<FloatTy>) = Default::default();
    for (_, i) in func.inst_order() {
        let (ty, ptr) = match &func.insts[i].kind {
            InstKind::Load { ty, ptr } => (ty.clone(), *ptr),
            InstKind::Store { value, ptr } => (func.ty(*value).clone(), *ptr),
            _ => continue,
        };
        if let (Some(f), true) = (ty.float_elem(), shadowed(ptr)) {
            seen.insert(f);
            if objects.contains(&root(func, ptr)) {
                near.insert(f);
            }
        }
    }
    if near.len() == 1 {
        return Ok(*near.iter().next().expect("one"));
    }
    match seen.len() {
        1 => Ok(*seen.iter().next().expect("one")),
        0 => Err(TransformError::at(
            func,
            inst,
            "cannot tell which bytes of this copy carry derivatives: nothing in the program reads or writes them \
             with a type (a float, a pointer, an integer); access the memory with its type, or compile with -O1 or \
             higher so that clang describes the types",
        )),
        _ => Err(TransformError::at(
            func,
            inst,
            "cannot tell which bytes of this copy carry derivatives: the function reads differentiated memory \
             as more than one float type",
        )),
    }
}

/// What a copy's adjoint, and its primal, do with the bytes it moves.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum CopyPlan {
    /// Floats of one type: the destination's adjoint moves back to the source.
    Floats(FloatTy),
    /// Fields of several kinds, repeating every `period` bytes: float fields' adjoints move
    /// back, pointer fields' shadows are copied by the primal, integers are left alone.
    Fields(Arc<CopyLayout>),
}

impl CopyPlan {
    /// Whether the primal copies shadow pointers for this copy.
    pub fn copies_shadows(&self) -> bool {
        matches!(self, CopyPlan::Fields(layout) if layout.has_pointers())
    }
}

/// Decides how copy `inst` (`memcpy`/`memmove` of `bytes` from `src` to `dst`) is
/// differentiated, from what the type analysis knows of the bytes; refuses when it cannot
/// tell which bytes carry derivatives and which carry shadows.
pub fn copy_plan(memory: &MemTypes, func: &Function, inst: Inst) -> Result<CopyPlan, TransformError> {
    let Some((_, dst, src, bytes)) = mem_op(&func.insts[inst].kind) else {
        return Err(TransformError::at(func, inst, "internal error: not a memory copy"));
    };
    let size = match func.constant(bytes) {
        Some(Constant::Int { value, .. }) => u64::try_from(*value).ok(),
        _ => None,
    };
    let refuse = |known: &Known| {
        let advice = match known {
            Known::Unaligned(_) => {
                "index the memory with its element type (a pointer to the struct, not bytes at a computed offset), \
                 or copy the fields one by one"
            }
            _ => "copy the fields one by one, or compile with -O1 or higher so that clang describes the struct it copies",
        };
        Err(TransformError::at(
            func,
            inst,
            format!(
                "cannot tell which bytes of this copy carry derivatives and which carry pointers ({}); {advice}",
                describe_known(known)
            ),
        ))
    };
    match memory.copy(func, dst, src, size) {
        Known::All(ScalarKind::Float(f)) => Ok(CopyPlan::Floats(f)),
        // A copy of a constant size that ends inside a pointer (clang copies a C++ object
        // without the tail padding a derived class may reuse: Eigen's 10-byte `MapBase`,
        // a pointer and two bytes, in memory whose bytes 8..16 hold a pointer elsewhere):
        // the whole pointers' shadows are copied as pointers, the last bytes' shadow byte
        // by byte, as the copy moves them, so that a pointer put together by two copies
        // still has its shadow put together.
        Known::All(ScalarKind::Pointer) if size.is_some_and(|n| n % 8 != 0) => {
            let n = size.expect("a constant size");
            let mut pieces: Vec<_> = (0..n / 8).map(|k| (8 * k, 8, ScalarKind::Pointer)).collect();
            pieces.push((n / 8 * 8, n % 8, ScalarKind::Integer));
            Ok(CopyPlan::Fields(Arc::new(CopyLayout { period: n, pieces })))
        }
        Known::All(kind) => {
            let period = match kind {
                ScalarKind::Pointer => 8,
                _ => size.filter(|s| *s > 0).unwrap_or(8),
            };
            Ok(CopyPlan::Fields(Arc::new(CopyLayout { period, pieces: vec![(0, period, kind)] })))
        }
        Known::Layout(layout, holes) => {
            // Bytes nothing types may hold anything (the pointer of a record whose helper
            // reads only its float key): never taken for floats. Only padding is left alone.
            if !holes.iter().all(|hole| is_padding(&layout, *hole)) {
                return refuse(&Known::Layout(layout, holes));
            }
            match layout.uniform_float() {
                Some(f) if holes.is_empty() && layout.pieces.iter().all(|(_, _, k)| matches!(k, ScalarKind::Float(_))) => {
                    Ok(CopyPlan::Floats(f))
                }
                _ => Ok(CopyPlan::Fields(Arc::new(layout))),
            }
        }
        known @ (Known::Conflict(_) | Known::Unaligned(_)) => refuse(&known),
        // Nothing anywhere says what these bytes are.
        Known::Nothing => Err(TransformError::at(
            func,
            inst,
            "cannot tell which bytes of this copy carry derivatives: nothing in the program reads or writes them with \
             a type (a float, a pointer, an integer); access the memory with its type, or compile with -O1 or higher \
             so that clang describes the types",
        )),
    }
}

/// Whether a gap in a layout is padding: the bytes alignment leaves before the piece after
/// it, or at the end of the element after its last piece.
fn is_padding(layout: &CopyLayout, (offset, size): (u64, u64)) -> bool {
    let align = |(_, s, k): &(u64, u64, ScalarKind)| match k {
        ScalarKind::Float(FloatTy::X86Fp80) => 16,
        ScalarKind::Float(f) => u64::from(f.bits() / 8),
        ScalarKind::Pointer => 8,
        ScalarKind::Integer => (*s).clamp(1, 8).next_power_of_two().min(8),
    };
    if offset == 0 {
        return false;
    }
    let end = offset + size;
    match layout.pieces.iter().find(|(o, _, _)| *o == end) {
        Some(next) => offset.next_multiple_of(align(next)) == end,
        None => {
            let widest = layout.pieces.iter().map(align).max().unwrap_or(1);
            end == layout.period && offset.next_multiple_of(widest) == end
        }
    }
}

/// `__<ns>_copy_adjoint_fields<k>(dst shadow, src shadow, bytes)`: per element of a
/// `CopyPlan::Fields` layout, `src.f += dst.f; dst.f = 0` for each float field `f`.
pub fn field_adjoint_name(namespace: &str, k: usize) -> String {
    format!("__{namespace}_copy_adjoint_fields{k}")
}

/// `__<ns>_copy_shadows<k>(dst shadow, src shadow, bytes)`: per element, the pointer
/// fields of the source's shadow copied to the destination's (the primal's part of a copy).
pub fn field_shadows_name(namespace: &str, k: usize) -> String {
    format!("__{namespace}_copy_shadows{k}")
}

/// The helper named by `field_adjoint_name`.
pub fn field_adjoint(name: String, layout: &CopyLayout) -> Function {
    field_adjoint_with(name, layout, true)
}

/// The float fields' adjoint loop; `whole`: a size that is not a whole number of elements
/// traps (see `element_loop`).
fn field_adjoint_with(name: String, layout: &CopyLayout, whole: bool) -> Function {
    element_loop(
        name,
        layout,
        false,
        whole,
        |_| None,
        |c, dst, src, base, _| {
            for &(o, s, k) in &layout.pieces {
                let ScalarKind::Float(f) = k else { continue };
                let step = u64::from(f.bits().div_ceil(8)).next_power_of_two();
                for t in 0..s / step {
                    let off = c.i64((o + t * step) as i64);
                    let off = c.binary(BinOp::Add, base, off);
                    let (pd, ps) = (c.byte_offset(dst, off), c.byte_offset(src, off));
                    let elem = Type::Float(f);
                    let d = c.load(elem.clone(), pd);
                    let sv = c.load(elem, ps);
                    let sum = c.binary(BinOp::FAdd, sv, d);
                    c.store(sum, ps);
                    let zero = c.float(f, 0.0);
                    c.store(zero, pd);
                }
            }
        },
    )
}

/// The helper named by `field_shadows_name`: copies the shadows of the pointer fields, and
/// the shadow integers of the integer fields (as forward mode copies every shadow byte; a
/// generated gradient's tape copied by `memcpy` carries its shadow stacks' counts, which
/// reverse mode over it reads, `rules::stacks`). A null source shadow stands for memory
/// that is not differentiated: the pointers copied from it get null shadows, the integers 0.
pub fn field_shadows(name: String, layout: &CopyLayout) -> Function {
    // A slot holding null, which a missing source is read from instead (a select of the
    // address, so that nothing is loaded from null).
    let null_slot = |c: &mut Cursor| {
        let slot = c.alloca(Type::PTR);
        let null = c.constant(Constant::Null(0));
        c.store(null, slot);
        Some(slot)
    };
    element_loop(name, layout, true, true, null_slot, |c, dst, src, base, slot| {
        let slot = slot.expect("the null slot");
        let null = c.constant(Constant::Null(0));
        let from_nothing = c.icmp(IntPred::Eq, src, null);
        for &(o, s, k) in &layout.pieces {
            // Words of 8 bytes, or single bytes for an integer of another size (the null
            // slot reads as 0 either way).
            let (step, ty) = match k {
                ScalarKind::Pointer => (8, Type::PTR),
                ScalarKind::Integer if s % 8 == 0 && o % 8 == 0 => (8, Type::I64),
                ScalarKind::Integer => (1, Type::I8),
                ScalarKind::Float(_) => continue,
            };
            for t in 0..s / step {
                let off = c.i64((o + t * step) as i64);
                let off = c.binary(BinOp::Add, base, off);
                let (pd, ps) = (c.byte_offset(dst, off), c.byte_offset(src, off));
                let from = c.select(from_nothing, slot, ps);
                let shadow = c.load(ty.clone(), from);
                c.store(shadow, pd);
            }
        }
    })
}

/// `void name(ptr dst, ptr src, i64 bytes)` running `body` once per element of the layout,
/// with the element's byte offset and what `prelude` made in the entry block. Elements are
/// visited away from an overlap of the two ranges, as `memmove` copies: from the end when
/// `dst` lies above `src` for a `forward` copy, the other way round for an adjoint. With
/// `whole`, a size that is not a whole number of elements traps (the layout would not
/// describe its bytes); without, the trailing part is left alone.
fn element_loop(
    name: String,
    layout: &CopyLayout,
    forward: bool,
    whole: bool,
    prelude: impl FnOnce(&mut Cursor) -> Option<Value>,
    body: impl Fn(&mut Cursor, Value, Value, Value, Option<Value>),
) -> Function {
    let mut f = Function::new(name, copy_adjoint_signature());
    f.linkage = Linkage::Internal;
    f.attributes = vec!["nounwind".into()];
    let (dst, src, bytes) = (f.params[0], f.params[1], f.params[2]);
    let entry = f.create_block(Some("entry".into()));
    let check = f.create_block(Some("check".into()));
    let bad = whole.then(|| f.create_block(Some("partial".into())));
    let loop_block: Block = f.create_block(Some("element".into()));
    let exit = f.create_block(Some("exit".into()));
    let mut c = Cursor::at_end(&mut f, entry);
    let made = prelude(&mut c);
    let period = c.i64(layout.period as i64);
    let zero = c.i64(0);
    match bad {
        Some(bad) => {
            let rest = c.binary(BinOp::URem, bytes, period);
            let is_whole = c.icmp(IntPred::Eq, rest, zero);
            c.cond_br(is_whole, check, bad);
            c.switch_to(bad);
            c.trap();
        }
        None => c.br(check),
    }
    c.switch_to(check);
    let count = c.binary(BinOp::UDiv, bytes, period);
    let empty = c.icmp(IntPred::Eq, count, zero);
    let (d_addr, s_addr) = (c.cast(CastOp::PtrToInt, dst, Type::I64), c.cast(CastOp::PtrToInt, src, Type::I64));
    let backwards = if forward { c.icmp(IntPred::Ugt, d_addr, s_addr) } else { c.icmp(IntPred::Ult, d_addr, s_addr) };
    let one = c.i64(1);
    let last = c.binary(BinOp::Sub, count, one);
    c.cond_br(empty, exit, loop_block);
    c.switch_to(loop_block);
    let j = c.emit(InstKind::Phi { incoming: vec![(check, zero)] }, Type::I64).expect("phi");
    let back = c.binary(BinOp::Sub, last, j);
    let e = c.select(backwards, back, j);
    let base = c.binary(BinOp::Mul, e, period);
    body(&mut c, dst, src, base, made);
    let next = c.binary(BinOp::Add, j, one);
    let more = c.icmp(IntPred::Ult, next, count);
    c.cond_br(more, loop_block, exit);
    c.switch_to(exit);
    c.ret(None);
    let phi = f.def_inst(j).expect("phi inst");
    if let InstKind::Phi { incoming } = &mut f.insts[phi].kind {
        incoming.push((loop_block, next));
    }
    f
}

/// `__<ns>_copy_adjoint_<ty>(dst shadow, src shadow, bytes)`: `src[i] += dst[i]; dst[i] = 0`.
pub fn copy_adjoint_name(namespace: &str, ty: FloatTy) -> String {
    format!("__{namespace}_copy_adjoint_{}", ty.name())
}

pub fn copy_adjoint_signature() -> Signature {
    Signature::new(vec![Type::PTR, Type::PTR, Type::I64], Type::Void)
}

/// The helper named by `copy_adjoint_name`: the fields' helper for a layout of one float
/// (a trailing part of an element, too short to hold one, moves nothing).
pub fn copy_adjoint(namespace: &str, ty: FloatTy) -> Function {
    let size = u64::from(ty.bits().div_ceil(8)).next_power_of_two();
    let layout = CopyLayout { period: size, pieces: vec![(0, size, ScalarKind::Float(ty))] };
    let mut f = field_adjoint_with(copy_adjoint_name(namespace, ty), &layout, false);
    f.attributes.push("alwaysinline".into());
    f
}

/// `realloc` moves a block's contents, so its shadow moves too; but the old shadow must
/// outlive the primal (the adjoint of the accesses made before the `realloc` adds into it),
/// so the new shadow is fresh zeroed memory holding a copy of the old one, and the old
/// shadow is freed where it was allocated. The old block's size is not known at the call,
/// so `malloc_usable_size` (glibc, musl) bounds the copy: zyg's shadows come from `calloc`,
/// so the bytes past the old size that it may add are zero.
pub fn is_realloc(kind: &InstKind) -> bool {
    matches!(kind, InstKind::Call { callee: Callee::Direct(name), args, .. } if &**name == "realloc" && args.len() == 2)
}

/// `__<ns>_shadow_realloc(old shadow, bytes) -> new shadow`: `calloc`, then the old
/// contents (up to `bytes`) copied in.
pub fn shadow_realloc_name(namespace: &str) -> String {
    format!("__{namespace}_shadow_realloc")
}

/// `__<ns>_realloc_adjoint_<ty>(old shadow, new shadow, bytes)`: the copy's adjoint (the
/// new shadow's contents added back into the old), then the new shadow freed.
pub fn realloc_adjoint_name(namespace: &str, ty: FloatTy) -> String {
    format!("__{namespace}_realloc_adjoint_{}", ty.name())
}

pub fn shadow_realloc_signature() -> Signature {
    Signature::new(vec![Type::PTR, Type::I64], Type::PTR)
}

pub fn realloc_adjoint_signature() -> Signature {
    Signature::new(vec![Type::PTR, Type::PTR, Type::I64], Type::Void)
}

/// The bytes a `realloc` to `bytes` keeps of `old`: `min(malloc_usable_size(old), bytes)`
/// (`malloc_usable_size(NULL)` is 0).
fn kept_bytes(c: &mut Cursor, old: Value, bytes: Value) -> Value {
    let usable =
        c.call("malloc_usable_size", Signature::new(vec![Type::PTR], Type::I64), vec![old]).expect("malloc_usable_size returns");
    let smaller = c.icmp(IntPred::Ult, usable, bytes);
    c.select(smaller, usable, bytes)
}

fn helper(name: String, sig: Signature) -> Function {
    let mut f = Function::new(name, sig);
    f.linkage = Linkage::Internal;
    f.attributes = vec!["nounwind".into()];
    f.create_block(Some("entry".into()));
    f
}

/// `__<ns>_shadow_realloc_moving(old shadow, bytes) -> new shadow`: forward mode's, which
/// also frees the old shadow, as `realloc` frees the old memory (nothing reads it after).
pub fn shadow_realloc_moving_name(namespace: &str) -> String {
    format!("__{namespace}_shadow_realloc_moving")
}

pub fn shadow_realloc(namespace: &str) -> Function {
    shadow_realloc_with(shadow_realloc_name(namespace), false)
}

pub fn shadow_realloc_moving(namespace: &str) -> Function {
    shadow_realloc_with(shadow_realloc_moving_name(namespace), true)
}

/// `calloc`, the old contents copied in, and (`moving`) the old shadow freed.
fn shadow_realloc_with(name: String, moving: bool) -> Function {
    let mut f = helper(name, shadow_realloc_signature());
    let (old, bytes) = (f.params[0], f.params[1]);
    let entry = f.entry().expect("entry");
    let mut c = Cursor::at_end(&mut f, entry);
    let one = c.i64(1);
    let calloc = Signature::new(vec![Type::I64, Type::I64], Type::PTR);
    let new = c.call("calloc", calloc, vec![one, bytes]).expect("calloc returns");
    let kept = kept_bytes(&mut c, old, bytes);
    let volatile = c.constant(Constant::bool(false));
    let memcpy = Signature::new(vec![Type::PTR, Type::PTR, Type::I64, Type::I1], Type::Void);
    c.call("llvm.memmove.p0.p0.i64", memcpy, vec![new, old, kept, volatile]);
    if moving {
        c.free(old);
    }
    c.ret(Some(new));
    f
}

/// Needs `copy_adjoint(namespace, ty)` in the same module.
pub fn realloc_adjoint(namespace: &str, ty: FloatTy) -> Function {
    let mut f = helper(realloc_adjoint_name(namespace, ty), realloc_adjoint_signature());
    let (old, new, bytes) = (f.params[0], f.params[1], f.params[2]);
    let entry = f.entry().expect("entry");
    let mut c = Cursor::at_end(&mut f, entry);
    let kept = kept_bytes(&mut c, old, bytes);
    c.call(&copy_adjoint_name(namespace, ty), copy_adjoint_signature(), vec![new, old, kept]);
    c.free(new);
    c.ret(None);
    f
}

/// Where an aligned allocation's alignment is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Alignment {
    /// The argument of this index.
    Arg(usize),
    /// A fixed alignment: `valloc`'s page (the shadow need only be as aligned as the
    /// accesses the compiler writes through it assume, and none assumes more than a page).
    Fixed(u64),
}

/// An allocation whose memory is more aligned than `malloc`'s: (where its alignment is,
/// the index of its size argument). Its shadow comes from `shadow_aligned`, as aligned,
/// since the primal's accesses through it (copied to the shadow) may assume the alignment.
pub fn aligned_allocation(kind: &InstKind) -> Option<(Alignment, usize)> {
    let InstKind::Call { callee: Callee::Direct(name), .. } = kind else { return None };
    match &**name {
        "aligned_alloc" | "memalign" => Some((Alignment::Arg(0), 1)),
        "valloc" => Some((Alignment::Fixed(4096), 0)),
        "_ZnwmSt11align_val_t"
        | "_ZnamSt11align_val_t"
        | "_ZnwmSt11align_val_tRKSt9nothrow_t"
        | "_ZnamSt11align_val_tRKSt9nothrow_t" => Some((Alignment::Arg(1), 0)),
        _ => None,
    }
}

/// `__<ns>_shadow_aligned(alignment, bytes) -> shadow`: zeroed memory as aligned as the
/// primal's, freed by `free` as the other shadows are.
pub fn shadow_aligned_name(namespace: &str) -> String {
    format!("__{namespace}_shadow_aligned")
}

pub fn shadow_aligned_signature() -> Signature {
    Signature::new(vec![Type::I64, Type::I64], Type::PTR)
}

/// The helper named by `shadow_aligned_name`: `aligned_alloc` of the size rounded up to a
/// multiple of the alignment (C11 asks for one), then zeroed unless it failed. An alignment
/// `aligned_alloc` refuses makes it return null, as the primal's call does.
pub fn shadow_aligned(namespace: &str) -> Function {
    let mut f = helper(shadow_aligned_name(namespace), shadow_aligned_signature());
    let (align, bytes) = (f.params[0], f.params[1]);
    let entry = f.entry().expect("entry");
    let mut c = Cursor::at_end(&mut f, entry);
    let one = c.i64(1);
    let low = c.binary(BinOp::Sub, align, one);
    let padded = c.binary(BinOp::Add, bytes, low);
    let all = c.i64(-1);
    let mask = c.binary(BinOp::Xor, low, all);
    let rounded = c.binary(BinOp::And, padded, mask);
    let sig = Signature::new(vec![Type::I64, Type::I64], Type::PTR);
    let memory = c.call("aligned_alloc", sig, vec![align, rounded]).expect("aligned_alloc returns");
    let null = c.constant(Constant::Null(0));
    let failed = c.icmp(IntPred::Eq, memory, null);
    let none = c.i64(0);
    let zeroed = c.select(failed, none, rounded);
    crate::rules::memcalls::zero_bytes(&mut c, memory, zeroed);
    c.ret(Some(memory));
    f
}
