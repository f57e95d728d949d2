//! Who asks: the caller of one request (its name for the log, whether it
//! may write, the tags that bound what it may see and change, whether it
//! is the store's owner). A front end hands it to the keeper once per
//! request with `Keeper::set_caller`; the keeper then refuses what the
//! caller may not do, so no front end can forget a check.

use keep_model::{TagFilter, Tags};

use crate::error::{Error, Result};

/// The caller of a request.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Caller {
    /// The token's name; None for the store's owner (the command line,
    /// the browser, the server's socket, `keep mcp`).
    pub token: Option<String>,
    /// May only read: its reads write nothing, not even access times.
    pub read_only: bool,
    /// Tags every note it reads carries and every note it writes gets;
    /// empty: the whole store.
    pub scope: Tags,
}

impl Caller {
    /// The store's owner: every right, the whole store.
    pub fn owner() -> Self {
        Caller::default()
    }

    /// The owner confined to `scope` (`keep mcp --scope`, `keep serve
    /// --scope`).
    pub fn scoped(scope: Tags) -> Self {
        Caller {
            scope,
            ..Caller::default()
        }
    }

    /// This caller with `more` tags added to its scope (a server's own
    /// scope under a token's).
    pub fn within(mut self, more: &Tags) -> Self {
        self.scope.merge(more);
        self
    }

    /// The name the log and refusals give this caller.
    pub fn name(&self) -> &str {
        self.token.as_deref().unwrap_or("owner")
    }

    /// Whether it holds every right over the whole store.
    pub fn is_owner(&self) -> bool {
        self.token.is_none() && !self.read_only && self.scope.is_empty()
    }

    /// Whether it sees the whole store (no scope), whatever it may write.
    pub fn sees_everything(&self) -> bool {
        self.scope.is_empty()
    }

    /// Whether a note tagged `tags` lies inside its scope.
    pub fn covers(&self, tags: &Tags) -> bool {
        self.scope.pairs().all(|(k, v)| tags.contains(k, v))
    }

    /// Its scope as filters, for listings, recall and writes.
    pub fn filters(&self) -> Vec<TagFilter> {
        self.scope
            .pairs()
            .map(|(k, v)| TagFilter {
                key: k.to_string(),
                value: Some(v.to_string()),
            })
            .collect()
    }

    /// Refuses a write (`what`) to a read-only caller.
    pub fn may_write(&self, what: &str) -> Result<()> {
        if self.read_only {
            return Err(Error::Forbidden(format!(
                "the token '{}' may only read: {what} writes",
                self.name()
            )));
        }
        Ok(())
    }

    /// Refuses what only the owner of the whole store may do (`what`):
    /// tokens, watched folders, imports, counts of the whole store.
    pub fn must_own(&self, what: &str) -> Result<()> {
        self.may_write(what)?;
        if self.token.is_some() || !self.scope.is_empty() {
            return Err(Error::Forbidden(format!(
                "{what} reaches the whole store, and '{}' is confined to {}",
                self.name(),
                self.scope_text()
            )));
        }
        Ok(())
    }

    /// Refuses a read (`what`) of the whole store to a scoped caller.
    pub fn must_see_everything(&self, what: &str) -> Result<()> {
        if !self.scope.is_empty() {
            return Err(Error::Forbidden(format!(
                "{what} counts the whole store, and '{}' is confined to {}",
                self.name(),
                self.scope_text()
            )));
        }
        Ok(())
    }

    /// User tags for a write, with the scope's tags added. Another value
    /// for a scope key would make the note visible to another scope, so
    /// it is refused.
    pub fn scoped_tags(&self, mut tags: Tags) -> Result<Tags> {
        self.refuses_foreign_values(&tags)?;
        tags.merge(&self.scope);
        Ok(tags)
    }

    /// Refuses tags that give a scope key another value than the scope's.
    pub fn refuses_foreign_values(&self, tags: &Tags) -> Result<()> {
        for (key, value) in self.scope.pairs() {
            if let Some(other) = tags.values(key).find(|v| *v != value) {
                return Err(Error::Forbidden(format!(
                    "tag '{key}={other}' is outside the scope of '{}' ({key}={value})",
                    self.name()
                )));
            }
        }
        Ok(())
    }

    /// Refuses the removal of a key (or one value of it) of the scope:
    /// the note would leave the caller's sight.
    pub fn refuses_leaving(&self, keys: &[String], values: &[(String, String)]) -> Result<()> {
        let leaves = keys.iter().any(|k| self.scope.contains_key(k))
            || values.iter().any(|(k, v)| self.scope.contains(k, v));
        if leaves {
            return Err(Error::Forbidden(format!(
                "the tags of the scope of '{}' ({}) cannot be removed",
                self.name(),
                self.scope_text()
            )));
        }
        Ok(())
    }

    fn scope_text(&self) -> String {
        self.scope
            .pairs()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(name: &str) -> Tags {
        let mut tags = Tags::new();
        tags.insert("project", name);
        tags
    }

    fn token(scope: Tags) -> Caller {
        Caller {
            token: Some("teama".into()),
            read_only: false,
            scope,
        }
    }

    #[test]
    fn the_owner_may_do_everything() {
        let owner = Caller::owner();
        assert!(owner.is_owner());
        assert!(owner.covers(&Tags::new()));
        assert!(owner.must_own("import").is_ok());
        assert!(owner.scoped_tags(project("b")).is_ok());
    }

    #[test]
    fn a_scoped_caller_sees_and_tags_only_its_scope() {
        let a = token(project("a"));
        assert!(a.covers(&project("a")));
        assert!(!a.covers(&project("b")));
        assert!(!a.covers(&Tags::new()));
        assert!(matches!(
            a.scoped_tags(project("b")),
            Err(Error::Forbidden(_))
        ));
        assert_eq!(a.scoped_tags(Tags::new()).ok(), Some(project("a")));
        assert!(a.refuses_leaving(&["project".into()], &[]).is_err());
        assert!(
            a.refuses_leaving(&[], &[("project".into(), "a".into())])
                .is_err()
        );
        assert!(a.refuses_leaving(&["topic".into()], &[]).is_ok());
        assert!(a.must_own("import").is_err());
        assert!(a.must_see_everything("stats").is_err());
    }

    #[test]
    fn a_reader_writes_nothing() {
        let ro = Caller {
            token: Some("ro".into()),
            read_only: true,
            scope: Tags::new(),
        };
        assert!(matches!(ro.may_write("put"), Err(Error::Forbidden(_))));
        assert!(ro.must_see_everything("stats").is_ok());
        assert!(ro.must_own("token add").is_err());
    }
}
