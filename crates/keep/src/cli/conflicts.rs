//! `keep conflicts`: live notes that give two values for one subject.

use keep_commands::conflicts::Conflicts;
use keep_core::keeper::Conflict;

use super::filter::FilterArgs;
use super::output::Format;
use super::{CliResult, Ctx, Status};

/// List pairs of live notes that look like two values for one subject.
///
/// Two Wi-Fi passwords, two launch dates: the pairs 'put' linked as a
/// probable update (may-supersede), then pairs found among the 2,000
/// newest notes by their vectors and the verdict 'put' gives (the same
/// subject, another number, date, name or word). Each pair shows what
/// tells them apart and the one command that resolves it: 'keep
/// supersede NEWER OLDER' hides the older from recall. Notes still
/// waiting for their vector are compared too: their vectors are made on
/// the spot, as 'put' makes them for its check, which loads the embedding
/// model (only then); with no model installed they are compared once the
/// background embedder has given them one. Notes superseded, expired or
/// in the trash are left out.
#[derive(Debug, clap::Args, serde::Serialize, serde::Deserialize)]
pub struct Args {
    #[command(flatten)]
    pub filter: FilterArgs,

    /// Show at most N pairs
    #[arg(short = 'n', long, value_name = "N", default_value_t = 20)]
    pub limit: usize,
}

pub fn run(ctx: &mut Ctx, args: Args) -> CliResult {
    let conflicts = ctx.run(Conflicts {
        filters: args.filter.filters(),
        limit: args.limit,
    })?;
    match ctx.format {
        Format::Json => ctx.out.json(&conflicts)?,
        Format::Ids => {
            for c in &conflicts {
                ctx.out.line(&format!("{}\t{}", c.newer, c.older))?;
            }
        }
        Format::Text => {
            for c in &conflicts {
                ctx.out.line(&line(c))?;
            }
        }
    }
    Ok(Status::Success)
}

/// `NEWER ≠ OLDER: what differs` and the command that resolves it.
fn line(c: &Conflict) -> String {
    format!(
        "{} ≠ {}: {}\n  keep supersede {} {}",
        c.newer,
        c.older,
        c.differences.join("; "),
        super::shell_quote(&c.newer),
        super::shell_quote(&c.older)
    )
}
