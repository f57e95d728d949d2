//! The one way a value of the model can be wrong: malformed or out of
//! range (an id, a tag, a selector, a time). The message says what was
//! given and what is expected.

/// A value that cannot be taken as it is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Invalid(pub String);

impl Invalid {
    pub fn new(message: impl Into<String>) -> Self {
        Invalid(message.into())
    }
}

pub type Result<T, E = Invalid> = std::result::Result<T, E>;
