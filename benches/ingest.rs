//! Benchmark: ingestion of a folder of 1,000 mixed files (text, Markdown,
//! HTML and PDF, from the fixtures with their text varied) by the release
//! binary, as one process: files/s, MB/s, CPU use across cores, peak
//! memory; then OCR seconds per page in-process.
//!
//!     cargo build --release && cargo bench --bench ingest
//!
//! Needs the models (`keep models install`: embedding and OCR models).

// A benchmark or test harness: a failed step is its report.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use keep::config::{Config, Environment};
use keep_ingest::ocr::Ocr;

const FILES: usize = 1000;

fn fixtures() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("testdata/ingest")
}

/// Writes `FILES` files: a quarter each of text, Markdown, HTML and PDF.
fn make_folder(dir: &Path) -> u64 {
    let html = std::fs::read_to_string(fixtures().join("page.html")).unwrap();
    let md = std::fs::read_to_string(fixtures().join("tidal-pools.md")).unwrap();
    let pdf = std::fs::read(fixtures().join("report.pdf")).unwrap();
    let mut bytes = 0u64;
    for i in 0..FILES {
        let (name, body): (String, Vec<u8>) = match i % 4 {
            0 => (
                format!("note-{i}.txt"),
                format!(
                    "Log entry {i}. The keeper of light {i} noted calm seas and a north wind.\n"
                )
                .into_bytes(),
            ),
            1 => (
                format!("doc-{i}.md"),
                format!("{md}\nSection {i} closes here.\n").into_bytes(),
            ),
            2 => (
                format!("page-{i}.html"),
                html.replace("Port Ellen", &format!("Port {i}"))
                    .into_bytes(),
            ),
            _ => (format!("report-{i}.pdf"), pdf.clone()),
        };
        bytes += body.len() as u64;
        std::fs::write(dir.join(name), body).unwrap();
    }
    bytes
}

/// User and system CPU seconds of finished children, and their peak RSS in MB.
fn children_usage() -> (f64, f64) {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage fills the struct it is given.
    let usage = unsafe {
        libc::getrusage(libc::RUSAGE_CHILDREN, usage.as_mut_ptr());
        usage.assume_init()
    };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    (
        secs(usage.ru_utime) + secs(usage.ru_stime),
        usage.ru_maxrss as f64 / 1024.0,
    )
}

fn main() {
    let bin =
        PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("target/release/keep");
    assert!(
        bin.is_file(),
        "build the release binary first: cargo build --release"
    );
    let work = tempfile::tempdir().unwrap();
    let folder = work.path().join("files");
    std::fs::create_dir_all(&folder).unwrap();
    let bytes = make_folder(&folder);
    let store = work.path().join("store");
    let start = Instant::now();
    let status = Command::new(&bin)
        .args(["put", folder.to_str().unwrap(), "--ids"])
        .env("KEEP_STORE", &store)
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    let wall = start.elapsed().as_secs_f64();
    assert!(status.success());
    let (cpu, peak_mb) = children_usage();
    println!(
        "ingest {FILES} files ({:.1} MB) in {wall:.2} s",
        bytes as f64 / 1e6
    );
    println!(
        "  {:.0} files/s, {:.2} MB/s",
        FILES as f64 / wall,
        bytes as f64 / 1e6 / wall
    );
    println!(
        "  CPU {cpu:.2} s over {wall:.2} s wall = {:.2} cores busy on average",
        cpu / wall
    );
    println!("  peak memory {peak_mb:.0} MB");

    let start = Instant::now();
    let status = Command::new(&bin)
        .args(["put", folder.to_str().unwrap()])
        .env("KEEP_STORE", &store)
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    println!(
        "  re-run, all unchanged: {:.2} s",
        start.elapsed().as_secs_f64()
    );

    let bare_store = work.path().join("bare");
    let start = Instant::now();
    let status = Command::new(&bin)
        .args(["put", folder.to_str().unwrap()])
        .env("KEEP_STORE", &bare_store)
        .env("KEEP_MODEL_DIR", work.path().join("no-model"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.code().is_some());
    let wall = start.elapsed().as_secs_f64();
    println!(
        "  without embedding (extract, summarise, chunk, store): {wall:.2} s = {:.0} files/s, {:.1} MB/s",
        FILES as f64 / wall,
        bytes as f64 / 1e6 / wall
    );

    let config = Config::resolve(None, &Environment::capture()).expect("settings");
    let dir = config.ocr_dir.expect("a data directory");
    let start = Instant::now();
    let ocr = Ocr::load(&dir).expect("OCR models installed");
    println!(
        "OCR models load: {:.0} ms",
        start.elapsed().as_secs_f64() * 1000.0
    );
    let page = image::open(fixtures().join("scan.png")).unwrap();
    let runs = 5;
    let start = Instant::now();
    for _ in 0..runs {
        let text = ocr.recognize(&page).unwrap();
        assert!(text.contains("slipway"));
    }
    println!(
        "OCR of a 1100x520 page: {:.2} s per page",
        start.elapsed().as_secs_f64() / runs as f64
    );
}
