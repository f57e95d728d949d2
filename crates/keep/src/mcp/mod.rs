//! `keep mcp`: the Model Context Protocol server over stdio. `KeepServer`
//! answers the handshake without loading the model, and lists and runs the
//! tools, the two resources and the reflection prompt. Every call runs on a
//! blocking thread against the one shared `Keeper`; stdout carries only
//! protocol messages.

// Logging and resource subscriptions are part of the 2025-11-25 spec that
// clients negotiate today; the SDK marks them deprecated for a later one.
#![allow(deprecated)]

mod confirm;
mod framing;
pub mod idle;
mod links;
mod notify;
mod order;
mod prompt;
mod resources;
pub mod rights;
use rights::CallerRights;
mod tasks;
mod tools;
pub use tools::{Summary as ToolSummary, summaries as tool_summaries};

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CompleteRequestParams, CompleteResult,
    ContentBlock, GetPromptRequestParams, GetPromptResponse, Implementation, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities, ServerConfig,
    SetLevelRequestParams, SubscribeRequestParams, UnsubscribeRequestParams,
};
use rmcp::model::{
    CancelTaskParams, CreateTaskResult, GetTaskParams, GetTaskResult, UpdateTaskParams,
};
use rmcp::service::RequestContext;
use rmcp::task_manager::{TaskExit, TaskManager};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;

use keep_core::Keeper;
use keep_core::SharedModel;

pub use framing::MAX_REQUEST_BYTES;
pub use tools::{Context, MAX_RESULT_BYTES, MAX_TEXT_BYTES, ToolSet};

const INSTRUCTIONS: &str = "keep is a long-term memory. Call `now` at the start of work to read the current intentions and at the end to update them. `remember` facts, decisions and observations worth keeping, with tags (\"key=value\"); `recall` searches by meaning and keywords; `get` fetches a whole note. Results are brief by default: list first, fetch after.";

/// Lends a keeper for one call (what `keep serve` has).
pub trait Lender: Send + Sync {
    /// Runs `f` with a keeper; why not when none can be had (the store
    /// cannot be opened).
    /// `client` names the session, so its reads see its writes.
    fn with_keeper(
        &self,
        client: Option<&str>,
        f: &mut dyn FnMut(&mut Keeper),
    ) -> Result<(), String>;
}

/// Where calls find a keeper: the one of `keep mcp`, or those a server
/// lends, one per call, so sessions do not wait for each other.
#[derive(Clone)]
pub enum Keepers {
    One(Arc<Mutex<Keeper>>),
    /// Keepers lent, to the session named when one is.
    Lent(Arc<dyn Lender>, Option<Arc<str>>),
}

impl Keepers {
    /// The same keepers, lent to session `client`.
    pub fn for_client(&self, client: &str) -> Keepers {
        match self {
            Keepers::One(keeper) => Keepers::One(Arc::clone(keeper)),
            Keepers::Lent(lender, _) => Keepers::Lent(Arc::clone(lender), Some(client.into())),
        }
    }

    /// Runs `f` with a keeper; why not when none can be had.
    pub fn with<T>(&self, f: impl FnOnce(&mut Keeper) -> T) -> Result<T, String> {
        match self {
            Keepers::One(keeper) => Ok(f(&mut keeper
                .lock()
                .unwrap_or_else(PoisonError::into_inner))),
            Keepers::Lent(lender, client) => {
                let (mut f, mut out) = (Some(f), None);
                lender.with_keeper(client.as_deref(), &mut |keeper| {
                    if let Some(f) = f.take() {
                        out = Some(f(keeper));
                    }
                })?;
                out.ok_or_else(|| "no keeper was lent".to_string())
            }
        }
    }
}

#[derive(Clone)]
pub struct KeepServer {
    keepers: Keepers,
    /// The keeper's model, which calls use before their turn.
    model: SharedModel,
    /// Calls reach the keeper in the order they arrived.
    order: Arc<order::Order>,
    idle: Arc<idle::Idle>,
    ctx: Arc<tools::Context>,
    /// Log levels asked for, and resources subscribed to.
    notes: Arc<notify::Notifier>,
    /// Calls running as tasks, and the results of those that ended.
    tasks: TaskManager,
}

impl KeepServer {
    /// Runs `f` with the keeper on a blocking thread, within the rights of
    /// the request's caller; a panic becomes an internal error and the
    /// server keeps serving.
    async fn with_keeper<T, F>(
        &self,
        request: &RequestContext<RoleServer>,
        f: F,
    ) -> Result<T, McpError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Keeper, &tools::Context) -> T + Send + 'static,
    {
        let ctx = rights::caller_of(&request.extensions).context(&self.ctx);
        let ticket = self.order.ticket();
        self.with_keeper_in(ctx, ticket, f).await
    }

    /// Embeds the texts tool `name` will embed with `args` on the shared
    /// model (with what other calls are embedding at the same time), so
    /// the call finds their vectors made.
    async fn prepare(&self, name: &str, args: &Value) {
        let (model, name, args) = (self.model.clone(), name.to_string(), args.clone());
        let _ = tokio::task::spawn_blocking(move || {
            model.prepare(tools::texts_to_embed(&name, &args));
        })
        .await;
    }

    /// When `answer` (of `remember`) is a probable update and the client
    /// can be asked, asks whether the new note replaces the older one; on
    /// yes, supersedes it and says so in `replaced`.
    async fn confirm_update(&self, context: &RequestContext<RoleServer>, answer: &mut Value) {
        if !confirm::can_ask(&context.peer) {
            return;
        }
        let Some((new, old, differences)) = confirm::probable_update(answer) else {
            return;
        };
        if confirm::ask_replaces(&context.peer, &new, &old, &differences).await != Some(true) {
            return;
        }
        let ticket = self.order.ticket();
        let caller = rights::caller_of(&context.extensions);
        let (ctx, forwarding) = notify::call_context(&caller.context(&self.ctx), context);
        let agent = caller.author(&agent_of(&context.peer));
        let replaced = old.clone();
        let accepted = self
            .with_keeper_in(ctx, ticket, move |keeper, _| {
                keeper.set_agent(&agent);
                keeper.supersede(&new, &[old])
            })
            .await;
        forwarding.finish().await;
        if let Ok(Ok(_)) = accepted {
            answer["replaced"] = Value::String(replaced);
        }
    }

    /// Runs tool `name` with `args` in its turn (`ticket`) and logs the
    /// call; the tool's own failure is the inner error.
    #[allow(clippy::too_many_arguments)]
    async fn run_tool(
        &self,
        name: &str,
        args: Value,
        ticket: order::Ticket,
        ctx: Arc<tools::Context>,
        forwarding: notify::Forwarding,
        peer: &rmcp::Peer<RoleServer>,
        caller: &rights::Caller,
    ) -> Result<Result<Value, tools::CallError>, McpError> {
        let started = std::time::Instant::now();
        self.prepare(name, &args).await;
        let agent = caller.author(&agent_of(peer));
        let tool = name.to_string();
        let outcome = self
            .with_keeper_in(ctx, ticket, move |keeper, ctx| {
                keeper.set_agent(&agent);
                tools::call(keeper, ctx, &tool, args)
            })
            .await;
        forwarding.finish().await;
        let outcome = outcome?
            .ok_or_else(|| McpError::invalid_params(format!("unknown tool '{name}'"), None))?;
        self.notes
            .log_call(peer, name, started.elapsed(), &outcome)
            .await;
        Ok(outcome)
    }

    /// Starts tool `name` as a task and answers with it at once: the
    /// client polls `tasks/get` for its status and result, and may cancel
    /// it with `tasks/cancel`.
    fn start_task(
        &self,
        name: String,
        args: Value,
        ticket: order::Ticket,
        context: &RequestContext<RoleServer>,
    ) -> CreateTaskResult {
        let server = self.clone();
        let peer = context.peer.clone();
        let token = context.meta.get_progress_token();
        let caller = rights::caller_of(&context.extensions);
        let task = self.tasks.spawn(tasks::options(), move |task| {
            Box::pin(async move {
                let base = caller.context(&server.ctx);
                let (ctx, forwarding) = notify::task_context(&base, &peer, token, task.clone());
                let outcome = server
                    .run_tool(&name, args, ticket, ctx, forwarding, &peer, &caller)
                    .await
                    .map_err(TaskExit::Error)?;
                if task.is_cancel_requested() {
                    return Err(TaskExit::Cancelled);
                }
                Ok(tools_result(&name, outcome))
            })
        });
        CreateTaskResult::new(task)
    }

    /// `with_keeper` with a context made for one call, whose place in
    /// line was taken with `ticket`.
    async fn with_keeper_in<T, F>(
        &self,
        ctx: Arc<tools::Context>,
        ticket: order::Ticket,
        f: F,
    ) -> Result<T, McpError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Keeper, &tools::Context) -> T + Send + 'static,
    {
        let _turn = ticket.turn().await;
        let keepers = self.keepers.clone();
        let result = tokio::task::spawn_blocking(move || {
            keep_core::on_blocking_thread(|| {
                keepers.with(|keeper| {
                    keeper.set_caller(ctx.caller());
                    f(keeper, &ctx)
                })
            })
        })
        .await
        .map_err(|e| McpError::internal_error(format!("the call failed: {e}"), None))
        .and_then(|r| r.map_err(|why| McpError::internal_error(why, None)));
        self.idle.call_ended();
        result
    }
}

impl ServerHandler for KeepServer {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .enable_resources_subscribe()
            .enable_resources_list_changed()
            .enable_prompts()
            .enable_logging()
            .enable_completions()
            .enable_tasks()
            .build();
        ServerConfig::new(capabilities)
            .with_server_info(
                Implementation::new("keep", env!("CARGO_PKG_VERSION"))
                    .with_title("keep memory")
                    .with_icons(vec![icon()]),
            )
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let caller = rights::caller_of(&context.extensions);
        Ok(ListToolsResult::with_all_items(tools::definitions_for(
            caller.read_only,
            self.ctx.tools,
        )))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let name = request.name.to_string();
        if !tools::exists(&name) {
            return Err(McpError::invalid_params(
                format!("unknown tool '{name}'"),
                None,
            ));
        }
        let caller = rights::caller_of(&context.extensions);
        if tools::writes(&name)
            && let Some(why) = caller.refuses_write(&name)
        {
            return Ok(CallToolResult::error(vec![ContentBlock::text(why)]).into());
        }
        self.notes.remember_peer(&context.peer);
        let args = Value::Object(request.arguments.unwrap_or_default());
        let ticket = self.order.ticket();
        if tasks::runs_as_task(&name, &context) {
            return Ok(CallToolResponse::Task(
                self.start_task(name, args, ticket, &context),
            ));
        }
        let (ctx, forwarding) = notify::call_context(&caller.context(&self.ctx), &context);
        let mut outcome = self
            .run_tool(&name, args, ticket, ctx, forwarding, &context.peer, &caller)
            .await?;
        if name == "remember"
            && let Ok(value) = &mut outcome
        {
            self.confirm_update(&context, value).await;
        }
        Ok(tools_result(&name, outcome).into())
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, McpError> {
        Ok(GetTaskResult::new(self.tasks.get_task(&request.task_id)?))
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.tasks
            .update_task(&request.task_id, request.input_responses)
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.tasks.cancel_task(&request.task_id)
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        Ok(ListResourcesResult::with_all_items(resources::list()))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        Ok(ListResourceTemplatesResult::with_all_items(
            resources::templates(),
        ))
    }

    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.notes.remember_peer(&context.peer);
        self.notes.set_level(request.level);
        Ok(())
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, McpError> {
        self.with_keeper(&context, move |keeper, ctx| {
            resources::complete(keeper, ctx, &request)
        })
        .await?
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.notes.remember_peer(&context.peer);
        let uri = request.uri.clone();
        let id = self
            .with_keeper(&context, move |keeper, ctx| {
                resources::note_id_of(keeper, ctx, &uri)
            })
            .await??;
        self.notes.subscribe(request.uri, id);
        Ok(())
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.notes.unsubscribe(&request.uri);
        Ok(())
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let uri = request.uri;
        let result = self
            .with_keeper(&context, move |keeper, ctx| {
                resources::read(keeper, ctx, &uri)
            })
            .await??;
        Ok(result.into())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        Ok(ListPromptsResult::with_all_items(prompt::list()))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        let result = self
            .with_keeper(&context, move |keeper, ctx| {
                prompt::get(keeper, ctx, &request)
            })
            .await??;
        Ok(result.into())
    }
}

/// The answer to a call of tool `name`: its structured value with links
/// to the files and pages it names, or its failure as a tool error a
/// model can read and correct.
fn tools_result(name: &str, outcome: Result<Value, tools::CallError>) -> CallToolResult {
    match outcome {
        Ok(value) => {
            let links = links::resource_links(&value);
            let mut result = CallToolResult::structured(value);
            result.content.extend(links);
            result
        }
        Err(tools::CallError::Failed(reason)) => {
            CallToolResult::error(vec![ContentBlock::text(reason)])
        }
        // Argument errors are tool results a model can read and correct
        // (SEP-1303); only an unknown tool is a protocol error.
        Err(tools::CallError::BadArguments(reason)) => {
            CallToolResult::error(vec![ContentBlock::text(format!(
                "invalid arguments for {name}: {reason}; see its inputSchema"
            ))])
        }
    }
}

/// keep's icon, carried in the answer itself (a data URI): a client
/// never fetches anything to show it.
pub(crate) fn icon() -> rmcp::model::Icon {
    use base64::Engine;
    const SVG: &str = include_str!("../../assets/keep.svg");
    let data = base64::engine::general_purpose::STANDARD.encode(SVG.trim());
    rmcp::model::Icon::new(format!("data:image/svg+xml;base64,{data}"))
        .with_mime_type("image/svg+xml")
        .with_sizes(vec!["any".into()])
}

/// Who the operations log names for a client's writes: the name and
/// version it gave when it connected (`mcp` if it gave none), without
/// control characters and at most `MAX_AGENT` characters.
fn agent_of(peer: &rmcp::Peer<RoleServer>) -> String {
    const MAX_AGENT: usize = 100;
    let given = peer.peer_info().map_or_else(
        || "mcp".to_string(),
        |info| format!("{}/{}", info.client_info.name, info.client_info.version),
    );
    given
        .chars()
        .filter(|c| !c.is_control())
        .take(MAX_AGENT)
        .collect()
}

/// Serves `keeper` over stdin and stdout until the client closes stdin,
/// with the folders `put_file` may read and the scope in `ctx`.
pub fn serve(keeper: Keeper, ctx: Context) -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let _watcher = crate::watch::spawn_background(keeper.settings().clone());
    let store_dir = keeper.store_dir().to_path_buf();
    let database = keeper.settings().database.clone();
    let mut keeper = keeper;
    let model = keeper.share_model();
    let keepers = Keepers::One(Arc::new(Mutex::new(keeper)));
    let server = KeepServer {
        notes: Arc::new(notify::Notifier::new(keepers.clone())),
        keepers,
        model,
        order: Arc::default(),
        idle: Arc::default(),
        ctx: Arc::new(ctx),
        tasks: TaskManager::new(),
    };
    let notifiers = Arc::new(notify::Notifiers::default());
    notifiers.add(&server.notes);
    let result = runtime.block_on(async {
        let _changes = notify::watch_store(&store_dir, database.as_deref(), notifiers);
        run(server).await
    });
    // A read of stdin may still be parked on a blocking thread.
    runtime.shutdown_timeout(Duration::from_millis(100));
    result
}

async fn run(server: KeepServer) -> std::io::Result<()> {
    let (ours, theirs) = tokio::io::duplex(64 * 1024);
    let framing = framing::start(tokio::io::stdin(), tokio::io::stdout(), ours);
    let service = server
        .serve(theirs)
        .await
        .map_err(|e| std::io::Error::other(format!("the MCP session did not start: {e}")))?;
    // The session ends the same way whatever ended it: the client closed or failed.
    let _ = service.waiting().await;
    framing.inbound.abort();
    // Replies still queued after five seconds are for a client that stopped reading.
    let _ = tokio::time::timeout(Duration::from_secs(5), framing.outbound).await;
    Ok(())
}

/// Sessions made so far by `over_http`, for the keepers' client names.
static SESSIONS_MADE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// What makes the MCP sessions of `keep serve`: one server per session,
/// sharing the keepers `lender` lends, the watch of the store's changes
/// (kept while the second value lives) and the idle count; `opened` is
/// told of each session.
pub fn over_http(
    lender: Arc<dyn Lender>,
    store_dir: &std::path::Path,
    database: Option<&str>,
    model: SharedModel,
    ctx: Context,
    opened: impl Fn() + Send + Sync + 'static,
) -> (
    impl Fn() -> Result<KeepServer, std::io::Error> + Send + Sync + 'static,
    Option<impl Drop>,
) {
    let keepers = Keepers::Lent(lender, None);
    let notifiers = Arc::new(notify::Notifiers::default());
    let changes = notify::watch_store(store_dir, database, Arc::clone(&notifiers));
    let idle = Arc::new(idle::Idle::default());
    let ctx = Arc::new(ctx);
    let factory = move || {
        let notes = Arc::new(notify::Notifier::new(keepers.clone()));
        notifiers.add(&notes);
        opened();
        let session = SESSIONS_MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Ok(KeepServer {
            keepers: keepers.for_client(&format!("mcp:{session}")),
            model: model.clone(),
            // Each session's calls in the order it sent them; sessions do
            // not wait for each other.
            order: Arc::default(),
            idle: Arc::clone(&idle),
            ctx: Arc::clone(&ctx),
            notes,
            tasks: TaskManager::new(),
        })
    };
    (factory, changes)
}
