//! Links from one document to others: the targets a Markdown or HTML
//! document names, resolved against where the document came from into the
//! ids the targets have (or will have) as notes. Only links to documents
//! that can be notes of the same kind are kept: files that exist beside it
//! for a file, pages of the same site for a web page; anchors, mail
//! addresses, scripts and style sheets are not documents.

use std::path::{Path, PathBuf};

use keep_model::{file_id, lexically_normal};

/// Most links kept from one document.
pub const MAX_LINKS: usize = 200;

/// Where a document came from, for resolving its relative links.
pub enum Base<'a> {
    File(&'a Path),
    Url(&'a str),
}

/// The link targets written in Markdown text: inline links and images
/// (`[text](target "title")`), autolinks (`<https://...>`) and reference
/// definitions (`[label]: target`), outside code.
pub fn markdown_links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_code = false;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_code = !in_code;
            continue;
        }
        if in_code || line.starts_with("    ") || line.starts_with('\t') {
            continue;
        }
        if let Some(rest) = trimmed.strip_prefix('[')
            && let Some((_, target)) = rest.split_once("]:")
        {
            push_target(&mut out, target);
            continue;
        }
        let mut rest = line;
        while let Some(i) = rest.find("](") {
            let after = &rest[i + 2..];
            let end = after.find(')').unwrap_or(after.len());
            push_target(&mut out, &after[..end]);
            rest = &after[end..];
        }
        let mut rest = line;
        while let Some(i) = rest.find("<http") {
            let after = &rest[i + 1..];
            let end = after.find('>').unwrap_or(after.len());
            push_target(&mut out, &after[..end]);
            rest = &after[end..];
        }
    }
    out
}

/// The target of a link as written, without its title and angle brackets.
fn push_target(out: &mut Vec<String>, written: &str) {
    let target = written.trim().trim_start_matches('<');
    let target = target
        .split_whitespace()
        .next()
        .unwrap_or("")
        .trim_end_matches('>');
    if !target.is_empty() && out.len() < MAX_LINKS * 4 {
        out.push(target.to_string());
    }
}

/// The note ids the links of a document from `base` point to, each once,
/// without the document itself.
pub fn resolve(links: &[String], base: Base<'_>) -> Vec<String> {
    let own = match &base {
        Base::File(path) => file_id(path),
        Base::Url(url) => url.to_string(),
    };
    let mut out: Vec<String> = Vec::new();
    for link in links {
        let target = match &base {
            Base::File(path) => file_target(link, path),
            Base::Url(url) => url_target(link, url),
        };
        if let Some(target) = target.filter(|t| *t != own && !out.contains(t)) {
            out.push(target);
            if out.len() >= MAX_LINKS {
                break;
            }
        }
    }
    out
}

/// A link in a file to another file that exists.
fn file_target(link: &str, from: &Path) -> Option<String> {
    let link = without_fragment(link);
    let path = match link.split_once("://") {
        Some(("file", rest)) => PathBuf::from(percent_decoded(rest)),
        Some(_) => return None,
        None if link.is_empty() || has_scheme(link) => return None,
        None if link.starts_with('/') => PathBuf::from(percent_decoded(link)),
        None => from.parent()?.join(percent_decoded(link)),
    };
    let path = lexically_normal(&path);
    let document = path
        .extension()
        .and_then(|e| e.to_str())
        .is_none_or(|e| !NOT_DOCUMENTS.contains(&e.to_ascii_lowercase().as_str()));
    (document && path.is_file()).then(|| file_id(&path))
}

/// Extensions of files a page links to that are not documents.
const NOT_DOCUMENTS: [&str; 6] = ["css", "js", "mjs", "ico", "woff", "woff2"];

/// A link in a web page to another page of the same site.
fn url_target(link: &str, from: &str) -> Option<String> {
    let link = without_fragment(link);
    let (scheme, rest) = from.split_once("://")?;
    let host_end = rest.find('/').unwrap_or(rest.len());
    let (host, path) = (&rest[..host_end], &rest[host_end..]);
    let absolute = if let Some(other) = link.strip_prefix("//") {
        format!("{scheme}://{other}")
    } else if link.starts_with("http://") || link.starts_with("https://") {
        link.to_string()
    } else if link.is_empty() || has_scheme(link) {
        return None;
    } else if link.starts_with('/') {
        format!("{scheme}://{host}{link}")
    } else {
        let dir = &path[..path.rfind('/').map_or(0, |i| i + 1)];
        let joined = lexically_normal(Path::new(&format!("{dir}{link}")));
        format!("{scheme}://{host}{}", joined.display())
    };
    let target = super::fetch::normalize(&absolute).ok()?;
    let same_site = target
        .split_once("://")
        .is_some_and(|(_, r)| r.split('/').next() == Some(&host.to_ascii_lowercase()));
    let document = Path::new(target.split('?').next().unwrap_or(""))
        .extension()
        .and_then(|e| e.to_str())
        .is_none_or(|e| !NOT_DOCUMENTS.contains(&e.to_ascii_lowercase().as_str()));
    (same_site && document).then_some(target)
}

fn without_fragment(link: &str) -> &str {
    link.split('#').next().unwrap_or("").trim()
}

/// Whether a link names a scheme (`mailto:`, `javascript:`, `data:`).
fn has_scheme(link: &str) -> bool {
    link.split_once(':').is_some_and(|(scheme, _)| {
        !scheme.is_empty()
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
            && !scheme.contains('/')
    })
}

fn percent_decoded(text: &str) -> String {
    let text = text.split('?').next().unwrap_or("");
    let bytes = keep_model::percent_decode_bytes(text);
    String::from_utf8_lossy(&bytes).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_links_are_found_outside_code() {
        let text = "See [the guide](guide.md \"Guide\") and ![map](img/map.png).\n\
                    ```\n[not](code.md)\n```\n\
                    Mail <https://example.org/a>.\n\
                    [ref]: ../notes/other.md\n";
        assert_eq!(
            markdown_links(text),
            [
                "guide.md",
                "img/map.png",
                "https://example.org/a",
                "../notes/other.md"
            ]
        );
    }

    #[test]
    fn links_resolve_to_existing_files_and_pages_of_the_same_site() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        for f in ["a.md", "b.html", "sub/c d.md", "style.css"] {
            std::fs::write(dir.path().join(f), "x").unwrap();
        }
        let a = dir.path().join("a.md");
        let links: Vec<String> = [
            "b.html#top",
            "sub/c%20d.md",
            "style.css",
            "missing.md",
            "mailto:x@y.z",
            "#local",
            "https://example.org/",
            "a.md",
            "./b.html",
        ]
        .map(String::from)
        .into();
        assert_eq!(
            resolve(&links, Base::File(&a)),
            [
                file_id(&dir.path().join("b.html")),
                file_id(&dir.path().join("sub/c d.md"))
            ]
        );
        let links: Vec<String> = [
            "../ch2.html#x",
            "/index.html",
            "https://other.org/p",
            "https://Example.org/ch3.html",
            "javascript:void(0)",
        ]
        .map(String::from)
        .into();
        assert_eq!(
            resolve(&links, Base::Url("https://example.org/book/ch1.html")),
            [
                "https://example.org/ch2.html",
                "https://example.org/index.html",
                "https://example.org/ch3.html"
            ]
        );
    }
}
