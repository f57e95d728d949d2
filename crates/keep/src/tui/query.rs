//! The search bar's little language: free text for recall, plus `#key`,
//! `#key=value`, `since:P7D`, `until:2026-11-01`, `in:GLOB` and `id:ID`.

/// A parsed search bar.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Query {
    /// Words for recall; empty when only filters were given.
    pub text: String,
    /// `key` or `key=value`, as `keep find -t` takes them.
    pub tags: Vec<String>,
    pub since: Option<String>,
    pub until: Option<String>,
    /// An id prefix or glob (`in:`).
    pub scope: Option<String>,
    /// One note by its exact id (`id:`), as edges are followed.
    pub id: Option<String>,
}

impl Query {
    pub fn parse(input: &str) -> Result<Self, String> {
        let mut query = Query::default();
        let mut words = Vec::new();
        for word in input.split_whitespace() {
            if let Some(tag) = word.strip_prefix('#') {
                if tag.is_empty() || tag.starts_with('=') {
                    continue;
                }
                if tag.starts_with('_') {
                    return Err(format!("'#{tag}': keys starting with '_' are keep's own"));
                }
                query.tags.push(tag.to_string());
            } else if let Some(bound) = word.strip_prefix("since:") {
                query.since = Some(bound.to_string()).filter(|b| !b.is_empty());
            } else if let Some(bound) = word.strip_prefix("until:") {
                query.until = Some(bound.to_string()).filter(|b| !b.is_empty());
            } else if let Some(scope) = word.strip_prefix("in:") {
                query.scope = Some(scope.to_string()).filter(|s| !s.is_empty());
            } else if let Some(id) = word.strip_prefix("id:") {
                query.id = Some(id.to_string()).filter(|s| !s.is_empty());
            } else {
                words.push(word);
            }
        }
        query.text = words.join(" ");
        Ok(query)
    }

    /// True when the query has words to rank by.
    pub fn has_text(&self) -> bool {
        !self.text.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::Query;

    #[test]
    fn separates_filters_from_words() {
        let q = Query::parse("tide pools #topic=sea #draft since:P7D in:file:* until:2026-12-01")
            .unwrap();
        assert_eq!(q.text, "tide pools");
        assert_eq!(q.tags, vec!["topic=sea", "draft"]);
        assert_eq!(q.since.as_deref(), Some("P7D"));
        assert_eq!(q.until.as_deref(), Some("2026-12-01"));
        assert_eq!(q.scope.as_deref(), Some("file:*"));
        assert!(q.has_text());
    }

    #[test]
    fn a_half_typed_filter_is_ignored_and_system_keys_refused() {
        let q = Query::parse("notes # since:").unwrap();
        assert_eq!(q.text, "notes");
        assert!(q.tags.is_empty() && q.since.is_none());
        assert!(Query::parse("#_source=x").unwrap_err().contains("'_'"));
    }

    #[test]
    fn id_selects_one_note() {
        let q = Query::parse("id:alice").unwrap();
        assert_eq!(q.id.as_deref(), Some("alice"));
        assert!(!q.has_text());
    }
}
