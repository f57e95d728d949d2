//! Who is on the other end of a loopback connection: on Linux the kernel
//! names the user that owns the client's socket (asked for that one
//! socket over netlink's socket diagnostics, else read from the table of
//! TCP sockets, `/proc/net/tcp` and `/proc/net/tcp6`), so a server on a
//! loopback address can serve its own user without a token and refuse
//! every other account on the machine.

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
    diagnosed_owner(local, peer).or_else(|| {
        ["/proc/net/tcp", "/proc/net/tcp6"]
            .into_iter()
            .find_map(|table| {
                let text = std::fs::read_to_string(table).ok()?;
                owner_in(&text, local, peer)
            })
    })
}

/// The netlink family of socket diagnostics, its request, and the flag
/// of a request.
const NETLINK_SOCK_DIAG: libc::c_int = 4;
const SOCK_DIAG_BY_FAMILY: u16 = 20;
const NLM_F_REQUEST: u16 = 1;

/// A socket as socket diagnostics name it: ports and addresses in network
/// order, no interface, no cookie.
#[repr(C)]
struct SockId {
    sport: u16,
    dport: u16,
    src: [u8; 16],
    dst: [u8; 16],
    interface: u32,
    cookie: [u32; 2],
}

/// `nlmsghdr` and `inet_diag_req_v2`, one message.
#[repr(C)]
struct DiagRequest {
    len: u32,
    kind: u16,
    flags: u16,
    seq: u32,
    pid: u32,
    family: u8,
    protocol: u8,
    ext: u8,
    pad: u8,
    states: u32,
    id: SockId,
}

/// Where the uid sits in the answer: after `nlmsghdr` (16 bytes) and
/// `inet_diag_msg`'s family, state, timer, retransmits (4), its socket id
/// (48) and expires, receive and send queues (12).
const UID_AT: usize = 16 + 4 + 48 + 12;

/// Asks the kernel who owns the one socket going from `peer` to `local`.
fn diagnosed_owner(local: SocketAddr, peer: SocketAddr) -> Option<u32> {
    let (family, src, dst) = match (peer.ip(), local.ip()) {
        (IpAddr::V4(p), IpAddr::V4(l)) => {
            let (mut src, mut dst) = ([0u8; 16], [0u8; 16]);
            src[..4].copy_from_slice(&p.octets());
            dst[..4].copy_from_slice(&l.octets());
            (libc::AF_INET as u8, src, dst)
        }
        (IpAddr::V6(p), IpAddr::V6(l)) => (libc::AF_INET6 as u8, p.octets(), l.octets()),
        _ => return None,
    };
    let request = DiagRequest {
        len: std::mem::size_of::<DiagRequest>() as u32,
        kind: SOCK_DIAG_BY_FAMILY,
        flags: NLM_F_REQUEST,
        seq: 1,
        pid: 0,
        family,
        protocol: libc::IPPROTO_TCP as u8,
        ext: 0,
        pad: 0,
        states: u32::MAX,
        id: SockId {
            sport: peer.port().to_be(),
            dport: local.port().to_be(),
            src,
            dst,
            interface: 0,
            cookie: [u32::MAX; 2],
        },
    };
    let mut answer = [0u8; 1024];
    // SAFETY: a socket this function owns and closes; the request and the
    // answer are buffers of the sizes given; the timeout is a valid timeval.
    let got = unsafe {
        let fd = libc::socket(
            libc::AF_NETLINK,
            libc::SOCK_DGRAM | libc::SOCK_CLOEXEC,
            NETLINK_SOCK_DIAG,
        );
        if fd < 0 {
            return None;
        }
        let wait = libc::timeval {
            tv_sec: 1,
            tv_usec: 0,
        };
        libc::setsockopt(
            fd,
            libc::SOL_SOCKET,
            libc::SO_RCVTIMEO,
            (&wait as *const libc::timeval).cast(),
            std::mem::size_of::<libc::timeval>() as libc::socklen_t,
        );
        let sent = libc::send(
            fd,
            (&request as *const DiagRequest).cast(),
            std::mem::size_of::<DiagRequest>(),
            0,
        );
        let got = if sent > 0 {
            libc::recv(fd, answer.as_mut_ptr().cast(), answer.len(), 0)
        } else {
            -1
        };
        libc::close(fd);
        got
    };
    let got = usize::try_from(got).ok()?;
    let kind = u16::from_ne_bytes([answer[4], answer[5]]);
    if got < UID_AT + 4 || kind != SOCK_DIAG_BY_FAMILY {
        return None;
    }
    Some(u32::from_ne_bytes(
        answer[UID_AT..UID_AT + 4].try_into().ok()?,
    ))
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
        // The kernel's answer for the one socket is the table's.
        // SAFETY: getuid takes nothing and cannot fail.
        let me = unsafe { libc::getuid() };
        assert_eq!(diagnosed_owner(server, peer), Some(me));
        let text = std::fs::read_to_string("/proc/net/tcp").unwrap();
        assert_eq!(owner_in(&text, server, peer), Some(me));
        assert_eq!(
            diagnosed_owner(server, "127.0.0.1:9".parse().unwrap()),
            None
        );
    }
}
