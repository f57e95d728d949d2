//! The ONNX Runtime provider: a fastembed-compatible model directory run
//! through our own session, so start-up can skip graph optimisation by
//! loading a graph optimised once and cached beside the store's data.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use ort::session::Session;
use ort::session::builder::GraphOptimizationLevel;
use ort::value::Tensor;
use tokenizers::{AddedToken, Tokenizer, TruncationParams};

use super::{Embedder, KeepGoing, Made, ModelPaths};
use crate::error::{Error, Result};

/// Tokens per text; longer texts are truncated.
const MAX_TOKENS: usize = 256;
/// Tokens (padding included) per model call. Attention makes a call's
/// memory grow with texts × width², so a call holds at most this many
/// tokens: four texts of the full width, many more short ones. Measured on
/// real pages, small calls are also the fastest (their working set stays
/// in cache): 1,024 tokens a call ran 184 texts in 13 to 14 s at 242 MB,
/// 4,096 in 15.7 s at 491 MB, 64 texts a call in 22.6 s at 2.6 GB.
const TOKEN_BUDGET: usize = 1024;
/// Texts per model call, however short.
const MAX_ROWS: usize = 128;

const MODEL_FILES: [&str; 5] = [
    "model.onnx",
    "tokenizer.json",
    "config.json",
    "special_tokens_map.json",
    "tokenizer_config.json",
];

/// What a loaded model will mostly do, which decides whether its weights
/// are repacked for speed at load (about 50 ms, then each query runs about
/// three times faster).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LoadFor {
    /// A command that embeds a query or a batch and exits.
    #[default]
    OneQuery,
    /// A server or browser that embeds many queries over its life.
    ManyQueries,
}

/// A sentence-embedding model on ONNX Runtime: mean pooling over the last
/// hidden state, L2-normalised.
pub struct OnnxEmbedder {
    session: Session,
    tokenizer: Tokenizer,
    output: String,
    token_types: bool,
    pad_id: u32,
    id: String,
    dims: usize,
    /// Texts per model call.
    max_rows: usize,
}

fn unavailable(what: impl std::fmt::Display) -> Error {
    Error::model_unavailable(what.to_string())
}

/// Loads ONNX Runtime from `lib` once per process; the environment lives as
/// long as the process.
fn runtime(lib: &Path) -> Result<ort::environment::Environment> {
    static ENV: OnceLock<std::result::Result<ort::environment::Environment, String>> =
        OnceLock::new();
    let outcome = ENV.get_or_init(|| {
        if !lib.is_file() {
            return Err(format!(
                "ONNX Runtime not found: looked for {}",
                lib.display()
            ));
        }
        let builder = ort::init_from(lib)
            .map_err(|e| format!("ONNX Runtime at {} cannot be loaded: {e}", lib.display()))?;
        builder
            .with_name("keep")
            .with_telemetry(false)
            .build()
            .map_err(|e| format!("ONNX Runtime at {} cannot start: {e}", lib.display()))
    });
    outcome.clone().map_err(|reason| Error::ModelUnavailable {
        reason,
        component: Some(crate::models::RUNTIME),
    })
}

impl OnnxEmbedder {
    pub fn load(paths: &ModelPaths, load_for: LoadFor) -> Result<Self> {
        for name in MODEL_FILES {
            let file = paths.model_dir.join(name);
            if !file.is_file() {
                return Err(unavailable(format_args!(
                    "embedding model not found: looked for {}",
                    file.display()
                )));
            }
        }
        let dir = paths.model_dir.clone();
        let tokenizer = std::thread::spawn(move || load_tokenizer(&dir));
        let environment = runtime(&paths.ort_lib)?;
        let session = open_session(&environment, paths, load_for);
        let (tokenizer, pad_id) = tokenizer
            .join()
            .map_err(|_| unavailable("the tokenizer loader crashed"))??;
        let session = session?;
        let (output, dims) = hidden_state_output(&session, &paths.model_dir)?;
        let token_types = session
            .inputs()
            .iter()
            .any(|i| i.name() == "token_type_ids");
        Ok(OnnxEmbedder {
            session,
            tokenizer,
            output,
            token_types,
            pad_id,
            id: paths.model_id()?,
            dims,
            max_rows: crate::models::model_notes(&paths.model_dir)
                .rows_per_call
                .unwrap_or(MAX_ROWS)
                .clamp(1, MAX_ROWS),
        })
    }

    /// Token ids of each text, truncated, without padding.
    fn tokenize(&self, texts: &[&str]) -> Result<Vec<tokenizers::Encoding>> {
        self.tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(|e| unavailable(format_args!("tokenizing failed: {e}")))
    }

    /// One model call over `encodings`, padded to the longest of them.
    fn embed_batch(&mut self, encodings: &[&tokenizers::Encoding]) -> Result<Vec<Vec<f32>>> {
        let rows = encodings.len();
        let width = encodings.iter().map(|e| e.len()).max().unwrap_or(0);
        let column = |pick: fn(&tokenizers::Encoding) -> &[u32], pad: u32| -> Vec<i64> {
            let mut out = Vec::with_capacity(rows * width);
            for e in encodings {
                let values = pick(e);
                out.extend(values.iter().map(|&x| i64::from(x)));
                out.extend(std::iter::repeat_n(i64::from(pad), width - values.len()));
            }
            out
        };
        let mask = column(tokenizers::Encoding::get_attention_mask, 0);
        let tensor = |data: Vec<i64>| {
            Tensor::from_array(([rows, width], data))
                .map_err(|e| unavailable(format_args!("embedding input rejected: {e}")))
        };
        let mut inputs = ort::inputs![
            "input_ids" => tensor(column(tokenizers::Encoding::get_ids, self.pad_id))?,
            "attention_mask" => tensor(mask.clone())?,
        ];
        if self.token_types {
            inputs.push((
                "token_type_ids".into(),
                tensor(column(tokenizers::Encoding::get_type_ids, 0))?.into(),
            ));
        }
        let outputs = self
            .session
            .run(inputs)
            .map_err(|e| unavailable(format_args!("embedding failed: {e}")))?;
        let (shape, hidden) = outputs[self.output.as_str()]
            .try_extract_tensor::<f32>()
            .map_err(|e| unavailable(format_args!("embedding output unreadable: {e}")))?;
        let dims = usize::try_from(shape[2]).unwrap_or(0);
        if dims != self.dims {
            return Err(unavailable(format_args!(
                "embedding model returned {dims} dimensions, expected {}",
                self.dims
            )));
        }
        Ok(mean_pool(hidden, &mask, rows, width, dims))
    }
}

impl Embedder for OnnxEmbedder {
    fn model(&self) -> (&str, usize) {
        (&self.id, self.dims)
    }

    fn embed_some(&mut self, texts: &[&str], keep_going: KeepGoing<'_>) -> Result<Made> {
        let encodings = self.tokenize(texts)?;
        let mut vectors = Vec::with_capacity(texts.len());
        for batch in batches_by_tokens(&encodings, self.max_rows) {
            let batch_encodings: Vec<&tokenizers::Encoding> =
                batch.iter().map(|&i| &encodings[i]).collect();
            let embedded = self.embed_batch(&batch_encodings)?;
            vectors.extend(batch.iter().copied().zip(embedded));
            if !keep_going(batch.len()) {
                break;
            }
        }
        Ok(vectors)
    }
}

/// The texts (by index) of each model call: shortest first, so a call's
/// padding is small, each call within `TOKEN_BUDGET` tokens of padded
/// width and `max_rows` texts.
fn batches_by_tokens(encodings: &[tokenizers::Encoding], max_rows: usize) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..encodings.len()).collect();
    order.sort_by_key(|&i| encodings[i].len());
    let mut batches: Vec<Vec<usize>> = Vec::new();
    let mut current: Vec<usize> = Vec::new();
    for i in order {
        let width = encodings[i].len().max(1);
        if !current.is_empty()
            && ((current.len() + 1) * width > TOKEN_BUDGET || current.len() >= max_rows)
        {
            batches.push(std::mem::take(&mut current));
        }
        current.push(i);
    }
    if !current.is_empty() {
        batches.push(current);
    }
    batches
}

/// Averages the token vectors each text's attention mask keeps, then
/// scales each average to unit length.
fn mean_pool(
    hidden: &[f32],
    mask: &[i64],
    rows: usize,
    width: usize,
    dims: usize,
) -> Vec<Vec<f32>> {
    (0..rows)
        .map(|row| {
            let mut sum = vec![0f32; dims];
            let mut kept = 0f32;
            for token in 0..width {
                if mask[row * width + token] == 0 {
                    continue;
                }
                kept += 1.0;
                let start = (row * width + token) * dims;
                for (s, h) in sum.iter_mut().zip(&hidden[start..start + dims]) {
                    *s += h;
                }
            }
            let kept = kept.max(1e-9);
            sum.iter_mut().for_each(|s| *s /= kept);
            let norm = sum.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12);
            sum.iter_mut().for_each(|s| *s /= norm);
            sum
        })
        .collect()
}

/// The output holding per-token vectors: `last_hidden_state` or the first
/// output of rank 3, and its width.
fn hidden_state_output(session: &Session, dir: &Path) -> Result<(String, usize)> {
    let outputs = session.outputs();
    let rank3 = |o: &&ort::value::Outlet| o.dtype().tensor_shape().is_some_and(|s| s.len() == 3);
    let chosen = outputs
        .iter()
        .filter(rank3)
        .find(|o| o.name() == "last_hidden_state")
        .or_else(|| outputs.iter().find(rank3))
        .ok_or_else(|| {
            unavailable(format_args!(
                "embedding model in {} has no per-token output",
                dir.display()
            ))
        })?;
    let dims = chosen
        .dtype()
        .tensor_shape()
        .and_then(|s| usize::try_from(s[2]).ok())
        .filter(|&d| d > 0)
        .ok_or_else(|| {
            unavailable(format_args!(
                "embedding model in {} does not declare its vector width",
                dir.display()
            ))
        })?;
    Ok((chosen.name().to_string(), dims))
}

fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

fn session_builder(
    environment: &ort::environment::Environment,
    level: GraphOptimizationLevel,
) -> ort::Result<ort::session::builder::SessionBuilder> {
    // Calls are small (TOKEN_BUDGET), so the arena stays small; planning
    // memory per shape would keep a plan for every width seen.
    Ok(Session::builder(environment)?
        .with_memory_pattern(false)?
        .with_intra_threads(threads())?
        .with_optimization_level(level)?)
}

/// Opens the session from the cached optimised graph when there is one;
/// otherwise optimises the model, caching the result for next time.
///
/// The model keeps its weights as int8 and widens them on every run; the
/// optimised graph holds them widened (about four times the size), which
/// costs a quarter of a second to compute but almost nothing to map.
fn open_session(
    environment: &ort::environment::Environment,
    paths: &ModelPaths,
    load_for: LoadFor,
) -> Result<Session> {
    let model = paths.model_dir.join("model.onnx");
    let fail = |e: ort::Error| {
        unavailable(format_args!(
            "embedding model {} cannot be loaded: {e}",
            model.display()
        ))
    };
    let cached = optimized_cache_path(paths);
    if let Some(cached) = cached.as_ref().filter(|c| c.is_file()) {
        if let Ok(session) = open_optimized(environment, cached, load_for) {
            return Ok(session);
        }
        // A cache that cannot be read or removed is made again below.
        let _ = std::fs::remove_file(cached);
    }
    optimize(environment, &model, cached.as_deref()).map_err(fail)
}

/// Maps a cached graph in ORT format and runs it in place: its weights are
/// read straight from the page cache instead of being parsed and copied.
fn open_optimized(
    environment: &ort::environment::Environment,
    cached: &Path,
    load_for: LoadFor,
) -> Result<Session> {
    let file = std::fs::File::open(cached).map_err(|e| Error::io(cached, e))?;
    // SAFETY: cache entries are written under a temporary name and renamed
    // into place, never modified afterwards, so the mapped bytes cannot
    // change; a replaced or removed entry keeps its old inode alive.
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| Error::io(cached, e))?;
    // The session borrows the bytes for as long as it lives, and sessions
    // live until the process ends.
    let map: &'static memmap2::Mmap = Box::leak(Box::new(map));
    let bytes: &'static [u8] = map;
    let session = session_builder(environment, GraphOptimizationLevel::Disable)
        .and_then(|b| Ok(b.with_prepacking(load_for == LoadFor::ManyQueries)?))
        // Threads that spin while waiting for work answer a lone query a
        // little sooner, but a server shares its cores with its clients.
        .and_then(|b| Ok(b.with_intra_op_spinning(load_for == LoadFor::OneQuery)?))
        .and_then(|b| Ok(b.with_config_entry("session.use_ort_model_bytes_directly", "1")?))
        .and_then(|b| Ok(b.with_config_entry("session.use_ort_model_bytes_for_initializers", "1")?))
        .and_then(|mut b| b.commit_from_memory(bytes))
        .map_err(|e| {
            unavailable(format_args!(
                "cached model {} unusable: {e}",
                cached.display()
            ))
        })?;
    if load_for == LoadFor::ManyQueries {
        // Prepacking copied the big weights; their mapped originals were
        // read once and are not read again. Dropping the mapped pages lets
        // only the parts still used (a vocabulary row per token seen, the
        // small tensors) come back, from the page cache, when read.
        // SAFETY: the mapping is read-only and backed by a file that is
        // never modified, so a dropped page reads back the same bytes.
        let _ = unsafe { map.unchecked_advise(memmap2::UncheckedAdvice::DontNeed) };
    }
    Ok(session)
}

/// Builds the session with the extended (hardware-independent) graph
/// optimisations, saving the optimised graph to `cache` when given.
fn optimize(
    environment: &ort::environment::Environment,
    model: &Path,
    cache: Option<&Path>,
) -> ort::Result<Session> {
    let mut builder = session_builder(environment, GraphOptimizationLevel::Level2)?;
    let partial = cache
        .filter(|c| {
            c.parent()
                .is_some_and(|dir| std::fs::create_dir_all(dir).is_ok())
        })
        .map(|c| {
            (
                c,
                c.with_extension(format!("{}.partial", std::process::id())),
            )
        });
    if let Some((_, partial)) = &partial {
        builder = builder
            .with_optimized_model_path(partial)?
            .with_config_entry("session.save_model_format", "ORT")?;
    }
    let session = builder.commit_from_file(model)?;
    if let Some((cache, partial)) = partial
        && std::fs::rename(&partial, cache).is_err()
    {
        // The model is loaded either way; a stray partial cache is overwritten next time.
        let _ = std::fs::remove_file(&partial);
    }
    Ok(session)
}

/// `<cache dir>/keep/models/<model>-<size>-<mtime>-ort<size>-<mtime>.ort`: any
/// change to the model or the runtime library makes a new entry.
fn optimized_cache_path(paths: &ModelPaths) -> Option<PathBuf> {
    let stamp = |p: &Path| -> Option<String> {
        let meta = std::fs::metadata(p).ok()?;
        let mtime = meta
            .modified()
            .ok()?
            .duration_since(std::time::UNIX_EPOCH)
            .ok()?
            .as_secs();
        Some(format!("{}-{mtime}", meta.len()))
    };
    let model = stamp(&paths.model_dir.join("model.onnx"))?;
    let runtime = stamp(&paths.ort_lib)?;
    let name = paths.model_dir.file_name()?.to_string_lossy().into_owned();
    Some(
        paths
            .cache_dir
            .as_ref()?
            .join("models")
            .join(format!("{name}-{model}-ort{runtime}.ort")),
    )
}

fn read_json(dir: &Path, name: &str) -> Result<serde_json::Value> {
    let path = dir.join(name);
    let bytes = std::fs::read(&path).map_err(|e| Error::io(&path, e))?;
    serde_json::from_slice(&bytes).map_err(|e| unavailable(format_args!("{}: {e}", path.display())))
}

/// The tokenizer as fastembed configures it, truncated to the model's
/// limit, special tokens registered; and the id padding uses (texts are
/// padded per model call, not here).
fn load_tokenizer(dir: &Path) -> Result<(Tokenizer, u32)> {
    let path = dir.join("tokenizer.json");
    let bad_config = |e: tokenizers::Error| unavailable(format_args!("{}: {e}", path.display()));
    let mut tokenizer = Tokenizer::from_file(&path).map_err(bad_config)?;
    let config = read_json(dir, "config.json")?;
    let tokenizer_config = read_json(dir, "tokenizer_config.json")?;
    let special = read_json(dir, "special_tokens_map.json")?;
    let model_limit = tokenizer_config["model_max_length"]
        .as_f64()
        .map_or(MAX_TOKENS, |n| n.min(MAX_TOKENS as f64) as usize);
    let pad = &tokenizer_config["pad_token"];
    let pad_token = pad
        .as_str()
        .or_else(|| pad["content"].as_str())
        .unwrap_or("[PAD]")
        .to_string();
    let pad_id = config["pad_token_id"]
        .as_u64()
        .and_then(|id| u32::try_from(id).ok())
        .or_else(|| tokenizer.token_to_id(&pad_token))
        .unwrap_or(0);
    tokenizer
        .with_padding(None)
        .with_truncation(Some(TruncationParams {
            max_length: model_limit,
            ..Default::default()
        }))
        .map_err(bad_config)?;
    if let serde_json::Value::Object(tokens) = special {
        let added: Vec<AddedToken> = tokens.values().filter_map(special_token).collect();
        tokenizer.add_special_tokens(added).map_err(bad_config)?;
    }
    Ok((tokenizer, pad_id))
}

fn special_token(value: &serde_json::Value) -> Option<AddedToken> {
    if let Some(content) = value.as_str() {
        return Some(AddedToken::from(content.to_string(), true));
    }
    let flag = |key: &str| value[key].as_bool();
    Some(
        AddedToken::from(value["content"].as_str()?.to_string(), true)
            .single_word(flag("single_word")?)
            .lstrip(flag("lstrip")?)
            .rstrip(flag("rstrip")?)
            .normalized(flag("normalized")?),
    )
}

#[cfg(test)]
mod tests {
    use super::mean_pool;

    #[test]
    fn mean_pool_ignores_padding_and_normalises() {
        let hidden = [1.0, 0.0, 3.0, 0.0, 100.0, 100.0];
        let pooled = mean_pool(&hidden, &[1, 1, 0], 1, 3, 2);
        assert_eq!(pooled, vec![vec![1.0, 0.0]]);
    }
}
