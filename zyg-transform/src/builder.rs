//! A cursor that emits zyg-ir instructions at a point in a block (used by every phase).

use zyg_ir::{
    BinOp, Block, Callee, CastOp, Constant, FloatPred, FloatTy, Function, InstKind, IntPred, Signature, Type, UnOp, Value,
};

pub struct Cursor<'f> {
    pub func: &'f mut Function,
    pub block: Block,
    /// Where the next instruction goes in the block; `None` appends.
    pub at: Option<usize>,
}

impl<'f> Cursor<'f> {
    pub fn at_end(func: &'f mut Function, block: Block) -> Cursor<'f> {
        Cursor { func, block, at: None }
    }

    /// Before the block's terminator.
    pub fn before_terminator(func: &'f mut Function, block: Block) -> Cursor<'f> {
        let n = func.blocks[block].insts.len();
        let at = if func.terminator(block).is_some() { n - 1 } else { n };
        Cursor { func, block, at: Some(at) }
    }

    pub fn at_start(func: &'f mut Function, block: Block) -> Cursor<'f> {
        Cursor { func, block, at: Some(0) }
    }

    pub fn switch_to(&mut self, block: Block) {
        self.block = block;
        self.at = None;
    }

    pub fn emit(&mut self, kind: InstKind, ty: Type) -> Option<Value> {
        let inst = self.func.make_inst(kind, ty);
        let insts = &mut self.func.blocks[self.block].insts;
        match &mut self.at {
            Some(i) => {
                insts.insert(*i, inst);
                *i += 1;
            }
            None => insts.push(inst),
        }
        self.func.result(inst)
    }

    fn value(&mut self, kind: InstKind, ty: Type) -> Value {
        self.emit(kind, ty).expect("instruction with a result")
    }

    pub fn constant(&mut self, c: Constant) -> Value {
        self.func.constant_value(c)
    }

    pub fn float(&mut self, ty: FloatTy, x: f64) -> Value {
        self.constant(Constant::float(ty, x))
    }

    pub fn i32(&mut self, x: i64) -> Value {
        self.constant(Constant::int(32, x.into()))
    }

    pub fn i64(&mut self, x: i64) -> Value {
        self.constant(Constant::int(64, x.into()))
    }

    pub fn binary(&mut self, op: BinOp, a: Value, b: Value) -> Value {
        let ty = self.func.ty(a).clone();
        self.value(InstKind::Binary { op, args: [a, b] }, ty)
    }

    pub fn fneg(&mut self, a: Value) -> Value {
        let ty = self.func.ty(a).clone();
        self.value(InstKind::Unary { op: UnOp::FNeg, arg: a }, ty)
    }

    pub fn cast(&mut self, op: CastOp, a: Value, ty: Type) -> Value {
        self.value(InstKind::Cast { op, arg: a }, ty)
    }

    /// An unsigned integer (a count, a byte size) as an `i64`: zero-extended, or unchanged.
    pub fn zext_to_i64(&mut self, a: Value) -> Value {
        if *self.func.ty(a) == Type::I64 {
            a
        } else {
            self.cast(CastOp::ZExt, a, Type::I64)
        }
    }

    /// Converts a float (or vector of floats) to another float format (fpext/fptrunc), or
    /// returns it unchanged.
    pub fn convert_float(&mut self, a: Value, to: &Type) -> Value {
        let (Some(from_ty), Some(to_ty)) = (self.func.ty(a).float_elem(), to.float_elem()) else { return a };
        if from_ty == to_ty {
            a
        } else if from_ty.bits() < to_ty.bits() {
            self.cast(CastOp::FPExt, a, to.clone())
        } else {
            self.cast(CastOp::FPTrunc, a, to.clone())
        }
    }

    pub fn fcmp(&mut self, pred: FloatPred, a: Value, b: Value) -> Value {
        let ty = self.func.ty(a).bool_like();
        self.value(InstKind::FCmp { pred, args: [a, b] }, ty)
    }

    /// `a == ±0.0` for a float or a vector of floats, tested on its bits (the sign bit
    /// masked off); `x86_fp80` by `fcmp`.
    pub fn is_float_zero(&mut self, a: Value) -> Value {
        let ty = self.func.ty(a).clone();
        let (lanes, elem) = match &ty {
            Type::Vector(n, e) => (Some(*n), e.float_ty()),
            t => (None, t.float_ty()),
        };
        let bits = match elem {
            Some(FloatTy::F32) => 32,
            Some(FloatTy::F64) => 64,
            _ => {
                let zero = self.constant(Constant::Zero(ty));
                return self.fcmp(FloatPred::Oeq, a, zero);
            }
        };
        let int = Type::Int(bits);
        let mask = Constant::int(bits, (1i128 << (bits - 1)) - 1);
        let (int_ty, mask) = match lanes {
            Some(n) => (Type::Vector(n, std::sync::Arc::new(int)), Constant::Vector(vec![mask; n as usize])),
            None => (int, mask),
        };
        let raw = self.cast(CastOp::BitCast, a, int_ty.clone());
        let mask = self.constant(mask);
        let magnitude = self.binary(BinOp::And, raw, mask);
        let zero = self.constant(Constant::Zero(int_ty));
        self.icmp(IntPred::Eq, magnitude, zero)
    }

    pub fn icmp(&mut self, pred: IntPred, a: Value, b: Value) -> Value {
        let ty = self.func.ty(a).bool_like();
        self.value(InstKind::ICmp { pred, args: [a, b] }, ty)
    }

    /// `!b`, for an `i1`.
    pub fn not(&mut self, b: Value) -> Value {
        let yes = self.constant(Constant::bool(true));
        self.binary(BinOp::Xor, b, yes)
    }

    pub fn select(&mut self, cond: Value, a: Value, b: Value) -> Value {
        let ty = self.func.ty(a).clone();
        self.value(InstKind::Select { cond, then_value: a, else_value: b }, ty)
    }

    /// `max(v, least)` for an unsigned `i64`.
    pub fn unsigned_at_least(&mut self, v: Value, least: i64) -> Value {
        let least = self.i64(least);
        let below = self.icmp(IntPred::Ult, v, least);
        self.select(below, least, v)
    }

    /// `min(v, most)` for an unsigned `i64`.
    pub fn unsigned_at_most(&mut self, v: Value, most: i64) -> Value {
        let most = self.i64(most);
        let above = self.icmp(IntPred::Ugt, v, most);
        self.select(above, most, v)
    }

    pub fn call(&mut self, name: &str, sig: Signature, args: Vec<Value>) -> Option<Value> {
        let ty = sig.ret.clone();
        self.emit(InstKind::Call { callee: Callee::Direct(name.into()), sig, args, unwind: None }, ty)
    }

    pub fn alloca(&mut self, ty: Type) -> Value {
        self.value(InstKind::Alloca { ty }, Type::PTR)
    }

    pub fn load(&mut self, ty: Type, ptr: Value) -> Value {
        self.value(InstKind::Load { ty: ty.clone(), ptr }, ty)
    }

    pub fn store(&mut self, value: Value, ptr: Value) {
        self.emit(InstKind::Store { value, ptr }, Type::Void);
    }

    /// Address of field path `fields` of a struct at `base` (`gep ty, base, 0, f...`).
    pub fn field_ptr(&mut self, ty: &Type, base: Value, fields: &[u32]) -> Value {
        let mut indices = vec![self.i32(0)];
        indices.extend(fields.iter().map(|f| self.i32(i64::from(*f))));
        let ptr_ty = self.func.ty(base).clone();
        self.value(InstKind::Gep { source_ty: ty.clone(), base, indices, inbounds: true }, ptr_ty)
    }

    /// Zeroes the value of type `ty` at `ptr` but its pointers: a shadow's pointer fields hold
    /// shadow pointers (set by the program, or by the initialiser), not adjoints. A long array
    /// of elements with pointers is zeroed in a loop; the cursor ends after it.
    pub fn zero_keeping_pointers(&mut self, ty: &Type, ptr: Value) {
        if !ty.holds_pointers() {
            let zero = self.constant(Constant::Zero(ty.clone()));
            self.store(zero, ptr);
            return;
        }
        match ty {
            Type::Struct(fields) => {
                for (k, field) in fields.iter().enumerate() {
                    let at = self.field_ptr(ty, ptr, &[k as u32]);
                    self.zero_keeping_pointers(field, at);
                }
            }
            Type::Array(n, elem) if *n <= 4 => {
                for k in 0..*n {
                    let at = self.field_ptr(ty, ptr, &[k as u32]);
                    self.zero_keeping_pointers(elem, at);
                }
            }
            Type::Array(n, elem) => {
                debug_assert!(self.at.is_none(), "a loop is built at the end of a block");
                let (before, body, after) = (self.block, self.func.create_block(None), self.func.create_block(None));
                let zero = self.i64(0);
                self.br(body);
                self.switch_to(body);
                let i = self.emit(InstKind::Phi { incoming: vec![(before, zero)] }, Type::I64).expect("phi");
                let first = self.i32(0);
                let ptr_ty = self.func.ty(ptr).clone();
                let at = self
                    .value(InstKind::Gep { source_ty: ty.clone(), base: ptr, indices: vec![first, i], inbounds: true }, ptr_ty);
                self.zero_keeping_pointers(elem, at);
                let one = self.i64(1);
                let next = self.binary(BinOp::Add, i, one);
                let count = self.i64(*n as i64);
                let more = self.icmp(IntPred::Ult, next, count);
                let latch = self.block;
                self.cond_br(more, body, after);
                self.switch_to(after);
                let phi = self.func.def_inst(i).expect("phi inst");
                if let InstKind::Phi { incoming } = &mut self.func.insts[phi].kind {
                    incoming.push((latch, next));
                }
            }
            // A pointer, or a vector of them.
            _ => {}
        }
    }

    /// `*ptr += value` for a value of type `ty` holding floats: a float or float vector is
    /// added whole; a struct or array field by field, skipping fields without floats (the
    /// shadow of an integer or pointer field is not an adjoint and is left alone).
    pub fn add_into(&mut self, ptr: Value, ty: &Type, value: Value) {
        self.add_floats(ptr, ty, value, false);
    }

    /// `*ptr += value` as `add_into`, each float added with `atomicrmw fadd` (memory other
    /// threads may add into at the same time).
    pub fn atomic_add_into(&mut self, ptr: Value, ty: &Type, value: Value) {
        self.add_floats(ptr, ty, value, true);
    }

    fn add_floats(&mut self, ptr: Value, ty: &Type, value: Value, atomic: bool) {
        match ty {
            Type::Float(_) if atomic => {
                self.emit(InstKind::AtomicFAdd { ptr, value, ordering: zyg_ir::AtomicOrdering::Monotonic }, ty.clone());
            }
            Type::Vector(n, elem) if atomic => {
                for lane in 0..*n {
                    let i = self.i32(i64::from(lane));
                    let part = self.extract_element(value, i);
                    let idx = self.i64(i64::from(lane));
                    let ptr_ty = self.func.ty(ptr).clone();
                    let at = self.value(
                        InstKind::Gep { source_ty: (**elem).clone(), base: ptr, indices: vec![idx], inbounds: true },
                        ptr_ty,
                    );
                    self.add_floats(at, elem, part, true);
                }
            }
            _ if ty.float_elem().is_some() => {
                let value = self.convert_float(value, ty);
                let old = self.load(ty.clone(), ptr);
                let new = self.binary(BinOp::FAdd, old, value);
                self.store(new, ptr);
            }
            _ => {
                for (i, field) in aggregate_fields(ty) {
                    if field.carries_derivative() {
                        let part = self.extract(value, i);
                        let at = self.field_ptr(ty, ptr, &[i]);
                        self.add_floats(at, &field, part, atomic);
                    }
                }
            }
        }
    }

    /// Reads the floats of a `ty` at `ptr` and clears them there (an adjoint taken out of
    /// shadow memory); other fields read as zero and are left alone.
    pub fn take_from(&mut self, ptr: Value, ty: &Type, cleared: Cleared) -> Value {
        if ty.float_elem().is_some() {
            let value = self.load(ty.clone(), ptr);
            let zero = self.constant(cleared.constant(ty));
            self.store(zero, ptr);
            return value;
        }
        let mut value = self.constant(Constant::Zero(ty.clone()));
        for (i, field) in aggregate_fields(ty) {
            if field.carries_derivative() {
                let at = self.field_ptr(ty, ptr, &[i]);
                let part = self.take_from(at, &field, cleared);
                value = self.insert(value, part, i);
            }
        }
        value
    }

    /// Stores an empty `ty` at `ptr`: floats cleared as `cleared` says (one store per float
    /// field for small aggregates; a larger one is zeroed in one store), everything else zero.
    pub fn store_cleared(&mut self, ptr: Value, ty: &Type, cleared: Cleared) {
        let fields = aggregate_fields(ty);
        let per_field = cleared == Cleared::Private && ty.carries_derivative() && fields.len() <= MAX_CLEARED_FIELDS;
        if ty.float_elem().is_some() || !per_field {
            let zero = self.constant(cleared.constant(ty));
            self.store(zero, ptr);
            return;
        }
        for (i, field) in fields {
            let at = self.field_ptr(ty, ptr, &[i]);
            self.store_cleared(at, &field, cleared);
        }
    }

    /// Stores into `ptr` the parts of `value` (of type `ty`) that `whole` takes, and leaves
    /// the others alone: a part `whole` takes is stored in one piece; a struct or array
    /// holding both pointers and floats is split into its fields; any other part is of the
    /// kind `whole` leaves. A shadow struct's pointers and integers go to shadow memory
    /// without its float fields (adjoints or tangents there), and back.
    pub fn store_parts(&mut self, ty: &Type, value: Value, ptr: Value, whole: &dyn Fn(&Type) -> bool) {
        if whole(ty) {
            self.store(value, ptr);
            return;
        }
        if !(ty.holds_pointers() && ty.carries_derivative()) {
            return;
        }
        for (i, field) in aggregate_fields(ty) {
            let part = self.extract(value, i);
            let at = self.field_ptr(ty, ptr, &[i]);
            self.store_parts(&field, part, at, whole);
        }
    }

    /// `base + offset` bytes.
    pub fn byte_offset(&mut self, base: Value, offset: Value) -> Value {
        let ptr_ty = self.func.ty(base).clone();
        self.value(InstKind::Gep { source_ty: Type::I8, base, indices: vec![offset], inbounds: true }, ptr_ty)
    }

    /// The allocation size of `ty` as an i64, by the `gep ty, null, 1` idiom, so the
    /// transform needs no data layout: LLVM folds it to a constant.
    pub fn size_of(&mut self, ty: &Type) -> Value {
        let null = self.constant(Constant::Null(0));
        let one = self.i64(1);
        let end = self.value(InstKind::Gep { source_ty: ty.clone(), base: null, indices: vec![one], inbounds: false }, Type::PTR);
        self.cast(CastOp::PtrToInt, end, Type::I64)
    }

    /// The ABI alignment of `ty` as an i64: the offset of a `ty` after a byte in a struct,
    /// `{ i8, ty }`, by the same idiom as `size_of`.
    pub fn align_of(&mut self, ty: &Type) -> Value {
        let padded = Type::structure(vec![Type::I8, ty.clone()]);
        let null = self.constant(Constant::Null(0));
        let at = self.field_ptr(&padded, null, &[1]);
        self.cast(CastOp::PtrToInt, at, Type::I64)
    }

    /// Stops the program here (`llvm.trap`; the block ends unreachable).
    pub fn trap(&mut self) {
        self.call("llvm.trap", Signature::new(vec![], Type::Void), vec![]);
        self.emit(InstKind::Unreachable, Type::Void);
    }

    pub fn extract(&mut self, agg: Value, index: u32) -> Value {
        let ty = self.func.ty(agg).field(index).cloned().expect("extractvalue index in range");
        self.value(InstKind::ExtractValue { agg, indices: vec![index] }, ty)
    }

    pub fn extract_element(&mut self, vec: Value, index: Value) -> Value {
        let Type::Vector(_, elem) = self.func.ty(vec).clone() else { panic!("extractelement of a non-vector") };
        self.value(InstKind::ExtractElement { vec, index }, (*elem).clone())
    }

    pub fn insert_element(&mut self, vec: Value, value: Value, index: Value) -> Value {
        let ty = self.func.ty(vec).clone();
        self.value(InstKind::InsertElement { vec, value, index }, ty)
    }

    pub fn insert(&mut self, agg: Value, value: Value, index: u32) -> Value {
        let ty = self.func.ty(agg).clone();
        self.value(InstKind::InsertValue { agg, value, indices: vec![index] }, ty)
    }

    /// `a + b` of two adjoints of type `ty` held in SSA values: floats and float vectors
    /// added, aggregates field by field (the fields that carry a derivative; the others are
    /// `a`'s).
    pub fn sum(&mut self, a: Value, b: Value, ty: &Type) -> Value {
        if ty.float_elem().is_some() {
            let b = self.convert_float(b, ty);
            return self.binary(BinOp::FAdd, a, b);
        }
        let mut total = a;
        for (i, field) in aggregate_fields(ty) {
            if field.carries_derivative() {
                let (x, y) = (self.extract(a, i), self.extract(b, i));
                let part = self.sum(x, y, &field);
                total = self.insert(total, part, i);
            }
        }
        total
    }

    /// `free(ptr)`: releases memory zyg allocated (shadows, tapes, chunks, copies).
    pub fn free(&mut self, ptr: Value) {
        self.call("free", Signature::new(vec![Type::PTR], Type::Void), vec![ptr]);
    }

    pub fn br(&mut self, dest: Block) {
        self.emit(InstKind::Br { dest }, Type::Void);
    }

    pub fn cond_br(&mut self, cond: Value, then_dest: Block, else_dest: Block) {
        self.emit(InstKind::CondBr { cond, then_dest, else_dest }, Type::Void);
    }

    pub fn ret(&mut self, value: Option<Value>) {
        self.emit(InstKind::Ret { value }, Type::Void);
    }
}

/// What a float adjoint slot holds once emptied. Memory a caller can read (its shadows,
/// heap shadows) gets +0.0, what any tool leaves there. Memory only zyg's code reads (the
/// shadow of a local, a tape field) gets -0.0, the identity of addition: the next `load;
/// fadd; store` of the slot then folds to a store, where `x + 0.0` cannot fold (it turns
/// -0.0 into +0.0) and costs an addition per adjoint that reaches a local.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cleared {
    Visible,
    Private,
}

impl Cleared {
    /// The cleared value of a float or float vector; zero of any other type.
    pub fn constant(self, ty: &Type) -> Constant {
        match self {
            Cleared::Private => Constant::float_like(ty, -0.0).unwrap_or_else(|| Constant::Zero(ty.clone())),
            Cleared::Visible => Constant::Zero(ty.clone()),
        }
    }
}

/// Above this many fields, a local's shadow is zeroed in one store (LLVM's memset) rather
/// than field by field: the additions saved no longer pay for the stores.
const MAX_CLEARED_FIELDS: usize = 32;

/// The fields of a struct or the elements of an array, with their indices.
fn aggregate_fields(ty: &Type) -> Vec<(u32, Type)> {
    match ty {
        Type::Struct(fields) => fields.iter().cloned().enumerate().map(|(i, f)| (i as u32, f)).collect(),
        Type::Array(n, elem) => (0..*n as u32).map(|i| (i, (**elem).clone())).collect(),
        _ => Vec::new(),
    }
}
