//! MCP resources: `keep://now` and `keep://note/{id}` (the id
//! percent-encoded), each rendered as the frontmatter view of `keep get`.

use rmcp::ErrorData as McpError;
use rmcp::model::{ReadResourceResult, Resource, ResourceContents, ResourceTemplate};

use crate::render::text::view_text;
use super::tools::Context;
use keep_core::Keeper;
use keep_core::error::Error;
use keep_core::model::{self, NoteRef};

pub const NOW_URI: &str = "keep://now";
const NOTE_PREFIX: &str = "keep://note/";
const MIME: &str = "text/markdown";

pub fn list() -> Vec<Resource> {
    vec![
        Resource::new(NOW_URI, "now")
            .with_title("Now")
            .with_description("The current intentions and state of work")
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
    ]
}

pub fn read(
    keeper: &mut Keeper,
    ctx: &Context,
    uri: &str,
) -> Result<ReadResourceResult, McpError> {
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
            format!("no resource '{uri}': keep serves {NOW_URI} and {NOTE_PREFIX}{{id}}"),
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
