//! Where a command reads standard input: this process's own, or the bytes
//! a client of `keep serve` sends with its command.

use std::io::{self, IsTerminal, Read};

use super::CliError;

pub struct Stdin {
    /// None for this process's standard input.
    sent: Option<Box<dyn Read + Send>>,
    terminal: bool,
}

impl Stdin {
    /// This process's standard input.
    pub fn process() -> Self {
        Stdin {
            sent: None,
            terminal: io::stdin().is_terminal(),
        }
    }

    /// Input another process reads for this one; `terminal` says whether
    /// its own standard input is a terminal.
    pub fn sent(reader: Box<dyn Read + Send>, terminal: bool) -> Self {
        Stdin {
            sent: Some(reader),
            terminal,
        }
    }

    pub fn is_terminal(&self) -> bool {
        self.terminal
    }

    /// The input as a reader.
    pub fn reader(&mut self) -> Box<dyn Read + '_> {
        match &mut self.sent {
            Some(reader) => Box::new(reader),
            None => Box::new(io::stdin().lock()),
        }
    }

    /// Reads the input whole; it must be UTF-8.
    pub fn read_text(&mut self) -> Result<String, CliError> {
        let mut bytes = Vec::new();
        self.reader().read_to_end(&mut bytes)?;
        String::from_utf8(bytes).map_err(|e| {
            CliError::Usage(format!(
                "standard input is not valid UTF-8 (byte {})",
                e.utf8_error().valid_up_to()
            ))
        })
    }
}
