//! Fetching a URL for `put URL`: http and https only, an overall time
//! limit from the settings, at most 5
//! redirects, a size cap on the body, and the id as the normalised URL
//! (lower-case scheme and host, no fragment, no default port).

use std::time::Duration;

use crate::error::{Error, Result};

pub const MAX_REDIRECTS: u32 = 5;
pub const MAX_BODY_BYTES: u64 = 64 * 1024 * 1024;

/// True for arguments that look like URLs `put` should fetch.
pub fn is_url(arg: &str) -> bool {
    let lower = arg.to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://")
}

/// The id of a URL: scheme and host lower-cased, the fragment and a default
/// port dropped, an empty path made "/".
pub fn normalize(url: &str) -> Result<String> {
    let bad = || Error::invalid(format!("'{url}' is not a valid http(s) URL"));
    let (scheme, rest) = url.split_once("://").ok_or_else(bad)?;
    let scheme = scheme.to_ascii_lowercase();
    if scheme != "http" && scheme != "https" {
        return Err(bad());
    }
    let rest = rest.split('#').next().unwrap_or("");
    let (authority, path) = match rest.find(['/', '?']) {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    if authority.is_empty() || authority.contains(char::is_whitespace) {
        return Err(bad());
    }
    let mut host = authority.to_ascii_lowercase();
    let default_port = if scheme == "http" { ":80" } else { ":443" };
    if let Some(stripped) = host.strip_suffix(default_port) {
        host = stripped.to_string();
    }
    let path = if path.is_empty() || path.starts_with('?') {
        format!("/{path}")
    } else {
        path.to_string()
    };
    Ok(format!("{scheme}://{host}{path}"))
}

/// Downloads `url` within the limits, taking at most `limit` in all.
pub fn fetch(url: &str, limit: Duration) -> Result<Vec<u8>> {
    let failed = |reason: String| Error::Fetch {
        url: url.to_string(),
        reason,
    };
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(limit))
        .max_redirects(MAX_REDIRECTS)
        .user_agent(concat!("keep/", env!("CARGO_PKG_VERSION")))
        .build()
        .into();
    let mut response = agent.get(url).call().map_err(|e| match e {
        ureq::Error::StatusCode(code) => failed(format!("the server answered HTTP {code}")),
        ureq::Error::Timeout(_) => failed(format!("timed out after {} s", limit.as_secs_f64())),
        ureq::Error::TooManyRedirects => failed(format!("more than {MAX_REDIRECTS} redirects")),
        other => failed(other.to_string()),
    })?;
    let bytes = response
        .body_mut()
        .with_config()
        .limit(MAX_BODY_BYTES)
        .read_to_vec()
        .map_err(|e| match e {
            ureq::Error::BodyExceedsLimit(_) => {
                failed(format!("the body is larger than {MAX_BODY_BYTES} bytes"))
            }
            ureq::Error::Timeout(_) => failed(format!("timed out after {} s", limit.as_secs_f64())),
            other => failed(other.to_string()),
        })?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_normalised() {
        assert_eq!(
            normalize("HTTPS://Example.COM:443/a/B?q=1#frag").unwrap(),
            "https://example.com/a/B?q=1"
        );
        assert_eq!(
            normalize("http://example.com").unwrap(),
            "http://example.com/"
        );
        assert_eq!(
            normalize("http://example.com:8080?x").unwrap(),
            "http://example.com:8080/?x"
        );
        assert!(normalize("ftp://example.com/").is_err());
        assert!(normalize("http:///path").is_err());
    }
}
