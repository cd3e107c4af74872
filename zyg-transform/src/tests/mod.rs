//! Unit tests of the transform's phases on small functions in zyg-ir's text form: activity
//! and tape layout (`analyses`), the program's conventions (`conventions`), GPU atomics
//! (`gpu`), the reversed CFG (`reverse_cfg`), forward mode's refusals (`tangent`). They reach the phase modules, which are private; `tests/phases.rs` checks the
//! whole transform through its public API, by running its output.

mod analyses;
mod common;
mod conventions;
mod gpu;
mod recompute;
mod reverse_cfg;
mod tangent;
