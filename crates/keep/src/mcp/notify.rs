//! What the server tells a client without being asked: log messages at or
//! above the level the client set, the progress of a call that asked for
//! it, and changes to subscribed resources and to the set of notes. The
//! store's folder is watched, so a change made by another process (the
//! command line, another server) is noticed as soon as it is written,
//! without polling.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::model::ProgressToken;
use rmcp::model::{
    LoggingLevel, LoggingMessageNotificationParam, ProgressNotificationParam,
    ResourceUpdatedNotificationParam,
};
use rmcp::service::RequestContext;
use rmcp::task_manager::TaskContext;
use rmcp::{Peer, RoleServer};
use serde_json::{Value, json};
use tokio::task::JoinHandle;

use super::Keepers;
use super::tools::{CallError, Context};
use keep_core::model::NoteFilter;

/// Quiet time after a change to the store before looking at it, so one
/// write (several file events) makes one check.
const SETTLE: Duration = Duration::from_millis(100);

/// The state of a subscribed note: a fingerprint of what a reader sees
/// (summary, tags, content, update time), or None when it is gone.
type Seen = Option<u64>;

pub struct Notifier {
    keepers: Keepers,
    /// Lowest severity sent (`severity` order).
    level: Mutex<u8>,
    peer: Mutex<Option<Peer<RoleServer>>>,
    /// Subscribed URI -> (note id, state last seen).
    subscriptions: Mutex<HashMap<String, (String, Seen)>>,
    /// How many notes there were when last looked.
    notes: Mutex<Option<usize>>,
}

fn severity(level: LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Notifier {
    pub fn new(keepers: Keepers) -> Self {
        Notifier {
            keepers,
            level: Mutex::new(severity(LoggingLevel::Warning)),
            peer: Mutex::new(None),
            subscriptions: Mutex::new(HashMap::new()),
            notes: Mutex::new(None),
        }
    }

    /// Keeps the client's handle, for messages sent outside a request.
    pub fn remember_peer(&self, peer: &Peer<RoleServer>) {
        lock(&self.peer).get_or_insert_with(|| peer.clone());
    }

    pub fn set_level(&self, level: LoggingLevel) {
        *lock(&self.level) = severity(level);
    }

    /// Sends a log message when its level is at or above the client's.
    pub async fn log(&self, peer: &Peer<RoleServer>, level: LoggingLevel, data: Value) {
        if severity(level) < *lock(&self.level) {
            return;
        }
        let message = LoggingMessageNotificationParam::new(level, data).with_logger("keep");
        // Sent on its own: a call's answer never waits for its log line
        // (a client that closed its input while calls were running got no
        // answer to the ones that failed). A log line the client can no
        // longer take is of no use to anyone, so a failed send is dropped.
        let peer = peer.clone();
        tokio::spawn(async move { peer.notify_logging_message(message).await.ok() });
    }

    /// Logs how a tool call went: a failure as a warning, the rest as
    /// debug lines with the time taken.
    pub async fn log_call(
        &self,
        peer: &Peer<RoleServer>,
        tool: &str,
        took: Duration,
        outcome: &Result<Value, CallError>,
    ) {
        let ms = took.as_secs_f64() * 1000.0;
        let (level, data) = match outcome {
            Ok(_) => (
                LoggingLevel::Debug,
                json!({"tool": tool, "ms": (ms * 10.0).round() / 10.0}),
            ),
            Err(CallError::Failed(why) | CallError::BadArguments(why)) => {
                (LoggingLevel::Warning, json!({"tool": tool, "failed": why}))
            }
        };
        self.log(peer, level, data).await;
    }

    pub fn subscribe(&self, uri: String, id: String) {
        let seen = self.state_of(&id);
        lock(&self.subscriptions).insert(uri, (id, seen));
    }

    pub fn unsubscribe(&self, uri: &str) {
        lock(&self.subscriptions).remove(uri);
    }

    fn state_of(&self, id: &str) -> Seen {
        use std::hash::{Hash, Hasher};
        let note = self
            .keepers
            .with(|keeper| keeper.peek(id).ok().flatten())
            .ok()
            .flatten();
        note.map(|n| {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            (&n.summary, &n.content_hash, n.updated.millis()).hash(&mut h);
            for (k, v) in n.tags.pairs() {
                (k, v).hash(&mut h);
            }
            h.finish()
        })
    }

    /// Looks at the store after a change: which subscribed notes changed,
    /// and whether notes came or went. Runs on a blocking thread.
    fn changes(&self) -> (Vec<String>, bool) {
        let ids: Vec<(String, String, Seen)> = lock(&self.subscriptions)
            .iter()
            .map(|(uri, (id, seen))| (uri.clone(), id.clone(), *seen))
            .collect();
        let mut changed = Vec::new();
        for (uri, id, seen) in ids {
            let now = self.state_of(&id);
            if now != seen {
                if let Some(entry) = lock(&self.subscriptions).get_mut(&uri) {
                    entry.1 = now;
                }
                changed.push(uri);
            }
        }
        let count = self
            .keepers
            .with(|keeper| keeper.count(&NoteFilter::default()).ok())
            .ok()
            .flatten();
        let mut last = lock(&self.notes);
        let list_changed = last.is_some() && *last != count;
        *last = count;
        (changed, list_changed)
    }

    async fn tell_changes(self: &Arc<Self>) {
        let me = Arc::clone(self);
        let Ok((changed, list_changed)) =
            tokio::task::spawn_blocking(move || keep_core::on_blocking_thread(|| me.changes()))
                .await
        else {
            return;
        };
        let Some(peer) = lock(&self.peer).clone() else {
            return;
        };
        for uri in changed {
            // A client gone hears no more changes; the server goes on.
            let _ = peer
                .notify_resource_updated(ResourceUpdatedNotificationParam::new(uri))
                .await;
        }
        if list_changed {
            // A client gone hears no more changes; the server goes on.
            let _ = peer.notify_resource_list_changed().await;
        }
    }
}

/// The notifiers of the live sessions: one for `keep mcp`, one per HTTP
/// session for `keep serve`.
#[derive(Default)]
pub struct Notifiers(Mutex<Vec<std::sync::Weak<Notifier>>>);

impl Notifiers {
    pub fn add(&self, notifier: &Arc<Notifier>) {
        let mut all = lock(&self.0);
        all.retain(|n| n.strong_count() > 0);
        all.push(Arc::downgrade(notifier));
    }

    fn live(&self) -> Vec<Arc<Notifier>> {
        lock(&self.0)
            .iter()
            .filter_map(std::sync::Weak::upgrade)
            .collect()
    }

    async fn tell_changes(&self) {
        for notifier in self.live() {
            notifier.tell_changes().await;
        }
    }
}

/// Watches the store's database files, or for a store on a database
/// server its announcements of commits; each burst of changes makes one
/// check for every live session. None (and no notifications) when the
/// folder cannot be watched.
pub fn watch_store(
    dir: &Path,
    database: Option<&str>,
    notifiers: Arc<Notifiers>,
) -> Option<notify::RecommendedWatcher> {
    use notify::Watcher;
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let tell = |rx: tokio::sync::mpsc::UnboundedReceiver<()>| {
        tokio::spawn(tell_changes(rx, notifiers));
    };
    if let Some(url) = database {
        let sender = tx.clone();
        keep_core::listen_for_changes(url, move || sender.send(()).is_ok()).ok()?;
        tell(rx);
        return None;
    }
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        let Ok(event) = event else { return };
        let data = event.paths.iter().any(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.ends_with(".db") || n.ends_with(".db-wal"))
        });
        if data && !event.kind.is_access() {
            // The listener ended with its server: nobody to tell.
            let _ = tx.send(());
        }
    })
    .ok()?;
    watcher
        .watch(dir, notify::RecursiveMode::NonRecursive)
        .ok()?;
    tell(rx);
    Some(watcher)
}

/// Tells every session of each burst of changes `rx` carries.
async fn tell_changes(mut rx: tokio::sync::mpsc::UnboundedReceiver<()>, notifiers: Arc<Notifiers>) {
    notifiers.tell_changes().await;
    while rx.recv().await.is_some() {
        tokio::time::sleep(SETTLE).await;
        while rx.try_recv().is_ok() {}
        notifiers.tell_changes().await;
    }
}

/// The tasks that carry one call's progress to the client and its
/// cancellation to the call.
pub struct Forwarding {
    progress: Option<JoinHandle<()>>,
    cancel: JoinHandle<()>,
}

impl Forwarding {
    /// Waits for the last progress message to go out.
    pub async fn finish(self) {
        self.cancel.abort();
        if let Some(task) = self.progress {
            // The call is answered whether or not its last progress went out.
            let _ = tokio::time::timeout(Duration::from_secs(1), task).await;
        }
    }
}

/// A context for one call: the server's, plus a progress sink when the
/// request carries a progress token and a flag set on cancellation.
pub fn call_context(
    base: &Context,
    request: &RequestContext<RoleServer>,
) -> (Arc<Context>, Forwarding) {
    let cancelled = request.ct.clone();
    forwarded_context(
        base,
        &request.peer,
        request.meta.get_progress_token(),
        None,
        async move { cancelled.cancelled().await },
    )
}

/// A context for a call run as a task: its progress becomes the task's
/// status message (and progress notifications when the request asked for
/// them), and `tasks/cancel` sets its cancellation flag.
pub fn task_context(
    base: &Context,
    peer: &Peer<RoleServer>,
    token: Option<ProgressToken>,
    task: TaskContext,
) -> (Arc<Context>, Forwarding) {
    let cancelled = task.clone();
    forwarded_context(base, peer, token, Some(task), async move {
        cancelled.cancelled().await
    })
}

/// `base` with a cancellation flag set once `cancelled` resolves, and a
/// progress sink forwarded to the client's progress `token` and to the
/// status of `task`, when there are any.
fn forwarded_context(
    base: &Context,
    peer: &Peer<RoleServer>,
    token: Option<ProgressToken>,
    task: Option<TaskContext>,
    cancelled: impl std::future::Future<Output = ()> + Send + 'static,
) -> (Arc<Context>, Forwarding) {
    let mut ctx = base.clone();
    ctx.cancel = Arc::default();
    let flag = Arc::clone(&ctx.cancel);
    let cancel = tokio::spawn(async move {
        cancelled.await;
        flag.store(true, Ordering::Relaxed);
    });
    let progress = (token.is_some() || task.is_some()).then(|| {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<(f64, Option<f64>, String)>();
        ctx.progress = Some(tx);
        let peer = peer.clone();
        tokio::spawn(async move {
            while let Some((done, total, what)) = rx.recv().await {
                if let Some(task) = &task {
                    task.set_status_message(status_message(done, total, &what));
                }
                if let Some(token) = &token {
                    let mut note =
                        ProgressNotificationParam::new(token.clone(), done).with_message(what);
                    if let Some(total) = total {
                        note = note.with_total(total);
                    }
                    // A client gone away stops hearing progress; the call
                    // still finishes.
                    let _ = peer.notify_progress(note).await;
                }
            }
        })
    });
    (Arc::new(ctx), Forwarding { progress, cancel })
}

/// A task's status as its progress says: "read a.md (3 of 12)".
fn status_message(done: f64, total: Option<f64>, what: &str) -> String {
    match total {
        Some(total) => format!("{what} ({done} of {total})"),
        None => what.to_string(),
    }
}
