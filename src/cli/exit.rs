//! Exit codes: one enum, listed in the README.

/// How a command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// 0: success.
    Success,
    /// 1: the command ran and found problems, or failed.
    Problems,
    /// 2: the command line is wrong.
    Usage,
    /// 3: another ingest is already open.
    IngestOpen,
    /// 130: stopped by Ctrl-C (SIGINT), as shells report it.
    Interrupted,
    /// 143: stopped by SIGTERM.
    Terminated,
}

impl Exit {
    /// The process exit status.
    pub fn code(self) -> u8 {
        match self {
            Exit::Success => 0,
            Exit::Problems => 1,
            Exit::Usage => 2,
            Exit::IngestOpen => 3,
            Exit::Interrupted => 130,
            Exit::Terminated => 143,
        }
    }
}

impl From<Exit> for std::process::ExitCode {
    fn from(e: Exit) -> Self {
        std::process::ExitCode::from(e.code())
    }
}
