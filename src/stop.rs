//! When a long-running front end (`serve`, `view`) is asked to stop: Ctrl-C (SIGINT) or
//! SIGTERM. They end cleanly, exit 0, after what they were doing; a command that writes is
//! interrupted differently (see the CLI's `interrupt`).

/// Wait until the process is asked to stop.
pub async fn requested() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
