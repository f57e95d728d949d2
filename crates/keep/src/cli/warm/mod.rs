//! The command line answered warm by a running `keep serve`: the store's
//! socket (`socket`, the server's side: each command run with a warm
//! keeper, its output streamed back), the frames both sides speak
//! (`wire`), and the client that offers a command to it (`remote`).

pub mod remote;
pub mod socket;
pub mod wire;
