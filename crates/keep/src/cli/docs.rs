//! Shell completions and man pages, generated from the clap definitions.
//! The checked-in copies under `completions/` and `man/` are compared with
//! these by a test; `KEEP_UPDATE_DOCS=1 cargo test` rewrites them.

use clap_complete::Shell;

/// Every generated file as (path relative to the crate root, contents).
pub fn generated_files() -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    for (shell, name) in [
        (Shell::Bash, "keep.bash"),
        (Shell::Zsh, "_keep"),
        (Shell::Fish, "keep.fish"),
        (Shell::Elvish, "keep.elv"),
        (Shell::PowerShell, "_keep.ps1"),
    ] {
        let mut cmd = super::command();
        let mut buf = Vec::new();
        clap_complete::generate(shell, &mut cmd, "keep", &mut buf);
        files.push((format!("completions/{name}"), buf));
    }
    let cmd = super::command();
    files.push(("man/keep.1".into(), render_man(cmd.clone())));
    for sub in cmd.get_subcommands() {
        let name = format!("keep-{}", sub.get_name());
        let page = sub.clone().name(name.clone()).bin_name(name.clone());
        files.push((format!("man/{name}.1"), render_man(page)));
    }
    files
}

fn render_man(cmd: clap::Command) -> Vec<u8> {
    let mut buf = Vec::new();
    clap_mangen::Man::new(cmd)
        .render(&mut buf)
        .expect("rendering to memory cannot fail");
    buf
}
