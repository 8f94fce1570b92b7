//! The progress bar: what the core reports of a long operation ([`crate::progress`]), drawn
//! on stderr once the operation has run for half a second. Only on a terminal, never with
//! `--json` or `-q` (the commands decide, [`super::Ctx::run_showing`]); `sparks serve` and
//! `sparks view` never ask for one, so nothing is drawn into the MCP protocol or the viewer's
//! log.

use crate::progress::{Phase, Progress};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long an operation runs before its bar appears: a quick command never flickers.
const DELAY: Duration = Duration::from_millis(500);

/// Overrides [`DELAY`], in milliseconds: the terminal tests set it to 0 so that a small vault
/// shows the bar. Not meant for anything else.
pub const DELAY_ENV: &str = "SPARKS_PROGRESS_DELAY_MS";

/// A bar on stderr, drawn from the first report after the delay and taken down when dropped.
pub struct Bar {
    started: Instant,
    delay: Duration,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    phase: Option<(Phase, Option<u64>)>,
    done: u64,
    shown: Option<ProgressBar>,
}

impl Bar {
    /// A bar for an operation starting now; nothing is drawn yet.
    pub fn new() -> Bar {
        let delay = std::env::var(DELAY_ENV)
            .ok()
            .and_then(|ms| ms.parse().ok())
            .map_or(DELAY, Duration::from_millis);
        Bar {
            started: Instant::now(),
            delay,
            state: Mutex::new(State::default()),
        }
    }

    /// Take the bar down (before the command prints its result).
    pub fn clear(&self) {
        if let Ok(mut s) = self.state.lock()
            && let Some(bar) = s.shown.take()
        {
            bar.finish_and_clear();
        }
    }

    /// Draw the bar if the operation has run long enough and it is not drawn yet.
    fn show(&self, s: &mut State) {
        if s.shown.is_some() || s.phase.is_none() || self.started.elapsed() < self.delay {
            return;
        }
        // Styled while hidden, so that the first frame drawn is already the right one.
        let bar = ProgressBar::hidden().with_elapsed(self.started.elapsed());
        style(&bar, s.phase, s.done);
        bar.set_draw_target(ProgressDrawTarget::stderr());
        // The phase is drawn at once, not at the next update: a short phase is still named.
        bar.tick();
        // A phase with no items for a while (a commit) still shows the clock moving.
        bar.enable_steady_tick(Duration::from_millis(120));
        s.shown = Some(bar);
    }
}

impl Default for Bar {
    fn default() -> Bar {
        Bar::new()
    }
}

impl Drop for Bar {
    fn drop(&mut self) {
        self.clear();
    }
}

/// Set the bar's message, length, position and template for a phase (the message first:
/// each change may draw).
fn style(bar: &ProgressBar, phase: Option<(Phase, Option<u64>)>, done: u64) {
    let Some((phase, total)) = phase else { return };
    bar.set_message(format!("{}: {}", phase.label(), phase.unit()));
    bar.set_length(total.unwrap_or(0));
    bar.set_position(done);
    let template = match total {
        Some(_) => "{spinner} {msg} {human_pos}/{human_len} [{bar:30}] {elapsed}",
        None => "{spinner} {msg} {human_pos} {elapsed}",
    };
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style.progress_chars("=> "));
    }
}

impl Progress for Bar {
    fn phase(&self, phase: Phase, total: Option<u64>) {
        let Ok(mut s) = self.state.lock() else { return };
        s.phase = Some((phase, total));
        s.done = 0;
        // A new bar for each phase: no frame mixes two of them.
        if let Some(bar) = s.shown.take() {
            bar.finish_and_clear();
        }
        self.show(&mut s);
    }

    fn advance(&self, n: u64) {
        let Ok(mut s) = self.state.lock() else { return };
        s.done += n;
        match &s.shown {
            Some(bar) => bar.set_position(s.done),
            None => self.show(&mut s),
        }
    }
}
