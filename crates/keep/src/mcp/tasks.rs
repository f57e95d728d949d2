//! Which calls run as tasks (the MCP tasks extension): a `put_file` from a
//! client that declared tasks answers at once with a task, which the
//! client polls for its status (the progress so far) and result, and may
//! cancel; other calls, and clients that did not declare tasks, get the
//! plain answer.

use rmcp::RoleServer;
use rmcp::service::RequestContext;
use rmcp::task_manager::TaskOptions;

/// Tools long enough to be worth a task.
const AS_TASK: &[&str] = &["put_file"];

/// How long a task may run, and how long its result is kept after: a
/// day, so a large folder finishes and a client away for a while can
/// still read what happened.
const TTL_MS: u64 = 24 * 60 * 60 * 1000;

/// How often a client should ask.
const POLL_MS: u64 = 500;

/// Whether a call of tool `name` runs as a task.
pub fn runs_as_task(name: &str, context: &RequestContext<RoleServer>) -> bool {
    AS_TASK.contains(&name)
        && context
            .client_capabilities()
            .is_some_and(|caps| caps.supports_tasks())
}

/// The options every task starts with.
pub fn options() -> TaskOptions {
    TaskOptions::new()
        .with_ttl_ms(TTL_MS)
        .with_poll_interval_ms(POLL_MS)
        .with_status_message("waiting for its turn")
}
