//! Waiting, on a thread of its own, for the user to stop a command: what `interrupt` (a
//! command that writes) and `watch` wait for. The one place of the CLI that knows how each
//! system asks a process to stop.
//!
//! On unix (Linux, macOS): Ctrl-C (SIGINT) and SIGTERM, through signal-hook's iterator.
//! Elsewhere (Windows): Ctrl-C alone, through tokio's console handler on a small runtime of
//! its own. Windows has no SIGTERM to catch: `taskkill /F` (or Task Manager) ends the process
//! as a kill would, and closing the console window is not caught either; every step of every
//! command survives that, but no line says what stopped.

use crate::cli::exit::Exit;

/// How the user asked the process to stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// Ctrl-C (SIGINT on unix).
    Interrupt,
    /// SIGTERM (unix only).
    #[cfg_attr(not(unix), allow(dead_code))]
    Terminate,
}

impl Stop {
    /// The name said in the line that tells what stopped.
    pub fn name(self) -> &'static str {
        match self {
            Stop::Interrupt if cfg!(unix) => "SIGINT",
            Stop::Interrupt => "Ctrl-C",
            Stop::Terminate => "SIGTERM",
        }
    }

    /// The exit status, as shells report a process their signal ended.
    pub fn exit(self) -> Exit {
        match self {
            Stop::Interrupt => Exit::Interrupted,
            Stop::Terminate => Exit::Terminated,
        }
    }
}

/// The ways to stop this process, caught from [`Stops::catch`] on: until then, and if it
/// fails, a stop ends the process as it would any program.
pub struct Stops(imp::Stops);

impl Stops {
    /// Catch Ctrl-C (and SIGTERM on unix) from now on.
    pub fn catch() -> std::io::Result<Stops> {
        imp::Stops::catch().map(Stops)
    }

    /// Wait until the user asks the process to stop. `None` when the wait cannot go on (the
    /// handler gone), which asks nothing.
    pub fn wait(self) -> Option<Stop> {
        self.0.wait()
    }
}

#[cfg(unix)]
mod imp {
    use super::Stop;
    use signal_hook::consts::{SIGINT, SIGTERM};
    use signal_hook::iterator::Signals;

    pub struct Stops(Signals);

    impl Stops {
        pub fn catch() -> std::io::Result<Stops> {
            Signals::new([SIGINT, SIGTERM]).map(Stops)
        }

        pub fn wait(mut self) -> Option<Stop> {
            self.0.forever().next().map(|signal| match signal {
                SIGTERM => Stop::Terminate,
                _ => Stop::Interrupt,
            })
        }
    }
}

#[cfg(not(unix))]
mod imp {
    pub use super::portable::Stops;
}

/// Ctrl-C through tokio, which catches it on every system it runs on (a console handler on
/// Windows). Compiled on unix for its tests too.
#[cfg(any(not(unix), test))]
mod portable {
    use super::Stop;
    use std::future::Future;
    use std::pin::Pin;
    use std::task::Poll;

    type CtrlC = Pin<Box<dyn Future<Output = std::io::Result<()>> + Send>>;

    pub struct Stops {
        runtime: tokio::runtime::Runtime,
        ctrl_c: CtrlC,
        /// Ctrl-C came while it was being caught.
        came: bool,
    }

    impl Stops {
        pub fn catch() -> std::io::Result<Stops> {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            let mut ctrl_c: CtrlC = Box::pin(tokio::signal::ctrl_c());
            // tokio installs its handler when the wait is first polled: poll it once now, so
            // that Ctrl-C is caught from here on, not from the start of `wait`.
            let first = runtime.block_on(std::future::poll_fn(|cx| {
                Poll::Ready(ctrl_c.as_mut().poll(cx))
            }));
            let came = match first {
                Poll::Ready(Err(e)) => return Err(e),
                Poll::Ready(Ok(())) => true,
                Poll::Pending => false,
            };
            Ok(Stops {
                runtime,
                ctrl_c,
                came,
            })
        }

        pub fn wait(self) -> Option<Stop> {
            let Stops {
                runtime,
                ctrl_c,
                came,
            } = self;
            (came || runtime.block_on(ctrl_c).is_ok()).then_some(Stop::Interrupt)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fallback catches Ctrl-C from its `catch` on: a SIGINT sent before the wait starts
    /// (which would end the test binary if the handler were not installed yet) is the stop the
    /// wait returns.
    #[cfg(unix)]
    #[test]
    fn the_portable_wait_catches_ctrl_c_from_the_start() {
        let stops = portable::Stops::catch().unwrap();
        let me = rustix::process::Pid::from_raw(i32::try_from(std::process::id()).unwrap());
        rustix::process::kill_process(me.unwrap(), rustix::process::Signal::INT).unwrap();
        assert_eq!(stops.wait(), Some(Stop::Interrupt));
    }

    #[test]
    fn each_stop_has_its_shell_exit_status() {
        assert_eq!(Stop::Interrupt.exit().code(), 130);
        assert_eq!(Stop::Terminate.exit().code(), 143);
        assert_eq!(Stop::Terminate.name(), "SIGTERM");
    }
}
