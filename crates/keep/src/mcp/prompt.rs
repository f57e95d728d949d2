//! The prompts: `keep-reflect` (the `now` note and the most recent
//! notes, with an invitation to reflect and to update `now`) and
//! `keep-context` (what a session starts with, as `keep context` gives
//! it).

use std::fmt::Write as _;

use rmcp::ErrorData as McpError;
use rmcp::model::{
    GetPromptRequestParams, GetPromptResult, Prompt, PromptArgument, PromptMessage, Role,
};

use super::tools::Context;
use crate::render::text::{first_line, view_text};
use keep_core::Keeper;
use keep_core::model::NoteRef;
use keep_core::model::{ListOrder, NoteFilter};

pub const NAME: &str = "keep-reflect";
pub const CONTEXT: &str = "keep-context";
const RECENT: usize = 10;

pub fn list() -> Vec<Prompt> {
    vec![Prompt::new(
        NAME,
        Some("Reflect on the work so far: shows 'now' and the latest notes and asks what to keep"),
        Some(vec![
            PromptArgument::new("now_name")
                .with_description("Use the 'now' note of this name (a project or agent name; \"scope\" is accepted too)")
                .with_required(false),
        ]),
    )
    .with_title("Reflect"),
    Prompt::new(
        CONTEXT,
        Some("Start a session with what matters: 'now', what changed since the last session and the notes of the project, within a token budget"),
        Some(vec![
            PromptArgument::new("project")
                .with_description("Words naming the project the session works on")
                .with_required(false),
            PromptArgument::new("since")
                .with_description("When the last session was (a date, a timestamp or P1D): what changed since is listed")
                .with_required(false),
            PromptArgument::new("max_tokens")
                .with_description("The budget of the whole block, in tokens (1500 unless given)")
                .with_required(false),
            PromptArgument::new("now_name")
                .with_description("Use the 'now' note of this name")
                .with_required(false),
        ]),
    )
    .with_title("Session context")]
}

/// The `keep-context` prompt: the block `keep context` prints.
fn context(
    keeper: &mut Keeper,
    ctx: &Context,
    request: &GetPromptRequestParams,
) -> Result<GetPromptResult, McpError> {
    let mut args = request.arguments.clone().unwrap_or_default();
    if let Some(name) = args.get("now_name").and_then(|v| v.as_str()) {
        let scoped = ctx.now_scope(Some(name));
        args.insert("now_name".into(), scoped.into());
    } else if let Some(scoped) = ctx.now_scope(None) {
        args.insert("now_name".into(), scoped.into());
    }
    let command: keep_commands::context::Context =
        serde_json::from_value(serde_json::Value::Object(args))
            .map_err(|e| McpError::invalid_params(format!("keep-context: {e}"), None))?;
    let block = keep_commands::run(command, keeper).map_err(|e| match e.kind() {
        keep_core::Kind::BadInput | keep_core::Kind::NotFound => {
            McpError::invalid_params(e.to_string(), None)
        }
        _ => McpError::internal_error(e.to_string(), None),
    })?;
    Ok(
        GetPromptResult::new(vec![PromptMessage::new_text(Role::User, block.text)])
            .with_description("What this session starts with"),
    )
}

pub fn get(
    keeper: &mut Keeper,
    ctx: &Context,
    request: &GetPromptRequestParams,
) -> Result<GetPromptResult, McpError> {
    if request.name == CONTEXT {
        return context(keeper, ctx, request);
    }
    if request.name != NAME {
        return Err(McpError::invalid_params(
            format!("unknown prompt '{}'", request.name),
            None,
        ));
    }
    let named = |key: &str| request.arguments.as_ref().and_then(|a| a.get(key));
    let scope = match named("now_name").or_else(|| named("scope")) {
        None | Some(serde_json::Value::Null) => None,
        Some(serde_json::Value::String(s)) if s.is_empty() => None,
        Some(serde_json::Value::String(s)) => Some(s.clone()),
        Some(_) => return Err(McpError::invalid_params("now_name must be a string", None)),
    };
    let invalid = |e: keep_core::Error| McpError::invalid_params(e.to_string(), None);
    let internal = |e: keep_core::Error| McpError::internal_error(e.to_string(), None);
    let now_id = Keeper::now_id(ctx.now_scope(scope.as_deref()).as_deref()).map_err(invalid)?;
    let now = match keeper.peek(&now_id).map_err(internal)? {
        Some(_) if ctx.check(keeper, &now_id).is_ok() => view_text(
            &keeper.view(&NoteRef::plain(&now_id)).map_err(internal)?,
            false,
        ),
        _ => "(not set yet)\n".to_string(),
    };
    let filter = NoteFilter {
        tags: ctx.scope_filters(),
        ..NoteFilter::default()
    };
    let recent = keeper
        .list(&filter, ListOrder::Updated, Some(RECENT))
        .map_err(internal)?;
    let mut text = String::new();
    // Writing to a String cannot fail.
    let _ = writeln!(text, "Take a moment to reflect before moving on.\n");
    let _ = writeln!(text, "## Current intentions ('{now_id}')\n\n{now}");
    let _ = writeln!(text, "## Most recent notes\n");
    if recent.is_empty() {
        let _ = writeln!(text, "(none yet)");
    }
    for n in &recent {
        let _ = writeln!(
            text,
            "- {}  ({})  {}",
            n.id,
            n.updated.short(),
            first_line(&n.summary)
        );
    }
    let _ = write!(
        text,
        "\nWhat was done, what was learned, what changed and what is still open? \
         Remember what is worth keeping with the remember tool (with tags), \
         then update '{now_id}' with the now tool{} so the next session starts from here.",
        scope
            .map(|s| format!(" (scope \"{s}\")"))
            .unwrap_or_default()
    );
    Ok(
        GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)])
            .with_description("Reflect on the session and update now"),
    )
}
