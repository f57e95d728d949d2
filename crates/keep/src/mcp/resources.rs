//! MCP resources: `keep://now` and `keep://note/{id}` (the id
//! percent-encoded), each rendered as the frontmatter view of `keep get`,
//! and `keep://context` (`keep://context/{project}` for a project's
//! notes), the block `keep context` prints.

use rmcp::ErrorData as McpError;
use rmcp::model::{
    CompleteRequestParams, CompleteResult, CompletionInfo, ReadResourceResult, Reference, Resource,
    ResourceContents, ResourceTemplate,
};

use super::tools::Context;
use crate::render::text::view_text;
use keep_core::Keeper;
use keep_core::error::Error;
use keep_core::model::{self, NoteRef};

pub const NOW_URI: &str = "keep://now";
const NOTE_PREFIX: &str = "keep://note/";
pub const CONTEXT_URI: &str = "keep://context";
const CONTEXT_PREFIX: &str = "keep://context/";
const MIME: &str = "text/markdown";

pub fn list() -> Vec<Resource> {
    vec![
        Resource::new(NOW_URI, "now")
            .with_title("Now")
            .with_description("The current intentions and state of work")
            .with_mime_type(MIME),
        Resource::new(CONTEXT_URI, "context")
            .with_title("Session context")
            .with_description(
                "What a session starts with, within 1,500 tokens: 'now' \
                 (keep://context/{project} adds the notes most relevant to a project)",
            )
            .with_mime_type(MIME),
    ]
}

pub fn templates() -> Vec<ResourceTemplate> {
    vec![
        ResourceTemplate::new(format!("{NOTE_PREFIX}{{id}}"), "note")
            .with_title("A note")
            .with_description(
                "One note by id (percent-encoded), with its tags, links, versions and parts; \
                 append @V{N} for an older version or @P{N} for a part",
            )
            .with_mime_type(MIME),
        ResourceTemplate::new(format!("{CONTEXT_PREFIX}{{project}}"), "project-context")
            .with_title("Session context of a project")
            .with_description(
                "What a session on a project starts with: 'now' and the notes most relevant \
                 to the project's words (percent-encoded), within 1,500 tokens",
            )
            .with_mime_type(MIME),
    ]
}

/// The context block for a `keep://context` URI.
fn context(keeper: &mut Keeper, ctx: &Context, uri: &str) -> Result<String, McpError> {
    let project = match uri.strip_prefix(CONTEXT_PREFIX) {
        Some(encoded) => Some(model::percent_decode(encoded).ok_or_else(|| {
            McpError::invalid_params(format!("'{uri}' is not valid UTF-8"), None)
        })?),
        None => None,
    };
    let command = keep_commands::context::Context {
        project,
        now_name: ctx.now_scope(None),
        ..Default::default()
    };
    keep_commands::run(command, keeper)
        .map(|block| block.text)
        .map_err(|e| McpError::internal_error(e.to_string(), None))
}

pub fn read(keeper: &mut Keeper, ctx: &Context, uri: &str) -> Result<ReadResourceResult, McpError> {
    if uri == CONTEXT_URI || uri.starts_with(CONTEXT_PREFIX) {
        return Ok(ReadResourceResult::new(vec![
            ResourceContents::text(context(keeper, ctx, uri)?, uri).with_mime_type(MIME),
        ]));
    }
    let target = if uri == NOW_URI {
        let id = Keeper::now_id(ctx.now_scope(None).as_deref())
            .map_err(|e| McpError::internal_error(e.to_string(), None))?;
        NoteRef::plain(id)
    } else if let Some(encoded) = uri.strip_prefix(NOTE_PREFIX) {
        let id = model::percent_decode(encoded)
            .ok_or_else(|| McpError::invalid_params(format!("'{uri}' is not valid UTF-8"), None))?;
        keeper
            .resolve(&id)
            .map_err(|e| McpError::invalid_params(e.to_string(), None))?
    } else {
        return Err(McpError::resource_not_found(
            format!(
                "no resource '{uri}': keep serves {NOW_URI}, {CONTEXT_URI} and {NOTE_PREFIX}{{id}}"
            ),
            None,
        ));
    };
    let in_scope = ctx.check(keeper, &target.id).is_ok();
    let view = if in_scope {
        keeper.view(&target)
    } else {
        Err(Error::NotFound(target.id.clone()))
    };
    let text = match view {
        Ok(view) => view_text(&view, false),
        Err(Error::NotFound(_)) if uri == NOW_URI => {
            "'now' is not set yet; set it with the now tool.\n".to_string()
        }
        Err(Error::NotFound(id)) => {
            return Err(McpError::resource_not_found(
                format!("no note '{id}'"),
                None,
            ));
        }
        Err(e) => return Err(McpError::internal_error(e.to_string(), None)),
    };
    Ok(ReadResourceResult::new(vec![
        ResourceContents::text(text, uri).with_mime_type(MIME),
    ]))
}

/// The note id a resource URI names, for a subscription; an error for a
/// URI keep does not serve or a note outside the scope.
pub fn note_id_of(keeper: &mut Keeper, ctx: &Context, uri: &str) -> Result<String, McpError> {
    if uri == CONTEXT_URI || uri.starts_with(CONTEXT_PREFIX) {
        return Err(McpError::invalid_params(
            format!(
                "{uri} is read when a session starts, not subscribed to: subscribe to {NOW_URI} or a note"
            ),
            None,
        ));
    }
    let id = if uri == NOW_URI {
        Keeper::now_id(ctx.now_scope(None).as_deref())
            .map_err(|e| McpError::internal_error(e.to_string(), None))?
    } else if let Some(encoded) = uri.strip_prefix(NOTE_PREFIX) {
        let id = model::percent_decode(encoded)
            .ok_or_else(|| McpError::invalid_params(format!("'{uri}' is not valid UTF-8"), None))?;
        let target = keeper
            .resolve(&id)
            .map_err(|e| McpError::invalid_params(e.to_string(), None))?;
        if ctx.check(keeper, &target.id).is_err() {
            return Err(McpError::resource_not_found(
                format!("no note '{id}'"),
                None,
            ));
        }
        target.id
    } else {
        return Err(McpError::resource_not_found(
            format!("no resource '{uri}': keep serves {NOW_URI} and {NOTE_PREFIX}{{id}}"),
            None,
        ));
    };
    Ok(id)
}

/// Most values one completion returns.
const COMPLETIONS: usize = 50;

/// Completes the `{id}` of the note template (ids, percent-encoded, that
/// start with what was typed) and the `scope` of the reflection prompt
/// (the scopes of the 'now' notes).
pub fn complete(
    keeper: &mut Keeper,
    ctx: &Context,
    request: &CompleteRequestParams,
) -> Result<CompleteResult, McpError> {
    let typed = request.argument.value.as_str();
    let internal = |e: keep_core::Error| McpError::internal_error(e.to_string(), None);
    let values: Vec<String> = match (&request.r#ref, request.argument.name.as_str()) {
        (Reference::Resource(r), "id") if r.uri == format!("{NOTE_PREFIX}{{id}}") => {
            let prefix = model::percent_decode(typed).unwrap_or_else(|| typed.to_string());
            keeper
                .ids_starting_with(&prefix, COMPLETIONS * 4)
                .map_err(internal)?
                .into_iter()
                .filter(|id| ctx.check(keeper, id).is_ok())
                .take(COMPLETIONS)
                .map(|id| percent_encode(&id))
                .collect()
        }
        (Reference::Prompt(p), "now_name" | "scope") if p.name == super::prompt::NAME => {
            let now_prefix = format!("{}:", model::NOW_ID);
            let own = ctx.now_scope(None).map(|s| format!("{s}/"));
            keeper
                .ids_starting_with(&now_prefix, COMPLETIONS * 4)
                .map_err(internal)?
                .into_iter()
                .filter(|id| ctx.check(keeper, id).is_ok())
                .filter_map(|id| {
                    let scope = id.strip_prefix(&now_prefix)?;
                    match &own {
                        Some(own) => scope.strip_prefix(own.as_str()).map(str::to_string),
                        None => Some(scope.to_string()),
                    }
                })
                .filter(|scope| scope.starts_with(typed))
                .take(COMPLETIONS)
                .collect()
        }
        _ => Vec::new(),
    };
    let info = CompletionInfo::new(values).map_err(|e| McpError::internal_error(e, None))?;
    Ok(CompleteResult::new(info))
}

/// Percent-encodes every byte but the unreserved ones, as a URI path
/// segment needs (`decision/db` -> `decision%2Fdb`).
fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
