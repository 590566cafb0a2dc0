//! A TOML document as a plain tree in which every key and value remembers where it came from: a
//! line and column of the file, or a command-line override. Overrides edit this tree; validation
//! (`parse.rs`) reads it, so both report errors in the same way.

use std::fmt::Write as _;
use std::ops::Range;

/// Where a key or value came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum At {
    /// 1-based line and column (in characters) of the file.
    File { line: usize, column: usize },
    /// The override with this index in the list given to the parser.
    Override(usize),
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Node {
    pub at: At,
    pub kind: Kind,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Kind {
    Str(String),
    Int(i64),
    Float(f64),
    Bool(bool),
    Datetime(String),
    Array(Vec<Node>),
    Table(Vec<Entry>),
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Entry {
    pub key: String,
    pub key_at: At,
    pub value: Node,
}

impl Node {
    pub fn new(at: At, kind: Kind) -> Node {
        Node { at, kind }
    }

    pub fn entries(&self) -> Option<&[Entry]> {
        match &self.kind {
            Kind::Table(entries) => Some(entries),
            _ => None,
        }
    }

    pub fn entries_mut(&mut self) -> Option<&mut Vec<Entry>> {
        match &mut self.kind {
            Kind::Table(entries) => Some(entries),
            _ => None,
        }
    }

    /// The entry `key` of a table (`None` for other kinds).
    pub fn get(&self, key: &str) -> Option<&Entry> {
        self.entries()?.iter().find(|e| e.key == key)
    }

    pub fn as_str(&self) -> Option<&str> {
        match &self.kind {
            Kind::Str(s) => Some(s),
            _ => None,
        }
    }

    /// "a string", "an integer", ...: for messages.
    pub fn kind_name(&self) -> &'static str {
        match self.kind {
            Kind::Str(_) => "a string",
            Kind::Int(_) => "an integer",
            Kind::Float(_) => "a float",
            Kind::Bool(_) => "a boolean",
            Kind::Datetime(_) => "a date-time",
            Kind::Array(_) => "an array",
            Kind::Table(_) => "a table",
        }
    }

    /// The value as TOML, shortened if long: for messages.
    pub fn render(&self) -> String {
        let mut out = String::new();
        self.render_into(&mut out);
        if out.chars().count() > 60 {
            let short: String = out.chars().take(57).collect();
            return format!("{short}...");
        }
        out
    }

    fn render_into(&self, out: &mut String) {
        match &self.kind {
            Kind::Str(s) => {
                let _ = write!(out, "{}", toml_edit::Value::from(s.as_str()));
            }
            Kind::Int(i) => {
                let _ = write!(out, "{i}");
            }
            Kind::Float(f) => {
                let _ = write!(out, "{}", toml_edit::Value::from(*f));
            }
            Kind::Bool(b) => {
                let _ = write!(out, "{b}");
            }
            Kind::Datetime(d) => out.push_str(d),
            Kind::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    item.render_into(out);
                }
                out.push(']');
            }
            Kind::Table(entries) => {
                out.push_str("{ ");
                for (i, e) in entries.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    let _ = write!(out, "{} = ", e.key);
                    e.value.render_into(out);
                }
                out.push_str(" }");
            }
        }
    }
}

/// Turns byte offsets into 1-based line and column numbers.
pub(crate) struct Lines<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> Lines<'a> {
    pub fn new(text: &'a str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Lines { text, starts }
    }

    pub fn at(&self, offset: usize) -> At {
        let offset = offset.min(self.text.len());
        let line = self.starts.partition_point(|&s| s <= offset);
        let start = self.starts[line - 1];
        let column = self
            .text
            .get(start..offset)
            .map_or(1, |s| s.chars().count() + 1);
        At::File { line, column }
    }

    fn span_at(&self, span: Option<Range<usize>>, fallback: At) -> At {
        span.map_or(fallback, |s| self.at(s.start))
    }
}

/// The root table of a parsed document.
pub(crate) fn from_document(doc: &toml_edit::ImDocument<&str>, lines: &Lines<'_>) -> Node {
    let root_at = At::File { line: 1, column: 1 };
    table(doc.as_table(), lines, root_at)
}

fn table(t: &toml_edit::Table, lines: &Lines<'_>, fallback: At) -> Node {
    let at = lines.span_at(t.span(), fallback);
    let mut entries = Vec::new();
    for (key, item) in t.iter() {
        let key_at = t
            .get_key_value(key)
            .and_then(|(k, _)| k.span())
            .map_or(at, |s| lines.at(s.start));
        if let Some(value) = item_node(item, lines, key_at) {
            entries.push(Entry {
                key: key.to_string(),
                key_at,
                value,
            });
        }
    }
    Node::new(at, Kind::Table(entries))
}

fn item_node(item: &toml_edit::Item, lines: &Lines<'_>, fallback: At) -> Option<Node> {
    match item {
        toml_edit::Item::None => None,
        toml_edit::Item::Value(v) => Some(value(v, lines, fallback)),
        toml_edit::Item::Table(t) => Some(table(t, lines, fallback)),
        toml_edit::Item::ArrayOfTables(a) => {
            let at = lines.span_at(a.span(), fallback);
            let items = a.iter().map(|t| table(t, lines, at)).collect();
            Some(Node::new(at, Kind::Array(items)))
        }
    }
}

fn value(v: &toml_edit::Value, lines: &Lines<'_>, fallback: At) -> Node {
    let at = lines.span_at(v.span(), fallback);
    let kind = match v {
        toml_edit::Value::String(s) => Kind::Str(s.value().clone()),
        toml_edit::Value::Integer(i) => Kind::Int(*i.value()),
        toml_edit::Value::Float(f) => Kind::Float(*f.value()),
        toml_edit::Value::Boolean(b) => Kind::Bool(*b.value()),
        toml_edit::Value::Datetime(d) => Kind::Datetime(d.value().to_string()),
        toml_edit::Value::Array(a) => Kind::Array(a.iter().map(|v| value(v, lines, at)).collect()),
        toml_edit::Value::InlineTable(t) => {
            let mut entries = Vec::new();
            for (key, v) in t.iter() {
                let key_at = t
                    .get_key_value(key)
                    .and_then(|(k, _)| k.span())
                    .map_or(at, |s| lines.at(s.start));
                entries.push(Entry {
                    key: key.to_string(),
                    key_at,
                    value: value(v, lines, key_at),
                });
            }
            Kind::Table(entries)
        }
    };
    Node::new(at, kind)
}

/// A value given on the command line, every part of it located at override `index`.
pub(crate) fn from_value(v: &toml_edit::Value, index: usize) -> Node {
    let at = At::Override(index);
    let kind = match v {
        toml_edit::Value::String(s) => Kind::Str(s.value().clone()),
        toml_edit::Value::Integer(i) => Kind::Int(*i.value()),
        toml_edit::Value::Float(f) => Kind::Float(*f.value()),
        toml_edit::Value::Boolean(b) => Kind::Bool(*b.value()),
        toml_edit::Value::Datetime(d) => Kind::Datetime(d.value().to_string()),
        toml_edit::Value::Array(a) => Kind::Array(a.iter().map(|v| from_value(v, index)).collect()),
        toml_edit::Value::InlineTable(t) => Kind::Table(
            t.iter()
                .map(|(k, v)| Entry {
                    key: k.to_string(),
                    key_at: at,
                    value: from_value(v, index),
                })
                .collect(),
        ),
    };
    Node::new(at, kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Node {
        let doc = toml_edit::ImDocument::parse(text).unwrap();
        from_document(&doc, &Lines::new(text))
    }

    fn file(line: usize, column: usize) -> At {
        At::File { line, column }
    }

    #[test]
    fn keys_and_values_know_their_line_and_column() {
        let root = parse("name = \"x\"\n\n[[link]]\nname = \"é\"\nrate  =  \"1Mbit\"\nloss = { model = \"none\" }\n");
        let name = root.get("name").unwrap();
        assert_eq!(name.key_at, file(1, 1));
        assert_eq!(name.value.at, file(1, 8));
        let link = &root.get("link").unwrap().value;
        let Kind::Array(links) = &link.kind else {
            panic!("not an array: {link:?}")
        };
        assert_eq!(links[0].at, file(3, 1));
        let rate = links[0].get("rate").unwrap();
        assert_eq!(rate.key_at, file(5, 1));
        assert_eq!(rate.value.at, file(5, 10));
        let model = links[0].get("loss").unwrap().value.get("model").unwrap();
        assert_eq!(model.key_at, file(6, 10));
        assert_eq!(model.value.at, file(6, 18));
    }

    #[test]
    fn columns_count_characters_not_bytes() {
        let lines = Lines::new("a = \"é\" # x\nb");
        // `#` is the 9th character but the 10th byte.
        assert_eq!(lines.at(9), file(1, 9));
        assert_eq!(lines.at(13), file(2, 1));
    }

    #[test]
    fn dotted_keys_become_tables_located_at_their_key() {
        let root = parse("[[link]]\nloss.model = \"bernoulli\"\nloss.rate = 0.1\n");
        let Kind::Array(links) = &root.get("link").unwrap().value.kind else {
            panic!()
        };
        let loss = &links[0].get("loss").unwrap().value;
        assert_eq!(loss.get("rate").unwrap().value.kind, Kind::Float(0.1));
        assert_eq!(loss.get("model").unwrap().key_at, file(2, 6));
    }

    #[test]
    fn render_shortens_long_values() {
        let root = parse("a = [\"0123456789\", \"0123456789\", \"0123456789\", \"0123456789\", \"x\"]\nb = { c = 1.0, d = 'q' }");
        let a = root.get("a").unwrap().value.render();
        assert!(a.ends_with("...") && a.chars().count() == 60, "{a}");
        assert_eq!(
            root.get("b").unwrap().value.render(),
            "{ c = 1.0, d = \"q\" }"
        );
    }
}
