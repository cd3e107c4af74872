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
mod classes;
mod inert;
mod known;

pub use known::{describe_known, may_hold_floats, CopyLayout, Known};

use build::Builder;
use classes::{Classes, Place};
use cranelift_entity::SecondaryMap;
use std::collections::HashMap;
use zyg_ir::{Function, Module, ScalarKind as Kind, Type, Value};

/// The places of a function's pointers.
type Places = SecondaryMap<Value, Option<Place>>;

/// The analysis of a module: places of every function's pointers, and the classes.
pub struct MemTypes {
    places: HashMap<String, Places>,
    classes: std::cell::RefCell<Classes>,
}

impl MemTypes {
    pub fn compute(module: &Module) -> MemTypes {
        let mut builder = Builder::default();
        builder.inert = inert::inert_params(module);
        for func in module.functions.iter().filter(|f| !f.is_declaration()) {
            builder.function(module, func);
        }
        builder.finish();
        MemTypes { places: builder.places, classes: std::cell::RefCell::new(builder.classes) }
    }

    /// An analysis that knows nothing (for modules without type information in tests).
    pub fn empty() -> MemTypes {
        MemTypes { places: HashMap::new(), classes: std::cell::RefCell::new(Classes::default()) }
    }

    /// What the `size` bytes at `ptr` in `func` hold.
    pub fn at(&self, func: &Function, ptr: Value, size: u64) -> Known {
        let Some(place) = self.places.get(&func.name).and_then(|p| p[ptr]) else { return Known::Nothing };
        self.describe(place, size)
    }

    /// The layout of the bytes a copy from `src` to `dst` moves, `bytes` of them when that is
    /// a constant: one element of the repeating layout, or the whole copy.
    pub fn copy(&self, func: &Function, dst: Value, src: Value, bytes: Option<u64>) -> Known {
        let places = self.places.get(&func.name);
        let place = |v: Value| places.and_then(|p| p[v]);
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
            let kinds = class.kinds();
            return if kinds.is_empty() { Known::Nothing } else { Known::Unaligned(kinds) };
        }
        known::of_pieces(class.pieces(at.offset + shift, size), size)
    }
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
mod tests;
