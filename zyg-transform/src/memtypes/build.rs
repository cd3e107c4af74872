//! Building the type analysis of memory (`memtypes`): places of pointers, the unions of
//! objects they make (calls, copies, phis, returns), and the facts about bytes each
//! instruction gives.

use super::classes::{gcd, Classes, Node, Place};
use super::{type_facts, Places};
use cranelift_entity::SecondaryMap;
use std::collections::{HashMap, HashSet};
use zyg_ir::{BinOp, Callee, CastOp, Constant, Function, Inst, InstKind, Module, ScalarKind as Kind, Type, Value};

/// Builds the classes, one function at a time.
#[derive(Default)]
pub(super) struct Builder {
    pub(super) classes: Classes,
    pub(super) places: HashMap<String, Places>,
    /// Each function's parameters and its returned pointer, as nodes shared by its callers.
    params: HashMap<(String, usize), Node>,
    returns: HashMap<String, Node>,
    globals: HashMap<String, Node>,
    /// Integer copies (a load only stored elsewhere): (destination, source, bytes), made
    /// once every other fact is known (`finish`).
    integer_copies: Vec<(Place, Place, u64)>,
    /// Pointer parameters through which their function reaches no memory (`inert`): not
    /// merged with the arguments.
    pub(super) inert: HashSet<(String, usize)>,
}

impl Builder {
    fn param(&mut self, func: &str, index: usize) -> Node {
        let key = (func.to_string(), index);
        if let Some(n) = self.params.get(&key) {
            return *n;
        }
        let n = self.classes.node();
        self.params.insert(key, n);
        n
    }

    fn returned(&mut self, func: &str) -> Node {
        if let Some(n) = self.returns.get(func) {
            return *n;
        }
        let n = self.classes.node();
        self.returns.insert(func.to_string(), n);
        n
    }

    fn global(&mut self, module: &Module, name: &str) -> Node {
        if let Some(n) = self.globals.get(name) {
            return *n;
        }
        let n = self.classes.node();
        self.globals.insert(name.to_string(), n);
        if let Some(g) = module.globals.get(name) {
            let mut facts = Vec::new();
            type_facts(&g.ty, 0, &mut facts);
            for (o, s, k) in facts {
                self.classes.fact(Place { node: n, offset: 0, stride: 0 }, o, s, k);
            }
        }
        n
    }

    pub(super) fn function(&mut self, module: &Module, func: &Function) {
        let mut places = Places::new();
        for (i, &p) in func.params.iter().enumerate() {
            if func.ty(p).is_ptr() {
                places[p] = Some(Place { node: self.param(&func.name, i), offset: 0, stride: 0 });
            }
        }
        // Places of pointer results, in layout order; phis and selects get nodes of their
        // own, merged with their incoming pointers once every place is known.
        let mut joins = Vec::new();
        for (_, inst) in func.inst_order() {
            let Some(v) = func.result(inst).filter(|v| func.ty(*v).is_ptr()) else { continue };
            let place = self.place_of(module, func, inst, &mut places);
            if matches!(func.insts[inst].kind, InstKind::Phi { .. } | InstKind::Select { .. }) {
                joins.push((inst, place.node));
            }
            places[v] = Some(place);
        }
        for (inst, node) in joins {
            let incoming: Vec<Value> = match &func.insts[inst].kind {
                InstKind::Phi { incoming } => incoming.iter().map(|(_, v)| *v).collect(),
                InstKind::Select { then_value, else_value, .. } => vec![*then_value, *else_value],
                _ => continue,
            };
            for v in incoming {
                if let Some(at) = self.operand_place(module, func, v, &mut places) {
                    self.merge(node, at);
                }
            }
        }
        // Each value's users, once (an integer load's uses say what it read).
        let mut users: SecondaryMap<Value, Vec<Inst>> = SecondaryMap::new();
        for (_, inst) in func.inst_order() {
            for v in func.insts[inst].kind.operands() {
                let list = &mut users[v];
                if list.last() != Some(&inst) {
                    list.push(inst);
                }
            }
        }
        for (_, inst) in func.inst_order() {
            self.facts_of(module, func, &users, inst, &mut places);
        }
        self.places.insert(func.name.clone(), places);
    }

    /// The integer copies, once every function's facts are in: each makes its two sides one
    /// class (`copy`), but for bytes both sides hold as integers, or that nothing types
    /// (a predecessor id): their integer kind, where one side knows it, goes to the other,
    /// and the objects stay apart. Such a copy says nothing more of the bytes, and merging
    /// the objects would blur them: a callee's tape copied into two places of its caller's
    /// tape (two calls) would make that tape repeat, its floats over its integers. A copy
    /// merged can give another's sides floats or pointers, so they are looked at again
    /// until no more merge.
    pub(super) fn finish(&mut self) {
        let mut pending = std::mem::take(&mut self.integer_copies);
        loop {
            let before = pending.len();
            pending.retain(|&(dst, src, size)| match (self.integers(dst, size), self.integers(src, size)) {
                (Some(d), Some(s)) => {
                    if d != s {
                        let untyped = if d { src } else { dst };
                        self.classes.fact(untyped, 0, size, Kind::Integer);
                    }
                    true
                }
                _ => {
                    self.copy(dst, src);
                    false
                }
            });
            if pending.len() == before {
                return;
            }
        }
    }

    /// Whether the `size` bytes at `at` are integers (`Some(true)`) or untyped
    /// (`Some(false)`), as far as is known so far; None when they may be something else, or
    /// the place is not one offset of its object.
    fn integers(&mut self, at: Place, size: u64) -> Option<bool> {
        if at.stride != 0 {
            return None;
        }
        let (root, shift) = self.classes.find(at.node);
        match super::known::of_pieces(self.classes.class[root].pieces(at.offset + shift, size), size) {
            super::Known::All(Kind::Integer) => Some(true),
            super::Known::Nothing => Some(false),
            _ => None,
        }
    }

    /// The place of a pointer operand: computed already, or a global.
    fn operand_place(&mut self, module: &Module, func: &Function, v: Value, places: &mut Places) -> Option<Place> {
        if let Some(p) = places[v] {
            return Some(p);
        }
        if let Some(Constant::Global(name, _)) = func.constant(v) {
            let p = Place { node: self.global(module, name), offset: 0, stride: 0 };
            places[v] = Some(p);
            return Some(p);
        }
        None
    }

    fn fresh(&mut self) -> Place {
        Place { node: self.classes.node(), offset: 0, stride: 0 }
    }

    /// Where the pointer `inst` computes points.
    fn place_of(&mut self, module: &Module, func: &Function, inst: Inst, places: &mut Places) -> Place {
        match &func.insts[inst].kind {
            InstKind::Alloca { ty } => {
                let at = self.fresh();
                let mut facts = Vec::new();
                type_facts(ty, 0, &mut facts);
                for (o, s, k) in facts {
                    self.classes.fact(at, o, s, k);
                }
                at
            }
            InstKind::Gep { source_ty, base, indices, .. } => {
                let Some(base) = self.operand_place(module, func, *base, places) else { return self.fresh() };
                self.gep(func, base, source_ty, indices)
            }
            InstKind::Cast { op: CastOp::BitCast | CastOp::AddrSpaceCast, arg } => {
                self.operand_place(module, func, *arg, places).unwrap_or_else(|| self.fresh())
            }
            // A pointer read from memory points where the pointers kept there point.
            InstKind::Load { ptr, .. } => {
                let pointee = self.operand_place(module, func, *ptr, places).and_then(|at| self.classes.pointee(at));
                pointee.map_or_else(|| self.fresh(), |node| Place { node, offset: 0, stride: 0 })
            }
            // A record of a generated gradient's tape stack: in the memory the stack's header
            // points to (`stack_op`).
            InstKind::Call { callee: Callee::Direct(name), args, .. } if crate::stack::op_of(name).is_some() => {
                let header = args.first().and_then(|h| self.operand_place(module, func, *h, places));
                let records = header.and_then(|at| self.classes.pointee(at));
                records.map_or_else(|| self.fresh(), |node| Place { node, offset: 0, stride: 0 })
            }
            InstKind::Call { callee: Callee::Direct(name), .. } if module.function(name).is_some_and(|f| !f.is_declaration()) => {
                let node = self.returned(name);
                Place { node, offset: 0, stride: 0 }
            }
            _ => self.fresh(),
        }
    }

    /// A `getelementptr`: constant indices move the offset, variable ones make it strided.
    /// A struct source type also says what the base points to.
    fn gep(&mut self, func: &Function, base: Place, source_ty: &Type, indices: &[Value]) -> Place {
        let mut at = base;
        let Some((size, _)) = source_ty.natural_layout() else { return Place { stride: 1, ..base } };
        let first = indices.first().and_then(|i| constant_int(func, *i));
        if matches!(source_ty, Type::Struct(_)) || matches!(source_ty, Type::Array(_, e) if matches!(**e, Type::Struct(_))) {
            let mut facts = Vec::new();
            type_facts(source_ty, 0, &mut facts);
            let element = Place { stride: if first.is_none() { gcd(base.stride, size) } else { base.stride }, ..base };
            for (o, s, k) in facts {
                self.classes.fact(element, o, s, k);
            }
        }
        match first {
            Some(c) => at.offset += c * size as i64,
            None if !indices.is_empty() => at.stride = gcd(at.stride, size << known_zero_bits(func, indices[0], 6)),
            None => {}
        }
        let mut ty = source_ty.clone();
        for index in indices.iter().skip(1) {
            match &ty {
                Type::Struct(fields) => {
                    let Some(k) = constant_int(func, *index) else { return Place { stride: 1, ..at } };
                    let mut offset = 0u64;
                    for f in fields.iter().take(k as usize) {
                        let Some((s, a)) = f.natural_layout() else { return Place { stride: 1, ..at } };
                        offset = offset.next_multiple_of(a) + s;
                    }
                    let Some(field) = fields.get(k as usize).cloned() else { return Place { stride: 1, ..at } };
                    let Some((_, a)) = field.natural_layout() else { return Place { stride: 1, ..at } };
                    at.offset += offset.next_multiple_of(a) as i64;
                    ty = field;
                }
                Type::Array(_, e) | Type::Vector(_, e) => {
                    let Some((es, _)) = e.natural_layout() else { return Place { stride: 1, ..at } };
                    match constant_int(func, *index) {
                        Some(c) => at.offset += c * es as i64,
                        None => at.stride = gcd(at.stride, es << known_zero_bits(func, *index, 6)),
                    }
                    ty = (**e).clone();
                }
                _ => return Place { stride: 1, ..at },
            }
        }
        at
    }

    /// The facts and merges an instruction gives.
    fn facts_of(
        &mut self,
        module: &Module,
        func: &Function,
        users: &SecondaryMap<Value, Vec<Inst>>,
        inst: Inst,
        places: &mut Places,
    ) {
        let data = &func.insts[inst];
        match &data.kind {
            InstKind::Load { ptr, .. } => {
                let Some(at) = self.operand_place(module, func, *ptr, places) else { return };
                self.hint(func, inst, at);
                self.load_facts(module, func, users, inst, at, places);
            }
            InstKind::Store { value, ptr } => {
                let Some(at) = self.operand_place(module, func, *ptr, places) else { return };
                self.hint(func, inst, at);
                self.store_facts(module, func, *value, at, places);
            }
            InstKind::Call { callee: Callee::Direct(name), args, .. } if crate::stack::op_of(name).is_some() => {
                self.stack_op(module, func, args, places);
            }
            InstKind::Call { callee: Callee::Direct(name), args, .. } => {
                if let Some((_, dst, src, _)) =
                    crate::memory::mem_op(&data.kind).filter(|(op, ..)| *op == crate::memory::MemOp::Copy)
                {
                    let (Some(d), Some(s)) =
                        (self.operand_place(module, func, dst, places), self.operand_place(module, func, src, places))
                    else {
                        return;
                    };
                    self.hint(func, inst, d);
                    self.hint(func, inst, s);
                    self.copy(d, s);
                    return;
                }
                if module.function(name).is_some_and(|f| !f.is_declaration()) {
                    for (i, a) in args.iter().enumerate() {
                        if self.inert.contains(&(name.to_string(), i)) {
                            continue;
                        }
                        if let Some(at) = self.operand_place(module, func, *a, places) {
                            let param = self.param(name, i);
                            self.merge(param, at);
                        }
                    }
                }
            }
            InstKind::Ret { value: Some(v) } if func.ty(*v).is_ptr() => {
                if let Some(at) = self.operand_place(module, func, *v, places) {
                    let node = self.returned(&func.name);
                    self.merge(node, at);
                }
            }
            _ => {}
        }
    }

    /// A call to a tape stack's helper (a generated gradient's, met in a nested derivative:
    /// `rules::stacks`): its argument is a stack's header, `{ ptr, i64, i64 }`, and a record
    /// it returns lies in the memory the header's pointer points to, where every record of
    /// that stack is (`place_of`). The helpers' parameters are not merged with the headers:
    /// every tape's headers, at their own offsets, would make one class of all the tapes
    /// holding them, which then repeats, its floats over its pointers and integers.
    fn stack_op(&mut self, module: &Module, func: &Function, args: &[Value], places: &mut Places) {
        let Some(header) = args.first().and_then(|h| self.operand_place(module, func, *h, places)) else { return };
        let mut facts = Vec::new();
        type_facts(&crate::stack::header_type(), 0, &mut facts);
        for (o, s, k) in facts {
            self.classes.fact(header, o, s, k);
        }
    }

    /// The facts of clang's type metadata on `inst` (`InstData::hint`), about the bytes at `at`.
    fn hint(&mut self, func: &Function, inst: Inst, at: Place) {
        for &(o, s, k) in func.insts[inst].hint.iter().flat_map(|h| h.iter()) {
            self.classes.fact(at, o as i64, s, k);
        }
    }

    /// A load (`inst`) at `at`: the kind its type or its value's uses say, or a copy.
    fn load_facts(
        &mut self,
        module: &Module,
        func: &Function,
        users: &SecondaryMap<Value, Vec<Inst>>,
        inst: Inst,
        at: Place,
        places: &mut Places,
    ) {
        let data = &func.insts[inst];
        let InstKind::Load { ty, .. } = &data.kind else { return };
        let v = data.result.expect("a load has a result");
        match value_kind(func, users, ty, v) {
            Some(ValueKind::Is(k, size)) => self.classes.fact(at, 0, size, k),
            Some(ValueKind::Copied(to)) => {
                let size = ty.natural_layout().map_or(0, |(s, _)| s);
                for q in to {
                    if let Some(dst) = self.operand_place(module, func, q, places) {
                        self.integer_copies.push((dst, at, size));
                    }
                }
            }
            None => {}
        }
    }

    /// A store of `value` at `at`: the kind of the stored value, and for a pointer, what it
    /// points to is the pointee of the place.
    fn store_facts(&mut self, module: &Module, func: &Function, value: Value, at: Place, places: &mut Places) {
        if let Some((k, size)) = stored_kind(func, value) {
            self.classes.fact(at, 0, size, k);
        }
        if func.ty(value).is_ptr() {
            if let Some(stored) = self.operand_place(module, func, value, places) {
                if let Some(pointee) = self.classes.pointee(at) {
                    self.merge(pointee, stored);
                }
            }
        }
    }

    /// The bytes at `dst` are a copy of those at `src`: one class.
    fn copy(&mut self, dst: Place, src: Place) {
        if dst.vague() || src.vague() {
            return;
        }
        self.classes.union(dst.node, src.node, src.offset - dst.offset);
        for stride in [dst.stride, src.stride] {
            if stride != 0 {
                self.classes.repeat(dst.node, stride);
            }
        }
    }

    /// Node `n` (a parameter, a returned pointer) is the memory at `at`.
    fn merge(&mut self, n: Node, at: Place) {
        if at.vague() {
            return;
        }
        self.classes.union(n, at.node, at.offset);
        if at.stride != 0 {
            self.classes.repeat(n, at.stride);
        }
    }
}

/// How many low bits of integer `v` are known to be zero (a lower bound: `x << 4` has 4,
/// `i * 24` has 3, a phi the fewest of its incoming values), looking `depth` definitions deep.
/// A byte offset `i << 4` then steps by 16 bytes.
fn known_zero_bits(func: &Function, v: Value, depth: u32) -> u32 {
    const MAX: u32 = 12;
    if let Some(c) = constant_int(func, v) {
        return if c == 0 { MAX } else { c.trailing_zeros().min(MAX) };
    }
    let Some(def) = func.def_inst(v).filter(|_| depth > 0) else { return 0 };
    let zeros = |x: &Value| known_zero_bits(func, *x, depth - 1);
    let bits = match &func.insts[def].kind {
        InstKind::Binary { op: BinOp::Shl, args: [a, b] } => {
            zeros(a) + constant_int(func, *b).map_or(0, |k| k.clamp(0, 63) as u32)
        }
        InstKind::Binary { op: BinOp::Mul, args: [a, b] } => zeros(a) + zeros(b),
        InstKind::Binary { op: BinOp::Add | BinOp::Sub | BinOp::Or | BinOp::Xor, args: [a, b] } => zeros(a).min(zeros(b)),
        InstKind::Binary { op: BinOp::And, args: [a, b] } => zeros(a).max(zeros(b)),
        InstKind::Cast { op: CastOp::ZExt | CastOp::SExt, arg } => zeros(arg),
        InstKind::Phi { incoming } => incoming.iter().map(|(_, x)| zeros(x)).min().unwrap_or(0),
        InstKind::Select { then_value, else_value, .. } => zeros(then_value).min(zeros(else_value)),
        _ => 0,
    };
    bits.min(MAX)
}

fn constant_int(func: &Function, v: Value) -> Option<i64> {
    match func.constant(v) {
        Some(Constant::Int { bits, value }) => {
            let bits = *bits;
            let shift = 128 - bits.min(128);
            Some(((*value as i128) << shift >> shift) as i64)
        }
        _ => None,
    }
}

enum ValueKind {
    /// The loaded bytes are of this kind and size.
    Is(Kind, u64),
    /// An integer only stored: the bytes are copied to these addresses.
    Copied(Vec<Value>),
}

/// What a load of type `ty` says about the bytes it reads: floats and pointers by their
/// type; an integer by its uses (arithmetic: an integer; turned into a float or a pointer:
/// that); an integer only stored elsewhere is a copy, which says nothing by itself.
fn value_kind(func: &Function, users: &SecondaryMap<Value, Vec<Inst>>, ty: &Type, v: Value) -> Option<ValueKind> {
    let size = ty.natural_layout()?.0;
    if let Some(f) = ty.float_elem() {
        return Some(ValueKind::Is(Kind::Float(f), size));
    }
    if ty.is_ptr() || matches!(ty, Type::Vector(_, e) if e.is_ptr()) {
        return Some(ValueKind::Is(Kind::Pointer, size));
    }
    if !ty.is_int() {
        return None;
    }
    let mut stores = Vec::new();
    let mut kind = None;
    for &i in &users[v] {
        let k = &func.insts[i].kind;
        match k {
            InstKind::Store { value, ptr } if *value == v && *ptr != v => stores.push(*ptr),
            InstKind::Cast { op: CastOp::BitCast, .. } => {
                let to = func.result(i).map(|r| func.ty(r).clone());
                if let Some(f) = to.as_ref().and_then(Type::float_ty) {
                    kind = Some(Kind::Float(f));
                }
            }
            InstKind::Cast { op: CastOp::IntToPtr, .. } => kind = Some(Kind::Pointer),
            // Returned or passed on: the caller or callee says what it is.
            InstKind::Ret { .. } | InstKind::Call { .. } => {}
            // Only how the bits are compared, masked or counted: still an integer.
            _ => {
                kind.get_or_insert(Kind::Integer);
            }
        }
    }
    match kind {
        Some(k) => Some(ValueKind::Is(k, size)),
        None if !stores.is_empty() => Some(ValueKind::Copied(stores)),
        None => None,
    }
}

/// What a stored value says about the bytes it writes: floats and pointers by their type;
/// an integer made by arithmetic is an integer. Integer constants (zeroing) and integers
/// loaded elsewhere (copies, see `value_kind`) say nothing.
fn stored_kind(func: &Function, value: Value) -> Option<(Kind, u64)> {
    let ty = func.ty(value);
    let size = ty.natural_layout()?.0;
    if let Some(f) = ty.float_elem() {
        return Some((Kind::Float(f), size));
    }
    if ty.is_ptr() || matches!(ty, Type::Vector(_, e) if e.is_ptr()) {
        return Some((Kind::Pointer, size));
    }
    let def = func.def_inst(value)?;
    match &func.insts[def].kind {
        InstKind::Load { .. } => None,
        InstKind::Cast { op: CastOp::BitCast, arg } => func.ty(*arg).float_ty().map(|f| (Kind::Float(f), size)),
        InstKind::Cast { op: CastOp::PtrToInt, .. } => Some((Kind::Pointer, size)),
        InstKind::Binary { op, .. } if !matches!(op, BinOp::FAdd | BinOp::FSub | BinOp::FMul | BinOp::FDiv | BinOp::FRem) => {
            Some((Kind::Integer, size))
        }
        InstKind::Cast { .. } | InstKind::ICmp { .. } | InstKind::Select { .. } | InstKind::Phi { .. } => {
            ty.is_int().then_some((Kind::Integer, size))
        }
        _ => None,
    }
}
