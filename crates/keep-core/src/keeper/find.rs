//! Recall through the keeper: `find` gathers keyword and vector
//! candidates, fuses them, applies recency decay and deep recall; `similar`
//! and `related` build on it. These only read the store: giving vectors to
//! waiting notes is a separate step (`embed_pending`), which front ends
//! run before a search when they choose to.

use super::Keeper;
use crate::error::{Advice, Error, Notice, Result};
use crate::recall::fusion::Ranked;
use crate::recall::fusion::{self, Fused, Unit};
use crate::recall::weights::{
    DEEP_MIN_RESULTS, FACET_WEIGHT, MAX_DEEP_HOPS, RELEVANCE_FLOOR, SUPERSEDED_FACTOR,
    WRONG_HIDES_AT,
};
use crate::recall::{
    Explanation, FindQuery, FindResult, Hit, Matched, Neighbour, PartHit, Query, RecallMode, Via,
    candidates, coverage, facets, graph, passage, question, relevance, replies, when,
};
use keep_model::Note;
use keep_model::keys;
use keep_model::{NoteFilter, Period};
use keep_store::NoteReads;
use keep_store::prelude::*;
use keep_store::{Db, NoteRid, Store, VecRow};
use std::collections::{HashMap, HashSet};

/// Time spent giving waiting rows vectors before a search (the last model
/// call may run past it); the rest are found by keyword and counted in a
/// notice.
pub const EMBED_BEFORE_SEARCH: std::time::Duration = std::time::Duration::from_millis(300);

impl Keeper {
    /// Hybrid recall of a query's topic: keyword and vector candidates
    /// fused by score, recency decay, and (with `deep`) notes reached
    /// through edges and shared tags.
    pub fn find(&mut self, query: &FindQuery) -> Result<FindResult> {
        if !(1..=MAX_DEEP_HOPS).contains(&query.hops) {
            return Err(Error::invalid(format!(
                "deep recall follows 1 to {MAX_DEEP_HOPS} links, not {}",
                query.hops
            )));
        }
        let mut query = query.clone();
        query.filter = self.scoped_now(&query.filter);
        query.filter.hide_superseded = !query.include_superseded;
        let query = &query;
        let mut notices = Vec::new();
        let (text, like_rid) = match &query.query {
            Query::Text(text) => {
                let text = text.trim();
                if text.is_empty() {
                    return Err(Error::invalid("the query is empty"));
                }
                (Some(question::topic(text)), None)
            }
            Query::Like(id) => {
                self.may_read(id)?;
                let rid = self
                    .store
                    .reads()
                    .note_rid(id)?
                    .ok_or_else(|| Error::NotFound(id.clone()))?;
                (None, Some(rid))
            }
        };
        let query_vector = if query.mode == RecallMode::Keyword {
            None
        } else {
            match self.query_vector(text, like_rid)? {
                Ok(vector) => Some(vector),
                Err(why) => {
                    notices.extend(no_vector_notice(query, why)?);
                    None
                }
            }
        };
        let periods = match text {
            Some(t) => when::periods(t, self.now()),
            None => Vec::new(),
        };
        let pieces = self.pieces_of(text, query_vector.is_some())?;
        let db = self.store.reads();
        let asked = Asked {
            filter: &query.filter,
            mode: query.mode,
            periods: &periods,
            parts: query.parts,
        };
        let mut fused = asked.gather(&self.store, text, query_vector.as_deref(), like_rid)?;
        let mut facets = Vec::new();
        if !pieces.is_empty() {
            let lists = pieces
                .iter()
                .map(|(piece, vector)| {
                    asked.gather(&self.store, Some(piece), vector.as_deref(), None)
                })
                .collect::<Result<Vec<_>>>()?;
            facets = lists.iter().map(|l| coverage::Facet::of(l)).collect();
            fused = fusion::blend(fused, lists, FACET_WEIGHT);
        }
        let mut rids: Vec<NoteRid> = fused.iter().map(|f| f.rid).collect();
        rids.dedup();
        let mut notes = db.notes_passing(&rids, &query.filter)?;
        fused.retain(|f| notes.contains_key(&f.rid));

        let half_life = query.half_life_days.unwrap_or(self.settings.half_life_days);
        let now = self.now();
        let fused_rids: Vec<NoteRid> = fused.iter().map(|f| f.rid).collect();
        let feedback = db.feedback_among(&fused_rids)?;
        if !query.include_superseded {
            fused.retain(|f| {
                feedback
                    .get(&f.rid)
                    .is_none_or(|r| r.wrong - r.useful < WRONG_HIDES_AT)
            });
        }
        let superseded = if query.include_superseded {
            db.superseded_among(&fused_rids)?
        } else {
            Default::default()
        };
        let mut explained: HashMap<Unit, Explanation> = HashMap::new();
        for f in &mut fused {
            let note = &notes[&f.rid];
            let last = note.updated.max(note.accessed);
            let why = Explanation {
                keyword: f.by_keyword,
                meaning: f.by_meaning,
                recency: fusion::decay_factor(last.days_until(now), half_life),
                feedback: feedback
                    .get(&f.rid)
                    .map_or(1.0, |r| fusion::feedback_factor(r.useful, r.wrong)),
                importance: note
                    .tags
                    .first(keys::IMPORTANCE)
                    .and_then(|i| i.parse().ok())
                    .map_or(1.0, fusion::importance_factor),
                superseded: if superseded.contains(&f.rid) {
                    SUPERSEDED_FACTOR
                } else {
                    1.0
                },
                time: when::time_factor(note, &periods),
                ..Explanation::default()
            };
            f.score *= why.recency * why.feedback * why.importance * why.superseded * why.time;
            if query.explain {
                explained.insert(f.unit(), why);
            }
        }
        let answered = if like_rid.is_none() {
            credit_replies(&db, &mut fused, &mut notes, query)?
        } else {
            HashMap::new()
        };
        fusion::sort_by_score(&mut fused);
        let synopses = fusion::prefer_turns(&mut fused);
        coverage::diversify(&mut fused, &facets, query.limit);
        fused.truncate(query.limit);
        let mut hits: Vec<Hit> = fused
            .iter()
            .map(|f| Hit {
                via: answered.get(&f.unit()).cloned(),
                explain: query.explain.then(|| Explanation {
                    credited_from: answered.get(&f.unit()).map(|v| v.from.clone()),
                    ..explained.get(&f.unit()).cloned().unwrap_or_default()
                }),
                ..hit(f, notes[&f.rid].clone())
            })
            .collect();
        if let Some(at) = query.filter.held_at {
            for h in &mut hits {
                if let Some(held) = super::read::held_state(&db, h.note.clone(), at)? {
                    h.note = held;
                }
            }
        }
        // Every keyword match holds a word of the query: without meaning
        // to weigh, only a floor asked for applies.
        let floor = query.floor.unwrap_or(if query_vector.is_some() {
            RELEVANCE_FLOOR
        } else {
            0.0
        });
        let mut judge = match text {
            Some(t) => Some(relevance::Judge::of(
                &db,
                t,
                !periods.is_empty(),
                query_vector.is_some(),
                floor,
            )?),
            None => None,
        };
        for (h, f) in hits.iter_mut().zip(&fused) {
            let mut matched_part = None;
            if let Some(Matched::Part { part, section }) = &mut h.matched
                && let Some(found) = db.part(f.rid, u32::try_from(*part).unwrap_or(0))?
            {
                *section = found.tags.first(keys::SECTION).map(str::to_string);
                matched_part = Some(found);
            }
            let source = matched_part
                .as_ref()
                .map_or(&h.note.summary, |p| &p.summary);
            h.passage = passage::passage(source, text);
            if let Some(turn) = f.turn {
                h.part = Some(part_hit(
                    &db,
                    f.rid,
                    turn,
                    matched_part.clone(),
                    query.around,
                )?);
            }
            if let Some(judge) = &mut judge {
                let source = matched_part
                    .as_ref()
                    .map_or(&h.note.summary, |p| &p.summary);
                let judged = judge.judge(&h.address(), source, f.coverage, f.similarity);
                h.relevance = Some(judged.relevance);
                h.weak = judged.relevance < RELEVANCE_FLOOR;
                if let Some(why) = &mut h.explain {
                    why.wording = judged.wording;
                }
            }
        }
        if let Some(judge) = &mut judge {
            judge_synopses(judge, &synopses, &fused, &notes);
        }
        if like_rid.is_none() {
            match below_floor(&mut hits, judge.as_ref()) {
                Some(nothing_relevant) => notices.push(nothing_relevant),
                None if hits.is_empty() => notices.push(Notice::new("nothing found")),
                None => {}
            }
        }
        if query.deep {
            let reached = graph::deep_hits(
                &db,
                &fused,
                &query.filter,
                query.hops,
                query.limit.max(DEEP_MIN_RESULTS),
            )?;
            hits.extend(reached.into_iter().map(|mut h| {
                if query.explain {
                    h.explain = h.via.as_ref().map(|v| Explanation {
                        reached_by: Some(format!("{} of {}, hop {}", v.link, v.from, v.hop)),
                        ..Explanation::default()
                    });
                }
                h
            }));
        }
        hits.retain(|h| self.caller.covers(&h.note.tags));
        if query_vector.is_some() && like_rid.is_none() {
            notices.extend(self.switch_notice()?);
            let waiting = db.count_pending()?;
            if waiting > 0 {
                let text = format!(
                    "{waiting} note(s) still wait for embeddings and are found by keywords only"
                );
                notices.push(if self.settings.backlog_drains {
                    Notice::advised(
                        format!("{text}; they are being embedded in the background"),
                        Advice::Reindex,
                    )
                } else {
                    Notice::advised(text, Advice::Reindex)
                });
            }
        }
        Ok(FindResult {
            hits,
            notices,
            unheard: judge.map(|j| j.unheard().to_vec()).unwrap_or_default(),
        })
    }

    /// The pieces of a compound text query (`facets`), each with its
    /// vector when the query has one.
    fn pieces_of(
        &mut self,
        text: Option<&str>,
        with_vectors: bool,
    ) -> Result<Vec<(String, Option<Vec<f32>>)>> {
        let Some(text) = text else {
            return Ok(Vec::new());
        };
        facets::facets(text)
            .into_iter()
            .map(|piece| {
                let vector = if with_vectors {
                    self.query_vector(Some(&piece), None)?.ok()
                } else {
                    None
                };
                Ok((piece, vector))
            })
            .collect()
    }

    /// The query's vector: the note's own for `like`, else the text's
    /// embedding; or why there is none.
    pub(super) fn query_vector(
        &mut self,
        text: Option<&str>,
        like: Option<NoteRid>,
    ) -> Result<std::result::Result<Vec<f32>, NoVector>> {
        // While the store changes model, its old vectors still answer.
        let changing = match self.store.db().vector_space()? {
            Some(space) if self.embedding_model_id().is_ok_and(|id| id != space.model) => {
                Some(space)
            }
            _ => None,
        };
        if changing.is_none() {
            match self.searchable_space() {
                Ok(Some(_)) => {}
                Ok(None) => return Ok(Err(NoVector::NoneStored)),
                Err(e) if e.is_model_off() => {
                    return Ok(Err(NoVector::Off(e.to_string(), e.advice())));
                }
                Err(e) => return Err(e),
            }
        }
        if let Some(rid) = like {
            return Ok(self
                .store
                .db()
                .vector(VecRow::Note(rid))?
                .ok_or(NoVector::NoneStored));
        }
        let text = text.unwrap_or_default();
        let embedder = match &changing {
            Some(space) => self.old_space_embedder(space),
            None => self.embedder(),
        };
        match embedder.and_then(|e| e.embed(&[text])) {
            Ok(mut v) => Ok(v.pop().ok_or(NoVector::NoneStored)),
            Err(e) => Ok(Err(NoVector::Off(e.to_string(), e.advice()))),
        }
    }

    /// The keyword and vector candidates of a text query, rolled up to
    /// their notes (a turn of a conversation stands alone, as `ID@P{N}`),
    /// best first: (id, BM25 score or 0 when unranked) and (id, cosine).
    /// For benchmarks that compare ways of ranking.
    pub fn candidate_lists(&mut self, text: &str) -> Result<CandidateLists> {
        let text = question::topic(text.trim());
        let query_vector = self.query_vector(Some(text), None)?.ok();
        let db = self.store.db();
        let filter = keep_model::NoteFilter::default();
        let keyword = candidates::keyword(&db, text, &filter)?;
        let vector = match &query_vector {
            Some(q) => candidates::vector(&db, q, &filter)?,
            None => Vec::new(),
        };
        let mut completed = vector.clone();
        if let Some(q) = &query_vector {
            candidates::complete_similarities(&db, q, &keyword, &mut completed)?;
        }
        let asked = Asked {
            filter: &filter,
            mode: RecallMode::Hybrid,
            periods: &[],
            parts: false,
        };
        let turns = asked.turn_notes(&db, &keyword, &vector)?;
        // A turn of a conversation is named as `find` names it: ID@P{N}.
        let named = |list: Vec<fusion::Ranked>, score: fn(&fusion::Ranked) -> f64| {
            fusion::roll_up_units(&list, &turns)
                .into_iter()
                .map(|r| {
                    let id = db.note_by_rid(r.rid)?.map(|n| n.id).unwrap_or_default();
                    let name = match r.unit(&turns) {
                        (_, Some(part)) => format!("{id}@P{{{part}}}"),
                        (_, None) => id,
                    };
                    Ok((name, score(&r)))
                })
                .collect::<Result<Vec<_>>>()
        };
        Ok(CandidateLists {
            keyword: named(keyword, |r| r.bm25.unwrap_or(0.0))?,
            vector: named(vector, |r| r.similarity.unwrap_or(0.0))?,
            completed: named(completed, |r| r.similarity.unwrap_or(0.0))?,
        })
    }

    /// Notes most similar to note `id`.
    pub fn similar(&mut self, id: &str, limit: usize) -> Result<FindResult> {
        self.find(&FindQuery::like(id, limit))
    }

    /// Notes linked to note `id`: its edges both ways and notes sharing a
    /// distinctive tag (strongest first), then its nearest neighbours by
    /// meaning when vectors are available.
    pub fn related(&mut self, id: &str, limit: usize) -> Result<FindResult> {
        self.may_read(id)?;
        let rid = self
            .store
            .db()
            .note_rid(id)?
            .ok_or_else(|| Error::NotFound(id.to_string()))?;
        let mut hits = graph::neighbours_of(&self.store.reads(), rid, limit)?;
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
                Err(e @ Error::ModelUnavailable { .. }) => {
                    let advice = e.advice();
                    notices.push(Notice {
                        text: format!("similar notes left out: {e}"),
                        advice,
                    });
                }
                Err(e) => return Err(e),
            }
        }
        hits.retain(|h| self.caller.covers(&h.note.tags));
        Ok(FindResult {
            hits,
            notices,
            ..FindResult::default()
        })
    }

    /// Gives vectors to waiting rows before a search, for about
    /// `EMBED_BEFORE_SEARCH`. A model that cannot be used is not an error
    /// here: `find` says so. Returns a notice when the store could not take
    /// the vectors.
    pub fn embed_before_search(&mut self) -> Option<Notice> {
        // The model is needed for the query anyway; its loading does not
        // count against the time for the backlog.
        if self.pending_embeddings().unwrap_or(0) > 0 {
            let _ = self.embedder();
        }
        let until = std::time::Instant::now() + EMBED_BEFORE_SEARCH;
        match self.embed_pending_with(None, Some(until), &mut |_| {}) {
            Ok(_) => None,
            Err(e) if e.is_model_off() || e.is_read_only() => None,
            Err(e) => Some(Notice::new(format!(
                "waiting notes could not be embedded: {e}"
            ))),
        }
    }
}

/// Credits each candidate that replies to a message (`in-reply-to`) to
/// that message, when the query may show it and it is more than a stub
/// (`replies`): the messages not yet among the candidates are read into
/// `notes`. Returns how each message lifted by a reply was reached.
fn credit_replies(
    db: &keep_store::Db<'_>,
    fused: &mut Vec<Fused>,
    notes: &mut HashMap<NoteRid, Note>,
    query: &FindQuery,
) -> Result<HashMap<Unit, Via>> {
    let mut answered_ids = Vec::new();
    for f in fused.iter().filter(|f| f.turn.is_none()) {
        if let Some(message) = notes[&f.rid].tags.first(keys::IN_REPLY_TO)
            && let Some(rid) = db.note_rid(message)?
        {
            answered_ids.push((f.rid, rid));
        }
    }
    let turns_answered = answered_turns(db, fused)?;
    if answered_ids.is_empty() && turns_answered.is_empty() {
        return Ok(HashMap::new());
    }
    let unread: Vec<NoteRid> = answered_ids
        .iter()
        .map(|(_, m)| *m)
        .filter(|m| !notes.contains_key(m))
        .collect();
    let mut read = db.notes_passing(&unread, &query.filter)?;
    if !query.include_superseded {
        let feedback = db.feedback_among(&unread)?;
        read.retain(|rid, _| {
            feedback
                .get(rid)
                .is_none_or(|r| r.wrong - r.useful < WRONG_HIDES_AT)
        });
    }
    notes.extend(read);
    let mut answered: HashMap<Unit, Unit> = answered_ids
        .into_iter()
        .filter(|(_, message)| {
            notes
                .get(message)
                .is_some_and(|n| !n.tags.contains_key(keys::STUB))
        })
        .map(|(reply, message)| ((reply, None), (message, None)))
        .collect();
    answered.extend(turns_answered);
    let lifted = replies::credit_answered(fused, &answered);
    Ok(lifted
        .into_iter()
        .map(|(message, (rid, turn))| {
            let from = match turn {
                Some(n) => format!("{}@P{{{n}}}", notes[&rid].id),
                None => notes[&rid].id.clone(),
            };
            let via = Via {
                hop: 1,
                from,
                link: keys::IN_REPLY_TO.to_string(),
            };
            (message, via)
        })
        .collect())
}

/// The turns among `fused` that answer the turn before them: a turn by
/// another speaker right after a turn of the one who opened the
/// conversation (an assistant's reply to the person's message).
fn answered_turns(db: &keep_store::Db<'_>, fused: &[Fused]) -> Result<HashMap<Unit, Unit>> {
    let mut openers: HashMap<NoteRid, Option<String>> = HashMap::new();
    let mut answered = HashMap::new();
    for f in fused {
        let Some(n) = f.turn.filter(|n| *n > 1) else {
            continue;
        };
        let opener = match openers.get(&f.rid) {
            Some(opener) => opener.clone(),
            None => {
                let opener = speaker_of(db, f.rid, 1)?;
                openers.insert(f.rid, opener.clone());
                opener
            }
        };
        let Some(opener) = opener else { continue };
        let (before, this) = (speaker_of(db, f.rid, n - 1)?, speaker_of(db, f.rid, n)?);
        if before.as_deref() == Some(opener.as_str()) && this.is_some_and(|s| s != opener) {
            answered.insert(f.unit(), (f.rid, Some(n - 1)));
        }
    }
    Ok(answered)
}

/// Who said part `n` of note `rid`, when it is a turn.
fn speaker_of(db: &keep_store::Db<'_>, rid: NoteRid, n: i64) -> Result<Option<String>> {
    let Ok(number) = u32::try_from(n) else {
        return Ok(None);
    };
    Ok(db
        .part(rid, number)?
        .and_then(|p| p.tags.first("speaker").map(str::to_string)))
}

/// Part `n` of note `rid` as a result (`own`, already read): who said
/// it and when, and the `around` parts either side of it, those the note
/// has.
fn part_hit(
    db: &keep_store::Db<'_>,
    rid: NoteRid,
    n: i64,
    own: Option<keep_model::Part>,
    around: usize,
) -> Result<PartHit> {
    let tag = |key: &str| {
        own.as_ref()
            .and_then(|p| p.tags.first(key).map(str::to_string))
    };
    let mut neighbours = Vec::new();
    if around > 0 {
        let reach = i64::try_from(around).unwrap_or(i64::MAX);
        let first = n.saturating_sub(reach).max(1);
        let last = n.saturating_add(reach).min(db.part_count(rid)?);
        for m in (first..=last).filter(|m| *m != n) {
            let Ok(number) = u32::try_from(m) else {
                continue;
            };
            let Some(p) = db.part(rid, number)? else {
                continue;
            };
            neighbours.push(Neighbour {
                part: m,
                speaker: p.tags.first("speaker").map(str::to_string),
                text: p.summary,
            });
        }
    }
    Ok(PartHit {
        part: n,
        speaker: tag("speaker"),
        said_at: tag(keys::SAID_AT),
        around: neighbours,
    })
}

/// When the best hit is below the relevance floor, no hit is returned and
/// the search says so, naming the closest it left out and the query's
/// words that nothing in the store holds; else nothing changes.
/// A conversation whose turns are shown counts its own match too (its
/// synopsis, left out of the results for its turns) when the search
/// judges whether anything found is relevant.
fn judge_synopses(
    judge: &mut relevance::Judge,
    synopses: &[Fused],
    shown: &[Fused],
    notes: &HashMap<NoteRid, Note>,
) {
    for s in synopses {
        if shown.iter().any(|f| f.rid == s.rid)
            && let Some(note) = notes.get(&s.rid)
        {
            judge.judge(note.id.as_str(), &note.summary, s.coverage, s.similarity);
        }
    }
}

fn below_floor(hits: &mut Vec<Hit>, judge: Option<&relevance::Judge>) -> Option<Notice> {
    let judge = judge?;
    let (best, closest) = judge.closest()?;
    if hits.is_empty() || !judge.nothing_relevant() {
        return None;
    }
    let unheard = judge.unheard();
    let unheard = if unheard.is_empty() {
        String::new()
    } else {
        format!("no note holds {}; ", quoted_list(unheard))
    };
    let notice = Notice::advised(
        format!(
            "nothing relevant: {unheard}the closest, {closest}, is {best:.2} relevant (floor {})",
            judge.floor
        ),
        Advice::FloorZero,
    );
    hits.clear();
    Some(notice)
}

/// `'a'`, `'a' or 'b'`, `'a', 'b' or 'c'`.
fn quoted_list(words: &[String]) -> String {
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => quoted.concat(),
    }
}

/// Why a search has no query vector.
pub(super) enum NoVector {
    /// No vector was made yet (for the store, or for the `like` note).
    NoneStored,
    /// The model cannot be used, why, and what would mend it.
    Off(String, Option<Advice>),
}

/// What a search says when it has no query vector: a notice when keywords
/// can still answer, an error when only meaning was asked for (`like`, or
/// semantic mode with no model).
fn no_vector_notice(query: &FindQuery, why: NoVector) -> Result<Option<Notice>> {
    if let Query::Like(id) = &query.query {
        return Err(match why {
            NoVector::NoneStored => Error::Refused {
                message: format!("'{id}' has no vector yet, so similar notes cannot be found"),
                advice: Advice::Reindex,
            },
            NoVector::Off(reason, advice) => Error::Refused {
                message: format!(
                    "'{id}' has no vector, so similar notes cannot be found: {reason}"
                ),
                advice: advice.unwrap_or(Advice::InstallModels(None)),
            },
        });
    }
    match (query.mode, why) {
        (RecallMode::Semantic, NoVector::Off(reason, advice)) => Err(Error::Refused {
            message: format!("recall by meaning needs the embedding model: {reason}"),
            advice: advice.unwrap_or(Advice::InstallModels(None)),
        }),
        (RecallMode::Semantic, NoVector::NoneStored) => Ok(Some(Notice::advised(
            "no note has a vector yet, so nothing can be found by meaning",
            Advice::Reindex,
        ))),
        (_, NoVector::Off(reason, advice)) => Ok(Some(Notice {
            text: format!("semantic recall is off ({reason}); showing keyword matches only"),
            advice,
        })),
        (_, NoVector::NoneStored) => Ok(None),
    }
}

/// Candidate lists of one query, rolled up to note ids, best first.
#[derive(Debug, Clone, Default)]
pub struct CandidateLists {
    pub keyword: Vec<(String, f64)>,
    pub vector: Vec<(String, f64)>,
    /// The vector list with the similarity of every keyword candidate
    /// added, as keep's ranking sees it.
    pub completed: Vec<(String, f64)>,
}

fn hit(f: &Fused, note: keep_model::Note) -> Hit {
    Hit {
        note,
        score: f.score,
        keyword_rank: f.keyword_rank,
        vector_rank: f.vector_rank,
        similarity: f.similarity,
        matched: f.matched.clone(),
        via: None,
        passage: String::new(),
        relevance: None,
        weak: false,
        part: None,
        explain: None,
    }
}

/// What a search asks of every candidate list it gathers.
struct Asked<'a> {
    filter: &'a NoteFilter,
    mode: RecallMode,
    /// Periods the query names: candidates from each are gathered too.
    periods: &'a [Period],
    /// Every note's parts are results of their own, not only turns.
    parts: bool,
}

impl Asked<'_> {
    /// The keyword and vector candidates of `text` (or of the note `like`,
    /// left out of its own results), fused. When there are both, they are
    /// read at once (`Store::reads_beside`).
    fn gather(
        &self,
        store: &Store,
        text: Option<&str>,
        vector: Option<&[f32]>,
        like: Option<NoteRid>,
    ) -> Result<Vec<Fused>> {
        let filters = self.filters();
        let words = text.filter(|_| self.mode != RecallMode::Semantic);
        let by_words = |db: &Db<'_>| keyword_candidates(db, words, &filters);
        let by_meaning = |db: &Db<'_>| vector_candidates(db, vector, &filters);
        let (keyword, similar) = if words.is_some() && vector.is_some() {
            store.reads_beside(by_words, by_meaning)
        } else {
            let db = store.reads();
            (by_words(&db), by_meaning(&db))
        };
        let (mut keyword, mut similar) = (keyword?, similar?);
        if filters.len() > 1 {
            best_first(&mut keyword, |r| r.bm25);
            best_first(&mut similar, |r| r.similarity);
        }
        if let Some(rid) = like {
            similar.retain(|r| r.rid != rid);
        }
        let db = store.reads();
        let turns = self.turn_notes(&db, &keyword, &similar)?;
        if let Some(q) = vector {
            candidates::complete_similarities(&db, q, &keyword, &mut similar)?;
            candidates::complete_part_similarities(&db, q, &keyword, &mut similar, &turns)?;
        }
        Ok(fusion::fuse(&keyword, &similar, &turns))
    }

    /// The notes among the candidates whose parts are results of their
    /// own: conversations (their turns), or every note with `parts`.
    fn turn_notes(
        &self,
        db: &Db<'_>,
        keyword: &[Ranked],
        similar: &[Ranked],
    ) -> Result<HashSet<NoteRid>> {
        let mut with_parts: Vec<NoteRid> = keyword
            .iter()
            .chain(similar)
            .filter(|r| matches!(r.matched, Some(Matched::Part { .. })))
            .map(|r| r.rid)
            .collect();
        with_parts.sort_unstable();
        with_parts.dedup();
        if self.parts || with_parts.is_empty() {
            return Ok(with_parts.into_iter().collect());
        }
        Ok(db
            .notes_passing(&with_parts, self.filter)?
            .into_iter()
            .filter(|(_, note)| note.tags.contains(keys::SOURCE, "chat"))
            .map(|(rid, _)| rid)
            .collect())
    }

    /// The query's filter, and one for each period the query names when
    /// the filter names none.
    fn filters(&self) -> Vec<NoteFilter> {
        let mut filters = vec![self.filter.clone()];
        if self.filter.happened.is_none() {
            filters.extend(self.periods.iter().map(|p| NoteFilter {
                happened: Some(*p),
                ..self.filter.clone()
            }));
        }
        filters
    }
}

/// Keyword candidates of `words` under each filter, with the share of the
/// query each holds; none without words.
fn keyword_candidates(
    db: &Db<'_>,
    words: Option<&str>,
    filters: &[NoteFilter],
) -> Result<Vec<Ranked>> {
    let mut keyword = Vec::new();
    if let Some(t) = words {
        for filter in filters {
            let mut found = candidates::keyword(db, t, filter)?;
            candidates::set_coverage(db, t, &mut found)?;
            keyword.extend(found);
        }
    }
    Ok(keyword)
}

/// Vector candidates nearest `vector` under each filter; none without one.
fn vector_candidates(
    db: &Db<'_>,
    vector: Option<&[f32]>,
    filters: &[NoteFilter],
) -> Result<Vec<Ranked>> {
    let mut similar = Vec::new();
    if let Some(q) = vector {
        for filter in filters {
            similar.extend(candidates::vector(db, q, filter)?);
        }
    }
    Ok(similar)
}

/// Candidates gathered from several filters, best first, each match once.
fn best_first(list: &mut Vec<Ranked>, score: fn(&Ranked) -> Option<f64>) {
    list.sort_by(|a, b| score(b).unwrap_or(0.0).total_cmp(&score(a).unwrap_or(0.0)));
    let mut seen = std::collections::HashSet::new();
    list.retain(|r| seen.insert((r.rid, r.matched.clone())));
}
