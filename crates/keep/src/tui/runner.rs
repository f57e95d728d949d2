//! Runs effects off the UI thread. Two workers, each with its own
//! connection: a quick one (lists, keyword search, previews, actions) and
//! a semantic one (hybrid search, similar notes), so that loading the model
//! or embedding never delays keyword results.

use std::sync::mpsc::{Receiver, Sender, channel};
use std::thread;

use super::app::{Background, Effect, Msg, PAGE, Preview, RESULTS, Row};
use super::query::Query;
use keep_core::Keeper;
use keep_core::error::{Error, Result};
use keep_core::keeper::{FilterSpec, PutOptions, TagEdit};
use keep_core::model::NoteFilter;
use keep_core::model::{self, Note, NoteRef, Selector, Tags};
use keep_core::recall::{self, FindQuery, Hit, RecallMode};

use crate::render::text::{display_line, first_line, matched_label, status_word, via_label};

/// Opens a keeper on the store; called once per worker.
pub type Opener = dyn Fn() -> Result<Keeper> + Send + Sync;

/// Sends effects to the worker that handles them.
pub struct Runner {
    quick: Sender<Effect>,
    semantic: Sender<Effect>,
}

impl Runner {
    pub fn spawn(open: std::sync::Arc<Opener>, msgs: Sender<Msg>) -> Runner {
        let (quick, quick_rx) = channel();
        let (semantic, semantic_rx) = channel();
        for (rx, semantic_worker) in [(quick_rx, false), (semantic_rx, true)] {
            let open = open.clone();
            let msgs = msgs.clone();
            thread::spawn(move || work(&*open, rx, &msgs, semantic_worker));
        }
        Runner { quick, semantic }
    }

    pub fn send(&self, effect: Effect) {
        match &effect {
            Effect::Search { query, .. } if query.has_text() && query.id.is_none() => {
                let _ = self.semantic.send(effect.clone());
                let _ = self.quick.send(effect);
            }
            Effect::LoadSimilar { .. } => {
                let _ = self.semantic.send(effect);
            }
            _ => {
                let _ = self.quick.send(effect);
            }
        }
    }
}

fn work(open: &Opener, rx: Receiver<Effect>, msgs: &Sender<Msg>, semantic: bool) {
    let mut keeper = match open() {
        Ok(k) if semantic => k.for_many_queries(),
        Ok(k) => k,
        Err(e) => {
            let _ = msgs.send(Msg::Failed(format!("cannot open the store: {e}")));
            return;
        }
    };
    let mut last_version = keeper.data_version().unwrap_or(0);
    let worker = usize::from(semantic);
    while let Ok(first) = rx.recv() {
        let _ = msgs.send(Msg::Busy { worker, busy: true });
        for effect in coalesce(first, &rx) {
            let msg = if semantic {
                run_semantic(&mut keeper, effect)
            } else {
                run_quick(&mut keeper, effect, &mut last_version)
            };
            if let Some(msg) = msg
                && msgs.send(msg).is_err()
            {
                return;
            }
        }
        let _ = msgs.send(Msg::Busy {
            worker,
            busy: false,
        });
    }
}

/// Takes everything queued behind `first`, keeping only the newest search,
/// page and preview: typing fast never queues stale work.
fn coalesce(first: Effect, rx: &Receiver<Effect>) -> Vec<Effect> {
    let mut queue = vec![first];
    queue.extend(rx.try_iter());
    let superseded = |a: &Effect, b: &Effect| {
        matches!(
            (a, b),
            (Effect::Search { .. }, Effect::Search { .. })
                | (Effect::LoadPage { .. }, Effect::LoadPage { .. })
                | (Effect::LoadPreview { .. }, Effect::LoadPreview { .. })
                | (Effect::LoadBackground, Effect::LoadBackground)
                | (Effect::LoadSimilar { .. }, Effect::LoadSimilar { .. })
        )
    };
    let mut kept = Vec::with_capacity(queue.len());
    for (i, effect) in queue.iter().enumerate() {
        if !queue[i + 1..].iter().any(|later| superseded(effect, later)) {
            kept.push(effect.clone());
        }
    }
    kept
}

fn answer<T>(result: Result<T>, ok: impl FnOnce(T) -> Msg) -> Option<Msg> {
    Some(match result {
        Ok(value) => ok(value),
        Err(e) => Msg::Failed(e.to_string()),
    })
}

fn run_semantic(keeper: &mut Keeper, effect: Effect) -> Option<Msg> {
    match effect {
        Effect::Search { generation, query } => {
            answer(keeper_search(keeper, &query), |(rows, notices)| {
                Msg::Results {
                    generation,
                    rows,
                    semantic: true,
                    notices,
                }
            })
        }
        Effect::LoadSimilar { id } => answer(similar(keeper, &id), |found| Msg::Similar {
            id,
            rows: found.hits.iter().map(hit_row).collect(),
        }),
        _ => None,
    }
}

fn run_quick(keeper: &mut Keeper, effect: Effect, last_version: &mut i64) -> Option<Msg> {
    match effect {
        Effect::LoadPage { start, order } => {
            let filter = NoteFilter::default();
            answer(
                keeper.count(&filter).and_then(|total| {
                    let start = start.min(total.saturating_sub(1));
                    let notes = keeper.list_page(&filter, order, start, PAGE)?;
                    Ok((start, total, notes))
                }),
                |(start, total, notes)| Msg::Page {
                    start,
                    total,
                    rows: notes.iter().map(|n| note_row(n, None)).collect(),
                },
            )
        }
        Effect::Search { generation, query } => answer(
            recall(keeper, &query, RecallMode::Keyword),
            |(rows, notices)| Msg::Results {
                generation,
                rows,
                semantic: false,
                notices,
            },
        ),
        Effect::LoadPreview { id, version } => answer(preview(keeper, &id, version), Msg::Preview),
        Effect::LoadCatalog => answer(keeper.tag_catalog(50), Msg::Catalog),
        Effect::LoadBackground => answer(background(keeper, last_version), |(facts, changed)| {
            Msg::Background { facts, changed }
        }),
        Effect::AddTags { id, tags } => answer(add_tags(keeper, &id, &tags), Msg::Done),
        Effect::RemoveTags { id, tags } => answer(remove_tags(keeper, &id, &tags), Msg::Done),
        Effect::Put { id, text } => answer(put(keeper, id, &text), Msg::Done),
        Effect::SetSummary { id, text } => answer(keeper.set_summary(&id, &text), |outcome| {
            Msg::Done(format!("{} {}", outcome.id, status_word(outcome.status)))
        }),
        Effect::SetNow { text } => answer(set_now(keeper, &text), Msg::Done),
        Effect::Delete { id } => answer(keeper.delete(&NoteRef::plain(&id)), |_| {
            Msg::Done(format!("deleted {id}"))
        }),
        Effect::Revert { id } => answer(keeper.revert(&id, false), |outcome| {
            Msg::Done(match outcome {
                keep_core::keeper::RevertOutcome::Restored { id, versions } => {
                    format!("reverted {id} ({versions} archived version(s) left)")
                }
                keep_core::keeper::RevertOutcome::Deleted { id } => {
                    format!("{id} had no history and was deleted")
                }
            })
        }),
        Effect::LoadSimilar { .. } | Effect::Edit { .. } | Effect::Copy(_) | Effect::Quit => None,
    }
}

/// Hybrid search, after giving waiting notes their vectors.
fn keeper_search(keeper: &mut Keeper, query: &Query) -> Result<(Vec<Row>, Vec<String>)> {
    let notice = keeper.embed_before_search();
    let (rows, mut notices) = recall(keeper, query, RecallMode::Hybrid)?;
    notices.splice(0..0, notice);
    Ok((rows, notices))
}

/// Notes nearest in meaning to `id`, after giving waiting notes vectors.
fn similar(keeper: &mut Keeper, id: &str) -> Result<keep_core::recall::FindResult> {
    let _ = keeper.embed_before_search();
    keeper.similar(id, 10)
}

/// Search results as rows: one note by id, a filtered list when there are
/// no words, or recall in `mode`.
fn recall(keeper: &mut Keeper, query: &Query, mode: RecallMode) -> Result<(Vec<Row>, Vec<String>)> {
    if let Some(id) = &query.id {
        let note = keeper
            .peek(id)?
            .ok_or_else(|| Error::NotFound(id.clone()))?;
        return Ok((vec![note_row(&note, None)], Vec::new()));
    }
    let filter = keeper.filter(&FilterSpec {
        tags: &query.tags,
        since: query.since.as_deref(),
        until: query.until.as_deref(),
        scope: query.scope.as_deref(),
        ..FilterSpec::default()
    })?;
    if !query.has_text() {
        let notes = keeper.list(&filter, keep_core::model::ListOrder::Updated, Some(RESULTS))?;
        return Ok((
            notes.iter().map(|n| note_row(n, None)).collect(),
            Vec::new(),
        ));
    }
    let found = keeper.find(&FindQuery {
        query: recall::Query::Text(query.text.clone()),
        filter,
        mode,
        ..FindQuery::text("", RESULTS)
    })?;
    Ok((found.hits.iter().map(hit_row).collect(), found.notices))
}

fn user_tags_text(tags: &Tags) -> String {
    tags.user_tags()
        .pairs()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn note_row(note: &Note, why: Option<String>) -> Row {
    Row {
        id: note.id.clone(),
        date: note.updated.short(),
        line: display_line(note),
        tags: user_tags_text(&note.tags),
        why,
    }
}

fn hit_row(hit: &Hit) -> Row {
    let why = match &hit.via {
        Some(via) => via_label(via),
        None => {
            let mut parts = Vec::new();
            if let Some(r) = hit.keyword_rank {
                parts.push(format!("kw {r}"));
            }
            if let Some(r) = hit.vector_rank {
                parts.push(format!("sem {r}"));
            }
            if let Some(m) = &hit.matched {
                parts.push(matched_label(m));
            }
            parts.join(" · ")
        }
    };
    note_row(&hit.note, Some(why))
}

fn preview(keeper: &Keeper, id: &str, version: i64) -> Result<Preview> {
    let target = NoteRef {
        id: id.to_string(),
        selector: (version != 0).then_some(Selector::Version(version)),
    };
    let view = keeper.view(&target)?;
    let current = if version == 0 {
        None
    } else {
        Some(keeper.view(&NoteRef::plain(id))?.note.summary)
    };
    let mut edges: Vec<(String, String)> = view
        .edges
        .iter()
        .map(|e| (e.key.clone(), e.target.clone()))
        .collect();
    edges.extend(
        view.inverse_edges
            .iter()
            .map(|e| (e.inverse.clone(), e.source.clone())),
    );
    Ok(Preview {
        id: id.to_string(),
        version: view.version,
        versions: view.history.len() as i64,
        summary: view.note.summary.clone(),
        current,
        date: view.note.updated.short(),
        tags: user_tags_first(&view.note.tags),
        edges,
        history: view
            .history
            .iter()
            .map(|(n, v)| (*n, v.updated.short(), first_line(&v.summary)))
            .collect(),
        parts: view.parts.iter().map(|p| first_line(&p.summary)).collect(),
        similar: None,
    })
}

/// Tags as pairs, the user's before keep's own.
fn user_tags_first(tags: &Tags) -> Vec<(String, String)> {
    let mut pairs: Vec<(String, String)> = tags
        .pairs()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    pairs.sort_by_key(|(k, _)| model::is_system_key(k));
    pairs
}

fn background(keeper: &Keeper, last_version: &mut i64) -> Result<(Background, bool)> {
    let version = keeper.data_version()?;
    let changed = version != *last_version;
    *last_version = version;
    let watcher = match keeper.watch_lease()? {
        Some(lease) => Some(format!(
            "watching {} folder(s), pid {}",
            keeper.watches()?.len(),
            lease.pid
        )),
        None => None,
    };
    Ok((
        Background {
            notes: keeper.count(&NoteFilter::default())?,
            pending_embeddings: keeper.pending_embeddings()?,
            watcher,
        },
        changed,
    ))
}

fn add_tags(keeper: &mut Keeper, id: &str, tags: &[String]) -> Result<String> {
    let edit = TagEdit {
        add: model::parse_user_tags(tags)?,
        ..TagEdit::default()
    };
    keeper.tag(id, &edit)?;
    Ok(format!("tagged {id}: {}", tags.join(" ")))
}

fn remove_tags(keeper: &mut Keeper, id: &str, tags: &[String]) -> Result<String> {
    let mut edit = TagEdit::default();
    for tag in tags {
        match tag.split_once('=') {
            Some((k, v)) => edit.remove_values.push((k.to_string(), v.to_string())),
            None => edit.remove_keys.push(tag.clone()),
        }
    }
    keeper.tag(id, &edit)?;
    Ok(format!("removed from {id}: {}", tags.join(" ")))
}

fn put(keeper: &mut Keeper, id: Option<String>, text: &str) -> Result<String> {
    let outcome = keeper.put_text(
        text,
        "inline",
        PutOptions {
            id,
            ..PutOptions::default()
        },
    )?;
    Ok(format!("{} {}", outcome.id, status_word(outcome.status)))
}

fn set_now(keeper: &mut Keeper, text: &str) -> Result<String> {
    let id = Keeper::now_id(None)?;
    put(keeper, Some(id), text)
}

#[cfg(test)]
mod tests {
    use super::coalesce;
    use crate::tui::app::Effect;
    use crate::tui::query::Query;

    #[test]
    fn coalescing_keeps_only_the_newest_search_and_every_action() {
        let (tx, rx) = std::sync::mpsc::channel();
        let search = |g| Effect::Search {
            generation: g,
            query: Query::default(),
        };
        tx.send(Effect::Delete { id: "a".into() }).unwrap();
        tx.send(search(2)).unwrap();
        tx.send(search(3)).unwrap();
        let kept = coalesce(search(1), &rx);
        assert_eq!(kept, vec![Effect::Delete { id: "a".into() }, search(3)]);
    }
}
