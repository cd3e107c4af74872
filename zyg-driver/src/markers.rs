//! Enzyme's call-level markers, by name: the activity of the argument that follows
//! (`enzyme_dup`...), and the flags that change the whole request (`enzyme_const_return`...).
//! C passes them as globals (`extern int enzyme_dup;`), other front ends (MLIR, Julia) as
//! metadata strings (`metadata !"enzyme_dup"`); both spellings name the same marker.
//!
//! Markers zyg does not implement are refused, each with what it means, never skipped.

use zyg_transform::ArgActivity;

/// What a marker asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Marker {
    /// The activity of the argument that follows.
    Activity(ArgActivity),
    /// A flag of the whole request; it takes no argument.
    Flag(Flag),
    /// `enzyme_width, N`: N derivatives in one sweep (vector mode); the integer constant N
    /// follows.
    Width,
    /// `enzyme_dupv, stride, x, base` (and `enzyme_dupnoneedv`): a `dup` argument whose
    /// shadows, one per lane of vector mode, lie `stride` bytes apart from `base`.
    StridedDup,
    /// `zyg_tape_budget, BYTES`: this request's tape should stay small (`zyg grad
    /// --tape-budget`); the integer constant follows.
    TapeBudget,
    /// `enzyme_allocated, SIZE`: split mode's tape goes in memory the caller allocated, of
    /// SIZE bytes (an integer, constant or not), given by `enzyme_tape`.
    Allocated,
    /// `enzyme_tape, PTR`: where split mode's tape is written or read (with
    /// `enzyme_allocated`).
    Tape,
}

/// The flags zyg implements or accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flag {
    /// `enzyme_const_return`: the result gets no seed.
    ConstReturn,
    /// `enzyme_active_return`: the result is seeded (every float of a struct with 1).
    ActiveReturn,
    /// `enzyme_noret`: the caller does not need the result (zyg computes it anyway).
    NoReturn,
    /// `enzyme_nofree`: the derivative keeps the memory it allocates; accepted for a
    /// gradient, whose memory nobody else sees.
    NoFree,
    /// `enzyme_not_overwritten`: the argument's memory is not overwritten after the call;
    /// a promise zyg needs not (it saves what the function overwrites).
    NotOverwritten,
}

/// The activity markers, by the names of the globals programs pass.
const ACTIVITY: &[(&str, ArgActivity)] = &[
    ("enzyme_out", ArgActivity::Active),
    ("enzyme_const", ArgActivity::Const),
    ("enzyme_dup", ArgActivity::Dup),
    ("enzyme_dupnoneed", ArgActivity::Dup),
    ("zyg_out", ArgActivity::Active),
    ("zyg_const", ArgActivity::Const),
    ("zyg_dup", ArgActivity::Dup),
    ("zyg_dupnoneed", ArgActivity::Dup),
];

const FLAGS: &[(&str, Flag)] = &[
    ("enzyme_const_return", Flag::ConstReturn),
    ("enzyme_active_return", Flag::ActiveReturn),
    ("enzyme_noret", Flag::NoReturn),
    ("enzyme_nofree", Flag::NoFree),
    ("enzyme_not_overwritten", Flag::NotOverwritten),
];

/// Markers zyg does not implement yet: what each asks for, and what to do instead.
const REFUSED: &[(&str, &str)] = &[
    ("enzyme_byref", "passes an argument through a pointer to it (with its size in bytes); pass the value itself instead"),
    ("enzyme_interface", "gives the dynamic interface of Enzyme's probabilistic programming, which zyg does not implement"),
    ("enzyme_interleave", "puts every shadow after all the primal arguments; put each shadow right after its pointer instead"),
    ("enzyme_primal_return", "asks the request to return the function's own result too; call the function itself for its value instead"),
    ("enzyme_dup_return", "asks for the shadow of a returned pointer; return results through a `dup` argument instead"),
    ("enzyme_runtime_activity", "decides at run time which pointers are active (a shadow equal to its primal is inactive); mark inactive pointers `enzyme_const` instead"),
    ("enzyme_strong_zero", "makes a zero adjoint times an infinite or NaN partial derivative zero; zyg computes IEEE products"),
    ("enzyme_trace", "belongs to Enzyme's probabilistic programming, which zyg does not implement"),
    ("enzyme_duptrace", "belongs to Enzyme's probabilistic programming, which zyg does not implement"),
    ("enzyme_likelihood", "belongs to Enzyme's probabilistic programming, which zyg does not implement"),
    ("enzyme_duplikelihood", "belongs to Enzyme's probabilistic programming, which zyg does not implement"),
    ("enzyme_observations", "belongs to Enzyme's probabilistic programming, which zyg does not implement"),
    ("enzyme_active_rand_var", "belongs to Enzyme's probabilistic programming, which zyg does not implement"),
    ("enzyme_scalar", "belongs to `__enzyme_batch`, which zyg does not implement"),
    ("enzyme_vector", "belongs to `__enzyme_batch`, which zyg does not implement"),
    ("enzyme_buffer", "belongs to `__enzyme_batch`, which zyg does not implement"),
];

/// The marker a name is: `None` for names that are not markers (without the `enzyme_` or
/// `zyg_` prefix), an error saying why for markers zyg does not implement.
pub fn classify(name: &str) -> Option<Result<Marker, String>> {
    if let Some((_, kind)) = ACTIVITY.iter().find(|(m, _)| *m == name) {
        return Some(Ok(Marker::Activity(*kind)));
    }
    if let Some((_, flag)) = FLAGS.iter().find(|(m, _)| *m == name) {
        return Some(Ok(Marker::Flag(*flag)));
    }
    match name {
        "enzyme_width" | "zyg_width" => return Some(Ok(Marker::Width)),
        "enzyme_dupv" | "enzyme_dupnoneedv" | "zyg_dupv" | "zyg_dupnoneedv" => return Some(Ok(Marker::StridedDup)),
        "zyg_tape_budget" => return Some(Ok(Marker::TapeBudget)),
        "enzyme_allocated" | "zyg_allocated" => return Some(Ok(Marker::Allocated)),
        "enzyme_tape" | "zyg_tape" => return Some(Ok(Marker::Tape)),
        _ => {}
    }
    if let Some((_, why)) = REFUSED.iter().find(|(m, _)| *m == name) {
        return Some(Err(format!("the marker `{name}` {why}; zyg does not support it yet")));
    }
    (name.starts_with("enzyme_") || name.starts_with("zyg_")).then(|| {
        Err(format!(
            "`{name}` is not a marker zyg knows: the activity markers are `enzyme_out`, `enzyme_const`, `enzyme_dup` \
             and `enzyme_dupnoneed` (or `zyg_...`), vector mode's `enzyme_width`, `enzyme_dupv` and \
             `enzyme_dupnoneedv`, the flags `enzyme_const_return`, `enzyme_active_return`, `enzyme_noret`, \
             `enzyme_nofree` and `enzyme_not_overwritten`, split mode's `enzyme_allocated` and `enzyme_tape`, \
             and `zyg_tape_budget`"
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_flags_and_refusals() {
        assert_eq!(classify("enzyme_dup").unwrap(), Ok(Marker::Activity(ArgActivity::Dup)));
        assert_eq!(classify("zyg_out").unwrap(), Ok(Marker::Activity(ArgActivity::Active)));
        assert_eq!(classify("enzyme_const_return").unwrap(), Ok(Marker::Flag(Flag::ConstReturn)));
        assert_eq!(classify("enzyme_width").unwrap(), Ok(Marker::Width));
        assert_eq!(classify("enzyme_dupnoneedv").unwrap(), Ok(Marker::StridedDup));
        assert_eq!(classify("enzyme_allocated").unwrap(), Ok(Marker::Allocated));
        assert_eq!(classify("enzyme_tape").unwrap(), Ok(Marker::Tape));
        assert!(classify("enzyme_byref").unwrap().unwrap_err().contains("pointer to it"));
        assert!(classify("enzyme_dupx").unwrap().unwrap_err().contains("not a marker zyg knows"));
        assert!(classify("weights").is_none());
    }
}
