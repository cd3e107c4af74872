//! The tape's growable stacks, emitted inline as small zyg-ir functions so that gradients
//! need nothing but libc (`realloc`, `free`). A stack header is `{ ptr data, i64 len, i64 cap }`;
//! records are fixed-size per block, so `len` counts records.

use crate::builder::Cursor;
use zyg_ir::{BinOp, Function, InstKind, IntPred, Linkage, Signature, Type, Constant};

/// The stack operations; the helper functions are named `__<namespace>_stack_<op>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Push,
    Top,
    Pop,
    Free,
}

impl Op {
    pub fn name(self, namespace: &str) -> String {
        let op = match self {
            Op::Push => "push",
            Op::Top => "top",
            Op::Pop => "pop",
            Op::Free => "free",
        };
        format!("__{namespace}_stack_{op}")
    }
}

/// The header type of one stack.
pub fn header_type() -> Type {
    Type::structure(vec![Type::PTR, Type::I64, Type::I64])
}

/// `push(header, record size) -> ptr`: room for one more record; `top` -> the newest record;
/// `pop` drops it; `free` releases the buffer.
pub fn signature(op: Op) -> Signature {
    match op {
        Op::Push | Op::Top => Signature::new(vec![Type::PTR, Type::I64], Type::PTR),
        Op::Pop | Op::Free => Signature::new(vec![Type::PTR], Type::Void),
    }
}

/// The four helper functions, to be emitted once per module.
pub fn helpers(namespace: &str) -> Vec<Function> {
    vec![push(namespace), top(namespace), pop(namespace), free(namespace)]
}

fn helper(op: Op, namespace: &str) -> Function {
    let mut f = Function::new(op.name(namespace), signature(op));
    f.linkage = Linkage::Internal;
    f.attributes = vec!["alwaysinline".into(), "nounwind".into()];
    f.create_block(Some("entry".into()));
    f
}

/// Grows the buffer geometrically (16 records first, then doubling) when it is full.
fn push(namespace: &str) -> Function {
    let mut f = helper(Op::Push, namespace);
    let (hdr, size) = (f.params[0], f.params[1]);
    let entry = f.entry().expect("entry");
    let grow = f.create_block(Some("grow".into()));
    let fail = f.create_block(Some("fail".into()));
    let grown = f.create_block(Some("grown".into()));
    let store = f.create_block(Some("store".into()));
    let h = header_type();
    let mut c = Cursor::at_end(&mut f, entry);
    let (data_p, len_p, cap_p) = (c.field_ptr(&h, hdr, &[0]), c.field_ptr(&h, hdr, &[1]), c.field_ptr(&h, hdr, &[2]));
    let data = c.load(Type::PTR, data_p);
    let len = c.load(Type::I64, len_p);
    let cap = c.load(Type::I64, cap_p);
    let full = c.icmp(IntPred::Eq, len, cap);
    c.cond_br(full, grow, store);

    c.switch_to(grow);
    let zero = c.i64(0);
    let empty = c.icmp(IntPred::Eq, cap, zero);
    let one = c.i64(1);
    let doubled = c.binary(BinOp::Shl, cap, one);
    let first = c.i64(16);
    let new_cap = c.select(empty, first, doubled);
    let bytes = c.binary(BinOp::Mul, new_cap, size);
    let new_data = c.call("realloc", Signature::new(vec![Type::PTR, Type::I64], Type::PTR), vec![data, bytes]).expect("ptr");
    let null = c.constant(Constant::Null(0));
    let failed = c.icmp(IntPred::Eq, new_data, null);
    c.cond_br(failed, fail, grown);

    c.switch_to(fail);
    c.call("abort", Signature::new(vec![], Type::Void), vec![]);
    c.emit(InstKind::Unreachable, Type::Void);

    c.switch_to(grown);
    c.store(new_data, data_p);
    c.store(new_cap, cap_p);
    c.br(store);

    c.switch_to(store);
    let buffer = c.emit(InstKind::Phi { incoming: vec![(entry, data), (grown, new_data)] }, Type::PTR).expect("phi");
    let offset = c.binary(BinOp::Mul, len, size);
    let slot = c.byte_offset(buffer, offset);
    let next = c.binary(BinOp::Add, len, one);
    c.store(next, len_p);
    c.ret(Some(slot));
    f
}

fn top(namespace: &str) -> Function {
    let mut f = helper(Op::Top, namespace);
    let (hdr, size) = (f.params[0], f.params[1]);
    let entry = f.entry().expect("entry");
    let h = header_type();
    let mut c = Cursor::at_end(&mut f, entry);
    let (data_p, len_p) = (c.field_ptr(&h, hdr, &[0]), c.field_ptr(&h, hdr, &[1]));
    let data = c.load(Type::PTR, data_p);
    let len = c.load(Type::I64, len_p);
    let one = c.i64(1);
    let last = c.binary(BinOp::Sub, len, one);
    let offset = c.binary(BinOp::Mul, last, size);
    let slot = c.byte_offset(data, offset);
    c.ret(Some(slot));
    f
}

fn pop(namespace: &str) -> Function {
    let mut f = helper(Op::Pop, namespace);
    let hdr = f.params[0];
    let entry = f.entry().expect("entry");
    let mut c = Cursor::at_end(&mut f, entry);
    let len_p = c.field_ptr(&header_type(), hdr, &[1]);
    let len = c.load(Type::I64, len_p);
    let one = c.i64(1);
    let less = c.binary(BinOp::Sub, len, one);
    c.store(less, len_p);
    c.ret(None);
    f
}

fn free(namespace: &str) -> Function {
    let mut f = helper(Op::Free, namespace);
    let hdr = f.params[0];
    let entry = f.entry().expect("entry");
    let mut c = Cursor::at_end(&mut f, entry);
    let data_p = c.field_ptr(&header_type(), hdr, &[0]);
    let data = c.load(Type::PTR, data_p);
    c.call("free", Signature::new(vec![Type::PTR], Type::Void), vec![data]);
    c.ret(None);
    f
}
