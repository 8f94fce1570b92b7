//! A deterministic vault generator for the benchmarks (`make bench`, `scripts/bench.sh`).
//!
//! The same seed and sizes give the same bytes: every file is drawn from its own splitmix64
//! stream, keyed by the seed and the file's number, so the output does not depend on the order
//! in which files are written. File mtimes are set from the dates in the files (a page's
//! `updated:`, a capture's date), so `brief` and the scan's change detection see a vault with a
//! history rather than one written a second ago.
//!
//! What it writes, sized by the arguments:
//! - `wiki/{entities,concepts,summaries,synthesis}/*.md`: pages with full frontmatter (title,
//!   type, maturity, tags, aliases, sources citing generated raw files, created, updated) and
//!   1–3 KB bodies with headings, block ids, code and several links each: by title, alias,
//!   label, heading, block, path and embed, about 5% of them broken. A few pages are thin, a
//!   few have a schema problem, a few share a title or alias, some are orphans.
//! - `raw/{quotes,weblinks,media,ideas}/…`, `raw/inbox/YYYY-MM-DD.md` archives (with `book:`
//!   and `to-read:` lines), `raw/attachments/*.png`, `raw/archive/`: about `--raw` files.
//! - `inbox.md` with `--inbox` captures mixing tasks, URLs, quotes, `book:` and `to-read:`.
//! - `wiki/log.md` with dated blocks, `wiki/collections/Tasks.md`, `wiki/index.md`, and a
//!   `sparks.toml` with `auto_commit = false`.
//!
//! Usage: `gen_vault DIR [--pages N] [--raw N] [--inbox N] [--seed N] [--today YYYY-MM-DD]`
//! (defaults: 1000 pages, as many raw files as pages, 600 captures, seed 1, today's date).
//! DIR must not exist or be empty.

use chrono::{Days, NaiveDate};
use fs_err::File;
use std::collections::HashSet;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error + Send + Sync>>;

const USAGE: &str = "usage: gen_vault DIR [--pages N] [--raw N] [--inbox N] [--seed N] \
                     [--today YYYY-MM-DD]";

/// How far back the vault's history goes.
const HISTORY_DAYS: u64 = 730;

fn main() {
    if let Err(e) = run() {
        eprintln!("gen_vault: {e}");
        std::process::exit(1);
    }
}

struct Args {
    dir: PathBuf,
    pages: usize,
    raw: usize,
    inbox: usize,
    seed: u64,
    today: NaiveDate,
}

fn parse_args() -> Result<Args> {
    let mut dir = None;
    let mut args = Args {
        dir: PathBuf::new(),
        pages: 1000,
        raw: usize::MAX,
        inbox: 600,
        seed: 1,
        today: chrono::Local::now().date_naive(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut value = || {
            it.next()
                .ok_or_else(|| format!("{a} needs a value\n{USAGE}"))
        };
        match a.as_str() {
            "--pages" => args.pages = value()?.parse()?,
            "--raw" => args.raw = value()?.parse()?,
            "--inbox" => args.inbox = value()?.parse()?,
            "--seed" => args.seed = value()?.parse()?,
            "--today" => args.today = NaiveDate::parse_from_str(&value()?, "%Y-%m-%d")?,
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            s if s.starts_with('-') => return Err(format!("unknown option {s}\n{USAGE}").into()),
            s if dir.is_none() => dir = Some(PathBuf::from(s)),
            s => return Err(format!("unexpected argument {s}\n{USAGE}").into()),
        }
    }
    args.dir = dir.ok_or(USAGE)?;
    if args.raw == usize::MAX {
        args.raw = args.pages;
    }
    Ok(args)
}

fn run() -> Result<()> {
    let args = parse_args()?;
    if args.dir.exists() && fs_err::read_dir(&args.dir)?.next().is_some() {
        return Err(format!("{} exists and is not empty", args.dir.display()).into());
    }
    let started = std::time::Instant::now();
    let g = Gen::new(&args);
    g.write_all()?;
    let (files, bytes) = du(&args.dir)?;
    eprintln!(
        "gen_vault: {} pages, {} raw files, {} inbox captures: {files} files, {:.1} MB in {} \
         ({:.1} s)",
        args.pages,
        g.raw.len(),
        args.inbox,
        bytes as f64 / 1e6,
        args.dir.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

fn du(dir: &Path) -> Result<(u64, u64)> {
    let (mut files, mut bytes) = (0, 0);
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs_err::read_dir(&d)? {
            let e = e?;
            let m = e.metadata()?;
            if m.is_dir() {
                stack.push(e.path());
            } else {
                files += 1;
                bytes += m.len();
            }
        }
    }
    Ok((files, bytes))
}

// ---------------------------------------------------------------------------------------------
// Randomness

/// splitmix64: tiny, fast, and good enough for test data.
#[derive(Clone)]
struct Rng(u64);

impl Rng {
    fn new(seed: u64, stream: u64, salt: u64) -> Rng {
        let mut r = Rng(seed ^ stream.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ salt.rotate_left(29));
        r.next();
        r
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0).
    fn below(&mut self, n: usize) -> usize {
        ((self.next() >> 11) % n as u64) as usize
    }

    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    /// True with probability `p` percent.
    fn pct(&mut self, p: u64) -> bool {
        self.next() % 10_000 < p * 100
    }

    /// True with probability `p` per mille.
    fn permille(&mut self, p: u64) -> bool {
        self.next() % 1000 < p
    }

    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len())]
    }

    /// An index skewed towards 0: roughly Zipf-like, for tags and hub pages.
    fn skewed(&mut self, n: usize) -> usize {
        let u = (self.next() >> 11) as f64 / (1u64 << 53) as f64;
        ((n as f64).powf(u) - 1.0).floor() as usize % n
    }

    fn hex(&mut self, len: usize) -> String {
        let mut s = String::with_capacity(len);
        while s.len() < len {
            let _ = write!(s, "{:016x}", self.next());
        }
        s.truncate(len);
        s
    }
}

// Salts of the independent streams.
const S_TITLE: u64 = 1;
const S_META: u64 = 2;
const S_BODY: u64 = 3;
const S_RAW: u64 = 4;
const S_INBOX: u64 = 5;
const S_OUTLINE: u64 = 6;
const S_MISC: u64 = 7;

// ---------------------------------------------------------------------------------------------
// Vocabulary

const FIRST: &[&str] = &[
    "Ada", "Alan", "Amara", "Anders", "Aiko", "Beatriz", "Bruno", "Chen", "Chiara", "Dana",
    "Dmitri", "Elena", "Emeka", "Farah", "Felix", "Grace", "Hana", "Hugo", "Ines", "Ivan", "Jonas",
    "Julia", "Kai", "Kamala", "Lars", "Lena", "Liam", "Lucía", "Malik", "Mei", "Mira", "Nadia",
    "Nils", "Noor", "Olga", "Omar", "Paula", "Priya", "Quentin", "Rafael", "Rosa", "Sanjay",
    "Sara", "Sofia", "Tariq", "Thea", "Tomás", "Uma", "Viktor", "Wen", "Yara", "Yusuf", "Zoë",
    "Björn", "Céline", "Dario", "Esme", "Gustav", "Hiro", "Ilse", "Jamal", "Kirsten", "Leon",
    "Maya", "Niko", "Oskar", "Petra", "Ravi", "Selma", "Timo", "Ulla", "Vera", "Wilma", "Xavier",
    "Yosef", "Zara", "Arjun", "Bea", "Cyrus", "Dagny",
];
const LAST: &[&str] = &[
    "Reyes",
    "Okafor",
    "Lindqvist",
    "Tanaka",
    "Moreau",
    "Novak",
    "Haddad",
    "Kowalski",
    "Silva",
    "Nakamura",
    "Fischer",
    "Rossi",
    "Schmidt",
    "Dubois",
    "Petrov",
    "Jensen",
    "Costa",
    "Müller",
    "García",
    "Ivanova",
    "Kim",
    "Park",
    "Nguyen",
    "Singh",
    "Patel",
    "Cohen",
    "Levi",
    "Adeyemi",
    "Mensah",
    "Eriksen",
    "Virtanen",
    "Horvat",
    "Popescu",
    "Yilmaz",
    "Demir",
    "Kaplan",
    "Berg",
    "Holm",
    "Strand",
    "Larsen",
    "Bianchi",
    "Romano",
    "Ferreira",
    "Almeida",
    "Santos",
    "Ortega",
    "Navarro",
    "Castillo",
    "Vega",
    "Molina",
    "Herrera",
    "Suzuki",
    "Watanabe",
    "Ito",
    "Yamamoto",
    "Wang",
    "Li",
    "Zhang",
    "Liu",
    "Chen",
    "Huang",
    "Zhao",
    "Wu",
    "Sato",
    "Kato",
    "Abe",
    "Ali",
    "Hassan",
    "Mahmoud",
    "Farouk",
    "O'Brien",
    "Murphy",
    "Kelly",
    "Walsh",
    "Byrne",
    "Ryan",
    "Brennan",
    "Doyle",
    "Quinn",
    "Fox",
    "Hale",
    "Marsh",
    "Frost",
    "Wilde",
    "Blake",
    "Stone",
    "Reed",
    "Lane",
    "Grant",
    "Hayes",
    "Price",
    "Ward",
    "Cole",
    "West",
    "Ford",
    "Shaw",
    "Webb",
];
const ADJ: &[&str] = &[
    "Adaptive",
    "Append-only",
    "Asynchronous",
    "Bounded",
    "Cached",
    "Causal",
    "Columnar",
    "Concurrent",
    "Consistent",
    "Content-addressed",
    "Deferred",
    "Distributed",
    "Durable",
    "Elastic",
    "Embedded",
    "Eventual",
    "Federated",
    "Functional",
    "Generational",
    "Hierarchical",
    "Immutable",
    "Incremental",
    "Indexed",
    "Lazy",
    "Layered",
    "Linear",
    "Local-first",
    "Lossless",
    "Modular",
    "Monotonic",
    "Observable",
    "Optimistic",
    "Ordered",
    "Parallel",
    "Partitioned",
    "Persistent",
    "Pessimistic",
    "Probabilistic",
    "Reactive",
    "Recursive",
    "Redundant",
    "Replicated",
    "Resilient",
    "Sharded",
    "Spaced",
    "Sparse",
    "Stateless",
    "Streaming",
    "Structural",
    "Symbolic",
    "Synchronous",
    "Tiered",
    "Transactional",
    "Typed",
    "Versioned",
    "Weighted",
    "Zero-copy",
    "Deliberate",
    "Emergent",
    "Feedback",
    "Hidden",
    "Implicit",
    "Slow",
    "Quiet",
    "Deep",
    "Shallow",
    "Open",
    "Closed",
    "Minimal",
    "Radical",
    "Gentle",
    "Practical",
    "Atomic",
    "Compound",
    "Daily",
    "Weekly",
    "Seasonal",
    "Personal",
    "Shared",
    "Public",
];
const NOUN: &[&str] = &[
    "Cache",
    "Log",
    "Index",
    "Ledger",
    "Queue",
    "Scheduler",
    "Compiler",
    "Parser",
    "Protocol",
    "Consensus",
    "Replication",
    "Snapshot",
    "Journal",
    "Manifest",
    "Graph",
    "Tree",
    "Trie",
    "Filter",
    "Hash",
    "Checksum",
    "Buffer",
    "Pipeline",
    "Stream",
    "Batch",
    "Shard",
    "Partition",
    "Lease",
    "Lock",
    "Latch",
    "Barrier",
    "Clock",
    "Timestamp",
    "Vector",
    "Matrix",
    "Tensor",
    "Kernel",
    "Driver",
    "Allocator",
    "Collector",
    "Heap",
    "Stack",
    "Arena",
    "Page",
    "Block",
    "Segment",
    "Extent",
    "Inode",
    "Volume",
    "Mirror",
    "Backup",
    "Archive",
    "Catalog",
    "Schema",
    "Migration",
    "Query",
    "Planner",
    "Optimizer",
    "Executor",
    "Cursor",
    "Iterator",
    "Window",
    "Aggregate",
    "Join",
    "Projection",
    "Predicate",
    "Constraint",
    "Invariant",
    "Contract",
    "Interface",
    "Module",
    "Package",
    "Registry",
    "Resolver",
    "Router",
    "Gateway",
    "Proxy",
    "Balancer",
    "Monitor",
    "Tracer",
    "Profiler",
    "Benchmark",
    "Habit",
    "Routine",
    "Garden",
    "Notebook",
    "Commonplace",
    "Zettel",
    "Outline",
    "Draft",
    "Review",
    "Retrospective",
    "Memory",
    "Attention",
    "Focus",
    "Flow",
    "Practice",
    "Craft",
    "Apprenticeship",
    "Mentorship",
    "Loop",
    "Signal",
    "Noise",
    "Threshold",
    "Gradient",
    "Horizon",
    "Frontier",
    "Boundary",
    "Bridge",
    "Lens",
    "Map",
    "Territory",
    "Compass",
    "Anchor",
    "Keel",
    "Lattice",
    "Mosaic",
    "Tapestry",
    "Ritual",
    "Ecology",
    "Economy",
];
const ORGS: &[&str] = &[
    "Labs",
    "Institute",
    "Collective",
    "Foundation",
    "Works",
    "Studio",
    "Guild",
    "Press",
    "Systems",
    "Group",
    "Project",
    "Initiative",
    "Society",
    "Network",
    "Circle",
];
const HEADINGS: &[&str] = &[
    "Overview",
    "Background",
    "Key ideas",
    "Details",
    "How it works",
    "Trade-offs",
    "Examples",
    "Open questions",
    "History",
    "Related work",
    "Criticism",
    "In practice",
    "Notes",
    "Evidence",
    "Timeline",
    "Design",
    "Failure modes",
    "Metrics",
    "Lessons",
    "Next steps",
    "Definitions",
    "Sources and quotes",
    "Contradictions",
    "Summary",
    "Motivation",
];
const WORDS: &[&str] = &[
    "the",
    "a",
    "of",
    "and",
    "to",
    "in",
    "is",
    "that",
    "for",
    "it",
    "as",
    "with",
    "on",
    "was",
    "by",
    "this",
    "be",
    "are",
    "from",
    "or",
    "at",
    "which",
    "an",
    "but",
    "not",
    "when",
    "what",
    "all",
    "were",
    "we",
    "there",
    "can",
    "more",
    "if",
    "would",
    "about",
    "into",
    "than",
    "its",
    "only",
    "other",
    "some",
    "time",
    "these",
    "two",
    "may",
    "then",
    "first",
    "any",
    "like",
    "system",
    "latency",
    "throughput",
    "memory",
    "storage",
    "index",
    "query",
    "write",
    "read",
    "cache",
    "invalidation",
    "consistency",
    "durability",
    "replica",
    "leader",
    "follower",
    "quorum",
    "partition",
    "failure",
    "recovery",
    "checkpoint",
    "compaction",
    "merge",
    "tree",
    "bloom",
    "filter",
    "hash",
    "page",
    "block",
    "segment",
    "ledger",
    "journal",
    "snapshot",
    "habit",
    "attention",
    "review",
    "practice",
    "feedback",
    "loop",
    "signal",
    "noise",
    "model",
    "theory",
    "evidence",
    "argument",
    "claim",
    "source",
    "quote",
    "book",
    "essay",
    "paper",
    "talk",
    "interview",
    "project",
    "meeting",
    "decision",
    "trade-off",
    "constraint",
    "design",
    "simplicity",
    "reliability",
    "observability",
    "incident",
    "postmortem",
    "deadline",
    "scope",
    "budget",
    "estimate",
    "risk",
    "assumption",
    "experiment",
    "hypothesis",
    "result",
    "metric",
    "growth",
    "decay",
    "threshold",
    "boundary",
    "interface",
    "contract",
    "schema",
    "migration",
    "version",
    "release",
    "rollback",
    "deploy",
    "pipeline",
    "batch",
    "stream",
    "window",
    "garden",
    "notebook",
    "outline",
    "draft",
    "summary",
    "synthesis",
    "concept",
    "entity",
    "naïve",
    "café",
    "résumé",
    "façade",
    "über",
    "jalapeño",
    "Zürich",
    "São",
    "Kraków",
    "slowly",
    "quickly",
    "carefully",
    "rarely",
    "often",
    "usually",
    "never",
    "always",
    "surprisingly",
    "clearly",
    "arguably",
    "roughly",
    "exactly",
    "mostly",
    "barely",
    "nearly",
    "build",
    "measure",
    "learn",
    "keep",
    "drop",
    "retry",
    "split",
    "join",
    "order",
    "sort",
    "rank",
    "score",
    "weigh",
    "count",
    "sample",
    "trace",
    "profile",
    "tune",
    "cap",
    "bound",
];
const PHRASES: &[&str] = &[
    "write-ahead log",
    "cache invalidation",
    "spaced repetition",
    "local-first software",
    "second-order effects",
    "the map is not the territory",
    "feedback loops",
    "content-addressed storage",
    "deliberate practice",
    "tail latency",
];
const TAGS: &[&str] = &[
    "databases",
    "distributed-systems",
    "reading",
    "people",
    "project",
    "writing",
    "habits",
    "learning",
    "storage",
    "performance",
    "design",
    "history",
    "philosophy",
    "productivity",
    "tools",
    "rust",
    "go",
    "sqlite",
    "networking",
    "security",
    "ml",
    "statistics",
    "health",
    "travel",
    "music",
    "film",
    "books",
    "cooking",
    "finance",
    "career",
    "management",
    "teams",
    "meetings",
    "research",
    "papers",
    "talks",
    "open-source",
    "hardware",
    "compilers",
    "type-systems",
    "testing",
    "observability",
    "incidents",
    "architecture",
    "ux",
    "ethics",
    "economics",
    "biology",
    "physics",
    "math",
    "language",
    "japanese",
    "garden",
    "home",
    "family",
    "friends",
    "ideas",
    "questions",
    "someday",
    "archive",
];
const LANGS: &[&str] = &["rust", "sql", "sh", "python", "go", ""];
const DOMAINS: &[&str] = &[
    "example.com",
    "blog.example.org",
    "news.example.net",
    "papers.example.edu",
    "docs.example.io",
    "wiki.example.org",
    "video.example.com",
    "podcasts.example.fm",
];
const MEDIA_KINDS: &[&str] = &["film", "series", "album", "podcast", "game", "documentary"];
const TASK_VERBS: &[&str] = &[
    "Email", "Call", "Read", "Review", "Write up", "Buy", "Book", "Fix", "Renew", "Plan",
    "Schedule", "Draft", "Send", "Ask", "Check", "Order", "Return", "Finish", "Sketch", "Try",
];

// ---------------------------------------------------------------------------------------------
// The model of the vault

/// A page: what other pages need to know to link to it.
struct Page {
    title: String,
    /// Vault-relative path.
    path: String,
    aliases: Vec<String>,
    kind: &'static str,
}

/// A raw file: its path, its kind and its date (days before today).
struct Raw {
    path: String,
    kind: RawKind,
    age: u64,
}

#[derive(Clone, Copy, PartialEq)]
enum RawKind {
    Quote,
    Weblink,
    Media,
    Idea,
    Archive,
    Attachment,
    Retired,
}

struct Gen {
    dir: PathBuf,
    seed: u64,
    today: NaiveDate,
    inbox: usize,
    pages: Vec<Page>,
    raw: Vec<Raw>,
    /// Indices of attachment raw files (embeddable by name).
    attachments: Vec<usize>,
}

impl Gen {
    fn new(a: &Args) -> Gen {
        let raw = raw_files(a.seed, a.raw, a.today);
        let attachments = (0..raw.len())
            .filter(|&i| raw[i].kind == RawKind::Attachment)
            .collect();
        Gen {
            dir: a.dir.clone(),
            seed: a.seed,
            today: a.today,
            inbox: a.inbox,
            pages: pages(a.seed, a.pages),
            raw,
            attachments,
        }
    }

    fn date(&self, age: u64) -> String {
        self.today
            .checked_sub_days(Days::new(age))
            .unwrap_or(self.today)
            .format("%Y-%m-%d")
            .to_string()
    }

    /// Noon UTC of the day `age` days ago, plus a few seconds of jitter; never later than a
    /// minute ago (a file from the future is one no scan can trust, and would be read again by
    /// every scan, as it should).
    fn mtime(&self, age: u64, jitter: u64) -> SystemTime {
        let day = self
            .today
            .checked_sub_days(Days::new(age))
            .unwrap_or(self.today);
        let secs = day
            .and_hms_opt(12, 0, 0)
            .map_or(0, |t| t.and_utc().timestamp().max(0) as u64);
        let t = SystemTime::UNIX_EPOCH + Duration::from_secs(secs + jitter % 3600);
        t.min(SystemTime::now() - Duration::from_secs(60))
    }

    fn write_all(&self) -> Result<()> {
        for d in [
            "raw/inbox",
            "raw/archive",
            "raw/attachments",
            "wiki/entities",
            "wiki/concepts",
            "wiki/summaries",
            "wiki/synthesis",
            "wiki/collections",
        ] {
            fs_err::create_dir_all(self.dir.join(d))?;
        }
        let threads = std::thread::available_parallelism()
            .map_or(2, |n| n.get())
            .min(8);
        std::thread::scope(|s| -> Result<()> {
            let mut handles = Vec::new();
            for t in 0..threads {
                handles.push(s.spawn(move || -> Result<()> {
                    for i in (t..self.raw.len()).step_by(threads) {
                        self.write_raw(i)?;
                    }
                    for i in (t..self.pages.len()).step_by(threads) {
                        self.write_page(i)?;
                    }
                    Ok(())
                }));
            }
            for h in handles {
                h.join().map_err(|_| "a writer thread panicked")??;
            }
            Ok(())
        })?;
        self.write_system()
    }

    fn put(&self, rel: &str, bytes: &[u8], mtime: Option<SystemTime>) -> Result<()> {
        let path = self.dir.join(rel);
        if let Some(parent) = path.parent() {
            fs_err::create_dir_all(parent)?;
        }
        let mut f = File::create(&path)?;
        f.write_all(bytes)?;
        if let Some(t) = mtime {
            f.set_modified(t)?;
        }
        Ok(())
    }
}

fn kind_dir(kind: &str) -> &'static str {
    match kind {
        "entity" => "wiki/entities",
        "concept" => "wiki/concepts",
        "summary" => "wiki/summaries",
        _ => "wiki/synthesis",
    }
}

/// Every page's title, path, aliases and type. Titles are unique case-insensitively, except
/// for about one in 500 pages that deliberately reuses an earlier title.
fn pages(seed: u64, n: usize) -> Vec<Page> {
    let mut taken: HashSet<String> = HashSet::with_capacity(n * 2);
    let mut aliases_taken: HashSet<String> = HashSet::with_capacity(n * 2);
    let mut paths: HashSet<String> = HashSet::with_capacity(n * 2);
    let mut out: Vec<Page> = Vec::with_capacity(n);
    for i in 0..n {
        let mut r = Rng::new(seed, i as u64, S_TITLE);
        let kind = match r.below(100) {
            0..30 => "entity",
            30..60 => "concept",
            60..85 => "summary",
            _ => "synthesis",
        };
        let duplicate = i > 50 && r.permille(2);
        let mut title = if duplicate {
            out[r.below(i)].title.clone()
        } else {
            String::new()
        };
        let mut tries = 0;
        while title.is_empty() || (!duplicate && taken.contains(&title.to_lowercase())) {
            title = title_for(&mut r, kind);
            tries += 1;
            if tries > 8 {
                title = format!("{title} {}", roman(i % 40 + 2));
            }
        }
        taken.insert(title.to_lowercase());
        // One page in ten has a file name that is not its title.
        let stem = if r.pct(10) {
            slug(&title)
        } else {
            title.replace(['/', '\\', ':', '#', '^', '|', '[', ']'], "-")
        };
        let mut path = format!("{}/{stem}.md", kind_dir(kind));
        if duplicate || paths.contains(&path.to_lowercase()) {
            path = format!("{}/{stem} ({i}).md", kind_dir(kind));
        }
        paths.insert(path.to_lowercase());
        let mut aliases = Vec::new();
        for candidate in alias_candidates(&mut r, &title, kind) {
            let key = candidate.to_lowercase();
            // About one alias in 300 is deliberately shared with another page.
            let shared = r.permille(3);
            if (shared || (!aliases_taken.contains(&key) && !taken.contains(&key)))
                && aliases.len() < 2
            {
                aliases_taken.insert(key);
                aliases.push(candidate);
            }
        }
        out.push(Page {
            title,
            path,
            aliases,
            kind,
        });
    }
    out
}

fn title_for(r: &mut Rng, kind: &str) -> String {
    match kind {
        "entity" => match r.below(10) {
            0..6 => {
                if r.pct(40) {
                    let initial = (b'A' + r.below(26) as u8) as char;
                    format!("{} {initial}. {}", r.pick(FIRST), r.pick(LAST))
                } else {
                    format!("{} {}", r.pick(FIRST), r.pick(LAST))
                }
            }
            6..8 => format!("{} {}", r.pick(NOUN), r.pick(ORGS)),
            _ => format!("Project {} {}", r.pick(ADJ), r.pick(NOUN)),
        },
        "concept" => match r.below(3) {
            0 => format!("{} {}", r.pick(ADJ), r.pick(NOUN).to_lowercase()),
            1 => format!(
                "{} {} {}",
                r.pick(ADJ),
                r.pick(NOUN).to_lowercase(),
                r.pick(NOUN).to_lowercase()
            ),
            _ => format!("{} of the {}", r.pick(NOUN), r.pick(NOUN).to_lowercase()),
        },
        "summary" => match r.below(4) {
            0 => format!("The {} {}", r.pick(ADJ), r.pick(NOUN)),
            1 => format!("On {} {}s", r.pick(ADJ), r.pick(NOUN).to_lowercase()),
            2 => format!(
                "{} and {} ({})",
                r.pick(NOUN),
                r.pick(NOUN),
                2000 + r.below(26)
            ),
            _ => format!("Talk: {} {} at {}", r.pick(ADJ), r.pick(NOUN), r.pick(LAST)),
        },
        _ => format!(
            "{} {}s and {} {}s",
            r.pick(ADJ),
            r.pick(NOUN).to_lowercase(),
            r.pick(ADJ).to_lowercase(),
            r.pick(NOUN).to_lowercase()
        ),
    }
}

fn alias_candidates(r: &mut Rng, title: &str, kind: &str) -> Vec<String> {
    let words: Vec<&str> = title.split_whitespace().collect();
    let mut out = Vec::new();
    match r.below(10) {
        0..4 => {}
        4..7 if words.len() >= 2 => {
            let acronym: String = words
                .iter()
                .filter_map(|w| w.chars().next())
                .filter(|c| c.is_alphanumeric())
                .flat_map(char::to_uppercase)
                .collect();
            if acronym.chars().count() >= 2 {
                out.push(acronym);
            }
        }
        _ if kind == "entity" && words.len() >= 2 => {
            out.push(words[words.len() - 1].to_string());
            out.push(format!("{} {}", words[0], words[words.len() - 1]));
        }
        _ => out.push(title.to_lowercase().replace(' ', "-")),
    }
    if r.pct(15) {
        out.push(format!("{title} notes"));
    }
    out
}

fn slug(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c.is_alphanumeric() {
            out.extend(c.to_lowercase());
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').to_string()
}

fn roman(mut n: usize) -> String {
    let mut s = String::new();
    for (v, r) in [(10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")] {
        while n >= v {
            s.push_str(r);
            n -= v;
        }
    }
    s
}

/// Page `i`'s headings and block ids: a pure function of the seed and `i`, so that a page
/// linking to `i` can name them without `i` being written first.
fn outline(seed: u64, i: usize) -> (Vec<&'static str>, Vec<String>) {
    let mut r = Rng::new(seed, i as u64, S_OUTLINE);
    let mut headings: Vec<&str> = Vec::new();
    while headings.len() < 3 + r.below(3) {
        let h = r.pick(HEADINGS);
        if !headings.contains(&h) {
            headings.push(h);
        }
    }
    let blocks = (0..1 + r.below(2)).map(|_| r.hex(6)).collect();
    (headings, blocks)
}

fn raw_files(seed: u64, n: usize, today: NaiveDate) -> Vec<Raw> {
    let mut out = Vec::with_capacity(n);
    let mut archive_days: HashSet<u64> = HashSet::new();
    let mut names: HashSet<String> = HashSet::with_capacity(n * 2);
    for i in 0..n {
        let mut r = Rng::new(seed, i as u64, S_RAW);
        let age = r.skewed(HISTORY_DAYS as usize) as u64;
        let year = today
            .checked_sub_days(Days::new(age))
            .unwrap_or(today)
            .format("%Y")
            .to_string();
        let kind = match r.below(100) {
            0..25 => RawKind::Quote,
            25..50 => RawKind::Weblink,
            50..64 => RawKind::Media,
            64..84 => RawKind::Idea,
            84..96 => RawKind::Archive,
            96..98 => RawKind::Attachment,
            _ => RawKind::Retired,
        };
        let mut path = match kind {
            RawKind::Quote => format!("raw/quotes/{year}/{}-{}.md", slug(r.pick(LAST)), r.hex(4)),
            RawKind::Weblink => format!(
                "raw/weblinks/{year}/{}-{}.md",
                slug(&format!("{} {}", r.pick(ADJ), r.pick(NOUN))),
                r.hex(4)
            ),
            RawKind::Media => format!(
                "raw/media/{}/{}-{}.md",
                r.pick(MEDIA_KINDS),
                slug(r.pick(NOUN)),
                r.hex(4)
            ),
            RawKind::Idea => format!("raw/ideas/{year}/idea-{}.md", r.hex(6)),
            RawKind::Archive => {
                // One archive file per capture date: move to a free day.
                let mut a = age;
                while archive_days.contains(&a) {
                    a += 1;
                }
                archive_days.insert(a);
                let d = today.checked_sub_days(Days::new(a)).unwrap_or(today);
                format!("raw/inbox/{}.md", d.format("%Y-%m-%d"))
            }
            RawKind::Attachment => format!("raw/attachments/diagram-{}.png", r.hex(6)),
            RawKind::Retired => format!("raw/archive/old-note-{}.md", r.hex(6)),
        };
        while names.contains(&path) {
            path = path.replacen('.', &format!("-{}.", r.hex(2)), 1);
        }
        names.insert(path.clone());
        let age = if kind == RawKind::Archive {
            let date = &path["raw/inbox/".len().."raw/inbox/".len() + 10];
            NaiveDate::parse_from_str(date, "%Y-%m-%d")
                .map_or(age, |d| (today - d).num_days().max(0) as u64)
        } else {
            age
        };
        out.push(Raw { path, kind, age });
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Text

fn sentence(r: &mut Rng, out: &mut String) {
    let n = r.range(8, 20);
    for k in 0..n {
        let w = if r.pct(3) {
            r.pick(PHRASES)
        } else {
            r.pick(WORDS)
        };
        if k == 0 {
            let mut cs = w.chars();
            if let Some(c) = cs.next() {
                out.extend(c.to_uppercase());
                out.push_str(cs.as_str());
            }
        } else {
            out.push(' ');
            if r.permille(15) {
                let _ = write!(out, "`{w}`");
                continue;
            }
            if r.permille(10) {
                let _ = write!(out, "**{w}**");
                continue;
            }
            out.push_str(w);
        }
        if k + 1 < n && r.pct(6) {
            out.push(',');
        }
    }
    out.push_str(if r.pct(8) { "?" } else { "." });
}

fn paragraph(r: &mut Rng, out: &mut String, sentences: usize) {
    for k in 0..sentences {
        if k > 0 {
            out.push(' ');
        }
        sentence(r, out);
    }
}

impl Gen {
    /// A wikilink from page `from` to another page, as written in its body.
    fn link(&self, r: &mut Rng, from: usize) -> String {
        let n = self.pages.len();
        // A third of links go to the hub pages, the rest anywhere.
        let mut j = if r.pct(33) {
            r.skewed(n.clamp(1, 200))
        } else {
            r.below(n)
        };
        if j == from {
            j = (j + 1) % n;
        }
        let p = &self.pages[j];
        let label = |r: &mut Rng| {
            let mut s = String::new();
            for k in 0..r.range(1, 3) {
                if k > 0 {
                    s.push(' ');
                }
                s.push_str(r.pick(WORDS));
            }
            s
        };
        match r.below(100) {
            0..40 => format!("[[{}]]", p.title),
            40..54 if !p.aliases.is_empty() => {
                format!("[[{}]]", p.aliases[r.below(p.aliases.len())])
            }
            40..54 => format!("[[{}]]", p.title.to_lowercase()),
            54..68 => format!("[[{}|{}]]", p.title, label(r)),
            68..77 => {
                let (headings, _) = outline(self.seed, j);
                format!("[[{}#{}]]", p.title, headings[r.below(headings.len())])
            }
            77..83 => {
                let (_, blocks) = outline(self.seed, j);
                format!("[[{}#^{}]]", p.title, blocks[r.below(blocks.len())])
            }
            83..86 => {
                let path = p.path.trim_start_matches("wiki/");
                if r.pct(50) {
                    format!("[[{path}]]")
                } else {
                    let name = path.rsplit('/').next().unwrap_or(path);
                    format!("[[{name}]]")
                }
            }
            86..89 if !self.attachments.is_empty() => {
                let a = &self.raw[self.attachments[r.below(self.attachments.len())]].path;
                format!("![[{}]]", a.rsplit('/').next().unwrap_or(a))
            }
            86..89 => format!("![[{}]]", p.title),
            89..91 => format!("![[{}]]", p.title),
            // Broken: a page that does not exist, a heading or block that does not, a
            // missing attachment.
            91..95 => format!("[[{} {}]]", r.pick(ADJ), r.pick(NOUN)),
            95..97 => format!(
                "[[{}#{}]]",
                p.title,
                r.pick(&["Appendix", "Glossary", "FAQ"])
            ),
            97..99 => format!("[[{}#^{}]]", p.title, r.hex(6)),
            _ => format!("![[missing-{}.png]]", r.hex(4)),
        }
    }

    fn write_page(&self, i: usize) -> Result<()> {
        let p = &self.pages[i];
        let mut m = Rng::new(self.seed, i as u64, S_META);
        let mut r = Rng::new(self.seed, i as u64, S_BODY);
        let created_age = 30 + m.skewed(HISTORY_DAYS as usize - 30) as u64;
        // About one page in twenty was updated in the last week.
        let updated_age = if m.pct(5) {
            m.below(7) as u64
        } else {
            m.below(created_age as usize + 1) as u64
        };
        let maturity = match m.below(100) {
            0..40 => "seed",
            40..75 => "working",
            75..95 => "stable",
            _ => "historical",
        };
        let mut tags: Vec<String> = Vec::new();
        if p.kind == "entity" && m.pct(20) {
            tags.push("project".into());
        }
        for _ in 0..m.range(1, 4) {
            let t = TAGS[m.skewed(TAGS.len())].to_string();
            if !tags.contains(&t) {
                tags.push(t);
            }
        }
        // A few tags in a form lint and fmt fix.
        if m.pct(1) {
            tags.push("#Machine Learning".into());
        }
        let mut sources = Vec::new();
        if !self.raw.is_empty() {
            for _ in 0..m.range(1, 3) {
                let s = &self.raw[m.below(self.raw.len())].path;
                if !sources.contains(s) {
                    sources.push(s.clone());
                }
            }
        }
        if m.pct(1) {
            sources.push(format!("raw/ideas/gone-{}.md", m.hex(6)));
        }

        let mut t = String::with_capacity(3500);
        t.push_str("---\n");
        let _ = writeln!(t, "title: {}", yaml_scalar(&p.title));
        if !m.pct(1) {
            let _ = writeln!(t, "type: {}", p.kind);
        }
        let _ = writeln!(t, "maturity: {maturity}");
        let list = |items: &[String]| {
            items
                .iter()
                .map(|s| yaml_scalar(s))
                .collect::<Vec<_>>()
                .join(", ")
        };
        if m.pct(70) {
            let _ = writeln!(t, "tags: [{}]", list(&tags));
        } else {
            t.push_str("tags:\n");
            for tag in &tags {
                let _ = writeln!(t, "  - {}", yaml_scalar(tag));
            }
        }
        if !p.aliases.is_empty() {
            let _ = writeln!(t, "aliases: [{}]", list(&p.aliases));
        }
        let _ = writeln!(t, "sources: [{}]", list(&sources));
        let _ = writeln!(t, "created: {}", self.date(created_age));
        if m.permille(5) {
            let _ = writeln!(t, "updated: {}", self.date(updated_age).replace('-', "/"));
        } else {
            let _ = writeln!(t, "updated: {}", self.date(updated_age));
        }
        t.push_str("---\n\n");

        let (headings, blocks) = outline(self.seed, i);
        let _ = writeln!(t, "# {}\n", p.title);
        if m.pct(2) {
            // Thin: a stub of a page.
            paragraph(&mut r, &mut t, 1);
            let _ = writeln!(t, " See {}.", self.link(&mut r, i));
        } else {
            let target = r.range(1000, 3000);
            let mut links = r.range(4, 10);
            let mut block = 0;
            for (h, heading) in headings.iter().enumerate() {
                let _ = writeln!(t, "## {heading}\n");
                let paras = r.range(1, 2);
                for _ in 0..paras {
                    let start = t.len();
                    let k = r.range(2, 5);
                    paragraph(&mut r, &mut t, k);
                    // Links go inside the prose, a few per paragraph.
                    let per = if h + 1 == headings.len() {
                        links
                    } else {
                        links.min(r.range(1, 3))
                    };
                    for _ in 0..per {
                        let l = self.link(&mut r, i);
                        let _ = write!(t, " {} {l}.", r.pick(&["See", "Compare", "Cf.", "As in"]));
                    }
                    links -= per;
                    if block < blocks.len() && r.pct(50) {
                        let _ = write!(t, " ^{}", blocks[block]);
                        block += 1;
                    }
                    t.push_str("\n\n");
                    if t.len() - start > 0 && t.len() > target {
                        break;
                    }
                }
                if r.pct(12) {
                    let _ = writeln!(
                        t,
                        "```{}\n// [[Not A Link]] inside code\nlet x = {};\n```\n",
                        r.pick(LANGS),
                        r.below(1000)
                    );
                } else if r.pct(12) {
                    for _ in 0..r.range(2, 4) {
                        t.push_str("- ");
                        sentence(&mut r, &mut t);
                        t.push('\n');
                    }
                    t.push('\n');
                } else if r.pct(5) {
                    t.push_str("| item | note |\n|---|---|\n");
                    let _ = writeln!(
                        t,
                        "| {} | {} |\n",
                        self.link(&mut r, i).replace('|', "\\|"),
                        r.pick(WORDS)
                    );
                }
            }
            // Block ids not placed yet end the page.
            while block < blocks.len() {
                paragraph(&mut r, &mut t, 1);
                let _ = writeln!(t, " ^{}\n", blocks[block]);
                block += 1;
            }
        }
        let mtime = self.mtime(updated_age, m.next());
        self.put(&p.path, t.as_bytes(), Some(mtime))
    }

    fn write_raw(&self, i: usize) -> Result<()> {
        let f = &self.raw[i];
        let mut r = Rng::new(self.seed, i as u64, S_RAW ^ 0xABCD);
        let date = self.date(f.age);
        let mut t = String::with_capacity(2048);
        match f.kind {
            RawKind::Quote => {
                let _ = writeln!(t, "# Quotes, {date}\n");
                for _ in 0..r.range(1, 5) {
                    t.push_str("> ");
                    let k = r.range(1, 3);
                    paragraph(&mut r, &mut t, k);
                    let _ = writeln!(t, "\n\n— {} {}\n", r.pick(FIRST), r.pick(LAST));
                }
            }
            RawKind::Weblink => {
                let url = url(&mut r);
                let _ = writeln!(t, "# {} {}\n\n{url}\n", r.pick(ADJ), r.pick(NOUN));
                let _ = writeln!(t, "Clipped {date}.\n");
                for _ in 0..r.range(2, 10) {
                    let k = r.range(2, 6);
                    paragraph(&mut r, &mut t, k);
                    t.push_str("\n\n");
                }
            }
            RawKind::Media => {
                let kind = f.path.split('/').nth(2).unwrap_or("film");
                let _ = writeln!(
                    t,
                    "# {} {}\n\nkind: {kind}\nwatched: {date}\nrating: {}/5\n",
                    r.pick(ADJ),
                    r.pick(NOUN),
                    r.range(1, 5)
                );
                for _ in 0..r.range(1, 4) {
                    let k = r.range(2, 5);
                    paragraph(&mut r, &mut t, k);
                    t.push_str("\n\n");
                }
            }
            RawKind::Idea | RawKind::Retired => {
                for _ in 0..r.range(1, 4) {
                    let k = r.range(1, 5);
                    paragraph(&mut r, &mut t, k);
                    t.push_str("\n\n");
                }
            }
            RawKind::Archive => {
                for entry in 1..=r.range(1, 6) {
                    let mut c = String::new();
                    capture(&mut r, &mut c);
                    let _ = writeln!(
                        t,
                        "---\n<!-- sparks: ingest {} {} entry {entry} blake3 {} -->\n{}{c}",
                        1 + i % 997,
                        r.hex(16),
                        r.hex(64),
                        if r.pct(50) {
                            format!("{date}\n")
                        } else {
                            String::new()
                        },
                    );
                }
            }
            RawKind::Attachment => {
                let mut bytes = b"\x89PNG\r\n\x1a\n".to_vec();
                for _ in 0..r.range(200, 3000) {
                    bytes.extend_from_slice(&r.next().to_le_bytes());
                }
                return self.put(&f.path, &bytes, Some(self.mtime(f.age, r.next())));
            }
        }
        self.put(&f.path, t.as_bytes(), Some(self.mtime(f.age, r.next())))
    }

    fn write_system(&self) -> Result<()> {
        let today = self.date(0);
        let mut r = Rng::new(self.seed, 0, S_MISC);
        self.put(
            "sparks.toml",
            format!(
                "# Generated by examples/gen_vault.rs for the benchmarks.\n\n[vault]\n\
                 name = \"bench-{}\"\n\n[git]\nauto_commit = false\n\n[ingest]\n\
                 batch_size = 15\n",
                self.pages.len()
            )
            .as_bytes(),
            None,
        )?;
        self.put(".gitignore", b"sparks.db*\n", None)?;

        // The log: one block per twenty pages, oldest first.
        let mut log = format!(
            "---\ntitle: Log\ntype: collection\nmaturity: working\nsources: []\n\
             created: {}\nupdated: {today}\n---\n\n# Log\n\nWhat happened to this wiki, oldest \
             first.\n\n",
            self.date(HISTORY_DAYS)
        );
        let blocks = (self.pages.len() / 20).max(3);
        for b in 0..blocks {
            let age = HISTORY_DAYS - (HISTORY_DAYS * (b as u64 + 1)) / blocks as u64;
            let p = &self.pages[r.below(self.pages.len())];
            let _ = writeln!(
                log,
                "## [{}] ingest | {} captures\n\n- created [[{}]]\n- updated {} pages\n",
                self.date(age),
                r.range(1, 15),
                p.title,
                r.range(0, 6)
            );
        }
        self.put("wiki/log.md", log.as_bytes(), None)?;

        // The task list: sections by project, open and done tasks.
        let mut tasks = format!(
            "---\ntitle: Tasks\ntype: collection\nmaturity: working\nsources: []\n\
             created: {}\nupdated: {today}\n---\n\n# Tasks\n\n",
            self.date(HISTORY_DAYS)
        );
        let sections = (self.pages.len() / 200).clamp(3, 60);
        for s in 0..sections {
            let _ = writeln!(
                tasks,
                "## {}\n",
                self.pages[(s * 7) % self.pages.len()].title
            );
            for _ in 0..r.range(2, 12) {
                let done = if r.pct(40) { "x" } else { " " };
                let _ = writeln!(
                    tasks,
                    "- [{done}] {} {} {}",
                    r.pick(TASK_VERBS),
                    r.pick(WORDS),
                    r.pick(NOUN).to_lowercase()
                );
            }
            tasks.push('\n');
        }
        self.put("wiki/collections/Tasks.md", tasks.as_bytes(), None)?;

        self.put(
            "wiki/index.md",
            format!(
                "---\ntitle: Index\ntype: collection\nmaturity: working\nsources: []\n\
                 created: {}\nupdated: {today}\n---\n\n# Index\n\nThe catalogue of this \
                 wiki, grouped by type.\n",
                self.date(HISTORY_DAYS)
            )
            .as_bytes(),
            None,
        )?;

        // The inbox.
        let mut inbox = String::from(
            "# Inbox\n\nCapture anything below the line: thoughts, links, quotes, tasks. \
             Separate captures with a\nline holding only three dashes.\n\n---\n\n",
        );
        let mut ir = Rng::new(self.seed, 0, S_INBOX);
        for e in 0..self.inbox {
            if e > 0 {
                inbox.push_str("\n---\n\n");
            }
            if ir.pct(50) {
                let _ = writeln!(inbox, "{}", self.date(ir.below(30) as u64));
            }
            capture(&mut ir, &mut inbox);
        }
        self.put("inbox.md", inbox.as_bytes(), None)?;
        self.write_hints()
    }

    /// `.bench-hints`: names the benchmarks query by, as shell assignments (a hidden file,
    /// so the scan skips it). The hub is the most linked page.
    fn write_hints(&self) -> Result<()> {
        let Some(hub) = self.pages.first() else {
            return Ok(());
        };
        let other = self.pages.get(1).unwrap_or(hub);
        let q = |s: &str| format!("'{}'", s.replace('\'', "'\\''"));
        let hints = format!(
            "HUB_TITLE={}\nHUB_PATH={}\nRESOLVE_NAME={}\nTAG=databases\nWORD=latency\n\
             PHRASE={}\n",
            q(&hub.title),
            q(&hub.path),
            q(&other.title.to_lowercase().replace(' ', "-")),
            q("\"cache invalidation\""),
        );
        self.put(".bench-hints", hints.as_bytes(), None)
    }
}

fn url(r: &mut Rng) -> String {
    format!(
        "https://{}/{}/{}-{}",
        r.pick(DOMAINS),
        2015 + r.below(11),
        slug(&format!("{} {}", r.pick(ADJ), r.pick(NOUN))),
        r.hex(4)
    )
}

/// One capture, as the human writes it in the inbox.
fn capture(r: &mut Rng, out: &mut String) {
    match r.below(10) {
        0 | 1 => {
            let _ = writeln!(
                out,
                "- [ ] {} {} about the {}",
                r.pick(TASK_VERBS),
                r.pick(FIRST),
                r.pick(NOUN).to_lowercase()
            );
            if r.pct(40) {
                let _ = writeln!(
                    out,
                    "TODO: {} {}",
                    r.pick(TASK_VERBS),
                    r.pick(NOUN).to_lowercase()
                );
            }
        }
        2 | 3 => {
            let u = url(r);
            paragraph(r, out, 1);
            let _ = writeln!(out, " {u}");
        }
        4 => {
            out.push_str("> ");
            let k = r.range(1, 2);
            paragraph(r, out, k);
            let _ = writeln!(out, "\n— {} {}", r.pick(FIRST), r.pick(LAST));
        }
        5 => {
            let _ = writeln!(
                out,
                "book: The {} {} by {} {}",
                r.pick(ADJ),
                r.pick(NOUN),
                r.pick(FIRST),
                r.pick(LAST)
            );
        }
        6 => {
            let u = url(r);
            let _ = writeln!(out, "to-read: {u}");
        }
        _ => {
            let k = r.range(1, 4);
            paragraph(r, out, k);
            out.push('\n');
            if r.pct(30) {
                let _ = writeln!(
                    out,
                    "- [ ] {} {}",
                    r.pick(TASK_VERBS),
                    r.pick(NOUN).to_lowercase()
                );
            }
        }
    }
}

/// A YAML plain scalar when that is safe, a double-quoted one otherwise.
fn yaml_scalar(s: &str) -> String {
    let plain = !s.is_empty()
        && !s.starts_with([
            '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`', '-', '[', '{',
        ])
        && !s.contains(": ")
        && !s.contains(" #")
        && !s.contains([',', '[', ']', '{', '}'])
        && !s.ends_with(':');
    if plain {
        s.to_string()
    } else {
        format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
    }
}
