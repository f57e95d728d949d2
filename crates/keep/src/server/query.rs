//! A request's query string, read once: its parameters in order, decoded.

use percent_encoding::percent_decode_str;

/// `text` percent-decoded (invalid UTF-8 replaced).
pub fn decode(text: &str) -> String {
    percent_decode_str(text).decode_utf8_lossy().into_owned()
}

/// The parameters of a query string, in order.
pub struct Query(Vec<(String, String)>);

impl Query {
    pub fn parse(text: &str) -> Query {
        Query(
            text.split('&')
                .filter(|p| !p.is_empty())
                .map(|pair| {
                    let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
                    (decode(&k.replace('+', " ")), decode(&v.replace('+', " ")))
                })
                .collect(),
        )
    }

    pub fn one(&self, key: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    pub fn all<'a>(&'a self, key: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.0
            .iter()
            .filter(move |(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The parameters, in order.
    pub fn pairs(&self) -> Vec<(String, String)> {
        self.0.clone()
    }
}
