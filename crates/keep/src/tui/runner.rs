//! Runs effects off the UI thread. Two workers, each with its own
//! connection: a quick one (lists, keyword search, previews, actions) and
//! a semantic one (hybrid search, similar notes), so that loading the model
//! or embedding never delays keyword results.

use std::collections::BTreeSet;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::thread;

use super::app::{Background, Effect, Msg, PAGE, Preview, RESULTS, Row, SearchMode};
use super::query::Query;
use keep_core::Keeper;
use keep_core::error::{Error, Result};
use keep_core::keeper::{FilterSpec, PutOptions, TagEdit};
use keep_core::model::{self, Note, NoteRef, Selector, Tags};
use keep_core::model::{ListKey, ListOrder, NoteFilter, PageFrom};
use keep_core::recall::{self, FindQuery, Hit, RecallMode};

use crate::render::text::{first_line, matched_label, status_word, via_label};

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
            Effect::Search { query, mode, .. } if query.has_text() && query.id.is_none() => {
                if *mode != SearchMode::Keyword {
                    // A worker gone means the browser is closing: there is no one to search for.
                    let _ = self.semantic.send(effect.clone());
                }
                if *mode != SearchMode::Meaning {
                    let _ = self.quick.send(effect);
                }
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
            // The browser closed before the store could be opened.
            let _ = msgs.send(Msg::Failed(format!("cannot open the store: {e}")));
            return;
        }
    };
    let mut last_version = keeper.data_version().unwrap_or(0);
    let mut pager = Pager::default();
    let worker = usize::from(semantic);
    while let Ok(first) = rx.recv() {
        // The browser closed: the loop ends at the next receive.
        let _ = msgs.send(Msg::Busy { worker, busy: true });
        for effect in coalesce(first, &rx) {
            let msg = if semantic {
                run_semantic(&mut keeper, effect)
            } else {
                run_quick(&mut keeper, effect, &mut last_version, &mut pager)
            };
            if let Some(msg) = msg
                && msgs.send(msg).is_err()
            {
                return;
            }
        }
        // The browser closed: the loop ends at the next receive.
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
        Effect::Search {
            generation,
            query,
            mode,
        } => {
            let mode = match mode {
                SearchMode::Meaning => RecallMode::Semantic,
                _ => RecallMode::Hybrid,
            };
            answer(keeper_search(keeper, &query, mode), |(rows, notices)| {
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

/// The page of the list loaded last, so that the next is found from a
/// note's place in the order (through the order's index) rather than by
/// counting notes from the top.
#[derive(Default)]
struct Pager {
    order: Option<ListOrder>,
    start: usize,
    keys: Vec<ListKey>,
}

impl Pager {
    /// The `PAGE` notes from index `start` of a list of `total`.
    fn load(
        &mut self,
        keeper: &Keeper,
        order: ListOrder,
        start: usize,
        total: usize,
    ) -> Result<Vec<Note>> {
        let page =
            |from: &PageFrom, limit| keeper.list_page(&NoteFilter::default(), order, from, limit);
        let notes = if start == 0 {
            page(&PageFrom::First, PAGE)?
        } else if start + PAGE >= total {
            page(&PageFrom::Last, total - start)?
        } else {
            match self.key_at(keeper, order, start - 1)? {
                Some(key) => page(&PageFrom::After(key), PAGE)?,
                None => page(&PageFrom::Last, PAGE)?,
            }
        };
        self.order = Some(order);
        self.start = start;
        self.keys = notes.iter().map(|n| ListKey::of(n, order)).collect();
        Ok(notes)
    }

    /// The place of the note at `index`: from the page loaded last, or
    /// read from the nearer of its ends (from the top when no page of this
    /// order is loaded).
    fn key_at(&self, keeper: &Keeper, order: ListOrder, index: usize) -> Result<Option<ListKey>> {
        let read =
            |from: &PageFrom, limit| keeper.list_page(&NoteFilter::default(), order, from, limit);
        let key = |note: Option<&Note>| note.map(|n| ListKey::of(n, order));
        let end = self.start + self.keys.len();
        match (self.keys.first(), self.keys.last()) {
            (Some(first), Some(last)) if self.order == Some(order) => {
                if index < self.start {
                    let before = PageFrom::Before(first.clone());
                    Ok(key(read(&before, self.start - index)?.first()))
                } else if index < end {
                    Ok(Some(self.keys[index - self.start].clone()))
                } else {
                    let after = PageFrom::After(last.clone());
                    Ok(key(read(&after, index + 1 - end)?.last()))
                }
            }
            _ => Ok(key(read(&PageFrom::First, index + 1)?.last())),
        }
    }
}

fn run_quick(
    keeper: &mut Keeper,
    effect: Effect,
    last_version: &mut i64,
    pager: &mut Pager,
) -> Option<Msg> {
    match effect {
        Effect::LoadPage { start, order } => {
            let filter = NoteFilter::default();
            answer(
                keeper.count(&filter).and_then(|total| {
                    let start = start.min(total.saturating_sub(1));
                    let notes = pager.load(keeper, order, start, total)?;
                    Ok((start, total, notes))
                }),
                |(start, total, notes)| Msg::Page {
                    start,
                    total,
                    rows: notes.iter().map(|n| note_row(n, None)).collect(),
                },
            )
        }
        Effect::Search {
            generation, query, ..
        } => answer(
            recall(keeper, &query, RecallMode::Keyword),
            |(rows, notices)| Msg::Results {
                generation,
                rows,
                semantic: false,
                notices,
            },
        ),
        Effect::LoadPreview { id, version } => {
            answer(preview(keeper, &id, version), |p| Msg::Preview(Box::new(p)))
        }
        Effect::LoadCatalog => answer(keeper.tag_catalog(50), Msg::Catalog),
        Effect::LoadBackground => answer(background(keeper, last_version), |(facts, changed)| {
            Msg::Background { facts, changed }
        }),
        Effect::AddTags { ids, tags } => answer(add_tags(keeper, &ids, &tags), Msg::Done),
        Effect::RemoveTags { ids, tags } => answer(remove_tags(keeper, &ids, &tags), Msg::Done),
        Effect::Export { ids, path } => answer(export(keeper, &ids, &path), Msg::Done),
        Effect::Put { id, text } => answer(put(keeper, id, &text), Msg::Done),
        Effect::SetSummary { id, text } => answer(keeper.set_summary(&id, &text), |outcome| {
            Msg::Done(format!("{} {}", outcome.id, status_word(outcome.status)))
        }),
        Effect::SetNow { text } => answer(set_now(keeper, &text), Msg::Done),
        Effect::Delete { ids } => answer(delete(keeper, &ids), Msg::Done),
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
        Effect::LoadSimilar { .. }
        | Effect::Edit { .. }
        | Effect::Copy(_)
        | Effect::Pager(_)
        | Effect::Open(_)
        | Effect::Quit => None,
    }
}

/// Hybrid search, after giving waiting notes their vectors.
fn keeper_search(
    keeper: &mut Keeper,
    query: &Query,
    mode: RecallMode,
) -> Result<(Vec<Row>, Vec<String>)> {
    let notice = keeper
        .embed_before_search()
        .map(|n| crate::render::advice::notice_for_terminal(&n));
    let (rows, mut notices) = recall(keeper, query, mode)?;
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
    let notices = found
        .notices
        .iter()
        .map(crate::render::advice::notice_for_terminal)
        .collect();
    Ok((found.hits.iter().map(hit_row).collect(), notices))
}

/// User tags for a list row, less the title the row shows as its name.
fn user_tags_text(tags: &Tags) -> String {
    tags.user_tags()
        .pairs()
        .filter(|(k, _)| *k != "title")
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn note_row(note: &Note, why: Option<String>) -> Row {
    Row {
        id: note.id.clone(),
        title: title_of(&note.tags),
        date: note.updated.short(),
        line: first_line(&note.summary),
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

fn title_of(tags: &Tags) -> Option<String> {
    tags.first("title")
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_string)
}

/// User tags as `key=value` strings.
fn user_pairs(tags: &Tags) -> BTreeSet<String> {
    tags.user_tags()
        .pairs()
        .map(|(k, v)| format!("{k}={v}"))
        .collect()
}

/// What an archived version changed, against the next newer one: its
/// first line, or the tags when only tags changed.
fn version_line(older: (&str, &Tags), newer: (&str, &Tags)) -> String {
    if older.0 != newer.0 {
        return first_line(older.0);
    }
    let (old, new) = (user_pairs(older.1), user_pairs(newer.1));
    let mut changes: Vec<String> = new.difference(&old).map(|t| format!("+{t}")).collect();
    changes.extend(old.difference(&new).map(|t| format!("−{t}")));
    if changes.is_empty() {
        first_line(older.0)
    } else {
        format!("tags changed next: {}", changes.join(" "))
    }
}

/// The file or URL a note came from, for `o`.
fn source_of(note: &Note) -> Option<String> {
    let id = note.id.as_str();
    if let Some(path) = id.strip_prefix("file://") {
        return Some(path.to_string());
    }
    (id.starts_with("http://") || id.starts_with("https://")).then(|| id.to_string())
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
        Some(keeper.view(&NoteRef::plain(id))?.note)
    };
    let (tags_added, tags_removed) = match &current {
        Some(current) => {
            let (then, now) = (user_pairs(&view.note.tags), user_pairs(&current.tags));
            (
                now.difference(&then).cloned().collect(),
                then.difference(&now).cloned().collect(),
            )
        }
        None => (Vec::new(), Vec::new()),
    };
    let newest = match &current {
        Some(current) => current.clone(),
        None => view.note.clone(),
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
    let mut newer = (newest.summary.as_str(), &newest.tags);
    let mut history = Vec::with_capacity(view.history.len());
    for (n, v) in &view.history {
        let older = (v.summary.as_str(), &v.tags);
        history.push((*n, v.updated.short(), version_line(older, newer)));
        newer = older;
    }
    Ok(Preview {
        id: id.to_string(),
        title: title_of(&newest.tags),
        version: view.version,
        versions: view.history.len() as i64,
        summary: view.note.summary.clone(),
        current: current.map(|c| c.summary),
        tags_added,
        tags_removed,
        date: crate::render::text::listed_date(&view.note),
        tags: user_tags_first(&view.note.tags),
        edges,
        history,
        parts: std::sync::Arc::new(view.parts.iter().map(|p| p.summary.clone()).collect()),
        source: source_of(&newest),
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
    let watcher = match keeper.lease(keep_core::keeper::WATCH_LEASE)? {
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

/// `what` of one note (`ID`) or of many (`N notes`).
fn naming(ids: &[String]) -> String {
    match ids {
        [id] => id.clone(),
        ids => format!("{} notes", ids.len()),
    }
}

/// Applies `edit` to each note; a failure names how many were done.
fn tag_each(keeper: &mut Keeper, ids: &[String], edit: &TagEdit) -> Result<()> {
    for (done, id) in ids.iter().enumerate() {
        keeper.tag(id, edit).map_err(|e| match done {
            0 => e,
            n => Error::Invalid(format!("{e} (after {n} of {} notes were done)", ids.len())),
        })?;
    }
    Ok(())
}

fn add_tags(keeper: &mut Keeper, ids: &[String], tags: &[String]) -> Result<String> {
    let edit = TagEdit {
        add: model::parse_user_tags(tags)?,
        ..TagEdit::default()
    };
    tag_each(keeper, ids, &edit)?;
    Ok(format!("tagged {}: {}", naming(ids), tags.join(" ")))
}

fn remove_tags(keeper: &mut Keeper, ids: &[String], tags: &[String]) -> Result<String> {
    let mut edit = TagEdit::default();
    for tag in tags {
        match tag.split_once('=') {
            Some((k, v)) => edit.remove_values.push((k.to_string(), v.to_string())),
            None => edit.remove_keys.push(tag.clone()),
        }
    }
    tag_each(keeper, ids, &edit)?;
    Ok(format!("removed from {}: {}", naming(ids), tags.join(" ")))
}

fn delete(keeper: &mut Keeper, ids: &[String]) -> Result<String> {
    for (done, id) in ids.iter().enumerate() {
        keeper
            .delete(&NoteRef::plain(id), &Default::default())
            .map_err(|e| match done {
                0 => e,
                n => Error::Invalid(format!("{e} (after {n} of {} were deleted)", ids.len())),
            })?;
    }
    Ok(format!("moved {} to the trash", naming(ids)))
}

/// Writes the notes to a new file; an existing file is never replaced.
fn export(keeper: &mut Keeper, ids: &[String], path: &str) -> Result<String> {
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| Error::io(path, e))?;
    let mut out = std::io::BufWriter::new(file);
    let written = keeper.export_some(&mut out, true, ids).and_then(|n| {
        std::io::Write::flush(&mut out).map_err(|e| Error::io(path, e))?;
        Ok(n)
    });
    match written {
        Ok(n) => Ok(format!("exported {n} note(s) to {path}")),
        Err(e) => {
            drop(out);
            // The export failed: its error is shown; a partial file that cannot be removed stays visible.
            let _ = std::fs::remove_file(path);
            Err(e)
        }
    }
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
    use super::{coalesce, version_line};
    use keep_core::model::Tags;

    fn tags(pairs: &[(&str, &str)]) -> Tags {
        let mut tags = Tags::default();
        for (k, v) in pairs {
            tags.insert(*k, *v);
        }
        tags
    }

    #[test]
    fn a_version_line_names_the_tags_when_only_tags_changed() {
        let then = tags(&[("status", "open"), ("_source", "inline")]);
        let now = tags(&[("status", "fixed"), ("_source", "inline")]);
        assert_eq!(
            version_line(("Lights broken.", &then), ("Lights broken.", &now)),
            "tags changed next: +status=fixed −status=open"
        );
        assert_eq!(
            version_line(("Lights broken.\nmore", &then), ("Lights fixed.", &now)),
            "Lights broken."
        );
    }

    use crate::tui::app::Effect;
    use crate::tui::query::Query;

    #[test]
    fn coalescing_keeps_only_the_newest_search_and_every_action() {
        let (tx, rx) = std::sync::mpsc::channel();
        let search = |g| Effect::Search {
            generation: g,
            query: Query::default(),
            mode: crate::tui::app::SearchMode::Hybrid,
        };
        let delete = || Effect::Delete {
            ids: vec!["a".into()],
        };
        tx.send(delete()).unwrap();
        tx.send(search(2)).unwrap();
        tx.send(search(3)).unwrap();
        let kept = coalesce(search(1), &rx);
        assert_eq!(kept, vec![delete(), search(3)]);
    }

    /// Every page the browser asks for, near the last one or far from it,
    /// holds the notes a listing from the top has at those places.
    #[test]
    fn pages_are_found_from_the_last_page_wherever_the_list_is_scrolled() {
        use super::{PAGE, Pager, put};
        use keep_core::model::{ListOrder, NoteFilter};
        use keep_core::{Keeper, Settings};
        let dir = tempfile::tempdir().unwrap();
        let mut keeper = Keeper::open(Settings::for_store(dir.path())).unwrap();
        for i in 0..(PAGE * 3 + 17) {
            put(
                &mut keeper,
                Some(format!("n{:04}", (i * 7919) % 1000)),
                &format!("note {i}"),
            )
            .unwrap();
        }
        let mut pager = Pager::default();
        for order in [ListOrder::Updated, ListOrder::Id] {
            let all: Vec<String> = keeper
                .list(&NoteFilter::default(), order, None)
                .unwrap()
                .into_iter()
                .map(|n| n.id)
                .collect();
            let total = all.len();
            for start in [300, 0, 100, 350, 250, 40, total - 30, 500, 499, 1, 420] {
                let page: Vec<String> = pager
                    .load(&keeper, order, start, total)
                    .unwrap()
                    .into_iter()
                    .map(|n| n.id)
                    .collect();
                let end = (start + PAGE).min(total);
                assert_eq!(page, all[start..end], "{order:?} from {start}");
            }
        }
    }
}
