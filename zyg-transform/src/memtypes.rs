//! Type analysis of memory: which bytes hold floats, which hold pointers and which hold
//! integers. A `memcpy` of a struct, or an integer load and store that copy 8 bytes, moves a
//! derivative only through its float bytes and a shadow only through its pointer bytes, so
//! zyg must know which is which (after the type analysis of Moses et al., "Enzyme", 2021,
//! in a simpler form).
//!
//! Every pointer a function computes points into an *object*: a parameter's memory, an
//! alloca, a global, a call's result, a loaded pointer, a phi. A union-find with byte
//! offsets merges the objects that are the same memory seen from different places — a
//! call's argument and the callee's parameter, the two sides of a copy, a phi and its
//! incoming pointers — across the whole module, and collects *facts* about each merged
//! class: "bytes [8, 16) hold a pointer". An object indexed by a variable (`x[i]`,
//! `a[i].field`) repeats with the element's size as its period.
//!
//! The facts come from: the types of loads and stores (a float or a pointer), clang's type
//! metadata (`!tbaa` on loads and stores, `!tbaa.struct` on struct copies: `ScalarKind`
//! hints from the reader), struct types of allocas, globals and `getelementptr`s, and how an
//! integer loaded from memory is used (in arithmetic: an integer; turned into a float:
//! a float; into a pointer: a pointer).

use std::collections::{BTreeMap, HashMap};
use zyg_ir::{BinOp, Callee, CastOp, Constant, Function, Inst, InstKind, Module, ScalarKind as Kind, Type, Value};

type Node = usize;

/// Where a pointer points: byte `offset` of its node's object or, when `stride` is not 0,
/// byte `offset + k * stride` for some `k` zyg does not know. A stride of 1 says nothing
/// (a byte offset of unknown alignment): such a place gives no facts and merges with
/// nothing, so that one unaligned walk cannot blur what the rest of the program says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Place {
    node: Node,
    offset: i64,
    stride: u64,
}

impl Place {
    fn vague(&self) -> bool {
        self.stride == 1
    }
}

/// What is known of the bytes of a class of objects.
#[derive(Clone, Debug, Default)]
struct Class {
    /// The layout repeats every `period` bytes (0: it does not).
    period: u64,
    /// (offset, size) -> kind; offsets in [0, period) when it repeats.
    facts: BTreeMap<(i64, u64), Kind>,
}

impl Class {
    fn add(&mut self, offset: i64, size: u64, kind: Kind) {
        if size == 0 {
            return;
        }
        if self.period == 0 {
            self.facts.insert((offset, size), kind);
            return;
        }
        let p = self.period;
        if size >= p {
            self.facts.insert((0, p), kind);
            return;
        }
        let start = offset.rem_euclid(p as i64);
        let end = start + size as i64;
        if end <= p as i64 {
            self.facts.insert((start, size), kind);
        } else {
            // Wraps around the end of the period.
            self.facts.insert((start, (p as i64 - start) as u64), kind);
            self.facts.insert((0, (end - p as i64) as u64), kind);
        }
    }

    /// Makes the class repeat every `period` bytes too (the gcd of the periods).
    fn repeat(&mut self, period: u64) {
        let p = gcd(self.period, period);
        if p == self.period {
            return;
        }
        let facts = std::mem::take(&mut self.facts);
        self.period = p;
        for ((offset, size), kind) in facts {
            self.add(offset, size, kind);
        }
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// A union-find of objects, each node `shift` bytes into its parent's coordinates.
#[derive(Default)]
struct Classes {
    parent: Vec<Node>,
    shift: Vec<i64>,
    class: Vec<Class>,
}

impl Classes {
    fn node(&mut self) -> Node {
        let n = self.parent.len();
        self.parent.push(n);
        self.shift.push(0);
        self.class.push(Class::default());
        n
    }

    /// The root of `n`'s class, and where byte 0 of `n` is in the root's coordinates.
    fn find(&mut self, n: Node) -> (Node, i64) {
        let mut path = Vec::new();
        let mut at = n;
        while self.parent[at] != at {
            path.push(at);
            at = self.parent[at];
        }
        // Compress: every node on the path points at the root with its total shift.
        let root = at;
        let mut total = 0;
        for &p in path.iter().rev() {
            total += self.shift[p];
            self.shift[p] = total;
            self.parent[p] = root;
        }
        (root, if n == root { 0 } else { self.shift[n] })
    }

    /// Byte `k` of `a` is byte `k + delta` of `b`.
    fn union(&mut self, a: Node, b: Node, delta: i64) {
        let (ra, sa) = self.find(a);
        let (rb, sb) = self.find(b);
        // Byte j of ra is byte j - sa of a, which is byte j - sa + delta + sb of rb.
        let d = delta + sb - sa;
        if ra == rb {
            if d != 0 {
                self.class[ra].repeat(d.unsigned_abs());
            }
            return;
        }
        let moved = std::mem::take(&mut self.class[ra]);
        self.parent[ra] = rb;
        self.shift[ra] = d;
        let target = &mut self.class[rb];
        if moved.period != 0 {
            target.repeat(moved.period);
        }
        for ((offset, size), kind) in moved.facts {
            target.add(offset + d, size, kind);
        }
    }

    fn fact(&mut self, at: Place, offset: i64, size: u64, kind: Kind) {
        if at.vague() {
            return;
        }
        let (root, s) = self.find(at.node);
        if at.stride != 0 {
            self.class[root].repeat(at.stride);
        }
        self.class[root].add(at.offset + s + offset, size, kind);
    }
}

/// What a memory copy moves, per element: the layout of its bytes (see `MemTypes::copy`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CopyLayout {
    /// The element size: the layout repeats every `period` bytes of the copy.
    pub period: u64,
    /// (offset, size, kind) of the typed pieces of one element, in order.
    pub pieces: Vec<(u64, u64, Kind)>,
}

impl CopyLayout {
    /// The one float type of a layout made of floats only, or None.
    pub fn uniform_float(&self) -> Option<zyg_ir::FloatTy> {
        let mut floats = self.pieces.iter().map(|(_, _, k)| match k {
            Kind::Float(f) => Some(*f),
            _ => None,
        });
        let first = floats.next()??;
        floats.all(|f| f == Some(first)).then_some(first)
    }

    pub fn has_pointers(&self) -> bool {
        self.pieces.iter().any(|(_, _, k)| *k == Kind::Pointer)
    }
}

/// What the analysis can say about some bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Known {
    /// Every byte has this kind.
    All(Kind),
    /// Typed pieces of several kinds, with the bytes nothing is known of.
    Layout(CopyLayout, Vec<(u64, u64)>),
    /// Facts that contradict each other (a union, or type punning): the kinds seen.
    Conflict(Vec<Kind>),
    /// Nothing is known.
    Nothing,
}

/// A few words on what is known, for messages.
pub fn describe_known(known: &Known) -> String {
    let name = |k: &Kind| match k {
        Kind::Float(f) => f.name().to_string(),
        Kind::Pointer => "pointer".into(),
        Kind::Integer => "integer".into(),
    };
    match known {
        Known::All(k) => format!("they hold {}s", name(k)),
        Known::Layout(layout, holes) => {
            let pieces: Vec<String> =
                layout.pieces.iter().map(|(o, s, k)| format!("bytes {o}..{} {}", o + s, name(k))).collect();
            let unknown: Vec<String> = holes.iter().map(|(o, s)| format!("{o}..{}", o + s)).collect();
            format!("{}; nothing is known of bytes {}", pieces.join(", "), unknown.join(", "))
        }
        Known::Conflict(kinds) => {
            let kinds: Vec<String> = kinds.iter().map(name).collect();
            format!("the program uses them as {}", kinds.join(" and as "))
        }
        Known::Nothing => "nothing in the program says what they hold".into(),
    }
}

/// The analysis of a module: places of every function's pointers, and the classes.
pub struct MemTypes {
    places: HashMap<String, HashMap<Value, Place>>,
    classes: std::cell::RefCell<Classes>,
}

impl MemTypes {
    pub fn compute(module: &Module) -> MemTypes {
        let mut builder = Builder::default();
        for func in module.functions.iter().filter(|f| !f.is_declaration()) {
            builder.function(module, func);
        }
        MemTypes { places: builder.places, classes: std::cell::RefCell::new(builder.classes) }
    }

    /// An analysis that knows nothing (for modules without type information in tests).
    pub fn empty() -> MemTypes {
        MemTypes { places: HashMap::new(), classes: std::cell::RefCell::new(Classes::default()) }
    }

    /// What the `size` bytes at `ptr` in `func` hold.
    pub fn at(&self, func: &Function, ptr: Value, size: u64) -> Known {
        let Some(place) = self.places.get(&func.name).and_then(|p| p.get(&ptr)).copied() else { return Known::Nothing };
        self.describe(place, size)
    }

    /// The layout of the bytes a copy from `src` to `dst` moves, `bytes` of them when that is
    /// a constant: one element of the repeating layout, or the whole copy.
    pub fn copy(&self, func: &Function, dst: Value, src: Value, bytes: Option<u64>) -> Known {
        let places = self.places.get(&func.name);
        let place = |v: Value| places.and_then(|p| p.get(&v)).copied();
        // Both sides were merged into one class when the analysis saw the copy.
        let Some(at) = place(dst).or_else(|| place(src)) else { return Known::Nothing };
        let (root, _) = self.classes.borrow_mut().find(at.node);
        let period = self.classes.borrow().class[root].period;
        let window = match (bytes, period) {
            (Some(n), 0) => n,
            (Some(n), p) if n <= p || n % p != 0 => n,
            (_, p) if p != 0 => p,
            _ => return Known::Nothing,
        };
        self.describe(at, window)
    }

    fn describe(&self, at: Place, size: u64) -> Known {
        let mut classes = self.classes.borrow_mut();
        let (root, shift) = classes.find(at.node);
        let class = &classes.class[root];
        let start = at.offset + shift;
        let mut pieces: Vec<(u64, u64, Kind)> = Vec::new();
        // The facts overlapping [start, start + size), in the copy's own coordinates.
        let windows: Vec<i64> = if class.period == 0 {
            vec![0]
        } else {
            let p = class.period as i64;
            let first = start.div_euclid(p) * p;
            (0..).map(|k| first + k * p).take_while(|w| *w < start + size as i64).collect()
        };
        for w in windows {
            for (&(offset, len), &kind) in &class.facts {
                let (lo, hi) = (w + offset, w + offset + len as i64);
                if hi <= start || lo >= start + size as i64 {
                    continue;
                }
                let lo = lo.max(start);
                let hi = hi.min(start + size as i64);
                pieces.push(((lo - start) as u64, (hi - lo) as u64, kind));
            }
        }
        if pieces.is_empty() {
            return Known::Nothing;
        }
        pieces.sort_by_key(|(o, s, _)| (*o, *s));
        pieces.dedup();
        // Overlapping pieces must agree.
        let mut kinds: Vec<Kind> = Vec::new();
        for (i, (o, s, k)) in pieces.iter().enumerate() {
            if !kinds.contains(k) {
                kinds.push(*k);
            }
            if pieces[i + 1..].iter().take_while(|(o2, _, _)| *o2 < o + s).any(|(_, _, k2)| k2 != k) {
                return Known::Conflict(kinds);
            }
        }
        let merged = merge_pieces(&pieces);
        let holes = holes(&merged, size);
        if holes.is_empty() && merged.len() == 1 {
            return Known::All(merged[0].2);
        }
        Known::Layout(CopyLayout { period: size, pieces: merged }, holes)
    }
}

/// Joins overlapping and touching pieces of the same kind (sorted input).
fn merge_pieces(pieces: &[(u64, u64, Kind)]) -> Vec<(u64, u64, Kind)> {
    let mut out: Vec<(u64, u64, Kind)> = Vec::new();
    for &(o, s, k) in pieces {
        if let Some(last) = out.last_mut() {
            let end = last.0 + last.1;
            if last.2 == k && o <= end && !matches!(k, Kind::Float(_) | Kind::Pointer) {
                last.1 = end.max(o + s) - last.0;
                continue;
            }
            if o < end {
                // The same kind overlapping (a vector access over scalar ones): widen.
                last.1 = end.max(o + s) - last.0;
                continue;
            }
        }
        out.push((o, s, k));
    }
    out
}

/// The byte ranges of [0, size) no piece covers.
fn holes(pieces: &[(u64, u64, Kind)], size: u64) -> Vec<(u64, u64)> {
    let mut out = Vec::new();
    let mut at = 0;
    for &(o, s, _) in pieces {
        if o > at {
            out.push((at, o - at));
        }
        at = at.max(o + s);
    }
    if at < size {
        out.push((at, size - at));
    }
    out
}

/// The facts a type gives about the bytes of a value of that type at `offset`: its float,
/// pointer and integer leaves (byte arrays say nothing: they hold anything).
pub fn type_facts(ty: &Type, offset: i64, out: &mut Vec<(i64, u64, Kind)>) {
    const MAX_ELEMENTS: u64 = 16;
    let Some((size, _)) = ty.natural_layout() else { return };
    match ty {
        Type::Float(f) => out.push((offset, size, Kind::Float(*f))),
        Type::Ptr(_) => out.push((offset, size, Kind::Pointer)),
        Type::Int(8) => {}
        Type::Int(_) => out.push((offset, size, Kind::Integer)),
        Type::Vector(_, e) | Type::Array(_, e) => {
            let count = match ty {
                Type::Vector(n, _) => u64::from(*n),
                Type::Array(n, _) => *n,
                _ => unreachable!("matched a vector or array"),
            };
            let Some((es, _)) = e.natural_layout() else { return };
            match &**e {
                Type::Float(f) => out.push((offset, es * count, Kind::Float(*f))),
                Type::Ptr(_) => out.push((offset, es * count, Kind::Pointer)),
                Type::Int(8) => {}
                Type::Int(_) => out.push((offset, es * count, Kind::Integer)),
                _ => {
                    for k in 0..count.min(MAX_ELEMENTS) {
                        type_facts(e, offset + (k * es) as i64, out);
                    }
                }
            }
        }
        Type::Struct(fields) => {
            let mut at = 0u64;
            for f in fields.iter() {
                let Some((s, a)) = f.natural_layout() else { return };
                at = at.next_multiple_of(a);
                type_facts(f, offset + at as i64, out);
                at += s;
            }
        }
        Type::Void => {}
    }
}

/// Builds the classes, one function at a time.
#[derive(Default)]
struct Builder {
    classes: Classes,
    places: HashMap<String, HashMap<Value, Place>>,
    /// Each function's parameters and its returned pointer, as nodes shared by its callers.
    params: HashMap<(String, usize), Node>,
    returns: HashMap<String, Node>,
    globals: HashMap<String, Node>,
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

    fn function(&mut self, module: &Module, func: &Function) {
        let mut places: HashMap<Value, Place> = HashMap::new();
        for (i, &p) in func.params.iter().enumerate() {
            if func.ty(p).is_ptr() {
                places.insert(p, Place { node: self.param(&func.name, i), offset: 0, stride: 0 });
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
            places.insert(v, place);
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
        for (_, inst) in func.inst_order() {
            self.facts_of(module, func, inst, &mut places);
        }
        self.places.insert(func.name.clone(), places);
    }

    /// The place of a pointer operand: computed already, or a global.
    fn operand_place(&mut self, module: &Module, func: &Function, v: Value, places: &mut HashMap<Value, Place>) -> Option<Place> {
        if let Some(p) = places.get(&v) {
            return Some(*p);
        }
        if let Some(Constant::Global(name, _)) = func.constant(v) {
            let p = Place { node: self.global(module, name), offset: 0, stride: 0 };
            places.insert(v, p);
            return Some(p);
        }
        None
    }

    fn fresh(&mut self) -> Place {
        Place { node: self.classes.node(), offset: 0, stride: 0 }
    }

    /// Where the pointer `inst` computes points.
    fn place_of(&mut self, module: &Module, func: &Function, inst: Inst, places: &mut HashMap<Value, Place>) -> Place {
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
    fn facts_of(&mut self, module: &Module, func: &Function, inst: Inst, places: &mut HashMap<Value, Place>) {
        let data = &func.insts[inst];
        let hint = |classes: &mut Classes, at: Place| {
            for &(o, s, k) in data.hint.iter().flat_map(|h| h.iter()) {
                classes.fact(at, o as i64, s, k);
            }
        };
        match &data.kind {
            InstKind::Load { ty, ptr } => {
                let Some(at) = self.operand_place(module, func, *ptr, places) else { return };
                hint(&mut self.classes, at);
                let v = data.result.expect("a load has a result");
                match value_kind(func, ty, v) {
                    Some(ValueKind::Is(k, size)) => self.classes.fact(at, 0, size, k),
                    Some(ValueKind::Copied(to)) => {
                        for q in to {
                            if let Some(dst) = self.operand_place(module, func, q, places) {
                                self.copy(dst, at);
                            }
                        }
                    }
                    None => {}
                }
            }
            InstKind::Store { value, ptr } => {
                let Some(at) = self.operand_place(module, func, *ptr, places) else { return };
                hint(&mut self.classes, at);
                if let Some((k, size)) = stored_kind(func, *value) {
                    self.classes.fact(at, 0, size, k);
                }
            }
            InstKind::Call { callee: Callee::Direct(name), args, .. } => {
                if let Some((_, dst, src, _)) = crate::memory::mem_op(&data.kind).filter(|(op, ..)| *op == crate::memory::MemOp::Copy) {
                    let (Some(d), Some(s)) =
                        (self.operand_place(module, func, dst, places), self.operand_place(module, func, src, places))
                    else {
                        return;
                    };
                    hint(&mut self.classes, d);
                    hint(&mut self.classes, s);
                    self.copy(d, s);
                    return;
                }
                if module.function(name).is_some_and(|f| !f.is_declaration()) {
                    for (i, a) in args.iter().enumerate() {
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

    /// The bytes at `dst` are a copy of those at `src`: one class.
    fn copy(&mut self, dst: Place, src: Place) {
        if dst.vague() || src.vague() {
            return;
        }
        self.classes.union(dst.node, src.node, src.offset - dst.offset);
        for stride in [dst.stride, src.stride] {
            if stride != 0 {
                let (root, _) = self.classes.find(dst.node);
                self.classes.class[root].repeat(stride);
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
            let (root, _) = self.classes.find(n);
            self.classes.class[root].repeat(at.stride);
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
        InstKind::Binary { op: BinOp::Shl, args: [a, b] } => zeros(a) + constant_int(func, *b).map_or(0, |k| k.clamp(0, 63) as u32),
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
fn value_kind(func: &Function, ty: &Type, v: Value) -> Option<ValueKind> {
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
    for (_, i) in func.inst_order() {
        let k = &func.insts[i].kind;
        if !k.operands().contains(&v) {
            continue;
        }
        match k {
            InstKind::Store { value, ptr } if *value == v && *ptr != v => stores.push(*ptr),
            InstKind::Cast { op: CastOp::BitCast, .. } => {
                let to = func.result(i).map(|r| func.ty(r).clone());
                if let Some(f) = to.as_ref().and_then(Type::float_ty) {
                    kind = Some(Kind::Float(f));
                }
            }
            InstKind::Cast { op: CastOp::IntToPtr, .. } => kind = Some(Kind::Pointer),
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
