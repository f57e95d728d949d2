//! keep-commands: the typed commands that every front end runs. Each
//! command is one type: its arguments (as a request body, a query string
//! or the command line's flags give them), its run against a keeper that
//! already holds the caller's rights, and its typed result, whose JSON is
//! what `--json` prints and the JSON API answers. The command line, the
//! server and MCP stand on this layer; it knows no terminal, no argument
//! parser and no protocol.

pub mod budget;
pub mod conflicts;
pub mod context;
pub mod filter;
pub mod find;
pub mod get;
pub mod list;
pub mod log;
pub mod put;
pub mod rate;
pub mod restore;
pub mod shapes;
pub mod stats;
pub mod supersede;
pub mod tag;
pub mod trash;
pub mod why;
pub mod wire;

use keep_core::{Keeper, Result};
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;

pub use filter::Filters;

/// One command: arguments in, a typed result out. The keeper it runs on
/// holds the caller's rights, so a command has nothing to check but its
/// own arguments.
pub trait Command: DeserializeOwned + JsonSchema {
    /// What the command gives back; its JSON is the command's answer.
    type Output: Serialize + JsonSchema;

    /// Runs the command.
    fn run(self, keeper: &mut Keeper) -> Result<Self::Output>;
}

/// Runs `command` on `keeper`, saying at debug level which command ran,
/// how long it took and how it ended (never its arguments, which may hold
/// note text).
pub fn run<C: Command>(command: C, keeper: &mut Keeper) -> Result<C::Output> {
    let started = std::time::Instant::now();
    let ran = command.run(keeper);
    let name = std::any::type_name::<C>()
        .rsplit("::")
        .next()
        .unwrap_or("command");
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    match &ran {
        Ok(_) => tracing::debug!(command = name, ms, "ran"),
        Err(e) => tracing::debug!(command = name, ms, kind = ?e.kind(), "failed"),
    }
    ran
}

/// Fails, naming `id`, when it carries a version or part selector:
/// `what` says why the command takes the whole note.
pub(crate) fn plain_id(keeper: &Keeper, id: &str, what: &str) -> Result<String> {
    let target = keeper.resolve(id)?;
    match target.selector {
        Some(_) => Err(keep_core::Error::Invalid(format!("'{id}': {what}"))),
        None => Ok(target.id),
    }
}

/// A result that keeps what the core gave (for the text forms) and
/// answers in JSON as shape `$shape`, built from it by `$build`.
macro_rules! answers_as {
    ($ty:ty => $shape:ty, |$it:ident| $build:expr) => {
        impl serde::Serialize for $ty {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let $it = self;
                let shape: $shape = $build;
                shape.serialize(s)
            }
        }

        impl schemars::JsonSchema for $ty {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                <$shape as schemars::JsonSchema>::schema_name()
            }

            fn schema_id() -> std::borrow::Cow<'static, str> {
                <$shape as schemars::JsonSchema>::schema_id()
            }

            fn inline_schema() -> bool {
                <$shape as schemars::JsonSchema>::inline_schema()
            }

            fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
                <$shape as schemars::JsonSchema>::json_schema(generator)
            }
        }
    };
}
pub(crate) use answers_as;

/// Command `C`'s arguments read from a JSON object (a request's body or
/// query); a value that is not what a field takes is named by its field.
pub fn arguments<C: Command>(args: serde_json::Value) -> Result<C> {
    serde_path_to_error::deserialize(args).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        match path.as_str() {
            "." | "" => keep_core::Error::Invalid(inner.to_string()),
            field => keep_core::Error::Invalid(format!("{field}: {inner}")),
        }
    })
}
