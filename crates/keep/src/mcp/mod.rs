//! `keep mcp`: the Model Context Protocol server over stdio. `KeepServer`
//! answers the handshake without loading the model, and lists and runs the
//! tools, the two resources and the reflection prompt. Every call runs on a
//! blocking thread against the one shared `Keeper`; stdout carries only
//! protocol messages.

mod framing;
mod prompt;
mod resources;
mod tools;

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, GetPromptRequestParams,
    GetPromptResponse, Implementation, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams,
    ReadResourceResponse, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;

use keep_core::Keeper;

pub use framing::MAX_REQUEST_BYTES;
pub use tools::{Context, MAX_RESULT_BYTES, MAX_TEXT_BYTES};

const INSTRUCTIONS: &str = "keep is a long-term memory. Call `now` at the start of work to read the current intentions and at the end to update them. `remember` facts, decisions and observations worth keeping, with tags (\"key=value\"); `recall` searches by meaning and keywords; `get` fetches a whole note. Results are brief by default: list first, fetch after.";

#[derive(Clone)]
struct KeepServer {
    keeper: Arc<Mutex<Keeper>>,
    /// A fair (first come, first served) turn for calls, so that calls
    /// sent one after another without waiting run in the order sent.
    turn: Arc<tokio::sync::Mutex<()>>,
    ctx: Arc<tools::Context>,
}

impl KeepServer {
    /// Runs `f` with the keeper on a blocking thread; a panic becomes an
    /// internal error and the server keeps serving.
    async fn with_keeper<T, F>(&self, f: F) -> Result<T, McpError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Keeper, &tools::Context) -> T + Send + 'static,
    {
        let _turn = self.turn.lock().await;
        let keeper = Arc::clone(&self.keeper);
        let ctx = Arc::clone(&self.ctx);
        tokio::task::spawn_blocking(move || {
            let mut keeper = keeper.lock().unwrap_or_else(PoisonError::into_inner);
            f(&mut keeper, &ctx)
        })
        .await
        .map_err(|e| McpError::internal_error(format!("the call failed: {e}"), None))
    }
}

impl ServerHandler for KeepServer {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .enable_prompts()
            .build();
        ServerConfig::new(capabilities)
            .with_server_info(
                Implementation::new("keep", env!("CARGO_PKG_VERSION")).with_title("keep memory"),
            )
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(tools::definitions()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let name = request.name.to_string();
        if !tools::exists(&name) {
            return Err(McpError::invalid_params(
                format!("unknown tool '{name}'"),
                None,
            ));
        }
        let args = Value::Object(request.arguments.unwrap_or_default());
        let outcome = self
            .with_keeper(move |keeper, ctx| tools::call(keeper, ctx, &name, args))
            .await?
            .ok_or_else(|| {
                McpError::invalid_params(format!("unknown tool '{}'", request.name), None)
            })?;
        match outcome {
            Ok(value) => Ok(CallToolResult::structured(value).into()),
            Err(tools::CallError::Failed(reason)) => {
                Ok(CallToolResult::error(vec![ContentBlock::text(reason)]).into())
            }
            // Argument errors are tool results a model can read and correct
            // (SEP-1303); only an unknown tool is a protocol error.
            Err(tools::CallError::BadArguments(reason)) => {
                Ok(CallToolResult::error(vec![ContentBlock::text(format!(
                    "invalid arguments for {}: {reason}; see its inputSchema",
                    request.name
                ))])
                .into())
            }
        }
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

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let uri = request.uri;
        let result = self
            .with_keeper(move |keeper, ctx| resources::read(keeper, ctx, &uri))
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
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        let result = self
            .with_keeper(move |keeper, _| prompt::get(keeper, &request))
            .await??;
        Ok(result.into())
    }
}

/// Serves `keeper` over stdin and stdout until the client closes stdin,
/// with the folders `put_file` may read and the scope in `ctx`.
pub fn serve(keeper: Keeper, ctx: Context) -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let _watcher = crate::watch::spawn_background(keeper.settings().clone());
    let server = KeepServer {
        keeper: Arc::new(Mutex::new(keeper.for_many_queries())),
        turn: Arc::new(tokio::sync::Mutex::new(())),
        ctx: Arc::new(ctx),
    };
    let result = runtime.block_on(run(server));
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
    let _ = service.waiting().await;
    framing.inbound.abort();
    let _ = tokio::time::timeout(Duration::from_secs(5), framing.outbound).await;
    Ok(())
}
