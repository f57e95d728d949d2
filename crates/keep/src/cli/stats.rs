//! `keep stats`: what the store holds, and who wrote it.

use keep_commands::stats::Stats;
use keep_core::keeper::Census;

use crate::render::text::human_bytes;

use super::output::Format;
use super::{CliResult, Ctx, Status};

/// Show what the store holds: notes, versions, parts, vectors, the
/// commonest tag keys, what each source added, each agent's writes, and
/// its size.
///
/// Notes are counted apart from the trash, system notes (ids starting
/// with '.') and stubs (notes that exist only as a link's target).
/// Vectors count notes, versions and parts with one; waiting, those with
/// text and none yet (--waiting N names them). Sources are the notes'
/// _source (inline, file, url), a conversation by its format
/// (chat:claude-code), each with its notes, parts and characters of text.
/// Agents come from the operations log ('keep log').
#[derive(Debug, clap::Args, serde::Serialize, serde::Deserialize)]
pub struct Args {
    /// Also name up to N notes waiting for a vector, the most recently updated first
    #[arg(long, value_name = "N")]
    #[serde(default)]
    pub waiting: Option<usize>,
}

pub fn run(ctx: &mut Ctx, args: Args) -> CliResult {
    let counted = ctx.run(Stats {
        waiting: args.waiting,
    })?;
    match ctx.format {
        Format::Json => ctx.out.json(&counted)?,
        Format::Ids => {
            for id in counted.waiting.iter().flatten() {
                ctx.out.line(id)?;
            }
        }
        Format::Text => {
            let models = (counted.model.as_deref(), counted.model_in_use.as_deref());
            for line in lines(&counted.census, models) {
                ctx.out.line(&line)?;
            }
            if let Some(ids) = counted.waiting.filter(|ids| !ids.is_empty()) {
                ctx.out.line(&format!("waiting   {}", ids.join(" · ")))?;
            }
        }
    }
    Ok(Status::Success)
}

/// The census as lines; `models` are the vector space of the vectors
/// stored and the model set now.
fn lines(c: &Census, models: (Option<&str>, Option<&str>)) -> Vec<String> {
    let mut out = vec![
        format!(
            "notes     {} ({} in the trash, {} system, {} stubs)",
            c.notes, c.in_trash, c.system, c.stubs
        ),
        format!("versions  {}", c.versions),
        format!("parts     {}", c.parts),
        format!(
            "vectors   {} ({} waiting){}",
            c.vectors,
            c.waiting_for_vectors,
            vector_models(models)
        ),
        format!("size      {}", human_bytes(c.bytes)),
    ];
    if !c.tag_keys.is_empty() {
        let keys: Vec<String> = c
            .tag_keys
            .iter()
            .map(|k| format!("{} {}", k.key, k.notes))
            .collect();
        out.push(format!("tag keys  {}", keys.join(" · ")));
    }
    for s in &c.sources {
        out.push(format!(
            "source    {}: {} note(s), {} part(s), {} characters",
            s.source, s.notes, s.parts, s.chars
        ));
    }
    for a in &c.agents {
        out.push(format!(
            "agent     {}: {} write(s), last {}",
            a.agent,
            a.writes,
            a.last.short()
        ));
    }
    out
}

/// ", space S, model M": the vector space of the vectors stored and the
/// model set now, each when known.
fn vector_models((space, in_use): (Option<&str>, Option<&str>)) -> String {
    let mut out = String::new();
    if let Some(space) = space {
        out.push_str(&format!(", space {space}"));
    }
    if let Some(model) = in_use {
        out.push_str(&format!(", model {model}"));
    }
    out
}
