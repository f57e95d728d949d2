//! The embedding backlog: the lazily loaded embedder, the store's vector
//! space (which model made its vectors), giving vectors to rows that lack
//! one (donor copies first, the model for the rest), and reindexing.

use keep_store::prelude::*;
use std::collections::HashMap;
use std::time::Instant;

use super::Keeper;
use crate::embed::{BATCH_SIZE, Embedder, LoadFor, ModelPaths, OnnxEmbedder, SharedModel};
use crate::error::{Error, Result, Transactions};
use keep_model as model;
use keep_store::Embedded;
use keep_store::{PendingText, VectorSpace};

#[derive(Default)]
pub(super) enum EmbedderSlot {
    #[default]
    Unloaded,
    /// A model shared with other threads, not yet asked for.
    Shared(SharedModel),
    Ready(Box<dyn Embedder>),
    /// Why the model could not be loaded, and what would mend it.
    Failed(String, Option<&'static str>),
}

#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct EmbedReport {
    /// Texts run through the model.
    pub embedded: usize,
    /// Vectors copied from rows with the same text.
    pub copied: usize,
    /// Rows still waiting.
    pub remaining: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct ReindexReport {
    pub model: String,
    pub dimensions: usize,
    /// True when the old vectors were dropped (another model, or --all).
    pub rebuilt: bool,
    /// The model the store's vectors came from, when they were made again
    /// with the configured one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub switched_from: Option<String>,
    #[serde(flatten)]
    pub work: EmbedReport,
    /// Notes whose images were read by OCR in this run.
    pub ocr_read: usize,
    /// Notes still waiting for OCR (its models are missing).
    pub ocr_waiting: usize,
}

impl Keeper {
    /// Vectors for `texts` (by index) until the time is `until`; after
    /// each model call `progress` hears how many are done counting
    /// `done_before`.
    pub(super) fn embed_until(
        &mut self,
        texts: &[&str],
        until: Option<Instant>,
        done_before: usize,
        progress: &mut dyn FnMut(usize),
    ) -> Result<crate::embed::Made> {
        let mut done = 0;
        self.embedder()?.embed_some(texts, &mut |n| {
            done += n;
            progress(done_before + done);
            until.is_none_or(|t| Instant::now() < t)
        })
    }

    /// The embedder, loading the configured model on first use.
    pub fn embedder(&mut self) -> Result<&mut dyn Embedder> {
        let loaded = match &self.embedder {
            EmbedderSlot::Unloaded => Some(load_model(&self.settings, self.load_for)),
            EmbedderSlot::Shared(model) => Some(model.embedder()),
            EmbedderSlot::Ready(_) | EmbedderSlot::Failed(..) => None,
        };
        if let Some(loaded) = loaded {
            self.embedder = match loaded {
                Ok(e) => EmbedderSlot::Ready(e),
                Err(Error::ModelUnavailable { reason, component }) => {
                    EmbedderSlot::Failed(reason, component)
                }
                Err(e) => EmbedderSlot::Failed(e.to_string(), None),
            };
        }
        match &mut self.embedder {
            EmbedderSlot::Ready(e) => Ok(e.as_mut()),
            EmbedderSlot::Failed(reason, component) => Err(Error::ModelUnavailable {
                reason: reason.clone(),
                component: *component,
            }),
            EmbedderSlot::Unloaded | EmbedderSlot::Shared(_) => unreachable!("loaded above"),
        }
    }

    /// The configured model as one that other threads can share: loaded
    /// on first use (by any of them), prepared for many queries. This
    /// keeper uses it too, so the process holds the model once.
    pub fn share_model(&mut self) -> SharedModel {
        let model = match std::mem::take(&mut self.embedder) {
            EmbedderSlot::Shared(model) => model,
            EmbedderSlot::Ready(embedder) => SharedModel::new(move || Ok(embedder)),
            EmbedderSlot::Unloaded | EmbedderSlot::Failed(..) => {
                let settings = self.settings.clone();
                SharedModel::new(move || load_model(&settings, LoadFor::ManyQueries))
            }
        };
        self.embedder = EmbedderSlot::Shared(model.clone());
        model
    }

    /// The id of the model this keeper embeds with: the one it was given,
    /// else the configured one (loads nothing).
    pub(super) fn embedding_model_id(&self) -> Result<String> {
        match &self.embedder {
            EmbedderSlot::Ready(e) => Ok(e.model_id().to_string()),
            _ => self.model_id(),
        }
    }

    /// The store's vector space when its vectors come from the loaded
    /// model; None when no vectors were ever made. Reads only.
    pub(super) fn searchable_space(&mut self) -> Result<Option<VectorSpace>> {
        let wanted = self.wanted_space()?;
        match self.store.db().vector_space()? {
            Some(space) if space == wanted => Ok(Some(space)),
            Some(space) => Err(mismatch(&space, &wanted)),
            None => Ok(None),
        }
    }

    pub(super) fn wanted_space(&mut self) -> Result<VectorSpace> {
        let embedder = self.embedder()?;
        Ok(VectorSpace {
            model: embedder.model_id().to_string(),
            dims: embedder.dimensions(),
        })
    }

    /// Checks that the store's vectors come from the loaded model, creating
    /// the vector tables on first use.
    pub(super) fn ensure_vector_space(&mut self) -> Result<VectorSpace> {
        let wanted = self.wanted_space()?;
        match self.store.db().vector_space()? {
            Some(space) if space == wanted => {
                if self.store.db().codes_missing()? {
                    self.store.transact(|db| Ok(db.create_codes()?))?;
                }
                Ok(space)
            }
            Some(space) => Err(mismatch(&space, &wanted)),
            None => {
                self.store
                    .transact(|db| Ok(db.create_vector_space(&wanted)?))?;
                Ok(wanted)
            }
        }
    }

    /// How many rows wait for a vector.
    pub fn pending_embeddings(&self) -> Result<i64> {
        Ok(self.store.db().count_pending()?)
    }

    /// Gives vectors to rows that lack one, up to `limit` rows (all if
    /// None): copied from a row with the same text when there is one,
    /// otherwise embedded in batches.
    pub fn embed_pending(&mut self, limit: Option<usize>) -> Result<EmbedReport> {
        self.embed_pending_with(limit, None, &mut |_| {})
    }

    /// `embed_pending`, stopping after the model call that ends past
    /// `until` (one call at least, so each use makes progress), and telling `progress` how many rows have their vectors so
    /// far after each model call. Rows given vectors are written as they
    /// go, so what was done before a stop (or a kill) is kept.
    pub fn embed_pending_with(
        &mut self,
        limit: Option<usize>,
        until: Option<Instant>,
        progress: &mut dyn FnMut(usize),
    ) -> Result<EmbedReport> {
        self.embed_rows(limit, until, false, progress)
    }

    /// `embed_pending_with`, only for rows of the notes of the pending
    /// scope (`Db::set_pending_scope`) when `scoped`; `remaining` then
    /// counts the scope's rows.
    pub(super) fn embed_rows(
        &mut self,
        limit: Option<usize>,
        until: Option<Instant>,
        scoped: bool,
        progress: &mut dyn FnMut(usize),
    ) -> Result<EmbedReport> {
        self.ensure_vector_space()?;
        let mut report = EmbedReport::default();
        let mut budget = limit.unwrap_or(usize::MAX);
        let out_of_time = |until: Option<Instant>| until.is_some_and(|t| Instant::now() >= t);
        let mut first = true;
        while budget > 0 && (first || !out_of_time(until)) {
            first = false;
            let items = self
                .store
                .db()
                .pending_texts_in(budget.min(4 * BATCH_SIZE), scoped)?;
            if items.is_empty() {
                break;
            }
            let before = report.embedded + report.copied;
            let vectors = self.vectors_for(&items, &mut report, until, progress)?;
            let mut given = 0;
            self.store.transact(|db| {
                for item in &items {
                    let hash = model::content_hash(item.text.as_bytes());
                    if let Some(v) = vectors.get(&hash) {
                        db.set_vector(item.row, &item.text, &hash, v)?;
                        given += 1;
                    }
                }
                Ok(())
            })?;
            if report.embedded + report.copied == before {
                break;
            }
            budget = budget.saturating_sub(given.max(1));
        }
        report.remaining = self.store.db().count_pending_in(scoped)?;
        Ok(report)
    }

    /// Vectors (as stored bytes) by text hash: donors first, then the
    /// model, until `until`.
    fn vectors_for(
        &mut self,
        items: &[PendingText],
        report: &mut EmbedReport,
        until: Option<Instant>,
        progress: &mut dyn FnMut(usize),
    ) -> Result<HashMap<String, Vec<u8>>> {
        let mut vectors = HashMap::new();
        let mut to_embed: Vec<(String, &str)> = Vec::new();
        for item in items {
            let hash = model::content_hash(item.text.as_bytes());
            if vectors.contains_key(&hash) || to_embed.iter().any(|(h, _)| *h == hash) {
                continue;
            }
            match self.store.db().donor_vector(&hash)? {
                Some(v) => {
                    vectors.insert(hash, v);
                    report.copied += 1;
                }
                None => to_embed.push((hash, item.text.as_str())),
            }
        }
        if to_embed.is_empty() {
            progress(report.embedded + report.copied);
            return Ok(vectors);
        }
        let texts: Vec<&str> = to_embed.iter().map(|(_, t)| *t).collect();
        let done_before = report.embedded + report.copied;
        let embedded = self.embed_until(&texts, until, done_before, progress)?;
        report.embedded += embedded.len();
        for (i, v) in embedded {
            vectors.insert(to_embed[i].0.clone(), keep_store::vector_bytes(&v));
        }
        Ok(vectors)
    }

    /// Re-embeds what is missing. When the store's vectors come from
    /// another model, the configured one first makes its own beside them
    /// (a stopped run keeps what it made) and they replace the old ones;
    /// with `all`, every vector is dropped first.
    /// `progress` hears how many of the waiting rows have vectors so far,
    /// and how many there were, after each model call (once for the change
    /// of model, once for the rows that wait).
    pub fn reindex(
        &mut self,
        all: bool,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<ReindexReport> {
        let (ocr_read, ocr_waiting) = self.read_pending_ocr()?;
        let wanted = self.wanted_space()?;
        if all {
            self.store.transact(|db| {
                db.clear_next_space()?;
                db.drop_vector_space()?;
                Ok(db.create_vector_space(&wanted)?)
            })?;
        }
        let switched = self.switch_model(None, None, progress)?;
        let rebuilt = all || switched.as_ref().is_some_and(|s| s.completed);
        let total = self.pending_embeddings()?.max(0) as usize;
        progress(0, total);
        let mut work = self.embed_pending_with(None, None, &mut |done| {
            progress(done.min(total), total);
        })?;
        if let Some(s) = &switched {
            work.embedded += s.embedded;
            if !s.completed {
                work.remaining += s.remaining;
            }
        }
        Ok(ReindexReport {
            model: wanted.model,
            dimensions: wanted.dims,
            rebuilt,
            switched_from: switched.filter(|s| s.completed).map(|s| s.from),
            work,
            ocr_read,
            ocr_waiting,
        })
    }
}

/// Loads the model the settings name: a provider's when one is
/// configured for embeddings, else the built-in one.
fn load_model(
    settings: &keep_model::settings::Settings,
    load_for: LoadFor,
) -> Result<Box<dyn Embedder>> {
    if let Some(provider) = &settings.providers.embed {
        return Ok(Box::new(crate::provider::ProviderEmbedder::connect(
            provider.clone(),
        )?));
    }
    let paths = ModelPaths::from_settings(&settings.model)?;
    Ok(Box::new(OnnxEmbedder::load(&paths, load_for)?))
}

fn mismatch(space: &VectorSpace, wanted: &VectorSpace) -> Error {
    Error::ModelMismatch(format!(
        "the store's vectors were made by {} ({} dimensions) but the configured model is {} ({} dimensions); every note must be embedded again with it",
        space.model, space.dims, wanted.model, wanted.dims
    ))
}
