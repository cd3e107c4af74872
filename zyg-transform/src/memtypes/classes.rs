//! The classes of objects of the type analysis of memory (`memtypes`): a union-find with byte
//! offsets, each class with the facts known of its bytes and the objects its pointers point
//! to (its pointees).

use std::collections::{BTreeMap, BTreeSet};
use zyg_ir::ScalarKind as Kind;

pub(super) type Node = usize;

/// Where a pointer points: byte `offset` of its node's object or, when `stride` is not 0,
/// byte `offset + k * stride` for some `k` zyg does not know. A stride of 1 says nothing
/// (a byte offset of unknown alignment): such a place gives no facts and merges with
/// nothing, so that one unaligned walk cannot blur what the rest of the program says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Place {
    pub(super) node: Node,
    pub(super) offset: i64,
    pub(super) stride: u64,
}

impl Place {
    pub(super) fn vague(&self) -> bool {
        self.stride == 1
    }
}

/// What is known of the bytes of a class of objects.
#[derive(Clone, Debug, Default)]
pub(super) struct Class {
    /// The layout repeats every `period` bytes (0: it does not).
    pub(super) period: u64,
    /// (offset, size, kind); offsets in [0, period) when it repeats. Two kinds of one range
    /// are a conflict, and both stay.
    pub(super) facts: BTreeSet<(i64, u64, Kind)>,
    /// The object a pointer kept at each offset points to (its byte 0 is where the pointer
    /// points); offsets in [0, period) when it repeats.
    pub(super) pointees: BTreeMap<i64, Node>,
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

impl Class {
    /// The kinds of the class's facts, each once, in the order of the facts.
    pub(super) fn kinds(&self) -> Vec<Kind> {
        let mut kinds: Vec<Kind> = Vec::new();
        for (_, _, kind) in &self.facts {
            if !kinds.contains(kind) {
                kinds.push(*kind);
            }
        }
        kinds
    }

    /// The facts overlapping bytes [start, start + size) of the class, as (offset, size,
    /// kind) in those bytes' own coordinates (unsorted; a repeating fact once per period).
    pub(super) fn pieces(&self, start: i64, size: u64) -> Vec<(u64, u64, Kind)> {
        let end = start + size as i64;
        let windows: Vec<i64> = if self.period == 0 {
            vec![0]
        } else {
            let p = self.period as i64;
            let first = start.div_euclid(p) * p;
            (0..).map(|k| first + k * p).take_while(|w| *w < end).collect()
        };
        let mut pieces = Vec::new();
        for w in windows {
            for &(offset, len, kind) in &self.facts {
                let (lo, hi) = (w + offset, w + offset + len as i64);
                if hi <= start || lo >= end {
                    continue;
                }
                let lo = lo.max(start);
                let hi = hi.min(end);
                pieces.push(((lo - start) as u64, (hi - lo) as u64, kind));
            }
        }
        pieces
    }
}

pub(super) fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// A union-find of objects, each node `shift` bytes into its parent's coordinates.
#[derive(Default)]
pub(super) struct Classes {
    parent: Vec<Node>,
    shift: Vec<i64>,
    pub(super) class: Vec<Class>,
}

impl Classes {
    pub(super) fn node(&mut self) -> Node {
        let n = self.parent.len();
        self.parent.push(n);
        self.shift.push(0);
        self.class.push(Class::default());
        n
    }

    /// The root of `n`'s class, and where byte 0 of `n` is in the root's coordinates.
    pub(super) fn find(&mut self, n: Node) -> (Node, i64) {
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
    pub(super) fn union(&mut self, a: Node, b: Node, delta: i64) {
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
    pub(super) fn repeat(&mut self, n: Node, period: u64) {
        let (root, _) = self.find(n);
        for (x, y) in self.class[root].repeat(period) {
            self.union(x, y, 0);
        }
    }

    /// The object the pointer kept at `at` points to (None where `at` is vague).
    pub(super) fn pointee(&mut self, at: Place) -> Option<Node> {
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

    pub(super) fn fact(&mut self, at: Place, offset: i64, size: u64, kind: Kind) {
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
