//! Who may talk to the viewer: the listen address must be loopback unless remote access was
//! asked for, and every request must name a loopback host, which defeats DNS rebinding (a web
//! page whose name resolves to 127.0.0.1 still sends its own name in `Host`).

use std::net::{IpAddr, SocketAddr, ToSocketAddrs};

/// Whether a `Host` header value (or URI authority) names the loopback interface: `localhost`
/// or a loopback IP literal (`127.0.0.0/8`, `[::1]`), with or without a port.
pub fn is_loopback_host(host: &str) -> bool {
    let host = host.trim();
    let name = if let Some(rest) = host.strip_prefix('[') {
        // `[v6]` or `[v6]:port`
        let Some((inside, after)) = rest.split_once(']') else {
            return false;
        };
        if !(after.is_empty() || after.strip_prefix(':').is_some_and(is_port)) {
            return false;
        }
        return inside
            .parse::<std::net::Ipv6Addr>()
            .is_ok_and(|ip| ip.is_loopback());
    } else {
        match host.split_once(':') {
            Some((name, port)) if is_port(port) => name,
            Some(_) => return false,
            None => host,
        }
    };
    // A trailing dot names the same host (`localhost.`).
    let name = name.strip_suffix('.').unwrap_or(name);
    name.eq_ignore_ascii_case("localhost")
        || name
            .parse::<std::net::Ipv4Addr>()
            .is_ok_and(|ip| ip.is_loopback())
}

fn is_port(s: &str) -> bool {
    !s.is_empty() && s.len() <= 5 && s.bytes().all(|b| b.is_ascii_digit())
}

/// Where the viewer may listen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListenAddrs {
    /// The addresses `HOST:PORT` resolved to, loopback ones first.
    pub addrs: Vec<SocketAddr>,
    /// Whether any of them is reachable from other machines.
    pub remote: bool,
}

/// What is wrong with a listen address.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AddrError {
    /// Not `HOST:PORT`, or the host does not resolve.
    #[error("--addr {addr:?} is not a HOST:PORT address this machine can listen on: {reason}")]
    Invalid {
        /// As given.
        addr: String,
        /// Why.
        reason: String,
    },
    /// A non-loopback address without `--allow-remote`.
    #[error("--addr {addr} is not a loopback address: other machines could read the whole vault")]
    NotLoopback {
        /// As given.
        addr: String,
    },
}

/// Resolve `HOST:PORT` (`:PORT` means every interface) and check that it is loopback unless
/// `allow_remote` is set.
pub fn listen_addrs(addr: &str, allow_remote: bool) -> Result<ListenAddrs, AddrError> {
    let spec = if addr.starts_with(':') {
        format!("0.0.0.0{addr}")
    } else {
        addr.to_string()
    };
    let invalid = |reason: String| AddrError::Invalid {
        addr: addr.to_string(),
        reason,
    };
    let mut addrs: Vec<SocketAddr> = spec
        .to_socket_addrs()
        .map_err(|e| invalid(e.to_string()))?
        .collect();
    if addrs.is_empty() {
        return Err(invalid("it resolves to no address".into()));
    }
    addrs.sort_by_key(|a| !is_loopback(a.ip()));
    addrs.dedup();
    let remote = addrs.iter().any(|a| !is_loopback(a.ip()));
    if remote && !allow_remote {
        return Err(AddrError::NotLoopback {
            addr: addr.to_string(),
        });
    }
    Ok(ListenAddrs { addrs, remote })
}

fn is_loopback(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => v4.is_loopback(),
        IpAddr::V6(v6) => {
            v6.is_loopback() || v6.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_hosts_pass_with_any_port() {
        for ok in [
            "localhost",
            "LOCALHOST:3030",
            "localhost.:80",
            "127.0.0.1",
            "127.0.0.1:3030",
            "127.1.2.3:1",
            "[::1]",
            "[::1]:3030",
        ] {
            assert!(is_loopback_host(ok), "{ok}");
        }
    }

    #[test]
    fn other_hosts_are_refused() {
        for bad in [
            "",
            "evil.example",
            "evil.example:3030",
            "localhost.evil.example",
            "127.0.0.1.nip.io:3030",
            "10.0.0.1:3030",
            "0.0.0.0:3030",
            "[::]:3030",
            "[::1",
            "[::1]x",
            "::1",
            "localhost:",
            "localhost:abc",
            "localhost:3030:1",
            "127.0.0.1@evil.example",
        ] {
            assert!(!is_loopback_host(bad), "{bad}");
        }
    }

    #[test]
    fn listen_addresses() {
        let l = listen_addrs("127.0.0.1:3030", false).unwrap();
        assert!(!l.remote);
        assert_eq!(l.addrs[0].port(), 3030);
        assert!(listen_addrs("[::1]:0", false).is_ok());
        assert!(listen_addrs("localhost:0", false).is_ok());
        assert_eq!(
            listen_addrs("0.0.0.0:3030", false),
            Err(AddrError::NotLoopback {
                addr: "0.0.0.0:3030".into()
            })
        );
        assert!(matches!(
            listen_addrs(":3030", false),
            Err(AddrError::NotLoopback { .. })
        ));
        assert!(listen_addrs("0.0.0.0:3030", true).unwrap().remote);
        assert!(matches!(
            listen_addrs("3030", false),
            Err(AddrError::Invalid { .. })
        ));
    }
}
