//! The test-only fault hook. `SPARKS_FAULT_AT=<step>` makes the process abort right after
//! that step has done its work (and before it is recorded as done), the worst moment for a
//! crash. Tests use it to prove that every rewriting command survives a crash at every step.

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
];

/// The environment variable that names the step.
pub const VAR: &str = "SPARKS_FAULT_AT";

/// An unknown step name in [`VAR`].
#[derive(Debug, thiserror::Error)]
#[error("{VAR}={0:?} names no step (known steps: {steps})", steps = STEPS.join(", "))]
pub struct UnknownStep(pub String);

/// Check [`VAR`] once at start-up.
pub fn validate() -> Result<(), UnknownStep> {
    match std::env::var(VAR) {
        Ok(step) if !step.is_empty() && !STEPS.contains(&step.as_str()) => Err(UnknownStep(step)),
        _ => Ok(()),
    }
}

/// Mark `step` as done: abort the process if the hook names it.
pub fn reached(step: &str) {
    debug_assert!(STEPS.contains(&step), "unregistered fault step {step}");
    if std::env::var(VAR).is_ok_and(|s| s == step) {
        eprintln!("sparks: fault injected after step {step}");
        std::process::abort();
    }
}
