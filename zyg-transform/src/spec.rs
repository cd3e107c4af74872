//! The transform's vocabulary: how a parameter takes part (`ArgActivity`), what to
//! differentiate (`Spec`), the entry points a request can ask for (`Entry`), and what is
//! generated for them (`Generated`: a primal and an adjoint; `Gradient`: an entry).

use zyg_ir::{Signature, Type};

/// How a parameter takes part (Enzyme's markers).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArgActivity {
    /// No derivative.
    Const,
    /// A floating-point value whose gradient is returned (`out`).
    Active,
    /// A pointer with a shadow of the same shape that accumulates the gradient (`dup`).
    Dup,
}

impl ArgActivity {
    /// The word of the command line's `--args` and of MLIR's `zyg.args`: `out` (or `active`),
    /// `const`, `dup`, and `dupnoneed`, which is `dup` (zyg always computes the primal result).
    pub fn parse(word: &str) -> Option<ArgActivity> {
        Some(match word {
            "out" | "active" => ArgActivity::Active,
            "const" => ArgActivity::Const,
            "dup" | "dupnoneed" => ArgActivity::Dup,
            _ => return None,
        })
    }
}

/// A function to differentiate and how each of its parameters takes part.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Spec {
    pub function: String,
    pub args: Vec<ArgActivity>,
    /// The shadows given for `dup` parameters may be null (memory that is not
    /// differentiated, `shadows`): a callee called with such a shadow. Requests give
    /// shadows the caller owns, which must not be null.
    pub shadows_may_be_null: bool,
    /// How many derivatives one call computes (vector mode, `enzyme_width`): each shadow
    /// and tangent comes `width` times. 1 otherwise.
    pub width: u32,
    /// Run by every thread of an OpenMP team at once (an outlined parallel region and what
    /// it calls, `rules::openmp`): shadow updates of memory other threads may reach are
    /// atomic, as in GPU code (`Plan::thread_private`). Named with a `p`.
    pub parallel: bool,
    /// An outlined OpenMP region's parameters whose shadows are an accumulator of the
    /// thread's own (`rules::openmp::privatised`): scalars the region only reads, shared by
    /// reference, which no other pointer can reach. Their adjoints are plain additions,
    /// added into the real shadow once per thread. Named with their indices.
    pub private: Vec<usize>,
}

impl Spec {
    /// A request's spec: `dup` shadows are the caller's own, never null.
    pub fn new(function: impl Into<String>, args: Vec<ArgActivity>) -> Spec {
        Spec { function: function.into(), args, shadows_may_be_null: false, width: 1, parallel: false, private: Vec::new() }
    }

    pub(crate) fn suffix(&self) -> String {
        let mut suffix: String = self
            .args
            .iter()
            .map(|a| match a {
                ArgActivity::Const => 'c',
                ArgActivity::Active => 'a',
                ArgActivity::Dup => 'd',
            })
            .collect();
        if self.shadows_may_be_null {
            suffix.push('n');
        }
        if self.width > 1 {
            suffix.push_str(&format!("w{}", self.width));
        }
        if self.parallel {
            suffix.push('p');
        }
        for k in &self.private {
            suffix.push_str(&format!("_{k}"));
        }
        suffix
    }
}

/// The primal's signature: the function's parameters, a shadow pointer for each `dup`
/// one (`width` of them in a row in vector mode), a slot per lane for a returned pointer's
/// shadow, then the tape.
pub(crate) fn primal_signature(sig: &Signature, args: &[ArgActivity], width: u32) -> Signature {
    let mut primal = sig.clone();
    // A shadow has its parameter's type (a pointer into shared memory has a shared shadow).
    for (t, _) in sig.params.iter().zip(args).filter(|(_, a)| **a == ArgActivity::Dup) {
        primal.params.extend((0..width).map(|_| t.clone()));
    }
    if sig.ret.is_ptr() {
        primal.params.extend((0..width).map(|_| Type::PTR));
    }
    primal.params.push(Type::PTR);
    primal
}

/// The primal's parameters: the function's, then a shadow for each `dup` one, then (when it
/// returns a pointer) where to write the returned pointer's shadow, then the tape.
#[derive(Clone, Debug)]
pub struct Generated {
    pub primal: String,
    pub adjoint: String,
    pub adjoint_sig: Signature,
    pub tape_ty: Type,
    pub args: Vec<ArgActivity>,
    /// The primal's signature (see `primal_signature`).
    pub primal_sig: Signature,
    /// Calls into a function still being generated (recursion) keep its tape on the heap:
    /// `tape_ty` is then a pointer, allocated with `tape_size()` bytes before the call and
    /// freed after the adjoint's call, one tape per activation.
    pub boxed: bool,
    /// `() -> i64`: the size of the tape, for boxed calls.
    pub tape_size: String,
}

/// The entry points a request can ask for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Entry {
    /// `(args) -> gradients`: primal and adjoint in one call, the result's adjoint seeded 1.
    Gradient,
    /// Split mode, forward: `(args) -> tape` or `{ tape, result }`; the tape is on the heap.
    Augmented,
    /// Split mode, reverse: `(args, [result's adjoint], tape) -> gradients`; frees the tape.
    Reverse,
    /// Split mode, forward, into memory the caller allocated (Enzyme's `enzyme_allocated,
    /// size, enzyme_tape, ptr`): `(args, ptr, i64 size) -> ptr` or `{ ptr, result }`, the
    /// caller's pointer back. The program stops where `size` is smaller than the tape
    /// (`TapeSize`) or `ptr` is not aligned for it.
    AugmentedInto,
    /// Split mode, reverse, from the caller's memory: `(args, [result's adjoint], ptr, i64
    /// size) -> gradients`, checked as `AugmentedInto`; the caller keeps the memory (the
    /// stacks' chunks beyond the tape are freed as by `Reverse`).
    ReverseFrom,
    /// `() -> i64`: the bytes of the tape `AugmentedInto` writes for the same spec
    /// (`__enzyme_augmentsize`), the tape type's allocation size, which LLVM folds to a
    /// constant with the module's data layout.
    TapeSize,
    /// Forward mode: `(args) -> { the result's tangent }`, each `dup` argument followed by
    /// its shadow and each `active` one by its tangent (`__enzyme_fwddiff`).
    Forward,
}

/// A generated gradient function: `name(args...) -> { gradients of the active params }`,
/// where each `dup` parameter is followed by its shadow.
#[derive(Clone, Debug)]
pub struct Gradient {
    pub name: String,
    pub sig: Signature,
}
