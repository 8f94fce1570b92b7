//! The test-only fault hook. `SPARKS_FAULT_AT=<step>` makes the process abort right after
//! that step has done its work (and before it is recorded as done), the worst moment for a
//! crash. Tests use it to prove that every rewriting command survives a crash at every step.
//! With `SPARKS_FAULT_MODE=pause` the process stops there instead, saying so on stderr, until
//! a signal ends it: tests interrupt it at a known moment (Ctrl-C, SIGTERM).

/// Every step a fault can be injected after. An unknown name in `SPARKS_FAULT_AT` is an error,
/// so that a typo in a test cannot make it pass without injecting anything.
pub const STEPS: &[&str] = &[
    "prepare.open",
    "finalize.plan",
    "finalize.archive",
    "finalize.inbox",
    "finalize.scan",
    "finalize.commit",
    "abort.close",
    "tasks.write",
    "done.write",
    "scan.rows",
    "scan.commit",
    "lint.write",
    "regen.write",
    "finalize.regen",
    "fmt.write",
    "index.shards",
    "index.write",
    "mv.write",
    "mv.scan",
    "mv.commit",
    "merge.write",
    "merge.delete",
    "merge.commit",
    "revert.inbox",
    "revert.archive",
    "revert.pages",
    "revert.commit",
    "sync.commit",
    "sync.write",
    "sync.forward",
    "sync.merge",
    "sync.push",
    "publish.pages",
];

/// The environment variable that names the step.
pub const VAR: &str = "SPARKS_FAULT_AT";
/// The environment variable that says what happens there: `abort` (the default) or `pause`.
pub const MODE_VAR: &str = "SPARKS_FAULT_MODE";
/// What a paused process says on stderr, followed by the step.
pub const PAUSED: &str = "sparks: paused after step ";

/// The hook is set to something it does not know.
#[derive(Debug, thiserror::Error)]
pub enum UnknownStep {
    /// [`VAR`] names no step.
    #[error("{VAR}={0:?} names no step (known steps: {steps})", steps = STEPS.join(", "))]
    Step(String),
    /// [`MODE_VAR`] is neither `abort` nor `pause`.
    #[error("{MODE_VAR}={0:?} is neither abort nor pause")]
    Mode(String),
}

/// Check [`VAR`] and [`MODE_VAR`] once at start-up.
pub fn validate() -> Result<(), UnknownStep> {
    match std::env::var(VAR) {
        Ok(step) if !step.is_empty() && !STEPS.contains(&step.as_str()) => {
            return Err(UnknownStep::Step(step));
        }
        _ => {}
    }
    match std::env::var(MODE_VAR) {
        Ok(mode) if !matches!(mode.as_str(), "" | "abort" | "pause") => {
            Err(UnknownStep::Mode(mode))
        }
        _ => Ok(()),
    }
}

/// Mark `step` as done: abort the process (or pause it) if the hook names it.
pub fn reached(step: &str) {
    debug_assert!(STEPS.contains(&step), "unregistered fault step {step}");
    if std::env::var(VAR).is_ok_and(|s| s == step) {
        if std::env::var(MODE_VAR).is_ok_and(|m| m == "pause") {
            eprintln!("{PAUSED}{step}");
            loop {
                std::thread::park();
            }
        }
        eprintln!("sparks: fault injected after step {step}");
        std::process::abort();
    }
}
