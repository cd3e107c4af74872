//! What the type analysis of memory (`memtypes`) says about some bytes (`Known`), and the
//! layout of what a copy moves (`CopyLayout`).

use zyg_ir::ScalarKind as Kind;

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
            let pieces: Vec<String> = layout.pieces.iter().map(|(o, s, k)| format!("bytes {o}..{} {}", o + s, name(k))).collect();
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

/// What the pieces of facts found in `size` bytes (`Class::pieces`) say about them.
pub(super) fn of_pieces(mut pieces: Vec<(u64, u64, Kind)>, size: u64) -> Known {
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
        if let Some((_, _, other)) = pieces[i + 1..].iter().take_while(|(o2, _, _)| *o2 < o + s).find(|(_, _, k2)| k2 != k) {
            if !kinds.contains(other) {
                kinds.push(*other);
            }
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
