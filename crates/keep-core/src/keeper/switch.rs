//! Changing the embedding model without losing meaning search: the
//! configured model's vectors are made beside the store's (which keep
//! answering `find`, the old model embedding the query while it can still
//! be loaded), a short committed batch at a time, and replace them in one
//! write once every embedded row has its new vector.

use keep_store::prelude::*;
use std::time::Instant;

use super::Keeper;
use crate::embed::{BATCH_SIZE, Embedder, ModelPaths, OnnxEmbedder};
use crate::error::{Advice, Error, Notice, Result, Transactions};
use keep_model as model;
use keep_store::{VectorSpace, vector_bytes};

/// How far a change of model has come.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct SwitchReport {
    /// The model the store's vectors came from.
    pub from: String,
    /// The configured model, whose vectors are being made.
    pub to: String,
    /// Rows given a vector of the new model in this run.
    pub embedded: usize,
    /// Rows still waiting for one.
    pub remaining: i64,
    /// True when the new vectors replaced the old ones in this run.
    pub completed: bool,
}

impl Keeper {
    /// Rows the configured model has yet to embed again because the
    /// store's vectors come from another model (at least 1 then: the
    /// replacement itself); 0 when they do not. Loads no model.
    pub fn model_switch_waiting(&self) -> Result<i64> {
        let db = self.store.db();
        let Some(space) = db.vector_space()? else {
            return Ok(0);
        };
        match self.embedding_model_id() {
            Ok(id) if id != space.model => Ok(db.count_next_pending()?.max(1)),
            _ => Ok(0),
        }
    }

    /// What `find` says while the store changes model and its old vectors
    /// answer.
    pub(super) fn switch_notice(&self) -> Result<Option<Notice>> {
        let waiting = self.model_switch_waiting()?;
        if waiting == 0 {
            return Ok(None);
        }
        let from = self.vector_model()?.unwrap_or_default();
        let to = self.embedding_model_id()?;
        Ok(Some(Notice::advised(
            format!(
                "meaning search uses the vectors of {from} until {to} has made its own ({waiting} row(s) to go)"
            ),
            Advice::Reindex,
        )))
    }

    /// Works the change to the configured model for up to `limit` rows or
    /// until `until` (one model call at least): each batch of new vectors
    /// is committed as it comes, so a stop or a kill keeps them, and when
    /// none is left they become the store's. `progress` hears how many
    /// rows have their new vector so far, and of how many. None when the
    /// store's vectors already come from the configured model (a change
    /// begun for another model is dropped then).
    pub fn switch_model(
        &mut self,
        limit: Option<usize>,
        until: Option<Instant>,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<Option<SwitchReport>> {
        let Some(current) = self.store.db().vector_space()? else {
            return Ok(None);
        };
        let wanted = self.wanted_space()?;
        let next = self.store.db().next_vector_space()?;
        if current == wanted {
            if next.is_some() {
                self.store.transact(|db| Ok(db.clear_next_space()?))?;
            }
            return Ok(None);
        }
        if next.as_ref() != Some(&wanted) {
            self.store
                .transact(|db| Ok(db.start_next_space(&wanted)?))?;
        }
        let mut report = SwitchReport {
            from: current.model,
            to: wanted.model.clone(),
            ..SwitchReport::default()
        };
        let total = self.store.db().count_next_pending()?.max(0) as usize;
        progress(0, total);
        let mut budget = limit.unwrap_or(usize::MAX);
        let mut first = true;
        while budget > 0 && (first || until.is_none_or(|t| Instant::now() < t)) {
            first = false;
            let given = self.embed_next_batch(budget, until, report.embedded, &mut |done| {
                progress(done.min(total), total)
            })?;
            if given == 0 {
                break;
            }
            report.embedded += given;
            budget = budget.saturating_sub(given);
        }
        report.remaining = self.store.db().count_next_pending()?;
        if report.remaining == 0 {
            self.store
                .transact(|db| Ok(db.adopt_next_space(&wanted)?))?;
            report.completed = true;
        }
        Ok(Some(report))
    }

    /// Embeds one batch of rows waiting for a vector of the next space
    /// and commits what the model made; returns how many.
    fn embed_next_batch(
        &mut self,
        budget: usize,
        until: Option<Instant>,
        done_before: usize,
        progress: &mut dyn FnMut(usize),
    ) -> Result<usize> {
        let items = self
            .store
            .db()
            .next_pending_texts(budget.min(4 * BATCH_SIZE))?;
        if items.is_empty() {
            return Ok(0);
        }
        let texts: Vec<&str> = items.iter().map(|i| i.text.as_str()).collect();
        let embedded = self.embed_until(&texts, until, done_before, progress)?;
        self.store.transact(|db| {
            for (i, vector) in &embedded {
                let item = &items[*i];
                let hash = model::content_hash(item.text.as_bytes());
                db.put_next_vector(item.row, &hash, &vector_bytes(vector))?;
            }
            Ok(())
        })?;
        Ok(embedded.len())
    }

    /// While the store changes model: the built-in model, when the store's
    /// vectors are its own, to embed queries in the space `find` still
    /// searches. Loaded once.
    pub(super) fn old_space_embedder(&mut self, space: &VectorSpace) -> Result<&mut dyn Embedder> {
        if self.old_embedder.is_none() {
            let paths = ModelPaths::from_settings(&self.settings.model)?;
            if paths.model_id()? != space.model {
                return Err(Error::ModelMismatch(format!(
                    "the store's vectors were made by {}, which is no longer configured, and the new model's are not complete",
                    space.model
                )));
            }
            self.old_embedder = Some(Box::new(OnnxEmbedder::load(&paths, self.load_for)?));
        }
        Ok(self.old_embedder.as_deref_mut().expect("loaded above"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embed::{KeepGoing, Made, TestEmbedder};
    use crate::keeper::PutOptions;
    use crate::{Keeper, Settings};
    use keep_store::VecRow;

    /// Another model: the test embedder's vector twice over, 32 wide.
    struct Wider;

    impl Embedder for Wider {
        fn model(&self) -> (&str, usize) {
            ("wider", 32)
        }

        fn embed_some(&mut self, texts: &[&str], keep_going: KeepGoing<'_>) -> Result<Made> {
            let narrow = TestEmbedder.embed_some(texts, keep_going)?;
            Ok(narrow
                .into_iter()
                .map(|(i, v)| {
                    let twice: Vec<f32> = v.iter().chain(&v).map(|x| x / 2f32.sqrt()).collect();
                    (i, twice)
                })
                .collect())
        }
    }

    fn keeper(dir: &tempfile::TempDir, embedder: Box<dyn Embedder>) -> Keeper {
        Keeper::open(Settings::for_store(dir.path()))
            .unwrap()
            .with_embedder(embedder)
    }

    fn put(k: &mut Keeper, id: &str, text: &str) {
        let opts = PutOptions {
            id: Some(id.into()),
            ..PutOptions::default()
        };
        k.put_text(text, "inline", opts).unwrap();
    }

    fn dims_of(k: &Keeper, id: &str) -> Option<usize> {
        let db = k.store.db();
        let rid = db.note_rid(id).unwrap().unwrap();
        db.vector(VecRow::Note(rid)).unwrap().map(|v| v.len())
    }

    #[test]
    fn the_old_vectors_answer_until_the_new_model_has_made_all_of_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let mut old = keeper(&dir, Box::new(TestEmbedder));
        for (id, text) in [
            ("a", "walrus tusks"),
            ("b", "penguin colony"),
            ("c", "seal pups"),
        ] {
            put(&mut old, id, text);
        }
        old.embed_pending(None).unwrap();
        assert_eq!(old.model_switch_waiting().unwrap(), 0);
        drop(old);

        let mut new = keeper(&dir, Box::new(Wider));
        assert_eq!(new.model_switch_waiting().unwrap(), 3);
        let first = new
            .switch_model(Some(1), None, &mut |_, _| {})
            .unwrap()
            .unwrap();
        assert_eq!(
            (first.embedded, first.remaining, first.completed),
            (1, 2, false)
        );
        assert_eq!(
            new.vector_model().unwrap().as_deref(),
            Some("test-embedder")
        );
        assert_eq!(dims_of(&new, "b"), Some(16), "the old vectors stay");

        // A note written during the change waits for the new model; one
        // whose new vector was made from older text is made again.
        put(&mut new, "a", "walrus tusks and whiskers");
        put(&mut new, "d", "puffin burrows");
        let last = new
            .switch_model(None, None, &mut |_, _| {})
            .unwrap()
            .unwrap();
        assert!(last.completed, "{last:?}");
        assert_eq!(last.from, "test-embedder");
        assert_eq!(new.vector_model().unwrap().as_deref(), Some("wider"));
        assert_eq!(dims_of(&new, "b"), Some(32));
        assert_eq!(dims_of(&new, "c"), Some(32));
        assert_eq!(dims_of(&new, "a"), None, "its text changed: it waits");
        assert_eq!(new.model_switch_waiting().unwrap(), 0);
        let waiting = new.pending_embeddings().unwrap();
        assert!(
            waiting >= 2,
            "a, d and the archived version of a wait: {waiting}"
        );
        new.embed_pending(None).unwrap();
        assert_eq!(new.pending_embeddings().unwrap(), 0);
        assert_eq!(dims_of(&new, "a"), Some(32));
        assert_eq!(dims_of(&new, "d"), Some(32));
        assert_eq!(new.switch_model(None, None, &mut |_, _| {}).unwrap(), None);
    }

    #[test]
    fn going_back_to_the_stores_model_drops_the_change() {
        let dir = tempfile::tempdir().unwrap();
        let mut old = keeper(&dir, Box::new(TestEmbedder));
        put(&mut old, "a", "walrus tusks");
        put(&mut old, "b", "penguin colony");
        old.embed_pending(None).unwrap();
        drop(old);
        let mut new = keeper(&dir, Box::new(Wider));
        new.switch_model(Some(1), None, &mut |_, _| {}).unwrap();
        assert!(new.store.db().next_vector_space().unwrap().is_some());
        drop(new);
        let mut back = keeper(&dir, Box::new(TestEmbedder));
        assert_eq!(back.switch_model(None, None, &mut |_, _| {}).unwrap(), None);
        assert_eq!(back.store.db().next_vector_space().unwrap(), None);
        assert_eq!(back.store.db().count_next_pending().unwrap(), 2);
        assert_eq!(dims_of(&back, "a"), Some(16));
    }
}
