//! The checked-in completions and man pages match the command definitions.

#[test]
fn completions_and_man_pages_are_fresh() {
    let root = &crate::common::repo_root();
    let update = std::env::var_os("KEEP_UPDATE_DOCS").is_some();
    let mut stale = Vec::new();
    for (path, contents) in keep::cli::docs::generated_files() {
        let full = root.join(&path);
        if update {
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(&full, &contents).unwrap();
        } else if std::fs::read(&full).ok().as_deref() != Some(contents.as_slice()) {
            stale.push(path);
        }
    }
    assert!(
        stale.is_empty(),
        "stale generated files (run KEEP_UPDATE_DOCS=1 cargo test --test it docs): {stale:?}"
    );
}
