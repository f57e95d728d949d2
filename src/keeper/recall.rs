//! Recall: the lazily loaded embedder, filling in missing vectors
//! (donor copies first, the model for the rest), reindexing, and hybrid
//! `find` (keyword and vector candidates fused by rank, recency decay,
//! deep recall).

use std::collections::{HashMap, HashSet};

use super::{FindQuery, Keeper, RecallMode, edges};
use crate::embed::{BATCH_SIZE, Embedder, ModelPaths, OnnxEmbedder};
use crate::error::{Error, Result};
use crate::note::{self, Note};
use crate::search::{self, Fused, Matched, Ranked, Via};
use crate::store::{Db, NoteFilter, PendingText, VecKind, VectorSpace};

/// Candidates taken from each list before fusion.
const CANDIDATES: usize = 50;
/// Missing vectors filled in by a `find` before it searches.
const FIND_EMBED_BUDGET: usize = 1000;
/// Shared tags carried by more notes than this are not distinctive.
const DISTINCTIVE_TAG_MAX: i64 = 20;
/// Direct hits deep recall starts from.
const DEEP_SEEDS: usize = 5;
/// Deep recall adds up to this many notes, or the limit if larger.
const DEEP_MIN_RESULTS: usize = 10;

#[derive(Default)]
pub(super) enum EmbedderSlot {
    #[default]
    Unloaded,
    Ready(Box<dyn Embedder>),
    Failed(String),
}

/// One recalled note and why it ranked where it did.
#[derive(Debug, Clone)]
pub struct Hit {
    pub note: Note,
    pub score: f64,
    pub keyword_rank: Option<usize>,
    pub vector_rank: Option<usize>,
    pub similarity: Option<f64>,
    /// Set when the match was in a part or an archived version.
    pub matched: Option<Matched>,
    /// Set for notes reached by deep recall.
    pub via: Option<Via>,
}

#[derive(Debug, Clone, Default)]
pub struct FindResult {
    pub hits: Vec<Hit>,
    /// Things the user should know, such as recall falling back to keywords.
    pub notices: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct EmbedReport {
    /// Texts run through the model.
    pub embedded: usize,
    /// Vectors copied from rows with the same text.
    pub copied: usize,
    /// Rows still waiting.
    pub remaining: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ReindexReport {
    pub model: String,
    pub dimensions: usize,
    /// True when the old vectors were dropped (another model, or --all).
    pub rebuilt: bool,
    #[serde(flatten)]
    pub work: EmbedReport,
    /// Notes whose images were read by OCR in this run.
    pub ocr_read: usize,
    /// Notes still waiting for OCR (its models are missing).
    pub ocr_waiting: usize,
}

impl Keeper {
    /// The embedder, loading the configured model on first use.
    pub fn embedder(&mut self) -> Result<&mut dyn Embedder> {
        if matches!(self.embedder, EmbedderSlot::Unloaded) {
            self.embedder = match ModelPaths::locate(&self.config)
                .and_then(|p| OnnxEmbedder::load(&p, self.load_for))
            {
                Ok(e) => EmbedderSlot::Ready(Box::new(e)),
                Err(e) => EmbedderSlot::Failed(e.to_string()),
            };
        }
        match &mut self.embedder {
            EmbedderSlot::Ready(e) => Ok(e.as_mut()),
            EmbedderSlot::Failed(msg) => Err(Error::ModelUnavailable(msg.clone())),
            EmbedderSlot::Unloaded => unreachable!("loaded above"),
        }
    }

    /// Checks that the store's vectors come from the loaded model, creating
    /// the vector tables on first use.
    fn ensure_vector_space(&mut self) -> Result<VectorSpace> {
        let embedder = self.embedder()?;
        let wanted = VectorSpace {
            model: embedder.model_id().to_string(),
            dims: embedder.dimensions(),
        };
        match self.store.db().vector_space()? {
            Some(space) if space == wanted => {
                if self.store.db().codes_missing()? {
                    self.store.write(|db| db.create_codes())?;
                }
                Ok(space)
            }
            Some(space) => Err(Error::ModelMismatch(format!(
                "the store's vectors were made by {} ({} dimensions) but the configured model is {} ({} dimensions); run 'keep reindex' to re-embed every note with it",
                space.model, space.dims, wanted.model, wanted.dims
            ))),
            None => {
                self.store.write(|db| db.create_vector_space(&wanted))?;
                Ok(wanted)
            }
        }
    }

    /// How many rows wait for a vector.
    pub fn pending_embeddings(&self) -> Result<i64> {
        self.store.db().count_pending()
    }

    /// Gives vectors to rows that lack one, up to `limit` rows (all if
    /// None): copied from a row with the same text when there is one,
    /// otherwise embedded in batches.
    pub fn embed_pending(&mut self, limit: Option<usize>) -> Result<EmbedReport> {
        self.ensure_vector_space()?;
        let mut report = EmbedReport::default();
        let mut budget = limit.unwrap_or(usize::MAX);
        while budget > 0 {
            let items = self.store.db().pending_texts(budget.min(4 * BATCH_SIZE))?;
            if items.is_empty() {
                break;
            }
            budget = budget.saturating_sub(items.len());
            let vectors = self.vectors_for(&items, &mut report)?;
            self.store.write(|db| {
                for item in &items {
                    let hash = note::content_hash(item.text.as_bytes());
                    if let Some(v) = vectors.get(&hash) {
                        db.set_vector(item.kind, item.key, &item.text, &hash, v)?;
                    }
                }
                Ok(())
            })?;
        }
        report.remaining = self.pending_embeddings()?;
        Ok(report)
    }

    /// Vectors (as stored bytes) by text hash: donors first, then the model.
    fn vectors_for(
        &mut self,
        items: &[PendingText],
        report: &mut EmbedReport,
    ) -> Result<HashMap<String, Vec<u8>>> {
        let mut vectors = HashMap::new();
        let mut to_embed: Vec<(String, &str)> = Vec::new();
        for item in items {
            let hash = note::content_hash(item.text.as_bytes());
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
        let embedder = self.embedder()?;
        for chunk in to_embed.chunks(BATCH_SIZE) {
            let texts: Vec<&str> = chunk.iter().map(|(_, t)| *t).collect();
            let embedded = embedder.embed(&texts)?;
            for ((hash, _), v) in chunk.iter().zip(embedded) {
                vectors.insert(hash.clone(), crate::store::vector_bytes(&v));
            }
            report.embedded += chunk.len();
        }
        Ok(vectors)
    }

    /// Re-embeds what is missing; drops every vector first when the store's
    /// vectors come from another model or `all` is set.
    pub fn reindex(&mut self, all: bool) -> Result<ReindexReport> {
        let (ocr_read, ocr_waiting) = self.read_pending_ocr()?;
        let embedder = self.embedder()?;
        let wanted = VectorSpace {
            model: embedder.model_id().to_string(),
            dims: embedder.dimensions(),
        };
        let current = self.store.db().vector_space()?;
        let rebuilt = all || current.as_ref().is_some_and(|s| *s != wanted);
        if rebuilt {
            self.store.write(|db| {
                db.drop_vector_space()?;
                db.create_vector_space(&wanted)
            })?;
        }
        let work = self.embed_pending(None)?;
        Ok(ReindexReport {
            model: wanted.model,
            dimensions: wanted.dims,
            rebuilt,
            work,
            ocr_read,
            ocr_waiting,
        })
    }

    /// Fills in recent vectors before a search. Returns whether vectors
    /// can be searched, and a notice for the user if something is missing.
    fn prepare_vectors(&mut self) -> (bool, Option<String>) {
        match self.embed_pending(Some(FIND_EMBED_BUDGET)) {
            Ok(report) if report.remaining > 0 => (
                true,
                Some(format!(
                    "{} note(s) still wait for embeddings and are found by keywords only; run 'keep reindex'",
                    report.remaining
                )),
            ),
            Ok(_) => (true, None),
            Err(e) => (
                false,
                Some(format!(
                    "semantic recall is off ({e}); showing keyword matches only"
                )),
            ),
        }
    }

    /// Hybrid recall: keyword and vector candidates fused by rank, recency
    /// decay, and (with `deep`) notes reached through edges and shared tags.
    pub fn find(&mut self, query: &FindQuery) -> Result<FindResult> {
        let text = query
            .text
            .as_deref()
            .map(str::trim)
            .filter(|t| !t.is_empty());
        if text.is_none() && query.like.is_none() {
            return Err(Error::invalid("the query is empty"));
        }
        let (vectors_ok, notice) = if query.mode == RecallMode::Keyword {
            (false, None)
        } else {
            self.prepare_vectors()
        };
        let mut notices: Vec<String> = notice.into_iter().collect();
        let like_rid = match &query.like {
            Some(id) => Some(
                self.store
                    .db()
                    .note_rid(id)?
                    .ok_or_else(|| Error::NotFound(id.clone()))?,
            ),
            None => None,
        };
        let query_vector = if !vectors_ok {
            None
        } else if let Some(rid) = like_rid {
            self.store.db().vector(VecKind::Note, rid)?
        } else {
            let text = text.expect("text or like");
            match self.embedder().and_then(|e| e.embed(&[text])) {
                Ok(mut v) => v.pop(),
                Err(e) => {
                    notices.push(format!(
                        "semantic recall is off ({e}); showing keyword matches only"
                    ));
                    None
                }
            }
        };
        if like_rid.is_some() && query_vector.is_none() {
            return Err(Error::ModelUnavailable(format!(
                "'{}' has no vector, so similar notes cannot be found: {}",
                query.like.as_deref().unwrap_or_default(),
                notices
                    .first()
                    .cloned()
                    .unwrap_or_else(|| "run 'keep reindex'".into())
            )));
        }
        let db = self.store.db();
        let keyword = match text {
            Some(t) if like_rid.is_none() && query.mode != RecallMode::Semantic => {
                keyword_candidates(&db, t, &query.filter)?
            }
            _ => Vec::new(),
        };
        let mut vector = match &query_vector {
            Some(q) => vector_candidates(&db, q, &query.filter)?,
            None => Vec::new(),
        };
        if let Some(rid) = like_rid {
            vector.retain(|r| r.rid != rid);
        }
        let mut fused = search::fuse(&keyword, &vector);
        let rids: Vec<i64> = fused.iter().map(|f| f.rid).collect();
        let notes = db.notes_passing(&rids, &query.filter)?;
        fused.retain(|f| notes.contains_key(&f.rid));
        let half_life = query
            .half_life_days
            .or(self.config.half_life_days)
            .unwrap_or(search::DEFAULT_HALF_LIFE_DAYS);
        let now = self.clock.now();
        for f in &mut fused {
            let note = &notes[&f.rid];
            let last = note.updated.max(note.accessed);
            f.score *= search::decay_factor(last.days_until(now), half_life);
        }
        search::sort_by_score(&mut fused);
        fused.truncate(query.limit);
        let mut hits: Vec<Hit> = fused
            .iter()
            .map(|f| hit(f, notes[&f.rid].clone()))
            .collect();
        if query.deep {
            hits.extend(deep_hits(
                &db,
                &fused,
                &query.filter,
                query.limit.max(DEEP_MIN_RESULTS),
            )?);
        }
        Ok(FindResult { hits, notices })
    }

    /// Notes most similar to note `id`.
    pub fn similar(&mut self, id: &str, limit: usize) -> Result<FindResult> {
        self.find(&FindQuery {
            like: Some(id.to_string()),
            filter: NoteFilter::default(),
            limit,
            half_life_days: Some(0.0),
            ..FindQuery::default()
        })
    }

    /// Notes linked to note `id`: its edges both ways and notes sharing a
    /// distinctive tag (strongest first), then its nearest neighbours by
    /// meaning when vectors are available.
    pub fn related(&mut self, id: &str, limit: usize) -> Result<FindResult> {
        let rid = self
            .store
            .db()
            .note_rid(id)?
            .ok_or_else(|| Error::NotFound(id.to_string()))?;
        let mut hits = {
            let db = self.store.db();
            let graph = StoreGraph {
                db: &db,
                edge_keys: edges::EdgeKeys::load(&db)?,
            };
            let exclude = HashSet::from([rid]);
            let reached = search::expand(&[(rid, 1.0)], &graph, 1, &exclude)?;
            let mut hits = Vec::new();
            for h in reached.into_iter().take(limit) {
                if let Some(note) = db.note_by_rid(h.rid)? {
                    hits.push(Hit {
                        note,
                        score: h.score,
                        keyword_rank: None,
                        vector_rank: None,
                        similarity: None,
                        matched: None,
                        via: Some(h.via),
                    });
                }
            }
            hits
        };
        let mut notices = Vec::new();
        if hits.len() < limit {
            match self.similar(id, limit) {
                Ok(similar) => {
                    for h in similar.hits {
                        if hits.len() >= limit {
                            break;
                        }
                        if !hits.iter().any(|x| x.note.id == h.note.id) {
                            hits.push(h);
                        }
                    }
                    notices.extend(similar.notices);
                }
                Err(Error::ModelUnavailable(reason)) => {
                    notices.push(format!("similar notes left out: {reason}"));
                }
                Err(e) => return Err(e),
            }
        }
        Ok(FindResult { hits, notices })
    }
}

fn hit(f: &Fused, note: Note) -> Hit {
    Hit {
        note,
        score: f.score,
        keyword_rank: f.keyword_rank,
        vector_rank: f.vector_rank,
        similarity: f.similarity,
        matched: f.matched,
        via: None,
    }
}

/// BM25 candidates from current text, parts and archived versions, best first.
fn keyword_candidates(db: &Db<'_>, text: &str, filter: &NoteFilter) -> Result<Vec<Ranked>> {
    let Some(plan) = db.keyword_plan(text)? else {
        return Ok(Vec::new());
    };
    let mut scored: Vec<(f64, Ranked)> = db
        .keyword_search(&plan, filter, CANDIDATES)?
        .into_iter()
        .map(|h| {
            (
                h.score,
                Ranked {
                    rid: h.rid,
                    matched: None,
                    similarity: None,
                },
            )
        })
        .collect();
    for h in db.keyword_search_parts(&plan, filter, CANDIDATES)? {
        scored.push((
            h.score,
            Ranked {
                rid: h.rid,
                matched: Some(Matched::Part { part: h.number }),
                similarity: None,
            },
        ));
    }
    for h in db.keyword_search_versions(&plan, filter, CANDIDATES)? {
        // An old wording counts for less than the current one.
        scored.push((
            h.score * 0.5,
            Ranked {
                rid: h.rid,
                matched: Some(Matched::Version { version: h.number }),
                similarity: None,
            },
        ));
    }
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    Ok(scored.into_iter().map(|(_, r)| r).collect())
}

/// Nearest notes, parts and versions by cosine similarity, best first.
fn vector_candidates(db: &Db<'_>, q: &[f32], filter: &NoteFilter) -> Result<Vec<Ranked>> {
    let mut found: Vec<Ranked> = Vec::new();
    let notes = if filter.is_trivial() {
        db.nearest(VecKind::Note, q, CANDIDATES * 2)?
    } else {
        db.nearest_filtered(q, filter, CANDIDATES)?
    };
    for (rid, distance) in notes {
        found.push(Ranked {
            rid,
            matched: None,
            similarity: Some(1.0 - distance),
        });
    }
    for (pid, distance) in db.nearest(VecKind::Part, q, CANDIDATES)? {
        if let Some((rid, number)) = db.owner_rid(VecKind::Part, pid)? {
            found.push(Ranked {
                rid,
                matched: Some(Matched::Part { part: number }),
                similarity: Some(1.0 - distance),
            });
        }
    }
    for (vid, distance) in db.nearest(VecKind::Version, q, CANDIDATES)? {
        if let Some((rid, offset)) = db.version_offset(vid)? {
            // An old wording counts for less than the current one.
            let similarity = (1.0 - distance) * 0.9;
            found.push(Ranked {
                rid,
                matched: Some(Matched::Version { version: offset }),
                similarity: Some(similarity),
            });
        }
    }
    found.retain(|r| r.similarity.is_some_and(|s| s >= search::MIN_SIMILARITY));
    found.sort_by(|a, b| {
        b.similarity
            .unwrap_or(0.0)
            .total_cmp(&a.similarity.unwrap_or(0.0))
    });
    let rids: Vec<i64> = found.iter().map(|r| r.rid).collect();
    let passing = db.notes_passing(&rids, filter)?;
    found.retain(|r| passing.contains_key(&r.rid));
    Ok(found)
}

/// The edges and distinctive shared tags of the store, for deep recall.
struct StoreGraph<'a, 'c> {
    db: &'a Db<'c>,
    edge_keys: edges::EdgeKeys,
}

impl search::deep::Graph for StoreGraph<'_, '_> {
    fn id_of(&self, rid: i64) -> Result<String> {
        Ok(self.db.note_by_rid(rid)?.map(|n| n.id).unwrap_or_default())
    }

    fn neighbours(&self, rid: i64) -> Result<Vec<search::deep::Neighbour>> {
        let Some(note) = self.db.note_by_rid(rid)? else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        for edge in self.edge_keys.edges_of(&note) {
            if let Some(target) = self.db.note_rid(&edge.target)? {
                out.push(search::deep::Neighbour {
                    rid: target,
                    link: edge.key,
                    weight: 1.0,
                });
            }
        }
        for edge in self.edge_keys.edges_into(self.db, &note.id)? {
            if let Some(source) = self.db.note_rid(&edge.source)? {
                out.push(search::deep::Neighbour {
                    rid: source,
                    link: edge.inverse,
                    weight: 1.0,
                });
            }
        }
        for (key, value) in note.tags.user_tags().pairs() {
            if self.edge_keys.is_edge(key) {
                continue;
            }
            let count = self.db.tag_count(key, value)?;
            if !(2..=DISTINCTIVE_TAG_MAX).contains(&count) {
                continue;
            }
            let weight = 1.0 / (1.0 + (count as f64).ln());
            for other in self
                .db
                .rids_with_tag(key, value, DISTINCTIVE_TAG_MAX as usize)?
            {
                out.push(search::deep::Neighbour {
                    rid: other,
                    link: format!("tag {key}={value}"),
                    weight,
                });
            }
        }
        Ok(out)
    }
}

/// Notes reached from the top direct hits, up to `limit`, that pass `filter`.
fn deep_hits(db: &Db<'_>, direct: &[Fused], filter: &NoteFilter, limit: usize) -> Result<Vec<Hit>> {
    let graph = StoreGraph {
        db,
        edge_keys: edges::EdgeKeys::load(db)?,
    };
    let seeds: Vec<(i64, f64)> = direct
        .iter()
        .take(DEEP_SEEDS)
        .map(|f| (f.rid, f.score))
        .collect();
    let exclude: HashSet<i64> = direct.iter().map(|f| f.rid).collect();
    let reached = search::expand(&seeds, &graph, 2, &exclude)?;
    let rids: Vec<i64> = reached.iter().map(|h| h.rid).collect();
    let notes = db.notes_passing(&rids, filter)?;
    Ok(reached
        .into_iter()
        .filter_map(|h| {
            notes.get(&h.rid).map(|note| Hit {
                note: note.clone(),
                score: h.score,
                keyword_rank: None,
                vector_rank: None,
                similarity: None,
                matched: None,
                via: Some(h.via),
            })
        })
        .take(limit)
        .collect())
}
