//! The sanitiser's policy: which tags, attributes, classes and URL schemes survive in the HTML
//! the viewer serves. Everything the renderer emits, author HTML included, passes through it:
//! no scripts, no event handlers, no styles, no frames or forms, no `javascript:` or `data:`
//! URLs (ammonia's default schemes are web, mail and the like). Classes are limited to the
//! viewer's own and `language-*`; ids to letters, digits, dashes and underscores.

use std::sync::OnceLock;

/// Sanitise HTML: only the tags, attributes, classes and URL schemes the viewer needs.
pub fn sanitize(html: &str) -> String {
    cleaner().clean(html).to_string()
}

/// Classes the viewer's markup uses; any other class is dropped.
const CLASSES: &[&str] = &[
    "wikilink",
    "broken",
    "ambiguous",
    "unresolved",
    "embed",
    "embed-source",
    "embed-body",
    "embed-notice",
    "embed-why",
    "missing-anchor",
    "block-anchor",
    "footnote",
    "footnote-ref",
    "footnote-label",
    "footnote-back",
    "markdown-alert-note",
    "markdown-alert-tip",
    "markdown-alert-important",
    "markdown-alert-warning",
    "markdown-alert-caution",
    "captures",
    "capture",
    "capture-header",
    "capture-count",
    "capture-meta",
    "capture-body",
    "separator",
];

fn cleaner() -> &'static ammonia::Builder<'static> {
    static CLEANER: OnceLock<ammonia::Builder<'static>> = OnceLock::new();
    CLEANER.get_or_init(|| {
        let mut b = ammonia::Builder::default();
        b.add_tags(["input"]);
        for (tag, attrs) in [
            ("a", &["class"][..]),
            ("span", &["class", "id"]),
            ("sup", &["class", "id"]),
            ("div", &["class", "id"]),
            ("code", &["class"]),
            ("img", &["class"]),
            ("li", &["id"]),
            ("blockquote", &["class"]),
            ("figure", &["class"]),
            ("p", &["class"]),
            ("article", &["class", "id"]),
            ("hr", &["class"]),
            ("time", &["datetime"]),
            ("input", &["type", "checked", "disabled"]),
            ("h1", &["id"]),
            ("h2", &["id"]),
            ("h3", &["id"]),
            ("h4", &["id"]),
            ("h5", &["id"]),
            ("h6", &["id"]),
        ] {
            b.add_tag_attributes(tag, attrs.iter().copied());
        }
        // Whatever the author wrote, an input is a disabled checkbox (a task-list marker).
        b.set_tag_attribute_value("input", "type", "checkbox");
        b.set_tag_attribute_value("input", "disabled", "");
        b.attribute_filter(|_element, attribute, value| match attribute {
            "class" => {
                let kept: Vec<&str> = value
                    .split_ascii_whitespace()
                    .filter(|c| CLASSES.contains(c) || is_language_class(c))
                    .collect();
                (!kept.is_empty()).then(|| kept.join(" ").into())
            }
            "id" => (!value.is_empty()
                && value
                    .chars()
                    .all(|c| c.is_alphanumeric() || c == '-' || c == '_'))
            .then_some(value.into()),
            _ => Some(value.into()),
        });
        b
    })
}

fn is_language_class(c: &str) -> bool {
    c.strip_prefix("language-").is_some_and(|l| {
        !l.is_empty()
            && l.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '+' | '#'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_policy_in_brief() {
        assert_eq!(
            sanitize("<a href=\"javascript:x\" class=\"wikilink x\" onclick=\"y\">a</a>"),
            "<a class=\"wikilink\" rel=\"noopener noreferrer\">a</a>"
        );
        assert_eq!(
            sanitize("<code class=\"language-c++\">x</code>"),
            "<code class=\"language-c++\">x</code>"
        );
        assert_eq!(
            sanitize("<input type=text value=1>"),
            "<input type=\"checkbox\" disabled=\"\">"
        );
        assert_eq!(
            sanitize("<img src=\"data:image/png;base64,AAAA\">"),
            "<img>"
        );
        assert_eq!(sanitize("<h2 id=\"a b\">x</h2>"), "<h2>x</h2>");
    }
}
