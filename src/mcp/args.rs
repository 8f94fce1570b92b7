//! The tools' arguments: one struct per tool, whose doc comments become the input schema's
//! descriptions. Names the CLI takes from a fixed set (lint checks, page types, maturities)
//! are enums in the schema, taken from the same lists the core uses. Unknown arguments are
//! rejected, and every value goes through [`super::lenient`], so an error names its argument.

use crate::manifest::Scope;
use crate::search::Mode;
use crate::{collections, lint, schema};
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;
use serde_json::{Map, Value};

/// A JSON object, as schemas are.
type JsonObject = Map<String, Value>;

/// No arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

/// `sparks_scan`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScanArgs {
    /// Read every file, whatever its metadata says
    #[serde(default, deserialize_with = "de::full")]
    pub full: bool,
}

/// `sparks_lint`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LintArgs {
    /// Run only these checks (default: all)
    #[serde(default, deserialize_with = "de::checks")]
    #[schemars(schema_with = "checks_schema")]
    pub checks: Vec<String>,
    /// First repair the tags and stale dates it reports
    #[serde(default, deserialize_with = "de::fix")]
    pub fix: bool,
}

/// `sparks_index`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IndexArgs {
    /// Write nothing; return the diff
    #[serde(default, deserialize_with = "de::dry_run")]
    pub dry_run: bool,
}

/// `sparks_prepare_ingest`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PrepareArgs {
    /// At most this many entries (0: all; default: [ingest] batch_size)
    #[serde(default, deserialize_with = "de::limit")]
    pub limit: Option<usize>,
}

/// `sparks_finalize_ingest`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FinalizeArgs {
    /// The commit message (default: "ingest: N entries")
    #[serde(default, deserialize_with = "de::message")]
    pub message: Option<String>,
    /// Ids of batch entries to leave in the inbox
    #[serde(default, deserialize_with = "de::keep")]
    #[schemars(inner(range(min = 1)))]
    pub keep: Vec<u32>,
    /// Refuse the batch if it adds lint issues
    #[serde(default, deserialize_with = "de::strict")]
    pub strict: bool,
}

/// `sparks_ingest_list`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IngestListArgs {
    /// Only ingests that touched this page
    #[serde(default, deserialize_with = "de::page")]
    pub page: Option<String>,
}

/// `sparks_ingest_show`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IngestShowArgs {
    /// The ingest: its id here, or its token (the same on every device)
    #[serde(deserialize_with = "de::ingest")]
    #[schemars(schema_with = "id_or_token")]
    pub id: crate::request::IngestRef,
}

/// The schema of an ingest's id here (a whole number from 1) or its token (a string).
fn id_or_token(_: &mut SchemaGenerator) -> Schema {
    json_schema!({"type": ["integer", "string"], "minimum": 1})
}

/// `sparks_revert_ingest`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RevertArgs {
    /// The ingest to take back: its id here, or its token
    #[serde(deserialize_with = "de::ingest")]
    #[schemars(schema_with = "id_or_token")]
    pub id: crate::request::IngestRef,
    /// Write nothing; say what would be done
    #[serde(default, deserialize_with = "de::dry_run")]
    pub dry_run: bool,
}

/// `sparks_done`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DoneArgs {
    /// Words of the open task to complete
    #[serde(deserialize_with = "de::query")]
    pub query: String,
}

/// `sparks_capture`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CaptureArgs {
    /// The capture, its lines kept
    #[serde(deserialize_with = "de::text")]
    pub text: String,
    /// Capture date, YYYY-MM-DD (default: the day it is ingested)
    #[serde(default, deserialize_with = "de::date")]
    pub date: Option<String>,
}

/// `sparks_sync`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SyncArgs {
    /// Git remote, for this call only
    #[serde(default)]
    pub remote: Option<String>,
    /// Change nothing local
    #[serde(default)]
    pub dry_run: bool,
}

/// `sparks_tasks_add`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TasksAddArgs {
    /// The section heading, without `##` (any case)
    #[serde(deserialize_with = "de::section")]
    pub section: String,
    /// The task, one line
    #[serde(deserialize_with = "de::text")]
    pub text: String,
}

/// `sparks_describe`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DescribeArgs {
    /// A topic of the reference instead of the contract (its §11 names them)
    #[serde(default, deserialize_with = "de::topic")]
    pub topic: Option<String>,
}

/// `sparks_tasks_list`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TasksListArgs {
    /// List done tasks too
    #[serde(default, deserialize_with = "de::all")]
    pub all: bool,
    /// Only this section's tasks (any case)
    #[serde(default, deserialize_with = "de::list_section")]
    pub section: Option<String>,
}

/// `sparks_brief`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BriefArgs {
    /// How many calendar days, today included (default, and for 0 or less: 7)
    #[serde(default, deserialize_with = "de::days")]
    #[schemars(range(max = 3660))]
    pub days: Option<i64>,
}

/// `sparks_query`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QueryArgs {
    /// Pages with this title (case-insensitive)
    #[serde(default, deserialize_with = "de::title")]
    pub title: Option<String>,
    /// Pages with this alias (case-insensitive)
    #[serde(default, deserialize_with = "de::alias")]
    pub alias: Option<String>,
    /// Pages with this tag (case-insensitive, `#` optional)
    #[serde(default, deserialize_with = "de::tag")]
    pub tag: Option<String>,
    /// Pages of this type
    #[serde(rename = "type", default, deserialize_with = "de::kind")]
    #[schemars(schema_with = "type_schema")]
    pub kind: Option<String>,
    /// Pages of this maturity
    #[serde(default, deserialize_with = "de::maturity")]
    #[schemars(schema_with = "maturity_schema")]
    pub maturity: Option<String>,
    /// Pages this page links to
    #[serde(default, deserialize_with = "de::linked_from")]
    pub linked_from: Option<String>,
    /// Pages linking to this page, or to this name if no page has it
    #[serde(default, deserialize_with = "de::links_to")]
    pub links_to: Option<String>,
    /// Pages older than one of their sources
    #[serde(default, deserialize_with = "de::stale")]
    pub stale: bool,
    /// Pages no other page links to (the index does not count)
    #[serde(default, deserialize_with = "de::orphan")]
    pub orphan: bool,
    /// Pages with too few sentences of prose (`[lint] thin_below_sentences`)
    #[serde(default, deserialize_with = "de::thin")]
    pub thin: bool,
    /// At most this many pages (`total` counts all)
    #[serde(default, deserialize_with = "de::limit")]
    pub limit: Option<usize>,
    /// Alone: the pages a new page of this name would collide with
    #[serde(default, deserialize_with = "de::resolve")]
    pub resolve: Option<String>,
}

/// `sparks_search`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchArgs {
    /// Words or a sentence, ranked; "phrase", +word, OR, -word, prefix* work too
    #[serde(deserialize_with = "de::query")]
    pub query: String,
    /// Where to search (default: wiki)
    #[serde(rename = "in", default, deserialize_with = "de::scope")]
    #[schemars(schema_with = "scope_schema")]
    pub scope: Option<Scope>,
    /// Only pages of this type
    #[serde(rename = "type", default, deserialize_with = "de::kind")]
    #[schemars(schema_with = "type_schema")]
    pub kind: Option<String>,
    /// Only pages with this tag
    #[serde(default, deserialize_with = "de::tag")]
    pub tag: Option<String>,
    /// At most this many hits (default: 20)
    #[serde(default, deserialize_with = "de::limit")]
    pub limit: Option<usize>,
    /// By words, meaning or both (default: hybrid)
    #[serde(default, deserialize_with = "de::mode")]
    #[schemars(schema_with = "mode_schema")]
    pub mode: Option<Mode>,
}

/// `sparks_related`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RelatedArgs {
    /// Title, alias, file name or path
    #[serde(default, deserialize_with = "de::page")]
    pub page: Option<String>,
    /// Or a text
    #[serde(default, deserialize_with = "de::about_text")]
    pub text: Option<String>,
    /// At most this many (default: 10)
    #[serde(default, deserialize_with = "de::limit")]
    pub limit: Option<usize>,
}

/// `sparks_publish`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PublishArgs {
    /// Folder in the vault (default: site)
    #[serde(default, deserialize_with = "de::out")]
    pub out: Option<String>,
    /// Every page but publish: false
    #[serde(default, deserialize_with = "de::all")]
    pub all: bool,
    /// Site address
    #[serde(default, deserialize_with = "de::base_url")]
    pub base_url: Option<String>,
    /// Write nothing
    #[serde(default, deserialize_with = "de::dry_run")]
    pub dry_run: bool,
}

/// `sparks_collections_regen`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RegenArgs {
    /// Collections to regenerate (default: those whose sources changed)
    #[serde(default, deserialize_with = "de::names")]
    #[schemars(schema_with = "collections_schema")]
    pub names: Vec<String>,
    /// Regenerate all seven (not with names)
    #[serde(default, deserialize_with = "de::all")]
    pub all: bool,
    /// Write nothing; say what would change
    #[serde(default, deserialize_with = "de::dry_run")]
    pub dry_run: bool,
}

/// `sparks_fmt`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FmtArgs {
    /// A file, directory or glob in the vault (default: wiki/)
    #[serde(default, deserialize_with = "de::path")]
    pub path: Option<String>,
    /// Repair what is mechanical first (key order; tag, list and date form)
    #[serde(default, deserialize_with = "de::fix")]
    pub fix: bool,
    /// Only report (the default; not with fix)
    #[serde(default, deserialize_with = "de::check")]
    pub check: bool,
}

/// `sparks_move`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MoveArgs {
    /// Title, alias, file name or path
    #[serde(deserialize_with = "de::move_page")]
    pub page: String,
    /// New title, or path under wiki/ ending in .md
    #[serde(deserialize_with = "de::new")]
    pub new: String,
    /// Write nothing; return the changes
    #[serde(default, deserialize_with = "de::dry_run")]
    pub dry_run: bool,
    /// Do not keep the old title as an alias
    #[serde(default, deserialize_with = "de::no_alias")]
    pub no_alias: bool,
}

/// `sparks_merge`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MergeArgs {
    /// Page to merge and delete
    #[serde(deserialize_with = "de::from")]
    pub from: String,
    /// Page that receives it
    #[serde(deserialize_with = "de::into")]
    pub into: String,
    /// Write nothing; return the changes
    #[serde(default, deserialize_with = "de::dry_run")]
    pub dry_run: bool,
}

/// `schema` without what costs a model tokens and tells it nothing: `$schema` (2020-12 is
/// MCP's default dialect), integer `format`s, defaults of `null`, `false` and `[]`, and `null`
/// among the `type`s of an optional argument (leaving it out says the same).
pub fn tidy(schema: &mut JsonObject) {
    schema.remove("$schema");
    match schema.get_mut("properties") {
        Some(Value::Object(properties)) => {
            for p in properties.values_mut().filter_map(Value::as_object_mut) {
                tidy_argument(p);
            }
        }
        // Some clients want `properties` even when there are none.
        _ => {
            schema.insert("properties".into(), Value::Object(JsonObject::new()));
        }
    }
}

fn tidy_argument(p: &mut JsonObject) {
    p.remove("format");
    // Absent means no, none or null: a default that says so tells nothing.
    if matches!(p.get("default"), Some(Value::Null | Value::Bool(false)))
        || p.get("default")
            .and_then(Value::as_array)
            .is_some_and(Vec::is_empty)
    {
        p.remove("default");
    }
    if let Some(Value::Array(types)) = p.get("type") {
        let types: Vec<&Value> = types
            .iter()
            .filter(|t| t.as_str() != Some("null"))
            .collect();
        if let [only] = types[..] {
            let only = only.clone();
            p.insert("type".into(), only);
        }
    }
    if let Some(Value::Object(items)) = p.get_mut("items") {
        items.remove("format");
    }
}

fn collections_schema(_: &mut SchemaGenerator) -> Schema {
    let names: Vec<&str> = collections::ALL.iter().map(|c| c.name()).collect();
    json_schema!({"type": "array", "items": {"type": "string", "enum": names}})
}

fn checks_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({"type": "array", "items": {"type": "string", "enum": lint::CHECKS}})
}

fn scope_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({"type": "string", "enum": Scope::NAMES})
}

fn mode_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({"type": "string", "enum": Mode::NAMES})
}

fn type_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({"type": "string", "enum": schema::TYPES})
}

fn maturity_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({"type": "string", "enum": schema::MATURITIES})
}

/// One `deserialize_with` function per argument name, so that every error names its argument.
mod de {
    use super::super::lenient;
    use crate::manifest::Scope;
    use crate::schema;
    use serde::{Deserialize, Deserializer, de::Error};
    use serde_json::Value;

    macro_rules! arguments {
        ($($name:ident: $ty:ty => $decode:expr),* $(,)?) => {$(
            pub fn $name<'de, D: Deserializer<'de>>(d: D) -> Result<$ty, D::Error> {
                let decode: fn(&str, Value) -> Result<$ty, String> = $decode;
                decode(stringify!($name), Value::deserialize(d)?).map_err(D::Error::custom)
            }
        )*};
    }

    arguments! {
        full: bool => lenient::value,
        all: bool => lenient::value,
        fix: bool => lenient::value,
        check: bool => lenient::value,
        dry_run: bool => lenient::value,
        no_alias: bool => lenient::value,
        strict: bool => lenient::value,
        stale: bool => lenient::value,
        orphan: bool => lenient::value,
        thin: bool => lenient::value,
        limit: Option<usize> => lenient::count,
        ingest: crate::request::IngestRef => |_, v| match v {
            Value::String(s) => s.parse().map_err(|e| format!("id: {e}")),
            other => lenient::count::<i64>("id", other)?
                .map(crate::request::IngestRef::Id)
                .ok_or_else(|| "id: expected an ingest's id or token, got null".to_string()),
        },
        days: Option<i64> => lenient::integer,
        keep: Vec<u32> => lenient::counts,
        // The core knows the names (in any case, with or without spaces) and says so.
        names: Vec<String> => lenient::strings,
        scope: Option<Scope> => |_, v| lenient::text::<Option<String>>("in", v)?
            .map(|n| n.parse().map_err(|e| format!("in: {e}")))
            .transpose(),
        mode: Option<crate::search::Mode> => |f, v| lenient::text::<Option<String>>(f, v)?
            .map(|n| n.parse().map_err(|e| format!("{f}: {e}")))
            .transpose(),
        // The tool finds the topic, and names the topics when there is none of that name.
        topic: Option<String> => lenient::text,
        // The request checks the names once, and says the nearest (`lint::select`).
        checks: Vec<String> => lenient::strings,
        kind: Option<String> => |_, v| lenient::name("type", v, &schema::TYPES),
        maturity: Option<String> => |f, v| lenient::name(f, v, &schema::MATURITIES),
        message: Option<String> => lenient::text,
        query: String => lenient::text,
        section: String => lenient::text,
        // `section` of the task list (optional); `sparks_tasks_add`'s is required.
        list_section: Option<String> => |_, v| lenient::text("section", v),
        text: String => lenient::text,
        // `sparks_related`'s (optional, or `page`).
        about_text: Option<String> => |_, v| lenient::text("text", v),
        date: Option<String> => lenient::text,
        // A folder inside the vault: a tool reaches nothing outside it.
        out: Option<String> => |f, v| match lenient::text::<Option<String>>(f, v)? {
            Some(p) if crate::render::paths::clean_relative(&p).is_err()
                || p.trim_matches('/').is_empty() =>
            {
                Err(format!("{f}: {p:?} is not a folder inside the vault"))
            }
            other => Ok(other),
        },
        base_url: Option<String> => lenient::text,
        title: Option<String> => lenient::text,
        alias: Option<String> => lenient::text,
        tag: Option<String> => lenient::text,
        linked_from: Option<String> => lenient::text,
        links_to: Option<String> => lenient::text,
        resolve: Option<String> => lenient::text,
        path: Option<String> => lenient::text,
        page: Option<String> => lenient::text,
        // `page` is the ingest list's (optional); `sparks_move`'s is required.
        move_page: String => |_, v| lenient::text("page", v),
        new: String => lenient::text,
        from: String => lenient::text,
        into: String => lenient::text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse<T: serde::de::DeserializeOwned>(v: serde_json::Value) -> Result<T, String> {
        serde_json::from_value(v).map_err(|e| e.to_string())
    }

    #[test]
    fn encoded_arguments_are_accepted() {
        let a: FinalizeArgs = parse(json!({"keep": "[2, 3]", "message": "m"})).unwrap();
        assert_eq!(a.keep, vec![2, 3]);
        let a: LintArgs = parse(json!({"checks": "[\"orphans\"]", "fix": "false"})).unwrap();
        assert_eq!(a.checks, vec!["orphans"]);
        assert!(!a.fix);
        let a: PrepareArgs = parse(json!({})).unwrap();
        assert_eq!(a.limit, None);
    }

    #[test]
    fn wrong_types_unknown_names_and_unknown_arguments_are_errors() {
        let e = parse::<PrepareArgs>(json!({"limit": "ten"})).unwrap_err();
        assert_eq!(e, "limit: expected a whole number, got \"ten\"");
        let e = parse::<FinalizeArgs>(json!({"keep": [1, -2]})).unwrap_err();
        assert_eq!(e, "keep: expected a whole number, got -2");
        let e = parse::<BriefArgs>(json!({"days": 1.5})).unwrap_err();
        assert_eq!(e, "days: expected a whole number, got 1.5");
        let e = parse::<QueryArgs>(json!({"type": "entities"})).unwrap_err();
        assert!(
            e.starts_with("type: \"entities\" is not one of entity,"),
            "{e}"
        );
        let e = parse::<LintArgs>(json!({"check": ["orphans"]})).unwrap_err();
        assert!(e.starts_with("unknown field `check`"), "{e}");
        let e = parse::<DoneArgs>(json!({})).unwrap_err();
        assert!(e.starts_with("missing field `query`"), "{e}");
    }

    #[test]
    fn tidy_keeps_what_a_model_needs() {
        let mut s = json!({
            "$schema": "x", "type": "object",
            "properties": {"limit": {"description": "d", "type": ["integer", "null"],
                "format": "uint", "minimum": 0, "default": null},
                "fix": {"type": "boolean", "default": false}}
        });
        tidy(s.as_object_mut().unwrap());
        assert_eq!(
            s,
            json!({"type": "object", "properties": {"limit": {"description": "d",
                "type": "integer", "minimum": 0}, "fix": {"type": "boolean"}}})
        );
        let mut s = json!({"type": "object"});
        tidy(s.as_object_mut().unwrap());
        assert_eq!(s, json!({"type": "object", "properties": {}}));
    }

    #[test]
    fn the_schema_lists_the_fixed_names() {
        let s = serde_json::to_value(schemars::schema_for!(LintArgs)).unwrap();
        let names = &s["properties"]["checks"]["items"]["enum"];
        assert_eq!(names.as_array().map(Vec::len), Some(lint::CHECKS.len()));
        let s = serde_json::to_value(schemars::schema_for!(QueryArgs)).unwrap();
        assert_eq!(s["properties"]["type"]["enum"], json!(schema::TYPES));
        assert_eq!(
            s["properties"]["maturity"]["enum"],
            json!(schema::MATURITIES)
        );
    }
}
