//! Whether two paths name the same file, for the checks that keep one output from
//! overwriting the input or another output (`--header` and `-o`).

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// Whether `a` and `b` are, or would be once written, the same file: the same file when
/// both exist (hard links and symbolic links included), otherwise the same place once the
/// symbolic links on the way are followed.
pub fn same_file(a: &Path, b: &Path) -> bool {
    if let (Ok(x), Ok(y)) = (std::fs::metadata(a), std::fs::metadata(b)) {
        return x.dev() == y.dev() && x.ino() == y.ino();
    }
    match (resolved(a), resolved(b)) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

/// Where writing `path` would put the data: symbolic links followed (also dangling ones,
/// which a write creates the target of), the directory made absolute.
fn resolved(path: &Path) -> Option<PathBuf> {
    let mut path = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::read_link(&path) {
            Ok(target) => path = crate::supervisor::directory_of(&path).join(target),
            Err(_) => break,
        }
    }
    let dir = crate::supervisor::directory_of(&path).canonicalize().ok()?;
    Some(dir.join(path.file_name()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_name_the_same_file() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("a.ll"), "x").unwrap();
        std::os::unix::fs::symlink("a.ll", d.join("link.h")).unwrap();
        std::fs::hard_link(d.join("a.ll"), d.join("hard.h")).unwrap();
        std::os::unix::fs::symlink("new.ll", d.join("dangling.h")).unwrap();
        assert!(same_file(&d.join("a.ll"), &d.join("link.h")));
        assert!(same_file(&d.join("a.ll"), &d.join("hard.h")));
        assert!(same_file(&d.join("./a.ll"), &d.join("a.ll")));
        assert!(same_file(&d.join("dangling.h"), &d.join("new.ll")));
        assert!(!same_file(&d.join("a.ll"), &d.join("b.h")));
    }
}
