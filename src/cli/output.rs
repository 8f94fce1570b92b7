//! Writing: stdout carries data, as JSON (snake_case keys, `[]` for empty lists, a trailing
//! newline, never coloured) or as human text. Everything else goes to stderr: errors, hints,
//! warnings and status lines. Colour only decorates words that say the same thing without it:
//! the `error:`, `warning:` and `hint:` prefixes on stderr, and the labels, check names and
//! outcomes of human text on stdout. `--quiet` silences warnings, status lines and the reports
//! of commands that act (scan, regen, index, finalize, tasks add, done, init), never an error
//! or the data a command exists to print.
//!
//! How each stream is written is decided once per process ([`configure`]), from `--color`,
//! `--quiet`, whether the stream is a terminal, and the environment.

use super::exit::Exit;
use crate::contract::{FileState, Installed};
use crate::request::Report;
use serde::Serialize;
use std::ffi::OsString;
use std::io::Write;
use std::ops::ControlFlow;
use std::sync::OnceLock;

/// When to colour the decorations on stderr.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    /// When stderr is a terminal, unless NO_COLOR is set (CLICOLOR_FORCE forces it)
    #[default]
    Auto,
    /// Always, even when stderr is a file or a pipe
    Always,
    /// Never
    Never,
}

impl ColorChoice {
    /// The same choice for clap's own help and error messages.
    pub fn for_clap(self) -> clap::ColorChoice {
        match self {
            ColorChoice::Auto => clap::ColorChoice::Auto,
            ColorChoice::Always => clap::ColorChoice::Always,
            ColorChoice::Never => clap::ColorChoice::Never,
        }
    }

    /// The `--color` value in raw arguments, before clap has parsed them (so that clap's own
    /// help and errors follow it too). The last one wins; `--` ends the options.
    pub fn from_args<I: IntoIterator<Item = OsString>>(args: I) -> ColorChoice {
        let mut choice = ColorChoice::Auto;
        let mut args = args.into_iter().map(|a| a.to_string_lossy().into_owned());
        while let Some(a) = args.next() {
            let value = match a.as_str() {
                "--" => break,
                "--color" => args.next(),
                _ => a.strip_prefix("--color=").map(str::to_owned),
            };
            match value.as_deref() {
                Some("always") => choice = ColorChoice::Always,
                Some("never") => choice = ColorChoice::Never,
                Some("auto") => choice = ColorChoice::Auto,
                _ => {}
            }
        }
        choice
    }

    /// Whether a stream gets colour: `terminal` says whether it is one, `env` reads the
    /// environment. NO_COLOR (non-empty) wins over CLICOLOR_FORCE in auto; `--color always`
    /// and `never` win over both.
    pub fn enabled(self, terminal: bool, env: impl Fn(&str) -> Option<OsString>) -> bool {
        let no_color = env("NO_COLOR").is_some_and(|v| !v.is_empty());
        let force = env("CLICOLOR_FORCE").is_some_and(|v| !v.is_empty() && v != "0");
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto if no_color => false,
            ColorChoice::Auto if force => true,
            ColorChoice::Auto => terminal && env("TERM").is_none_or(|t| t != "dumb"),
        }
    }
}

/// How this process writes to stdout and stderr.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Settings {
    /// Colour the prefixes of errors, warnings and hints on stderr.
    pub color: bool,
    /// Colour the labels and outcomes of human text on stdout.
    pub color_stdout: bool,
    /// Leave out warnings, status lines and the reports of commands that act.
    pub quiet: bool,
}

static SETTINGS: OnceLock<Settings> = OnceLock::new();

/// Fix how stderr is written for the rest of the process; later calls change nothing.
pub fn configure(settings: Settings) {
    let _ = SETTINGS.set(settings);
}

fn settings() -> Settings {
    SETTINGS.get().copied().unwrap_or_default()
}

/// Write `value` as pretty JSON and a newline (JSON writes every control character as an
/// escape of its own, and keeps the text as it is).
pub fn json<T: Serialize>(value: &T) -> anyhow::Result<()> {
    // Written as it is serialised: a report of a million findings is never held as text too.
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    // An I/O error goes on as itself (a closed pipe ends the command quietly), not wrapped.
    serde_json::to_writer_pretty(&mut out, value).map_err(std::io::Error::from)?;
    out.write_all(b"\n")?;
    out.flush()?;
    Ok(())
}

/// Print a command's report: as JSON with `--json`, else as `text` tells it. Either way the
/// command ends as the report says ([`Report::ending`]): `--json` never changes the exit code.
pub fn print<R: Report>(
    report: &R,
    json: bool,
    text: impl FnOnce(&R) -> anyhow::Result<()>,
) -> anyhow::Result<Exit> {
    match json {
        true => self::json(report)?,
        false => text(report)?,
    }
    Ok(report.ending().into())
}

/// Write a failure as the JSON of a command run with `--json`:
/// `{"error": {"message", "causes", "hint"}}` on stdout, where the data would have gone.
pub fn json_error(f: &crate::failure::Failure) -> anyhow::Result<()> {
    json(&serde_json::json!({
        "error": {"message": f.message, "causes": f.causes, "hint": super::hint::of(f)}
    }))
}

/// Write human text, every control character in it made visible ([`visible`]) but the colours
/// [`paint`] adds: whatever a vault file holds reaches the terminal as text, never as a
/// command to it (a task in `Tasks.md` that clears the screen, retitles the window or hides a
/// line behind a carriage return). Every text renderer writes through here.
pub fn write(text: &str) -> anyhow::Result<()> {
    write_raw(&visible_keeping(text, settings().color_stdout))
}

/// Write text as is.
fn write_raw(text: &str) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}

/// Write the report of a command that acts (what it did, not data asked for): lines, each
/// followed by a newline, unless `--quiet`.
pub fn report<I: IntoIterator<Item = S>, S: AsRef<str>>(lines: I) -> anyhow::Result<()> {
    match settings().quiet {
        true => Ok(()),
        false => self::lines(lines),
    }
}

/// How a word of human text on stdout is coloured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// A label or heading (`vault:`, a lint check's name).
    Label,
    /// Something done or in order.
    Good,
    /// Something to look at.
    Warn,
    /// A problem.
    Bad,
    /// Something unremarkable (an unchanged page, a hash).
    Dim,
}

impl Style {
    fn sgr(self) -> &'static str {
        match self {
            Style::Label => "1",
            Style::Good => "32",
            Style::Warn => "33",
            Style::Bad => "1;31",
            Style::Dim => "2",
        }
    }
}

/// The escape sequences [`paint`] writes: the only ones human text on stdout keeps.
const OWN_SGR: [&str; 6] = [
    "\x1b[1m",
    "\x1b[32m",
    "\x1b[33m",
    "\x1b[1;31m",
    "\x1b[2m",
    "\x1b[0m",
];

/// A page's path, painted as a label, and its title in brackets when it has one: how a list of
/// pages names each.
pub fn page_label(path: &str, title: Option<&str>) -> String {
    let title = title.map(|t| format!(" ({t})")).unwrap_or_default();
    format!("{}{title}", paint(Style::Label, path))
}

/// `text` in `style` when stdout is coloured (`--color always`, or auto on a terminal), else
/// as it is; control characters in `text` made visible either way.
pub fn paint(style: Style, text: &str) -> String {
    paint_if(settings().color_stdout, style, text)
}

fn paint_if(color: bool, style: Style, text: &str) -> String {
    let text = visible(text);
    match color && !text.is_empty() {
        true => format!("\x1b[{}m{text}\x1b[0m", style.sgr()),
        false => text.into_owned(),
    }
}

/// `text` with each control character that could drive a terminal written as `\xNN`, its code
/// in hex: the C0 controls but tab and newline (a carriage return before a newline is a line
/// ending and stays), DEL and the C1 controls. What is left is text a terminal only shows.
pub fn visible(text: &str) -> std::borrow::Cow<'_, str> {
    visible_keeping(text, false)
}

/// [`visible`], keeping the colours of [`paint`] when `own_colours`.
fn visible_keeping(text: &str, own_colours: bool) -> std::borrow::Cow<'_, str> {
    let shown = |c: char, rest: &str| match c {
        '\t' | '\n' => true,
        '\r' => rest.starts_with('\n'),
        c => !c.is_control(),
    };
    let mut chars = text.char_indices();
    let Some(first) = chars.find(|&(i, c)| !shown(c, &text[i + c.len_utf8()..])) else {
        return std::borrow::Cow::Borrowed(text);
    };
    let mut out = String::with_capacity(text.len() + 16);
    out.push_str(&text[..first.0]);
    let mut rest = &text[first.0..];
    while let Some(c) = rest.chars().next() {
        let after = &rest[c.len_utf8()..];
        if own_colours && let Some(seq) = OWN_SGR.iter().find(|seq| rest.starts_with(**seq)) {
            out.push_str(seq);
            rest = &rest[seq.len()..];
            continue;
        }
        if shown(c, after) {
            out.push(c);
        } else {
            out.push_str(&format!("\\x{:02x}", u32::from(c)));
        }
        rest = after;
    }
    std::borrow::Cow::Owned(out)
}

/// `label: value`, the label painted as a label.
pub fn labelled(label: &str, value: impl std::fmt::Display) -> String {
    format!("{} {value}", paint(Style::Label, &format!("{label}:")))
}

/// Write lines, each followed by a newline.
pub fn lines<I: IntoIterator<Item = S>, S: AsRef<str>>(lines: I) -> anyhow::Result<()> {
    let mut out = Lines::stdout();
    for l in lines {
        out.line(l.as_ref())?;
    }
    Ok(out.finish()?)
}

/// Lines written to stdout as they are made, each as [`write`] would show it (never all of
/// them as one text).
pub struct Lines {
    out: std::io::BufWriter<std::io::StdoutLock<'static>>,
    own_colours: bool,
    line: String,
}

impl Lines {
    /// Lines to stdout, which is held until [`Lines::finish`].
    pub fn stdout() -> Lines {
        Lines {
            out: std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock()),
            own_colours: settings().color_stdout,
            line: String::new(),
        }
    }

    /// Write `l` and a newline.
    pub fn line(&mut self, l: &str) -> std::io::Result<()> {
        self.line.clear();
        self.line.push_str(l);
        self.line.push('\n');
        let shown = visible_keeping(&self.line, self.own_colours);
        self.out.write_all(shown.as_bytes())
    }

    /// Write out what is buffered.
    pub fn finish(mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// Write what `each` gives, as it gives it, with `write`: the first error, of `each` reading
/// what it gives or of `write`, ends it.
pub fn stream<T: ?Sized, E>(
    each: impl FnOnce(&mut dyn FnMut(&T) -> ControlFlow<()>) -> Result<(), E>,
    mut write: impl FnMut(&T) -> std::io::Result<()>,
) -> anyhow::Result<()>
where
    crate::failure::Failure: From<E>,
{
    let mut failed = None;
    each(&mut |t| match write(t) {
        Ok(()) => ControlFlow::Continue(()),
        Err(e) => {
            failed = Some(e);
            ControlFlow::Break(())
        }
    })
    .map_err(crate::failure::Failure::from)?;
    match failed {
        Some(e) => Err(e.into()),
        None => Ok(()),
    }
}

/// The prefixes that decorate stderr lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tag {
    Error,
    Warning,
    Hint,
}

impl Tag {
    /// `error:`, coloured when `color`: the word carries the meaning, the colour only
    /// decorates it.
    fn prefix(self, color: bool) -> String {
        let (word, style) = match self {
            Tag::Error => ("error", "1;31"),
            Tag::Warning => ("warning", "1;33"),
            Tag::Hint => ("hint", "1;36"),
        };
        if color {
            format!("\x1b[{style}m{word}\x1b[0m:")
        } else {
            format!("{word}:")
        }
    }
}

/// An error, its further lines (causes) and its hint, as one block of text.
fn error_text(message: &str, details: &[String], hint: Option<&str>, color: bool) -> String {
    let mut text = format!("{} {}\n", Tag::Error.prefix(color), visible(message));
    for d in details {
        text.push_str(&visible(d));
        text.push('\n');
    }
    if let Some(h) = hint {
        text.push_str(&format!("{} {}\n", Tag::Hint.prefix(color), visible(h)));
    }
    text
}

/// Write to stderr in one piece; a stderr that is gone is not worth a panic.
fn stderr(text: &str) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(text.as_bytes());
    let _ = err.flush();
}

/// An error on stderr, with its hint; printed even with `--quiet`.
pub fn error(message: &str, hint: Option<&str>) {
    error_with(message, &[], hint);
}

/// An error with further lines (its causes) between the message and the hint.
pub fn error_with(message: &str, details: &[String], hint: Option<&str>) {
    stderr(&error_text(message, details, hint, settings().color));
}

/// A warning on stderr (not with `--quiet`).
pub fn warn(message: &str) {
    let s = settings();
    if !s.quiet {
        let message = visible(message);
        stderr(&format!("{} {message}\n", Tag::Warning.prefix(s.color)));
    }
}

/// A warning and what to do about it (neither with `--quiet`).
pub fn warn_hint(message: &str, hint: &str) {
    let s = settings();
    if !s.quiet {
        stderr(&format!(
            "{} {}\n{} {}\n",
            Tag::Warning.prefix(s.color),
            visible(message),
            Tag::Hint.prefix(s.color),
            visible(hint)
        ));
    }
}

/// A status line on stderr: what is happening, not data (not with `--quiet`).
pub fn status(message: &str) {
    if !settings().quiet {
        stderr(&format!("{}\n", visible(message)));
    }
}

/// Warn about what bringing the manifest up to date met before a command answered: files it
/// could not read, or a manifest it could not write.
pub fn seen(seen: &crate::scan::Seen) {
    if let Some(at) = &seen.manifest_as_of {
        warn_hint(
            &format!(
                "the vault is read-only: this answer is from the manifest as of its last scan ({at})"
            ),
            "files changed since then are not seen",
        );
    }
    if !seen.scan_errors.is_empty() {
        warn_hint(
            &format!(
                "{} could not be read; what the manifest knew of them was used",
                count(seen.scan_errors.len(), "file", "files")
            ),
            "run `sparks scan` to list them",
        );
    }
}

/// Warn about each installed instruction file that differs from the contract in this binary.
pub fn contract_drift(files: &[Installed]) {
    for f in files.iter().filter(|f| f.state == FileState::Differs) {
        warn_hint(
            &format!(
                "{} differs from the agent contract built into this sparks",
                f.file
            ),
            &format!(
                "run `sparks init --agent {} --force` to refresh it",
                f.agent.name()
            ),
        );
    }
}

/// `n word` with the right plural (`1 entry`, `2 entries`): every count a person reads goes
/// through here.
pub fn count<N>(n: N, singular: &str, plural: &str) -> String
where
    N: Copy + PartialEq + From<u8> + std::fmt::Display,
{
    format!("{n} {}", if n == N::from(1) { singular } else { plural })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
        move |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| OsString::from(v))
        }
    }

    #[test]
    fn auto_colours_only_a_terminal_and_respects_no_color() {
        let auto = ColorChoice::Auto;
        assert!(auto.enabled(true, env(&[])));
        assert!(!auto.enabled(false, env(&[])));
        assert!(!auto.enabled(true, env(&[("NO_COLOR", "1")])));
        assert!(
            auto.enabled(true, env(&[("NO_COLOR", "")])),
            "an empty NO_COLOR is unset"
        );
        assert!(!auto.enabled(true, env(&[("TERM", "dumb")])));
        assert!(auto.enabled(false, env(&[("CLICOLOR_FORCE", "1")])));
        assert!(!auto.enabled(false, env(&[("CLICOLOR_FORCE", "0")])));
        assert!(!auto.enabled(false, env(&[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")])));
    }

    #[test]
    fn always_and_never_win_over_the_environment() {
        let no_color = env(&[("NO_COLOR", "1")]);
        assert!(ColorChoice::Always.enabled(false, &no_color));
        assert!(!ColorChoice::Never.enabled(true, env(&[("CLICOLOR_FORCE", "1")])));
    }

    #[test]
    fn the_color_flag_is_found_before_parsing() {
        let args = |a: &[&str]| a.iter().map(OsString::from).collect::<Vec<_>>();
        assert_eq!(
            ColorChoice::from_args(args(&["sparks", "--color", "never", "status"])),
            ColorChoice::Never
        );
        assert_eq!(
            ColorChoice::from_args(args(&["sparks", "lint", "--color=always"])),
            ColorChoice::Always
        );
        assert_eq!(
            ColorChoice::from_args(args(&["sparks", "--color=never", "--color", "always"])),
            ColorChoice::Always
        );
        assert_eq!(
            ColorChoice::from_args(args(&["sparks", "done", "--", "--color=never"])),
            ColorChoice::Auto
        );
    }

    #[test]
    fn paint_wraps_only_when_coloured_and_never_an_empty_word() {
        assert_eq!(paint_if(false, Style::Bad, "broken-links"), "broken-links");
        assert_eq!(
            paint_if(true, Style::Bad, "broken-links"),
            "\x1b[1;31mbroken-links\x1b[0m"
        );
        assert_eq!(paint_if(true, Style::Label, ""), "");
    }

    #[test]
    fn control_characters_are_made_visible_and_only_our_colours_kept() {
        assert!(matches!(
            visible("plain text\twith a tab\r\nand lines\n"),
            std::borrow::Cow::Borrowed(_)
        ));
        assert_eq!(
            visible("\x1b[31mred\x1b[0m \x07 a\rb \u{9b}2J \x7f é"),
            "\\x1b[31mred\\x1b[0m \\x07 a\\x0db \\x9b2J \\x7f é"
        );
        // Stdout keeps the colours paint wrote, and no others.
        let painted = format!(
            "{} \x1b]0;title\x07 \x1b[31m",
            paint_if(true, Style::Bad, "x")
        );
        assert_eq!(
            visible_keeping(&painted, true),
            "\x1b[1;31mx\x1b[0m \\x1b]0;title\\x07 \\x1b[31m"
        );
        assert_eq!(
            visible_keeping(&painted, false),
            "\\x1b[1;31mx\\x1b[0m \\x1b]0;title\\x07 \\x1b[31m"
        );
        // What is painted is made visible before it is coloured.
        assert_eq!(
            paint_if(true, Style::Label, "a\x1b[1mb"),
            "\x1b[1ma\\x1b[1mb\x1b[0m"
        );
        let e = error_text(
            "bad \x1b[2J name",
            &["\x1b[Kcause".into()],
            Some("\x07"),
            false,
        );
        assert_eq!(e, "error: bad \\x1b[2J name\n\\x1b[Kcause\nhint: \\x07\n");
    }

    #[test]
    fn colour_decorates_a_word_that_says_the_same() {
        let plain = error_text(
            "no vault",
            &["  caused by: x".into()],
            Some("run init"),
            false,
        );
        assert_eq!(plain, "error: no vault\n  caused by: x\nhint: run init\n");
        let coloured = error_text("no vault", &[], Some("run init"), true);
        assert_eq!(
            coloured,
            "\x1b[1;31merror\x1b[0m: no vault\n\x1b[1;36mhint\x1b[0m: run init\n"
        );
        let stripped = coloured.replace("\x1b[1;31m", "").replace("\x1b[1;36m", "");
        assert_eq!(
            stripped.replace("\x1b[0m", ""),
            "error: no vault\nhint: run init\n"
        );
    }
}
