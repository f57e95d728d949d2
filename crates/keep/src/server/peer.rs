//! Who is on the other end of a loopback connection: on Linux the kernel's
//! table of TCP sockets (`/proc/net/tcp`, `/proc/net/tcp6`) names the
//! user that owns the client's socket, so a server on a loopback address
//! can serve its own user without a token and refuse every other account
//! on the machine.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

/// Whether the client at `peer`, connected to this server at `local`,
/// runs as this process's user. False when the table cannot be read or
/// holds no such connection: the client then needs a token.
pub fn is_this_user(local: SocketAddr, peer: SocketAddr) -> bool {
    // SAFETY: getuid takes nothing and cannot fail.
    let me = unsafe { libc::getuid() };
    owner_of(local, peer).is_some_and(|uid| uid == me)
}

/// The uid owning the client's end of the connection `peer` → `local`.
fn owner_of(local: SocketAddr, peer: SocketAddr) -> Option<u32> {
    ["/proc/net/tcp", "/proc/net/tcp6"]
        .into_iter()
        .find_map(|table| {
            let text = std::fs::read_to_string(table).ok()?;
            owner_in(&text, local, peer)
        })
}

/// The uid of the row of `table` whose local end is `peer` and remote end
/// is `local`.
fn owner_in(table: &str, local: SocketAddr, peer: SocketAddr) -> Option<u32> {
    table.lines().skip(1).find_map(|row| {
        let fields: Vec<&str> = row.split_whitespace().collect();
        let (ours, theirs, uid) = (fields.get(1)?, fields.get(2)?, fields.get(7)?);
        (same(address(ours)?, peer) && same(address(theirs)?, local)).then(|| uid.parse().ok())?
    })
}

/// Whether two addresses are one, an IPv4 address and its IPv6-mapped
/// form alike.
fn same(a: SocketAddr, b: SocketAddr) -> bool {
    let plain = |ip: IpAddr| match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    };
    a.port() == b.port() && plain(a.ip()) == plain(b.ip())
}

/// An address of the table: hex words in the machine's byte order, a
/// colon, and the port in hex.
fn address(text: &str) -> Option<SocketAddr> {
    let (host, port) = text.split_once(':')?;
    let port = u16::from_str_radix(port, 16).ok()?;
    let word = |hex: &str| u32::from_str_radix(hex, 16).ok().map(u32::to_ne_bytes);
    let ip = match host.len() {
        8 => IpAddr::V4(Ipv4Addr::from(word(host)?)),
        32 => {
            let mut bytes = [0u8; 16];
            for (i, chunk) in bytes.chunks_mut(4).enumerate() {
                chunk.copy_from_slice(&word(host.get(i * 8..i * 8 + 8)?)?);
            }
            IpAddr::V6(Ipv6Addr::from(bytes))
        }
        _ => return None,
    };
    Some(SocketAddr::new(ip, port))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_owner_of_a_loopback_connection_is_read_from_the_table() {
        let table = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1CE1 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1 1 0 100 0 0 10 0
   1: 0100007F:A4B2 0100007F:1CE1 01 00000000:00000000 00:00000000 00000000 65534        0 2 1 0 20 4 30 10 -1
   2: 0100007F:1CE1 0100007F:A4B2 01 00000000:00000000 00:00000000 00000000     0        0 3 1 0 20 4 30 10 -1";
        let server: SocketAddr = "127.0.0.1:7393".parse().unwrap();
        let client: SocketAddr = "127.0.0.1:42162".parse().unwrap();
        assert_eq!(owner_in(table, server, client), Some(65534));
        assert_eq!(
            owner_in(table, server, "127.0.0.1:1".parse().unwrap()),
            None
        );
        let six = "  sl  local_address remote_address st
   0: 00000000000000000000000001000000:A4B2 00000000000000000000000001000000:1CE1 01 0:0 0:0 0 1000 0 5";
        let server: SocketAddr = "[::1]:7393".parse().unwrap();
        let client: SocketAddr = "[::1]:42162".parse().unwrap();
        assert_eq!(owner_in(six, server, client), Some(1000));
    }

    #[test]
    fn a_connection_of_this_process_is_its_users() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let server = listener.local_addr().unwrap();
        let client = std::net::TcpStream::connect(server).unwrap();
        let (_, peer) = listener.accept().unwrap();
        assert_eq!(peer, client.local_addr().unwrap());
        assert!(is_this_user(server, peer));
    }
}
