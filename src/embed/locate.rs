//! Where the runtime library and the model directory are: environment
//! variables first, then the config file, then the keep data directory.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::{DEFAULT_MODEL, data_dir};
use crate::error::{Error, Result};

/// Settings read from `<config dir>/keep/config.toml` (or `KEEP_CONFIG`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// A fastembed-compatible model directory.
    pub model_dir: Option<PathBuf>,
    /// The ONNX Runtime shared library.
    pub ort_lib: Option<PathBuf>,
    /// Recency half-life for `find`, in days; 0 turns decay off.
    pub half_life_days: Option<f64>,
    /// Theme of the full-screen browser.
    pub theme: Option<String>,
}

impl Config {
    pub fn path() -> Option<PathBuf> {
        if let Some(p) = std::env::var_os("KEEP_CONFIG").filter(|p| !p.is_empty()) {
            return Some(PathBuf::from(p));
        }
        dirs::config_dir().map(|d| d.join("keep").join("config.toml"))
    }

    /// Reads the config file; a missing file is an empty config.
    pub fn load() -> Result<Self> {
        let Some(path) = Self::path() else {
            return Ok(Config::default());
        };
        match std::fs::read_to_string(&path) {
            Ok(text) => toml::from_str(&text).map_err(|e| Error::Format {
                what: path.display().to_string(),
                reason: e.message().to_string(),
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Config::default()),
            Err(e) => Err(Error::io(&path, e)),
        }
    }
}

/// The files an embedder is loaded from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelPaths {
    pub model_dir: PathBuf,
    pub ort_lib: PathBuf,
}

fn env_path(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

impl ModelPaths {
    /// `KEEP_MODEL_DIR`, `KEEP_ORT_LIB` / `ORT_DYLIB_PATH`, the config file,
    /// then `<data dir>/models/all-MiniLM-L6-v2-int8` and
    /// `<data dir>/runtime/libonnxruntime.so`.
    pub fn locate(config: &Config) -> Result<Self> {
        let data = data_dir();
        let missing = || {
            Error::ModelUnavailable(
                "no data directory on this system: set KEEP_MODEL_DIR and KEEP_ORT_LIB".into(),
            )
        };
        let model_dir = match env_path("KEEP_MODEL_DIR").or_else(|| config.model_dir.clone()) {
            Some(dir) => dir,
            None => data
                .clone()
                .ok_or_else(missing)?
                .join("models")
                .join(DEFAULT_MODEL),
        };
        let ort_lib = match env_path("KEEP_ORT_LIB")
            .or_else(|| env_path("ORT_DYLIB_PATH"))
            .or_else(|| config.ort_lib.clone())
        {
            Some(lib) => lib,
            None => data
                .ok_or_else(missing)?
                .join("runtime")
                .join("libonnxruntime.so"),
        };
        Ok(ModelPaths { model_dir, ort_lib })
    }

    /// A cheap fingerprint of the model: directory name and model size.
    pub fn model_id(&self) -> Result<String> {
        let onnx = self.model_dir.join("model.onnx");
        let size = std::fs::metadata(&onnx)
            .map_err(|e| Error::io(&onnx, e))?
            .len();
        Ok(format!("{}:{size}", dir_name(&self.model_dir)))
    }
}

fn dir_name(dir: &Path) -> String {
    dir.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| dir.display().to_string())
}
