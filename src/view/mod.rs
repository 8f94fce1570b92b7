//! `sparks view`: a read-only local website of the vault. This module owns the HTTP side:
//! binding (loopback only unless asked), the request guard (loopback `Host` headers only, GET
//! and HEAD only), the security headers every response carries, and handing each request to
//! [`routes::dispatch`] on a blocking thread. What a route shows is decided in [`routes`] and
//! [`files`] over plain values; Markdown becomes HTML in [`crate::render`] (what the viewer and
//! a published site both show), made safe by its sanitiser; a request's path is decoded in
//! [`paths`] and made safe by [`crate::render::paths`]. Nothing here writes to the vault or
//! prints: the CLI passes a log callback.

mod captures;
mod copies;
mod files;
pub mod graph;
pub mod guard;
pub mod html;
mod listing;
pub mod live;
pub mod page;
pub mod paths;
pub mod routes;
pub mod search;
pub mod site;

pub use guard::AddrError;
pub use site::{Reply, Site};

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The Content-Security-Policy of every page: no inline script, nothing from elsewhere.
pub const CSP: &str = "default-src 'self'; script-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

/// One request, for the log.
#[derive(Debug, Clone)]
pub struct RequestLog {
    /// The method.
    pub method: String,
    /// The path and query, as sent.
    pub target: String,
    /// The status answered.
    pub status: u16,
    /// How long it took.
    pub duration: Duration,
}

/// A callback that receives every request after it is answered.
pub type Logger = Arc<dyn Fn(&RequestLog) + Send + Sync>;

/// How the server behaves.
#[derive(Clone, Default)]
pub struct Options {
    /// Accept any `Host` header (the listener may also be non-loopback).
    pub allow_remote: bool,
    /// Called once per request.
    pub log: Option<Logger>,
    /// The changes the vault's watcher applies, as they come (`None` with `--no-watch`): what
    /// `GET /events` tells open pages.
    pub changes: Option<tokio::sync::broadcast::Sender<crate::watch::Applied>>,
}

/// The viewer could not start or stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum ViewError {
    /// The listen address is wrong or not allowed.
    #[error(transparent)]
    Addr(#[from] AddrError),
    /// Binding failed.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: String,
        /// The cause.
        source: std::io::Error,
    },
    /// Another program listens on the port already.
    #[error("cannot listen on {addr}: port {port} is in use")]
    InUse {
        /// The address.
        addr: String,
        /// Its port.
        port: u16,
    },
    /// The async runtime or the server failed.
    #[error("the viewer failed: {0}")]
    Server(std::io::Error),
}

impl crate::failure::Hint for ViewError {
    /// What the user can do about it.
    fn hint(&self) -> Option<crate::failure::Advice> {
        match self {
            ViewError::Addr(AddrError::NotLoopback { .. }) => Some(
                "pass --allow-remote to listen there anyway, or use a loopback address such as 127.0.0.1:3030".into(),
            ),
            _ => None,
        }
    }
}

/// A bound listener, not yet serving.
#[derive(Debug)]
pub struct Bound {
    listener: std::net::TcpListener,
    /// The address actually bound (the port chosen, for port 0).
    pub local: SocketAddr,
    /// Whether the address is reachable from other machines.
    pub remote: bool,
}

impl Bound {
    /// The URL to open in a browser: loopback for a wildcard address.
    pub fn url(&self) -> String {
        let mut a = self.local;
        if a.ip().is_unspecified() {
            a.set_ip(std::net::Ipv4Addr::LOCALHOST.into());
        }
        format!("http://{a}")
    }
}

/// Bind `addr` (`HOST:PORT`); a non-loopback address needs `allow_remote`.
pub fn bind(addr: &str, allow_remote: bool) -> Result<Bound, ViewError> {
    let l = guard::listen_addrs(addr, allow_remote)?;
    let mut last = None;
    for a in &l.addrs {
        match std::net::TcpListener::bind(a) {
            Ok(listener) => {
                let local = listener.local_addr().map_err(|source| ViewError::Bind {
                    addr: addr.to_string(),
                    source,
                })?;
                return Ok(Bound {
                    listener,
                    local,
                    remote: l.remote,
                });
            }
            Err(e) => last = Some(e),
        }
    }
    let source = last.unwrap_or_else(|| std::io::Error::other("no address to bind"));
    match (source.kind(), l.addrs.first()) {
        (std::io::ErrorKind::AddrInUse, Some(a)) => Err(ViewError::InUse {
            addr: addr.to_string(),
            port: a.port(),
        }),
        _ => Err(ViewError::Bind {
            addr: addr.to_string(),
            source,
        }),
    }
}

struct App {
    site: Site,
    options: Options,
    /// Turns true when the server is asked to stop: open event streams end, so that the
    /// requests in flight finish.
    stopping: tokio::sync::watch::Receiver<bool>,
}

/// Serve `site` on `bound` until SIGINT or SIGTERM, then finish the requests in flight.
pub fn serve(bound: Bound, site: Site, options: Options) -> Result<(), ViewError> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(ViewError::Server)?;
    bound
        .listener
        .set_nonblocking(true)
        .map_err(ViewError::Server)?;
    let (stop, stopping) = tokio::sync::watch::channel(false);
    let site = site.with_live(options.changes.is_some());
    let app = Arc::new(App {
        site,
        options,
        stopping,
    });
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::from_std(bound.listener)?;
        let router = axum::Router::new().fallback(handle).with_state(app);
        axum::serve(listener, router)
            .with_graceful_shutdown(async move {
                crate::stop::requested().await;
                let _ = stop.send(true);
            })
            .await
    })
    .map_err(ViewError::Server)
}

async fn handle(State(app): State<Arc<App>>, req: Request) -> Response {
    let started = Instant::now();
    let method = req.method().clone();
    let target = req
        .uri()
        .path_and_query()
        .map_or_else(|| req.uri().path().to_string(), |p| p.as_str().to_string());
    let reply = if !app.options.allow_remote && !host_is_loopback(&req) {
        plain(
            403,
            "403 forbidden: this viewer answers only to localhost\n",
        )
    } else if method != Method::GET && method != Method::HEAD {
        let mut r = plain(405, "405 method not allowed\n");
        r.headers.push(("allow", "GET, HEAD".into()));
        r
    } else if let ("/events", Some(changes)) = (req.uri().path(), &app.options.changes) {
        let response = if method == Method::HEAD {
            response(
                Reply {
                    status: 200,
                    content_type: "text/event-stream",
                    body: Vec::new(),
                    headers: Vec::new(),
                },
                true,
            )
        } else {
            events(&app, changes)
        };
        if let Some(log) = &app.options.log {
            log(&RequestLog {
                method: method.to_string(),
                target,
                status: response.status().as_u16(),
                duration: started.elapsed(),
            });
        }
        return response;
    } else {
        let app2 = app.clone();
        let path = req.uri().path().to_string();
        let query = req.uri().query().map(str::to_string);
        tokio::task::spawn_blocking(move || routes::dispatch(&app2.site, &path, query.as_deref()))
            .await
            .unwrap_or_else(|_| app.site.failed("the request failed"))
    };
    let status = reply.status;
    let response = response(reply, method == Method::HEAD);
    if let Some(log) = &app.options.log {
        log(&RequestLog {
            method: method.to_string(),
            target,
            status,
            duration: started.elapsed(),
        });
    }
    response
}

/// The `Host` header (and an absolute-form request's authority) must name loopback.
fn host_is_loopback(req: &Request) -> bool {
    let header_ok = req
        .headers()
        .get_all(header::HOST)
        .iter()
        .map(|h| h.to_str().is_ok_and(guard::is_loopback_host))
        .collect::<Vec<_>>();
    let authority_ok = req
        .uri()
        .authority()
        .is_none_or(|a| guard::is_loopback_host(a.as_str()));
    // Exactly one Host header, and it names loopback.
    header_ok == [true] && authority_ok
}

fn plain(status: u16, text: &str) -> Reply {
    Reply {
        status,
        content_type: "text/plain; charset=utf-8",
        body: text.as_bytes().to_vec(),
        headers: Vec::new(),
    }
}

/// `GET /events`: one server-sent event `change` per change the watcher applies (see
/// [`live`]), until the client goes or the server is asked to stop. A comment every 15 s keeps
/// idle connections open through proxies and tells a client whose viewer died.
fn events(
    app: &Arc<App>,
    changes: &tokio::sync::broadcast::Sender<crate::watch::Applied>,
) -> Response {
    use tokio::sync::broadcast::error::RecvError;
    let state = (changes.subscribe(), app.stopping.clone(), app.site.clone());
    let stream = futures_util::stream::unfold(state, |(mut rx, mut stopping, site)| async move {
        if *stopping.borrow_and_update() {
            return None;
        }
        let change = tokio::select! {
            r = rx.recv() => match r {
                Ok(applied) => {
                    let at = site.clone();
                    tokio::task::spawn_blocking(move || live::Change::of(&at, &applied))
                        .await
                        .unwrap_or_else(|_| live::Change::missed())
                }
                Err(RecvError::Lagged(_)) => live::Change::missed(),
                Err(RecvError::Closed) => return None,
            },
            _ = stopping.changed() => return None,
        };
        let data = serde_json::to_string(&change).unwrap_or_default();
        let event = Event::default().event("change").data(data);
        Some((Ok::<_, Infallible>(event), (rx, stopping, site)))
    });
    let mut res = Sse::new(stream)
        .keep_alive(KeepAlive::default())
        .into_response();
    secure(res.headers_mut());
    res
}

/// A [`Reply`] with the security headers every response carries.
fn response(reply: Reply, head: bool) -> Response {
    let len = reply.body.len();
    let body = if head {
        Body::empty()
    } else {
        Body::from(reply.body)
    };
    let mut res = Response::new(body);
    *res.status_mut() =
        StatusCode::from_u16(reply.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let h = res.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(reply.content_type),
    );
    h.insert(header::CONTENT_LENGTH, HeaderValue::from(len));
    secure(h);
    for (name, value) in reply.headers {
        if let Ok(v) = HeaderValue::from_str(&value) {
            h.insert(name, v);
        }
    }
    res
}

/// The security headers every response carries (a reply's own headers may replace them).
fn secure(h: &mut HeaderMap) {
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
}
