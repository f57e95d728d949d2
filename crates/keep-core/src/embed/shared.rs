//! One model shared by the threads of a long-lived process. A worker
//! thread owns the model; texts asked for while it is busy are embedded
//! together in its next run, so concurrent callers share model calls
//! instead of queueing one by one. A caller can also have texts embedded
//! ahead of the call that needs them (`prepare`), outside any lock it will
//! hold then; that call finds the vectors made and does not wait for the
//! model.

use std::collections::{HashMap, VecDeque};
use std::sync::mpsc::{Receiver, Sender, SyncSender};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use super::{Embedder, KeepGoing, Made};
use crate::error::{Error, Result};

/// Most texts the worker embeds in one run; more wait for the next.
const MAX_RUN: usize = 32;

/// Texts handed to the worker at a time by bulk work, so a caller with a
/// time budget can stop between them.
const CHUNK: usize = 16;

/// Vectors made ahead and not yet used; the oldest go first beyond this.
const MADE_AHEAD: usize = 512;

type Loader = Box<dyn FnOnce() -> Result<Box<dyn Embedder>> + Send>;

struct Job {
    texts: Vec<String>,
    reply: SyncSender<Result<Vec<Vec<f32>>>>,
}

/// What the loaded model is, or why it could not be loaded.
type Loaded = std::result::Result<(String, usize, Sender<Job>), Unavailable>;

/// Why the model could not be loaded, kept to be said at every use: the
/// reason, and the component of `keep models` that would mend it.
#[derive(Debug, Clone)]
struct Unavailable {
    reason: String,
    component: Option<&'static str>,
}

impl Unavailable {
    fn new(reason: impl Into<String>) -> Self {
        Unavailable {
            reason: reason.into(),
            component: None,
        }
    }

    fn of(e: &Error) -> Self {
        match e {
            Error::ModelUnavailable { reason, component } => Unavailable {
                reason: reason.clone(),
                component: *component,
            },
            other => Unavailable::new(other.to_string()),
        }
    }

    fn error(&self) -> Error {
        Error::ModelUnavailable {
            reason: self.reason.clone(),
            component: self.component,
        }
    }
}

struct Inner {
    loader: Mutex<Option<Loader>>,
    loaded: OnceLock<Loaded>,
    made_ahead: Mutex<MadeAhead>,
}

/// A model loaded once, on first use, and used by every clone.
#[derive(Clone)]
pub struct SharedModel {
    inner: Arc<Inner>,
}

impl SharedModel {
    /// A shared model that `loader` loads on first use.
    pub fn new(loader: impl FnOnce() -> Result<Box<dyn Embedder>> + Send + 'static) -> Self {
        SharedModel {
            inner: Arc::new(Inner {
                loader: Mutex::new(Some(Box::new(loader))),
                loaded: OnceLock::new(),
                made_ahead: Mutex::new(MadeAhead::default()),
            }),
        }
    }

    /// The model's id once it is loaded; why it could not be, when it
    /// could not; None before first use.
    pub fn state(&self) -> Option<std::result::Result<String, String>> {
        self.inner.loaded.get().map(|loaded| match loaded {
            Ok((id, _, _)) => Ok(id.clone()),
            Err(why) => Err(why.reason.clone()),
        })
    }

    /// Loads the model if it is not yet, and returns an embedder that
    /// uses it; ModelUnavailable when it cannot be loaded.
    pub fn embedder(&self) -> Result<Box<dyn Embedder>> {
        let (id, dims, _) = self.load()?;
        Ok(Box::new(SharedEmbedder {
            model: self.clone(),
            id: id.clone(),
            dims: *dims,
        }))
    }

    /// Embeds `texts` now and keeps their vectors for the call that will
    /// ask for them. Blocks while the model works; a model that cannot be
    /// used is not an error here (that call will say so).
    pub fn prepare(&self, texts: Vec<String>) {
        let texts: Vec<String> = {
            let made = lock(&self.inner.made_ahead);
            texts.into_iter().filter(|t| !made.has(t)).collect()
        };
        if texts.is_empty() {
            return;
        }
        if let Ok(vectors) = self.run(texts.clone()) {
            let mut made = lock(&self.inner.made_ahead);
            for (text, vector) in texts.into_iter().zip(vectors) {
                made.put(text, vector);
            }
        }
    }

    fn load(&self) -> Result<&(String, usize, Sender<Job>)> {
        let loaded = self.inner.loaded.get_or_init(|| {
            let loader = lock(&self.inner.loader)
                .take()
                .ok_or_else(|| Unavailable::new("the model was already being loaded"))?;
            start_worker(loader)
        });
        loaded.as_ref().map_err(Unavailable::error)
    }

    /// Embeds `texts` on the worker, with whatever else is waiting.
    fn run(&self, texts: Vec<String>) -> Result<Vec<Vec<f32>>> {
        let (_, _, jobs) = self.load()?;
        let (reply, answer) = std::sync::mpsc::sync_channel(1);
        let stopped = || Error::model_unavailable("the model's thread stopped");
        jobs.send(Job { texts, reply }).map_err(|_| stopped())?;
        answer.recv().map_err(|_| stopped())?
    }

    fn take_made(&self, text: &str) -> Option<Vec<f32>> {
        lock(&self.inner.made_ahead).take(text)
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Loads the model on a new thread that then serves jobs until every
/// sender is gone.
fn start_worker(loader: Loader) -> Loaded {
    let (ready_tx, ready_rx) = std::sync::mpsc::sync_channel(1);
    let (jobs_tx, jobs_rx) = std::sync::mpsc::channel::<Job>();
    let spawned =
        std::thread::Builder::new()
            .name("keep-model".into())
            .spawn(move || match loader() {
                Ok(model) => {
                    let info = (model.model_id().to_string(), model.dimensions());
                    // Nobody waits for the model any more: it still serves later jobs.
                    let _ = ready_tx.send(Ok(info));
                    serve_jobs(model, &jobs_rx);
                }
                Err(e) => {
                    // Nobody waits for the model any more.
                    let _ = ready_tx.send(Err(Unavailable::of(&e)));
                }
            });
    if let Err(e) = spawned {
        return Err(Unavailable::new(format!(
            "the model's thread could not start: {e}"
        )));
    }
    let (id, dims) = ready_rx
        .recv()
        .map_err(|_| Unavailable::new("the model's thread stopped while loading"))??;
    Ok((id, dims, jobs_tx))
}

/// Runs jobs as they come, each run taking every job already waiting (up
/// to `MAX_RUN` texts).
fn serve_jobs(mut model: Box<dyn Embedder>, jobs: &Receiver<Job>) {
    while let Ok(first) = jobs.recv() {
        let mut run = vec![first];
        let mut texts = run[0].texts.len();
        while texts < MAX_RUN {
            match jobs.try_recv() {
                Ok(job) => {
                    texts += job.texts.len();
                    run.push(job);
                }
                Err(_) => break,
            }
        }
        answer(model.as_mut(), run);
    }
}

/// Embeds the texts of `run` in one model call and gives each job its
/// vectors; when that call fails, each job is tried alone so that it gets
/// its own error and the others their vectors.
fn answer(model: &mut dyn Embedder, run: Vec<Job>) {
    if run.len() > 1 {
        let all: Vec<&str> = run
            .iter()
            .flat_map(|j| j.texts.iter().map(String::as_str))
            .collect();
        if let Ok(mut vectors) = model.embed(&all)
            && vectors.len() == all.len()
        {
            for job in run.into_iter().rev() {
                let mine = vectors.split_off(vectors.len() - job.texts.len());
                // A caller that stopped waiting no longer wants its vectors.
                let _ = job.reply.send(Ok(mine));
            }
            return;
        }
    }
    for job in run {
        let texts: Vec<&str> = job.texts.iter().map(String::as_str).collect();
        // A caller that stopped waiting no longer wants its vectors.
        let _ = job.reply.send(model.embed(&texts));
    }
}

/// Vectors made ahead, by text, oldest first.
#[derive(Default)]
struct MadeAhead {
    vectors: HashMap<String, Vec<f32>>,
    order: VecDeque<String>,
}

impl MadeAhead {
    fn has(&self, text: &str) -> bool {
        self.vectors.contains_key(text)
    }

    fn put(&mut self, text: String, vector: Vec<f32>) {
        if self.vectors.insert(text.clone(), vector).is_none() {
            self.order.push_back(text);
        }
        while self.order.len() > MADE_AHEAD {
            if let Some(old) = self.order.pop_front() {
                self.vectors.remove(&old);
            }
        }
    }

    fn take(&mut self, text: &str) -> Option<Vec<f32>> {
        let vector = self.vectors.remove(text)?;
        self.order.retain(|t| t != text);
        Some(vector)
    }
}

/// An embedder over a `SharedModel`.
struct SharedEmbedder {
    model: SharedModel,
    id: String,
    dims: usize,
}

impl Embedder for SharedEmbedder {
    fn model(&self) -> (&str, usize) {
        (&self.id, self.dims)
    }

    fn embed_some(&mut self, texts: &[&str], keep_going: KeepGoing<'_>) -> Result<Made> {
        let mut found = Vec::with_capacity(texts.len());
        let mut missing = Vec::new();
        for (i, text) in texts.iter().enumerate() {
            match self.model.take_made(text) {
                Some(vector) => found.push((i, vector)),
                None => missing.push(i),
            }
        }
        if !found.is_empty() && !keep_going(found.len()) {
            return Ok(found);
        }
        for chunk in missing.chunks(CHUNK) {
            let vectors = self
                .model
                .run(chunk.iter().map(|&i| texts[i].to_string()).collect())?;
            found.extend(chunk.iter().copied().zip(vectors));
            if !keep_going(chunk.len()) {
                break;
            }
        }
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embed::TestEmbedder;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Counts model calls and the texts in each.
    struct Counting {
        calls: Arc<Mutex<Vec<usize>>>,
        fail_on: Option<&'static str>,
    }

    impl Embedder for Counting {
        fn model(&self) -> (&str, usize) {
            ("counting", 16)
        }
        fn embed_some(&mut self, texts: &[&str], keep_going: KeepGoing<'_>) -> Result<Made> {
            lock(&self.calls).push(texts.len());
            if let Some(bad) = self.fail_on
                && texts.contains(&bad)
            {
                return Err(Error::invalid(format!("cannot embed '{bad}'")));
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
            TestEmbedder.embed_some(texts, keep_going)
        }
    }

    fn counting(fail_on: Option<&'static str>) -> (SharedModel, Arc<Mutex<Vec<usize>>>) {
        let calls = Arc::new(Mutex::new(Vec::new()));
        let c = Arc::clone(&calls);
        let model = SharedModel::new(move || {
            Ok(Box::new(Counting { calls: c, fail_on }) as Box<dyn Embedder>)
        });
        (model, calls)
    }

    #[test]
    fn vectors_match_the_model_alone_and_come_back_in_order() {
        let (model, _) = counting(None);
        let mut shared = model.embedder().unwrap();
        let texts = ["tide tables", "harbour lights", "the gull", "tide tables"];
        let got = shared.embed(&texts).unwrap();
        let alone = TestEmbedder.embed(&texts).unwrap();
        assert_eq!(got, alone);
        assert_eq!(shared.model_id(), "counting");
        assert_eq!(shared.dimensions(), 16);
    }

    #[test]
    fn callers_waiting_together_share_one_model_call() {
        let (model, calls) = counting(None);
        model.embedder().unwrap();
        let started = Arc::new(AtomicUsize::new(0));
        let threads: Vec<_> = (0..8)
            .map(|n| {
                let model = model.clone();
                let started = Arc::clone(&started);
                std::thread::spawn(move || {
                    started.fetch_add(1, Ordering::SeqCst);
                    let mut e = model.embedder().unwrap();
                    let text = format!("note {n} about the reef");
                    let v = e.embed(&[text.as_str()]).unwrap();
                    assert_eq!(v, TestEmbedder.embed(&[text.as_str()]).unwrap());
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        let calls = lock(&calls).clone();
        assert_eq!(calls.iter().sum::<usize>(), 8, "{calls:?}");
        assert!(calls.len() < 8, "every caller ran alone: {calls:?}");
    }

    #[test]
    fn a_prepared_text_is_not_embedded_again() {
        let (model, calls) = counting(None);
        model.prepare(vec!["what do I have about anchors".into()]);
        assert_eq!(*lock(&calls), vec![1]);
        let mut e = model.embedder().unwrap();
        let v = e.embed(&["what do I have about anchors"]).unwrap();
        assert_eq!(
            v,
            TestEmbedder
                .embed(&["what do I have about anchors"])
                .unwrap()
        );
        assert_eq!(*lock(&calls), vec![1], "the made vector was not used");
        e.embed(&["what do I have about anchors"]).unwrap();
        assert_eq!(*lock(&calls), vec![1, 1], "a made vector is used once");
    }

    #[test]
    fn a_failing_text_fails_only_its_own_call() {
        let (model, _) = counting(Some("poison"));
        model.embedder().unwrap();
        let threads: Vec<_> = ["poison", "calm sea", "fair wind"]
            .into_iter()
            .map(|text| {
                let model = model.clone();
                std::thread::spawn(move || model.embedder().unwrap().embed(&[text]).is_ok())
            })
            .collect();
        let ok: Vec<bool> = threads.into_iter().map(|t| t.join().unwrap()).collect();
        assert_eq!(ok, vec![false, true, true]);
    }

    #[test]
    fn a_model_that_cannot_load_says_why_every_time() {
        let model = SharedModel::new(|| Err(Error::model_unavailable("no model.onnx in /x")));
        for _ in 0..2 {
            match model.embedder() {
                Err(Error::ModelUnavailable { reason, .. }) => {
                    assert!(reason.contains("no model.onnx"))
                }
                other => panic!("expected ModelUnavailable, got {:?}", other.map(|_| ())),
            }
        }
        model.prepare(vec!["anything".into()]);
    }

    #[test]
    fn made_ahead_keeps_only_the_newest() {
        let mut made = MadeAhead::default();
        for i in 0..MADE_AHEAD + 3 {
            made.put(format!("t{i}"), vec![i as f32]);
        }
        assert!(!made.has("t0") && !made.has("t2"));
        assert!(made.has("t3"));
        assert_eq!(
            made.take(&format!("t{}", MADE_AHEAD + 2)),
            Some(vec![(MADE_AHEAD + 2) as f32])
        );
        assert_eq!(made.order.len(), MADE_AHEAD - 1);
    }
}
