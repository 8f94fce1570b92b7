//! Tool arguments as models send them. A model often writes a list, a number or a boolean
//! JSON-encoded inside a string (`"keep": "[2, 3]"`, `"limit": "10"`); those are decoded and
//! then checked like any other value. Nothing is guessed: a value that still has the wrong
//! type (`"limit": "ten"`) is an error that names the argument, never a silent default.

use serde::de::DeserializeOwned;
use serde_json::Value;

/// `value` as a `T`, decoding it first when it is a string holding JSON that is not a string.
pub fn value<T: DeserializeOwned>(field: &str, value: Value) -> Result<T, String> {
    serde_json::from_value(decoded(value)).map_err(|e| format!("{field}: {e}"))
}

/// `value` as an optional whole number: a number, or a string holding one. Anything else
/// is an error that says "a whole number" (not a Rust type).
pub fn count<T: TryFrom<u64>>(field: &str, value: Value) -> Result<Option<T>, String> {
    match decoded(value) {
        Value::Null => Ok(None),
        v => whole(field, v).map(Some),
    }
}

/// `value` as an optional integer, negative or not: a number, or a string holding one.
pub fn integer(field: &str, value: Value) -> Result<Option<i64>, String> {
    match decoded(value) {
        Value::Null => Ok(None),
        v => v
            .as_i64()
            .map(Some)
            .ok_or_else(|| format!("{field}: expected a whole number, got {v}")),
    }
}

/// `value` as a list of whole numbers (each as [`count`] reads one).
pub fn counts<T: TryFrom<u64>>(field: &str, value: Value) -> Result<Vec<T>, String> {
    items(value)
        .into_iter()
        .map(|item| whole(field, decoded(item)))
        .collect()
}

fn whole<T: TryFrom<u64>>(field: &str, v: Value) -> Result<T, String> {
    v.as_u64()
        .and_then(|n| T::try_from(n).ok())
        .ok_or_else(|| format!("{field}: expected a whole number, got {v}"))
}

/// `value` as a string, exactly as sent (a string is never decoded).
pub fn text<T: DeserializeOwned>(field: &str, value: Value) -> Result<T, String> {
    serde_json::from_value(value).map_err(|e| format!("{field}: {e}"))
}

/// `value` as a list of strings: a list, a JSON-encoded list or a lone string. The strings
/// themselves are never decoded.
pub fn strings(field: &str, value: Value) -> Result<Vec<String>, String> {
    items(value)
        .into_iter()
        .map(|item| text(field, item))
        .collect()
}

/// `value` as an optional name, one of `allowed`.
pub fn name(field: &str, value: Value, allowed: &[&str]) -> Result<Option<String>, String> {
    let name: Option<String> = text(field, value)?;
    if let Some(n) = &name {
        check(field, n, allowed)?;
    }
    Ok(name)
}

fn check(field: &str, name: &str, allowed: &[&str]) -> Result<(), String> {
    if allowed.contains(&name) {
        Ok(())
    } else {
        Err(format!(
            "{field}: {name:?} is not one of {}",
            allowed.join(", ")
        ))
    }
}

/// The items of a list argument: `null` is none, a lone item is a list of one.
fn items(value: Value) -> Vec<Value> {
    match decoded(value) {
        Value::Null => Vec::new(),
        Value::Array(items) => items,
        item => vec![item],
    }
}

/// A string that holds a JSON list, object, number, boolean or null, decoded; anything else as
/// it came.
fn decoded(value: Value) -> Value {
    match value {
        Value::String(s) => match serde_json::from_str::<Value>(s.trim()) {
            Ok(inner) if !inner.is_string() => inner,
            _ => Value::String(s),
        },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn encoded_lists_and_numbers_are_decoded() {
        assert_eq!(counts::<u32>("keep", json!("[2, 3]")), Ok(vec![2, 3]));
        assert_eq!(counts::<u32>("keep", json!([2, "3"])), Ok(vec![2, 3]));
        assert_eq!(counts::<u32>("keep", json!(4)), Ok(vec![4]));
        assert_eq!(count::<usize>("limit", json!("10")), Ok(Some(10)));
        assert_eq!(count::<usize>("limit", json!(null)), Ok(None));
        assert_eq!(value::<bool>("fix", json!("true")), Ok(true));
    }

    #[test]
    fn a_wrong_type_is_an_error_that_names_the_argument() {
        let e = count::<usize>("limit", json!("ten")).unwrap_err();
        assert_eq!(e, "limit: expected a whole number, got \"ten\"");
        let e = count::<u32>("days", json!(5_000_000_000u64)).unwrap_err();
        assert_eq!(e, "days: expected a whole number, got 5000000000");
        let e = value::<bool>("fix", json!("yes")).unwrap_err();
        assert!(e.starts_with("fix: "), "{e}");
        let e = count::<usize>("limit", json!(-1)).unwrap_err();
        assert_eq!(e, "limit: expected a whole number, got -1");
        let e = text::<String>("text", json!(5)).unwrap_err();
        assert!(e.starts_with("text: invalid type: integer"), "{e}");
    }

    #[test]
    fn strings_stay_strings() {
        assert_eq!(text::<String>("text", json!("[1]")), Ok("[1]".to_string()));
        assert_eq!(text::<String>("text", json!("42")), Ok("42".to_string()));
    }

    #[test]
    fn names_must_be_known() {
        let checks = ["orphans", "thin-pages"];
        assert_eq!(
            strings("checks", json!("[\"orphans\"]")),
            Ok(vec!["orphans".to_string()])
        );
        assert_eq!(
            name("type", json!("orphans"), &checks),
            Ok(Some("orphans".to_string()))
        );
        let e = name("type", json!("orphan"), &checks).unwrap_err();
        assert_eq!(e, "type: \"orphan\" is not one of orphans, thin-pages");
        assert_eq!(name("type", json!(null), &checks), Ok(None));
    }
}
