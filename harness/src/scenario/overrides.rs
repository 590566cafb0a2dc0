//! Command-line overrides (`--set K=V`, and each value of a sweep's `--vary K=V1,V2`), applied to
//! the document before validation so that the same checks and messages apply.

use std::sync::LazyLock;

use super::error::Diag;
use super::keys;
use super::raw::{At, Entry, Kind, Node};
pub use super::setting::{Override, OverrideSyntaxError};

/// Every key an override may name, for messages.
pub static KEYS: LazyLock<String> = LazyLock::new(keys::override_help);

/// Apply `overrides` in order to the document's root table.
pub(crate) fn apply(root: &mut Node, overrides: &[Override]) -> Result<(), Diag> {
    for (index, ov) in overrides.iter().enumerate() {
        apply_one(root, ov, index)?;
    }
    Ok(())
}

fn apply_one(root: &mut Node, ov: &Override, index: usize) -> Result<(), Diag> {
    let at = At::Override(index);
    let key = ov.key.as_str();
    let unknown = || {
        Diag::new(
            at,
            format!("unknown key \"{key}\"; expected one of: {}", *KEYS),
        )
    };
    if keys::settable_names(keys::TOP).contains(&key) {
        set(root, key, value_node(&ov.value, key, index));
        return Ok(());
    }
    if let Some(rest) = key.strip_prefix("link.") {
        let (name, field) =
            split_link_key(rest).ok_or_else(|| Diag::new(at, unknown_link_field(key)))?;
        let link = find_link(root, name, at)?;
        return set_link_field(link, field, &ov.value, index);
    }
    if let Some(rest) = key.strip_prefix("flow.") {
        let (which, field) = rest.split_once('.').ok_or_else(unknown)?;
        let fields = keys::settable_names(keys::FLOW);
        if !fields.contains(&field) {
            return Err(Diag::new(
                at,
                format!(
                    "unknown flow field \"{field}\"; expected flow.INDEX.FIELD or flow.*.FIELD with FIELD one of: {}",
                    fields.join(", ")
                ),
            ));
        }
        let value = value_node(&ov.value, field, index);
        let mut flows = flow_tables(root, at)?;
        if which == "*" {
            for flow in flows {
                set(flow, field, value.clone());
            }
            return Ok(());
        }
        let count = flows.len();
        let n: usize = which.parse().map_err(|_| {
            Diag::new(
                at,
                format!("\"{which}\" is not a flow index; expected flow.INDEX.{field} with INDEX 0, 1, ... or flow.*.{field} for every flow"),
            )
        })?;
        let flow = flows.get_mut(n).ok_or_else(|| {
            Diag::new(
                at,
                format!(
                    "there is no flow {n}; the scenario has {count} [[flow]] {} (counted from 0)",
                    if count == 1 { "entry" } else { "entries" }
                ),
            )
        })?;
        set(flow, field, value);
        return Ok(());
    }
    Err(unknown())
}

/// The message for a `link.` key whose field is not one of a link's.
fn unknown_link_field(key: &str) -> String {
    let groups: Vec<String> = keys::loss_groups()
        .iter()
        .map(|g| format!("{g}.FIELD"))
        .collect();
    format!(
        "unknown link field in \"{key}\"; expected link.NAME.FIELD with FIELD one of: {}, {} \
         (FIELD of a loss: {})",
        keys::link_fields().join(", "),
        groups.join(", "),
        keys::names(keys::LOSS).join(", ")
    )
}

/// `NAME.FIELD` -> (`NAME`, `FIELD`), where FIELD may itself be dotted (`loss.rate`). Link names
/// may contain dots; the field is matched at the end.
fn split_link_key(rest: &str) -> Option<(&str, &str)> {
    // A loss field before the link's own: `a.loss.rate` is link `a`'s loss rate, not the rate of
    // link `a.loss`.
    let mut fields: Vec<String> = Vec::new();
    for group in keys::loss_groups() {
        fields.extend(
            keys::names(keys::LOSS)
                .iter()
                .map(|f| format!("{group}.{f}")),
        );
        fields.push(group.to_string());
    }
    fields.extend(keys::link_fields().iter().map(|f| f.to_string()));
    for field in &fields {
        if let Some(name) = rest.strip_suffix(field.as_str()) {
            if let Some(name) = name.strip_suffix('.') {
                if !name.is_empty() {
                    let start = name.len() + 1;
                    return Some((name, &rest[start..]));
                }
            }
        }
    }
    None
}

fn find_link<'a>(root: &'a mut Node, name: &str, at: At) -> Result<&'a mut Node, Diag> {
    let names = link_names(root);
    let links = match root
        .entries_mut()
        .and_then(|e| e.iter_mut().find(|e| e.key == "link"))
    {
        Some(Entry {
            value: Node {
                kind: Kind::Array(items),
                ..
            },
            ..
        }) => items,
        _ => {
            return Err(Diag::new(
                at,
                format!("there is no link \"{name}\"; the scenario defines no [[link]]"),
            ))
        }
    };
    links
        .iter_mut()
        .find(|l| l.get("name").and_then(|e| e.value.as_str()) == Some(name))
        .ok_or_else(|| {
            Diag::new(
                at,
                format!("there is no link \"{name}\"; links: {}", names.join(", ")),
            )
        })
}

/// Names of the `[[link]]` entries, as written.
pub(crate) fn link_names(root: &Node) -> Vec<String> {
    match root.get("link").map(|e| &e.value.kind) {
        Some(Kind::Array(items)) => items
            .iter()
            .filter_map(|l| l.get("name").and_then(|e| e.value.as_str()))
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    }
}

fn flow_tables(root: &mut Node, at: At) -> Result<Vec<&mut Node>, Diag> {
    let no_flows = || {
        Diag::new(
            at,
            "the scenario has no [[flow]] entries to change".to_string(),
        )
    };
    let entry = root
        .entries_mut()
        .and_then(|e| e.iter_mut().find(|e| e.key == "flow"))
        .ok_or_else(no_flows)?;
    match &mut entry.value.kind {
        Kind::Array(items) => Ok(items.iter_mut().filter(|n| n.entries().is_some()).collect()),
        _ => Err(no_flows()),
    }
}

fn set_link_field(link: &mut Node, field: &str, raw: &str, index: usize) -> Result<(), Diag> {
    let Some((group, loss_field)) = field.split_once('.') else {
        set(link, field, value_node(raw, field, index));
        return Ok(());
    };
    let value = value_node(raw, loss_field, index);
    let at = At::Override(index);
    let current = link.get(group).map(|e| &e.value);
    let current_model = current.and_then(|n| match &n.kind {
        Kind::Str(s) => Some(s.as_str()),
        Kind::Table(_) => n.get("model").and_then(|e| e.value.as_str()),
        _ => None,
    });
    let keep = match (current, current_model) {
        (Some(n), Some(model)) if n.entries().is_some() && model != "none" => {
            // A new model starts from scratch; the fields of the old one would not apply.
            loss_field != "model" || value.as_str() == Some(model)
        }
        _ => false,
    };
    if keep {
        let table = link
            .entries_mut()
            .and_then(|e| e.iter_mut().find(|e| e.key == group))
            .map(|e| &mut e.value)
            .expect("checked above");
        set(table, loss_field, value);
        return Ok(());
    }
    let model = match loss_field {
        "model" => value,
        "rate" => Node::new(at, Kind::Str("bernoulli".into())),
        "p" | "r" | "h" | "k" => Node::new(at, Kind::Str("gilbert-elliott".into())),
        _ => Node::new(at, Kind::Str("burst".into())),
    };
    let mut table = Node::new(at, Kind::Table(Vec::new()));
    set(&mut table, "model", model);
    if loss_field != "model" {
        set(&mut table, loss_field, value_node(raw, loss_field, index));
    }
    set(link, group, table);
    Ok(())
}

/// Replace or add `key` in a table.
fn set(table: &mut Node, key: &str, value: Node) {
    let at = value.at;
    let Some(entries) = table.entries_mut() else {
        return;
    };
    match entries.iter_mut().find(|e| e.key == key) {
        Some(entry) => {
            entry.key_at = at;
            entry.value = value;
        }
        None => entries.push(Entry {
            key: key.to_string(),
            key_at: at,
            value,
        }),
    }
}

/// The override's value: TOML if it parses as a TOML value, else the text itself. For text fields
/// anything but a quoted TOML string is taken as it is written.
fn value_node(raw: &str, field: &str, index: usize) -> Node {
    let at = At::Override(index);
    match raw.trim().parse::<toml_edit::Value>() {
        Ok(v) if !keys::is_text(field) || v.is_str() => super::raw::from_value(&v, index),
        _ => Node::new(at, Kind::Str(raw.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_key_equals_value() {
        let o: Override = "link.bottleneck.loss.rate=0.01".parse().unwrap();
        assert_eq!(o.key, "link.bottleneck.loss.rate");
        assert_eq!(o.value, "0.01");
        let o: Override = "flow.0.controller=modified-sack:tolerance=0.02"
            .parse()
            .unwrap();
        assert_eq!(o.key, "flow.0.controller");
        assert_eq!(o.value, "modified-sack:tolerance=0.02");
        assert_eq!(
            o.to_string(),
            "flow.0.controller=modified-sack:tolerance=0.02"
        );
        let o: Override = "name=".parse().unwrap();
        assert_eq!(o.value, "");
    }

    #[test]
    fn rejects_text_without_equals() {
        let err = "link.bottleneck.rate".parse::<Override>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "--set \"link.bottleneck.rate\": expected KEY=VALUE, such as link.bottleneck.rate=10Mbit or flow.*.controller=composite"
        );
        assert!("=5".parse::<Override>().is_err());
    }

    #[test]
    fn link_keys_split_at_the_field() {
        assert_eq!(split_link_key("a.rate"), Some(("a", "rate")));
        assert_eq!(split_link_key("a.b.loss.rate"), Some(("a.b", "loss.rate")));
        assert_eq!(
            split_link_key("a.reverse_loss.p"),
            Some(("a", "reverse_loss.p"))
        );
        assert_eq!(split_link_key("a.loss"), Some(("a", "loss")));
        assert_eq!(split_link_key("a.speed"), None);
        assert_eq!(split_link_key("rate"), None);
        assert_eq!(split_link_key(".rate"), None);
    }

    #[test]
    fn values_are_toml_or_bare_text() {
        assert_eq!(value_node("0.01", "rate", 0).kind, Kind::Float(0.01));
        assert_eq!(
            value_node("\"10ms\"", "delay", 0).kind,
            Kind::Str("10ms".into())
        );
        assert_eq!(
            value_node("10ms", "delay", 0).kind,
            Kind::Str("10ms".into())
        );
        assert_eq!(value_node("50", "queue", 0).kind, Kind::Int(50));
        assert_eq!(value_node("42", "name", 0).kind, Kind::Str("42".into()));
        assert_eq!(
            value_node("\"a b\"", "name", 0).kind,
            Kind::Str("a b".into())
        );
        let Kind::Array(items) = value_node("[\"a\", \"b\"]", "path", 3).kind else {
            panic!("not an array")
        };
        assert_eq!(items.len(), 2);
        assert_eq!(items[1].at, At::Override(3));
    }
}
