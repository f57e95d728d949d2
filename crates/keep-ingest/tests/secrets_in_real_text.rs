//! Secrets against real text nobody here wrote: the paragraphs of the
//! Debian documentation corpus (`scripts/corpus.sh`, installed by the
//! set-up) hold hashes, key ids, UUIDs, checksums and configuration
//! examples, and none of them is a secret; a labelled set of made-up
//! credentials in every supported shape is found.

use keep_model::secrets;
use std::path::{Path, PathBuf};

fn corpus() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/corpus");
    assert!(
        root.join(".complete").exists(),
        "the corpus of real documents is missing: run ./scripts/setup.sh"
    );
    root
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("the corpus folder reads")
        .flatten()
        .collect();
    entries.sort_by_key(|e| e.path());
    for entry in entries {
        let path = entry.path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "html") {
            out.push(path);
        }
    }
}

/// The corpus's paragraphs (text between blank lines, 40 bytes or more),
/// in a fixed order.
fn paragraphs() -> Vec<(String, String)> {
    let mut paths = Vec::new();
    files(&corpus(), &mut paths);
    let mut out = Vec::new();
    for path in paths {
        let bytes = std::fs::read(&path).expect("a corpus file reads");
        let name = path.display().to_string();
        let Ok(doc) = keep_ingest::extract(&bytes, &name, Some(&path), None) else {
            continue;
        };
        for paragraph in doc.text.split("\n\n") {
            if paragraph.trim().len() >= 40 {
                out.push((name.clone(), paragraph.to_string()));
            }
        }
    }
    out
}

/// Credentials that the Debian documentation itself gives as examples:
/// they are credentials by their shape and are redacted on purpose (as
/// AWS's documented sample key is). Each was read by hand.
const EXAMPLE_CREDENTIALS: &[(&str, &str, &str)] = &[("git-credential.html", "password", "secr3t")];

#[test]
fn real_documentation_paragraphs_hold_no_secret_but_their_example_credentials() {
    let paragraphs = paragraphs();
    assert!(
        paragraphs.len() >= 10_000,
        "{} paragraphs",
        paragraphs.len()
    );
    let mut examples = 0;
    let mut false_positives = Vec::new();
    for (name, text) in &paragraphs {
        for (span, kind) in secrets::find(text) {
            let value = &text[span];
            let file = name.rsplit('/').next().unwrap_or(name);
            if EXAMPLE_CREDENTIALS.contains(&(file, kind, value)) {
                examples += 1;
            } else {
                false_positives.push(format!("{name}: {kind}: {value:?}"));
            }
        }
    }
    eprintln!(
        "{} paragraphs: {} example credentials, {} false positives",
        paragraphs.len(),
        examples,
        false_positives.len()
    );
    assert!(
        examples > 0,
        "the documented example credentials were missed"
    );
    assert!(false_positives.is_empty(), "{}", false_positives.join("\n"));
}

/// A small deterministic generator, so the labelled set is the same on
/// every run and holds no real credential.
struct Made(u64);

impl Made {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn from(&mut self, alphabet: &str, length: usize) -> String {
        let chars: Vec<char> = alphabet.chars().collect();
        (0..length)
            .map(|_| chars[(self.next() % chars.len() as u64) as usize])
            .collect()
    }
}

const UPPER_DIGITS: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const ALNUM: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const URL_SAFE: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_";
const BASE64: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/";
const PASSWORD: &str = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789!#%&*-_=+";

/// One made-up secret of each kind in one of its usual settings: the
/// secret, and the text holding it.
fn labelled(made: &mut Made) -> Vec<(String, String)> {
    let password = {
        let length = 10 + (made.next() % 10) as usize;
        let mut p = made.from(PASSWORD, length);
        p.push(char::from(b'0' + (made.next() % 10) as u8));
        p
    };
    let aws = format!("AKIA{}", made.from(UPPER_DIGITS, 16));
    let aws_secret = made.from(BASE64, 40);
    let github = format!("ghp_{}", made.from(ALNUM, 36));
    let fine_grained = format!(
        "github_pat_{}_{}",
        made.from(ALNUM, 22),
        made.from(ALNUM, 59)
    );
    let gitlab = format!("glpat-{}", made.from(URL_SAFE, 20));
    let slack = format!(
        "xoxb-{}-{}-{}",
        made.from("0123456789", 11),
        made.from("0123456789", 13),
        made.from(ALNUM, 24)
    );
    let stripe = format!("sk_live_{}", made.from(ALNUM, 24));
    let google = format!("AIza{}", made.from(URL_SAFE, 35));
    let jwt = format!(
        "eyJ{}.eyJ{}.{}",
        made.from(URL_SAFE, 30),
        made.from(URL_SAFE, 60),
        made.from(URL_SAFE, 43)
    );
    let pem_body: Vec<String> = (0..6).map(|_| made.from(BASE64, 64)).collect();
    let pem = format!(
        "-----BEGIN RSA PRIVATE KEY-----\n{}\n-----END RSA PRIVATE KEY-----",
        pem_body.join("\n")
    );
    let openssh = format!(
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA{}\n-----END OPENSSH PRIVATE KEY-----",
        made.from(BASE64, 40)
    );
    let api = made.from(ALNUM, 32);
    let bearer = made.from(URL_SAFE, 40);
    vec![
        (
            aws.clone(),
            format!("The AWS key for the backup bucket is {aws}, rotate it in May."),
        ),
        (
            aws_secret.clone(),
            format!("[default]\naws_access_key_id = {aws}\naws_secret_access_key = {aws_secret}\n"),
        ),
        (
            github.clone(),
            format!("git clone https://{github}@github.com/acme/site.git"),
        ),
        (
            fine_grained.clone(),
            format!("use token {fine_grained} for the deploy job"),
        ),
        (gitlab.clone(), format!("GITLAB_TOKEN={gitlab}")),
        (
            slack.clone(),
            format!("The bot posts with {slack} into #ops."),
        ),
        (stripe.clone(), format!("stripe.api_key = \"{stripe}\"")),
        (
            google.clone(),
            format!(
                "<script src=\"https://maps.googleapis.com/maps/api/js?key={google}\"></script>"
            ),
        ),
        (
            jwt.clone(),
            format!("curl -H 'Authorization: Bearer {jwt}' https://api.internal/v1"),
        ),
        (pem.clone(), format!("The deploy key:\n{pem}\nkeep it safe")),
        (openssh.clone(), format!("{openssh}\n")),
        (
            password.clone(),
            format!("postgres://app:{password}@db.internal:5432/main"),
        ),
        (
            password.clone(),
            format!("DB_PASSWORD={password}\nDB_HOST=db.internal\n"),
        ),
        (
            password.clone(),
            format!("database:\n  user: app\n  password: \"{password}\"\n"),
        ),
        (
            api.clone(),
            format!("{{\"client_id\": \"web\", \"client_secret\": \"{api}\"}}"),
        ),
        (api.clone(), format!("export OPENAI_API_KEY={api}")),
        (bearer.clone(), format!("Authorization: Bearer {bearer}")),
    ]
}

#[test]
fn made_up_credentials_of_every_shape_are_found() {
    let mut made = Made(0x9e37_79b9_7f4a_7c15);
    let mut total = 0;
    let mut missed = Vec::new();
    for _ in 0..30 {
        for (secret, text) in labelled(&mut made) {
            total += 1;
            let (redacted, found) = secrets::redact(&text, "text");
            if found.is_empty() || redacted.contains(&secret) {
                missed.push(text);
            }
        }
    }
    let recall = 1.0 - missed.len() as f64 / total as f64;
    eprintln!("{total} labelled secrets, recall {recall:.3}");
    assert!(
        recall >= 0.98,
        "recall {recall:.3}; missed:\n{}",
        missed.join("\n---\n")
    );
}
