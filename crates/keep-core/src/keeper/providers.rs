//! Work owed to model servers. A write queues it as a system tag on the
//! note (`_transcribe=pending`, `_summarize=pending`), in the same
//! transaction, so nothing waits for a model and a crash loses no request;
//! whoever drains the store's backlog (a server, the background process,
//! `keep reindex`) does it one note at a time. A model that answers badly
//! leaves the note as it was and marks the work `failed: REASON`; a
//! server that cannot be reached leaves the work queued.

use keep_store::prelude::*;
use std::time::Instant;

use super::Keeper;
use super::write::{Content, write_content, write_state};
use crate::error::{Error, Result, Transactions};
use crate::provider::{self, summary::Context};
use keep_ingest::chunk;
use keep_model::settings::Provider;
use keep_model::{self as model, Note, NoteFilter, Part, TagFilter, Tags, keys};
use keep_store::NoteReads;
use keep_store::{Db, NoteRid};

/// Related summaries given to the model as the reader's context.
const RELATED_NOTES: usize = 5;
/// Largest audio file sent for a transcript.
const MAX_AUDIO_BYTES: u64 = 512 * 1024 * 1024;

/// What one pass over the queue did.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct ProviderWork {
    /// Notes that got a language model's summary.
    pub summarized: usize,
    /// Audio notes that got their transcript.
    pub transcribed: usize,
    /// Notes whose work failed, with why (each said once: the note is
    /// marked and not tried again).
    pub failed: Vec<(String, String)>,
    /// Work still queued.
    pub remaining: usize,
}

/// What `analyze` made.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct Analysis {
    pub id: String,
    /// The model that chose the parts; None for heading-based parts.
    pub model: Option<String>,
    pub parts: Vec<AnalysisPart>,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct AnalysisPart {
    pub number: u32,
    pub title: String,
    pub summary: String,
    pub tags: Vec<String>,
    /// Characters of the document the part covers.
    pub chars: usize,
}

impl Keeper {
    /// Queues on `content` the work the configured providers owe it: the
    /// transcript of an audio file, and a summary of a document long
    /// enough to have parts, unless its summary was given.
    pub(super) fn queue_provider_work(&self, content: &mut Content, summary_given: bool) {
        let providers = &self.settings.providers;
        let audio = content
            .system_tags
            .first(keys::CONTENT_TYPE)
            .is_some_and(|t| t.starts_with("audio/"));
        let transcribe = providers.transcribe.is_some()
            && audio
            && model::path_of_file_id(&content.id).is_some()
            && !content.system_tags.contains_key(keys::TRANSCRIPT_MODEL);
        if transcribe {
            content.system_tags.insert(keys::TRANSCRIBE, "pending");
        } else if providers.summarize.is_some() && !summary_given && !content.parts.is_empty() {
            content.system_tags.insert(keys::SUMMARIZE, "pending");
        }
    }

    /// How many notes wait for a configured provider.
    pub fn provider_work_waiting(&self) -> Result<usize> {
        let db = self.store.db();
        let mut waiting = 0;
        for key in self.queued_keys() {
            waiting += db.tag_count(key, "pending")?.max(0) as usize;
        }
        Ok(waiting)
    }

    /// The queue keys whose provider is configured, transcripts first
    /// (a transcript queues a summary).
    fn queued_keys(&self) -> Vec<&'static str> {
        let providers = &self.settings.providers;
        let mut keys = Vec::new();
        if providers.transcribe.is_some() {
            keys.push(keys::TRANSCRIBE);
        }
        if providers.summarize.is_some() {
            keys.push(keys::SUMMARIZE);
        }
        keys
    }

    /// Works the queue: at most `limit` notes, stopping at `until`.
    /// `progress` hears each note as it starts. An unreachable server
    /// ends the pass with its error; the work stays queued.
    pub fn work_providers(
        &mut self,
        limit: Option<usize>,
        until: Option<Instant>,
        progress: &mut dyn FnMut(&str, &str),
    ) -> Result<ProviderWork> {
        let mut work = ProviderWork::default();
        let mut done = 0;
        'keys: for key in self.queued_keys() {
            loop {
                if limit.is_some_and(|l| done >= l) || until.is_some_and(|u| Instant::now() >= u) {
                    break 'keys;
                }
                let Some(rid) = self.store.db().rids_with_tag(key, "pending", 1)?.pop() else {
                    break;
                };
                let Some(note) = self.store.db().note_by_rid(rid)? else {
                    break;
                };
                progress(
                    if key == keys::TRANSCRIBE {
                        "transcribing"
                    } else {
                        "summarising"
                    },
                    &note.id,
                );
                done += 1;
                let outcome = if key == keys::TRANSCRIBE {
                    self.transcribe_note(rid, &note)
                } else {
                    self.summarize_note(rid, &note)
                };
                match outcome {
                    Ok(()) if key == keys::TRANSCRIBE => work.transcribed += 1,
                    Ok(()) => work.summarized += 1,
                    Err(e @ Error::ProviderUnreachable { .. }) => return Err(e),
                    Err(e) if e.is_store_fault() => return Err(e),
                    Err(e) => {
                        let reason = e.to_string();
                        self.mark_failed(rid, key, &reason)?;
                        work.failed.push((note.id.clone(), reason));
                    }
                }
            }
        }
        work.remaining = self.provider_work_waiting()?;
        Ok(work)
    }

    /// Asks the summary model for `note`'s summary and stores it as the
    /// note's next version.
    fn summarize_note(&mut self, rid: NoteRid, note: &Note) -> Result<()> {
        let provider = self.provider(|p| &p.summarize)?;
        let parts = self.store.db().parts(rid)?;
        let text = text_of_parts(&parts);
        let text = if text.trim().is_empty() {
            note.summary.clone()
        } else {
            text
        };
        let tags = user_tags(&note.tags);
        let related = self.related_summaries(&note.id, &note.tags)?;
        let context = Context {
            tags,
            related: related.iter().map(String::as_str).collect(),
        };
        let summary = provider::summary::summarize(&provider, &text, &context)?;
        // A model writes from text already screened, yet what it writes is
        // stored like any other text.
        let mut screen = self.screen(false);
        let summary = screen.text(&summary, "summary");
        let found = screen.take();
        let now = self.now();
        let model = provider.model.clone();
        self.store.transact(|db| {
            let Some((rid, current)) = db.note(&note.id)? else {
                return Ok(());
            };
            if current.tags.first(keys::SUMMARIZE) != Some("pending") {
                // Written again meanwhile: that write decides.
                return Ok(());
            }
            let mut next = current.clone();
            next.summary = summary.clone();
            super::redact::add_redacted(&mut next.tags, &found);
            next.tags.remove_key(keys::SUMMARIZE);
            next.tags.remove_key(keys::SUMMARY_MODEL);
            next.tags.insert(keys::SUMMARY_MODEL, model.as_str());
            next.updated = now;
            write_state(db, Some(&(rid, current)), &next, now)?;
            Ok(())
        })
    }

    /// Sends an audio note's file to the speech model; the transcript
    /// becomes the note's text (summary, parts, keyword index), its
    /// audio tags kept.
    fn transcribe_note(&mut self, _rid: NoteRid, note: &Note) -> Result<()> {
        let provider = self.provider(|p| &p.transcribe)?;
        let path = model::path_of_file_id(&note.id)
            .ok_or_else(|| Error::invalid(format!("'{}' is not a file", note.id)))?;
        let size = std::fs::metadata(&path)
            .map_err(|e| Error::io(&path, e))?
            .len();
        if size > MAX_AUDIO_BYTES {
            return Err(Error::invalid(format!(
                "{}: {size} bytes is more than the {MAX_AUDIO_BYTES} keep sends for a transcript",
                path.display()
            )));
        }
        let audio = std::fs::read(&path).map_err(|e| Error::io(&path, e))?;
        let name = path
            .file_name()
            .map_or_else(|| "audio".into(), |n| n.to_string_lossy().into_owned());
        let transcript =
            provider::transcribe::transcribe(&provider, &audio, &name, &mut |_, _| {})?;
        if !transcript.chars().any(char::is_alphabetic) {
            return Err(provider::client::failed(
                &provider,
                "found no speech".into(),
            ));
        }
        let mut system_tags = Tags::new();
        for key in [keys::SOURCE, keys::CONTENT_TYPE] {
            if let Some(v) = note.tags.first(key) {
                system_tags.insert(key, v);
            }
        }
        system_tags.insert(keys::TRANSCRIPT_MODEL, provider.model.as_str());
        let mut screen = self.screen(false);
        let text = screen.text(&keep_ingest::tidy(&transcript), "transcript");
        let mut content = Content {
            id: note.id.clone(),
            parts: chunk::sectioned(&text),
            text,
            hash: note.content_hash.clone().unwrap_or_default(),
            system_tags,
            provider_tags: Tags::new(),
            description: None,
            lead: None,
            part_tags: Vec::new(),
            dates_given: false,
            redacted: screen.take(),
        };
        self.queue_provider_work(&mut content, false);
        let now = self.now();
        self.store.transact(|db| {
            match db.note(&note.id)? {
                Some((_, current)) if current.tags.first(keys::TRANSCRIBE) == Some("pending") => {}
                _ => return Ok(()),
            }
            write_content(db, &content, &Default::default(), now)?;
            Ok(())
        })
    }

    /// Marks queued work as failed, without a new version (nothing the
    /// note says changed).
    fn mark_failed(&mut self, rid: NoteRid, key: &str, reason: &str) -> Result<()> {
        self.store.transact(|db| {
            let Some(mut note) = db.note_by_rid(rid)? else {
                return Ok(());
            };
            note.tags.remove_key(key);
            note.tags.insert(key, format!("failed: {reason}"));
            set_quietly(db, rid, &note)
        })
    }

    /// Summaries of up to five notes sharing a user tag with this one.
    fn related_summaries(&self, id: &str, tags: &Tags) -> Result<Vec<String>> {
        let mut related = Vec::new();
        for (key, value) in tags.pairs().filter(|(k, _)| !keys::is_system_key(k)) {
            let filter = NoteFilter {
                tags: vec![TagFilter {
                    key: key.to_string(),
                    value: Some(value.to_string()),
                }],
                ..NoteFilter::default()
            };
            for other in self.store.db().list_notes_from(
                &filter,
                model::ListOrder::Updated,
                &model::PageFrom::First,
                Some(RELATED_NOTES + 1),
            )? {
                if other.id != id && !related.contains(&other.summary) {
                    related.push(other.summary);
                }
            }
            if related.len() >= RELATED_NOTES {
                break;
            }
        }
        related.truncate(RELATED_NOTES);
        Ok(related)
    }

    fn provider(
        &self,
        which: impl Fn(&keep_model::settings::Providers) -> &Option<Provider>,
    ) -> Result<Provider> {
        which(&self.settings.providers)
            .clone()
            .ok_or_else(|| Error::invalid("no provider is configured for this work"))
    }

    /// Cuts a note's text into parts again: by a language model (the
    /// `analyze` provider) or, with `heuristic`, by headings as `put`
    /// does. The parts replace the old ones and are embedded.
    pub fn analyze(&mut self, id: &str, heuristic: bool) -> Result<Analysis> {
        self.may_change(id, "analyze")?;
        let (rid, note) = self
            .store
            .db()
            .note(id)?
            .ok_or_else(|| Error::NotFound(id.into()))?;
        let old = self.store.db().parts(rid)?;
        let text = match text_of_parts(&old) {
            t if t.trim().is_empty() => note.summary.clone(),
            t => t,
        };
        let title = note.tags.first("title").map(str::to_string);
        let (parts, model, shown): (Vec<Part>, _, _) = if heuristic {
            let chunks = chunk::sectioned(&text);
            let shown = chunks
                .iter()
                .enumerate()
                .map(|(i, c)| AnalysisPart {
                    number: i as u32 + 1,
                    title: c.section.clone().unwrap_or_default(),
                    summary: keep_ingest::summarize::part_line(&c.text),
                    tags: Vec::new(),
                    chars: c.text.chars().count(),
                })
                .collect();
            let parts = chunks
                .into_iter()
                .enumerate()
                .map(|(i, c)| Part {
                    number: i as u32 + 1,
                    summary: c.text,
                    tags: super::write::section_tags(title.as_deref(), c.section.as_deref()),
                })
                .collect();
            (parts, None, shown)
        } else {
            let provider = self.provider(|p| &p.analyze)?;
            let found = provider::analyze::analyze(&provider, &text)?;
            let shown = found
                .iter()
                .enumerate()
                .map(|(i, p)| AnalysisPart {
                    number: i as u32 + 1,
                    title: p.title.clone(),
                    summary: p.summary.clone(),
                    tags: p.tags.clone(),
                    chars: p.text.chars().count(),
                })
                .collect();
            let parts = found
                .into_iter()
                .enumerate()
                .map(|(i, p)| {
                    let mut tags = super::write::section_tags(title.as_deref(), Some(&p.title));
                    tags.insert(keys::PART_SUMMARY, p.summary);
                    for tag in p.tags {
                        tags.insert("topic", tag);
                    }
                    Part {
                        number: i as u32 + 1,
                        summary: p.text,
                        tags,
                    }
                })
                .collect();
            (parts, Some(provider.model.clone()), shown)
        };
        self.store.transact(|db| {
            db.replace_parts(rid, &parts)?;
            let Some(mut current) = db.note_by_rid(rid)? else {
                return Ok(());
            };
            current.tags.remove_key(keys::PARTS_MODEL);
            if let Some(model) = &model {
                current.tags.insert(keys::PARTS_MODEL, model.as_str());
            }
            set_quietly(db, rid, &current)
        })?;
        match self.embed_pending_with(None, None, &mut |_| {}) {
            Ok(_) | Err(Error::ModelUnavailable { .. }) => {}
            Err(e) => return Err(e),
        }
        Ok(Analysis {
            id: id.to_string(),
            model,
            parts: shown,
        })
    }
}

/// Rewrites a note's row and keyword entry in place, without archiving a
/// version: for keep's own bookkeeping tags.
fn set_quietly(db: &Db<'_>, rid: NoteRid, note: &Note) -> Result<()> {
    db.update_note(rid, note)?;
    Ok(db.index_note_text(rid, &note.summary, &note.tags)?)
}

/// The user's own tags as `key=value` (not keep's, not edges).
fn user_tags(tags: &Tags) -> Vec<String> {
    tags.pairs()
        .filter(|(k, _)| !keys::is_system_key(k) && *k != "title")
        .map(|(k, v)| format!("{k}={v}"))
        .collect()
}

/// A document's text from its parts, without the paragraph each part
/// repeats from the one before.
pub(crate) fn text_of_parts(parts: &[Part]) -> String {
    let mut paragraphs: Vec<&str> = Vec::new();
    for part in parts {
        let mut own: Vec<&str> = part.summary.split("\n\n").collect();
        if own.len() > 1 && paragraphs.last() == own.first() {
            own.remove(0);
        }
        paragraphs.extend(own);
    }
    paragraphs.join("\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_joined_do_not_repeat_their_overlap() {
        let part = |n: u32, s: &str| Part {
            number: n,
            summary: s.into(),
            tags: Tags::new(),
        };
        let parts = [part(1, "A\n\nB"), part(2, "B\n\nC"), part(3, "D")];
        assert_eq!(text_of_parts(&parts), "A\n\nB\n\nC\n\nD");
    }
}
