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
//!
//! A class also knows what the pointers kept in its bytes point to (its *pointees*, one
//! object per offset, as in Steensgaard's points-to analysis, 1996): two loads of `c->r`
//! give pointers into one object, and a pointer stored at `c->r` is merged with it. So a
//! helper given `c->r` as a `char *` is typed by what the caller reads through another load
//! of `c->r`. Merging two classes merges their pointees offset by offset.

mod build;

use build::Builder;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use zyg_ir::{Function, Module, ScalarKind as Kind, Type, Value};

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
    /// (offset, size, kind); offsets in [0, period) when it repeats. Two kinds of one range
    /// are a conflict, and both stay.
    facts: BTreeSet<(i64, u64, Kind)>,
    /// The object a pointer kept at each offset points to (its byte 0 is where the pointer
    /// points); offsets in [0, period) when it repeats.
    pointees: BTreeMap<i64, Node>,
}

impl Class {
    fn add(&mut self, offset: i64, size: u64, kind: Kind) {
        if size == 0 {
            return;
        }
        if self.period == 0 {
            self.facts.insert((offset, size, kind));
            return;
        }
        let p = self.period;
        if size >= p {
            self.facts.insert((0, p, kind));
            return;
        }
        let start = offset.rem_euclid(p as i64);
        let end = start + size as i64;
        if end <= p as i64 {
            self.facts.insert((start, size, kind));
        } else {
            // Wraps around the end of the period.
            self.facts.insert((start, (p as i64 - start) as u64, kind));
            self.facts.insert((0, (end - p as i64) as u64, kind));
        }
    }

    /// Makes the class repeat every `period` bytes too (the gcd of the periods). Returns the
    /// pointees that now share an offset, which must be merged.
    #[must_use]
    fn repeat(&mut self, period: u64) -> Vec<(Node, Node)> {
        let p = gcd(self.period, period);
        if p == self.period {
            return Vec::new();
        }
        let facts = std::mem::take(&mut self.facts);
        let pointees = std::mem::take(&mut self.pointees);
        self.period = p;
        for (offset, size, kind) in facts {
            self.add(offset, size, kind);
        }
        pointees.into_iter().filter_map(|(offset, node)| self.point(offset, node)).collect()
    }

    /// An offset in the class's coordinates, reduced to [0, period) when it repeats.
    fn key(&self, offset: i64) -> i64 {
        if self.period == 0 {
            offset
        } else {
            offset.rem_euclid(self.period as i64)
        }
    }

    /// The pointer at `offset` points to `node`; returns the pointee it had already, which
    /// must be merged with `node`.
    #[must_use]
    fn point(&mut self, offset: i64, node: Node) -> Option<(Node, Node)> {
        let key = self.key(offset);
        match self.pointees.get(&key) {
            Some(&old) if old != node => Some((old, node)),
            Some(_) => None,
            None => {
                self.pointees.insert(key, node);
                None
            }
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

    /// Byte `k` of `a` is byte `k + delta` of `b`. Their pointees at the same offsets are
    /// merged too (a worklist, so that long chains of pointers do not recurse).
    fn union(&mut self, a: Node, b: Node, delta: i64) {
        let mut work = vec![(a, b, delta)];
        while let Some((a, b, delta)) = work.pop() {
            let (ra, sa) = self.find(a);
            let (rb, sb) = self.find(b);
            // Byte j of ra is byte j - sa of a, which is byte j - sa + delta + sb of rb.
            let d = delta + sb - sa;
            if ra == rb {
                if d != 0 {
                    work.extend(self.class[ra].repeat(d.unsigned_abs()).into_iter().map(|(x, y)| (x, y, 0)));
                }
                continue;
            }
            // The class with fewer facts moves into the other (so that merging stays cheap
            // however the unions come): byte j of `from` is byte j + d of `into`.
            let size = |c: &Class| c.facts.len() + c.pointees.len();
            let (from, into, d) = if size(&self.class[ra]) <= size(&self.class[rb]) { (ra, rb, d) } else { (rb, ra, -d) };
            let moved = std::mem::take(&mut self.class[from]);
            self.parent[from] = into;
            self.shift[from] = d;
            let target = &mut self.class[into];
            if moved.period != 0 {
                work.extend(target.repeat(moved.period).into_iter().map(|(x, y)| (x, y, 0)));
            }
            for (offset, size, kind) in moved.facts {
                target.add(offset + d, size, kind);
            }
            for (offset, node) in moved.pointees {
                work.extend(target.point(offset + d, node).map(|(x, y)| (x, y, 0)));
            }
        }
    }

    /// Makes `n`'s class repeat every `period` bytes too.
    fn repeat(&mut self, n: Node, period: u64) {
        let (root, _) = self.find(n);
        for (x, y) in self.class[root].repeat(period) {
            self.union(x, y, 0);
        }
    }

    /// The object the pointer kept at `at` points to (None where `at` is vague).
    fn pointee(&mut self, at: Place) -> Option<Node> {
        if at.vague() {
            return None;
        }
        if at.stride != 0 {
            self.repeat(at.node, at.stride);
        }
        let (root, s) = self.find(at.node);
        let key = self.class[root].key(at.offset + s);
        if let Some(&n) = self.class[root].pointees.get(&key) {
            return Some(n);
        }
        let n = self.node();
        self.class[root].pointees.insert(key, n);
        Some(n)
    }

    fn fact(&mut self, at: Place, offset: i64, size: u64, kind: Kind) {
        if at.vague() {
            return;
        }
        if at.stride != 0 {
            self.repeat(at.node, at.stride);
        }
        let (root, s) = self.find(at.node);
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
    /// Bytes at an offset zyg cannot tell (a byte offset of unknown alignment) in an object
    /// that holds these kinds.
    Unaligned(Vec<Kind>),
    /// Nothing is known.
    Nothing,
}

/// Whether the bytes may hold (part of) a float, by what is known of them.
pub fn may_hold_floats(known: &Known) -> bool {
    match known {
        Known::All(k) => matches!(k, Kind::Float(_)),
        Known::Layout(layout, _) => layout.pieces.iter().any(|(_, _, k)| matches!(k, Kind::Float(_))),
        Known::Conflict(kinds) | Known::Unaligned(kinds) => kinds.iter().any(|k| matches!(k, Kind::Float(_))),
        Known::Nothing => false,
    }
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
            if unknown.is_empty() {
                pieces.join(", ")
            } else {
                format!("{}; nothing is known of bytes {}", pieces.join(", "), unknown.join(", "))
            }
        }
        Known::Conflict(kinds) => {
            let kinds: Vec<String> = kinds.iter().map(name).collect();
            format!("the program uses them as {}", kinds.join(" and as "))
        }
        Known::Unaligned(kinds) => {
            let kinds: Vec<String> = kinds.iter().map(|k| format!("{}s", name(k))).collect();
            format!("they are at an offset zyg cannot tell in memory that holds {}", kinds.join(" and "))
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
        let sides: Vec<Place> = [place(dst), place(src)].into_iter().flatten().collect();
        // Both sides were merged into one class when the analysis saw the copy, unless one
        // is at an offset zyg cannot tell (an element found by walking bytes).
        let Some(vague) = sides.iter().copied().find(Place::vague) else {
            return sides.first().map_or(Known::Nothing, |at| self.describe_copy(*at, bytes));
        };
        // Then the other side's type describes the copy (a struct copied out of an array
        // into a local of its type, as `std::sort` does), if it holds nothing the vague
        // side's object does not; else all zyg knows is the kinds that object holds.
        let anywhere = self.describe(vague, 0);
        if let Some(typed) = sides.iter().copied().find(|p| !p.vague()) {
            let known = self.describe_copy(typed, bytes);
            let kinds: Vec<Kind> = match &known {
                Known::All(k) => vec![*k],
                Known::Layout(layout, _) => layout.pieces.iter().map(|(_, _, k)| *k).collect(),
                _ => Vec::new(),
            };
            let held = |k: &Kind| match &anywhere {
                Known::Unaligned(held) => held.contains(k),
                _ => true,
            };
            if !kinds.is_empty() && kinds.iter().all(held) {
                return known;
            }
        }
        anywhere
    }

    /// What a copy of `bytes` (when constant) at `at` moves: one element of the repeating
    /// layout, or the whole copy.
    fn describe_copy(&self, at: Place, bytes: Option<u64>) -> Known {
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
        if at.vague() {
            // Somewhere in the object: any of its kinds.
            let mut kinds: Vec<Kind> = Vec::new();
            for (_, _, kind) in &class.facts {
                if !kinds.contains(kind) {
                    kinds.push(*kind);
                }
            }
            return if kinds.is_empty() { Known::Nothing } else { Known::Unaligned(kinds) };
        }
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
            for &(offset, len, kind) in &class.facts {
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

#[cfg(test)]
mod tests {
    use super::*;
    use zyg_ir::text::parse_module;
    use zyg_ir::FloatTy;

    /// A helper that sees a record {double; float; float} as bytes: it reads the double key
    /// and copies the record 16 bytes on. The caller's accesses to the record's floats are
    /// what types its bytes 8..16; each test's caller makes them in its own way.
    const HELPER: &str = r#"
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

define void @dup(ptr %b) {
entry:
  %k = load double, ptr %b
  %d = getelementptr i8, ptr %b, i64 16
  call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %b, i64 16, i1 false)
  ret void
}
"#;

    /// What the type analysis says the helper's copy moves.
    fn helper_copy(caller: &str) -> Known {
        let module = parse_module(&format!("{HELPER}{caller}")).unwrap_or_else(|e| panic!("{e}"));
        let types = MemTypes::compute(&module);
        let dup = module.function("dup").expect("dup");
        let (_, copy) = dup
            .inst_order()
            .find(|(_, i)| crate::memory::mem_op(&dup.insts[*i].kind).is_some())
            .expect("a copy");
        let (_, dst, src, _) = crate::memory::mem_op(&dup.insts[copy].kind).expect("a copy");
        types.copy(dup, dst, src, Some(16))
    }

    fn record() -> Known {
        let pieces = vec![
            (0, 8, Kind::Float(FloatTy::F64)),
            (8, 4, Kind::Float(FloatTy::F32)),
            (12, 4, Kind::Float(FloatTy::F32)),
        ];
        Known::Layout(CopyLayout { period: 16, pieces }, vec![])
    }

    #[test]
    fn two_loads_of_one_pointer_point_into_one_object() {
        // The caller reads the record's pointer from its context once for the call and once
        // for its own accesses.
        let known = helper_copy(
            r#"
define double @f(ptr %c) {
entry:
  %r1 = load ptr, ptr %c
  call void @dup(ptr %r1)
  %r2 = load ptr, ptr %c
  %a = load double, ptr %r2
  %pb = getelementptr i8, ptr %r2, i64 8
  %b = load float, ptr %pb
  %pc = getelementptr i8, ptr %r2, i64 12
  %cc = load float, ptr %pc
  ret double %a
}
"#,
        );
        assert_eq!(known, record());
    }

    #[test]
    fn a_stored_pointer_is_what_loads_from_its_place_point_to() {
        let known = helper_copy(
            r#"
define double @f(ptr %c, ptr %r) {
entry:
  %a = load double, ptr %r
  %pb = getelementptr i8, ptr %r, i64 8
  %b = load float, ptr %pb
  %pc = getelementptr i8, ptr %r, i64 12
  %cc = load float, ptr %pc
  store ptr %r, ptr %c
  %r1 = load ptr, ptr %c
  call void @dup(ptr %r1)
  ret double %a
}
"#,
        );
        assert_eq!(known, record());
    }

    #[test]
    fn bytes_nothing_types_are_holes() {
        // The caller's accesses go through a pointer zyg cannot connect to the helper's.
        let known = helper_copy(
            r#"
define double @f(ptr %c, ptr %other) {
entry:
  %r1 = load ptr, ptr %c
  call void @dup(ptr %r1)
  %pb = getelementptr i8, ptr %other, i64 8
  %b = load float, ptr %pb
  %a = load double, ptr %r1
  ret double %a
}
"#,
        );
        let pieces = vec![(0, 8, Kind::Float(FloatTy::F64))];
        assert_eq!(
            known,
            Known::Layout(CopyLayout { period: 16, pieces }, vec![(8, 8)])
        );
    }

    #[test]
    fn a_copy_at_an_offset_zyg_cannot_tell_says_only_what_the_object_holds() {
        let module = parse_module(
            r#"
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

define void @move(ptr %b, i64 %off, i64 %n) {
entry:
  %tmp = alloca [64 x i8]
  %k = load double, ptr %b
  %pp = getelementptr i8, ptr %b, i64 8
  %p = load ptr, ptr %pp
  %x = getelementptr i8, ptr %b, i64 %off
  call void @llvm.memcpy.p0.p0.i64(ptr %tmp, ptr %x, i64 %n, i1 false)
  ret void
}
"#,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let types = MemTypes::compute(&module);
        let f = module.function("move").expect("move");
        let (_, copy) = f
            .inst_order()
            .find(|(_, i)| crate::memory::mem_op(&f.insts[*i].kind).is_some())
            .expect("a copy");
        let (_, dst, src, _) = crate::memory::mem_op(&f.insts[copy].kind).expect("a copy");
        assert_eq!(
            types.copy(f, dst, src, None),
            Known::Unaligned(vec![Kind::Float(FloatTy::F64), Kind::Pointer])
        );
    }
}
