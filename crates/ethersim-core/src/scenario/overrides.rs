//! `--set path=value` overrides, applied to the parsed TOML before it is checked.
//!
//! A path names tables by key and arrays by index: `links[0].rate`, `apps[1].size`,
//! `seed`. The value is read as a TOML value when it is one (`3`, `true`, `"1 Gb/s"`,
//! `{ bytes = "1 MB" }`) and as a plain string otherwise (`1 Gb/s`), so units need no
//! quotes on a command line. Missing tables along the path are created (the schema
//! check then rejects any key it does not know); array indices must exist.

use toml::{Table, Value};

use super::error::ScenarioError;

#[derive(Debug, PartialEq)]
enum Segment {
    Key(String),
    Index(usize),
}

fn parse_path(path: &str) -> Result<Vec<Segment>, ScenarioError> {
    let bad = |why: &str| {
        ScenarioError::at(
            path,
            format!("bad override path: {why}; expected keys and indices like links[0].rate"),
        )
    };
    let mut out = Vec::new();
    for part in path.split('.') {
        let key_end = part.find('[').unwrap_or(part.len());
        let key = &part[..key_end];
        if key.is_empty() {
            return Err(bad("empty key"));
        }
        out.push(Segment::Key(key.to_owned()));
        let mut rest = &part[key_end..];
        while let Some(inner) = rest.strip_prefix('[') {
            let (idx, after) = inner.split_once(']').ok_or_else(|| bad("unclosed ["))?;
            out.push(Segment::Index(idx.parse().map_err(|_| bad("index is not a whole number"))?));
            rest = after;
        }
        if !rest.is_empty() {
            return Err(bad("text after ]"));
        }
    }
    Ok(out)
}

fn parse_value(text: &str, path: &str) -> Result<Value, ScenarioError> {
    // A line break would let the text after it be read as further keys, silently
    // dropped: a value is one line.
    if text.contains(['\n', '\r']) {
        return Err(ScenarioError::at(path, "the value spans several lines; expected one line"));
    }
    Ok(match toml::from_str::<Table>(&format!("v = {text}")) {
        Ok(mut t) if t.len() == 1 => t.remove("v").unwrap_or_else(|| Value::String(text.to_owned())),
        _ => Value::String(text.to_owned()),
    })
}

/// Sets `path` to `value` in `doc`.
pub fn apply(doc: &mut Table, path: &str, value: &str) -> Result<(), ScenarioError> {
    let segments = parse_path(path)?;
    let mut root = Value::Table(std::mem::take(doc));
    let result = parse_value(value, path).and_then(|v| set(&mut root, &segments, v, path));
    if let Value::Table(t) = root {
        *doc = t;
    }
    result
}

fn set(root: &mut Value, segments: &[Segment], value: Value, path: &str) -> Result<(), ScenarioError> {
    let mut node: &mut Value = root;
    let mut walked = String::new();
    for (i, seg) in segments.iter().enumerate() {
        let last = i + 1 == segments.len();
        match seg {
            Segment::Key(k) => {
                if !walked.is_empty() {
                    walked.push('.');
                }
                walked.push_str(k);
                let Value::Table(t) = node else {
                    return Err(ScenarioError::at(
                        path,
                        format!("cannot set a key inside {walked}: it is not a table"),
                    ));
                };
                if last {
                    t.insert(k.clone(), value);
                    return Ok(());
                }
                let next_is_index = matches!(segments[i + 1], Segment::Index(_));
                if !t.contains_key(k) {
                    if next_is_index {
                        return Err(ScenarioError::at(
                            path,
                            format!("{walked} does not exist, so it has no entries to index"),
                        ));
                    }
                    t.insert(k.clone(), Value::Table(Table::new()));
                }
                // The key was inserted just above if it was missing.
                node = t.get_mut(k).expect("key present");
            }
            Segment::Index(n) => {
                let Value::Array(a) = node else {
                    return Err(ScenarioError::at(path, format!("{walked} is not an array")));
                };
                let len = a.len();
                let Some(slot) = a.get_mut(*n) else {
                    return Err(ScenarioError::at(
                        path,
                        format!("{walked} has {len} entries; index {n} is out of range"),
                    ));
                };
                walked = format!("{walked}[{n}]");
                if last {
                    *slot = value;
                    return Ok(());
                }
                node = slot;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(text: &str) -> Table {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn sets_nested_array_entries_and_reads_units_unquoted() {
        let mut d = doc("[[links]]\nrate = \"1 Gb/s\"\n");
        apply(&mut d, "links[0].rate", "10 Gb/s").unwrap();
        assert_eq!(d["links"][0]["rate"].as_str(), Some("10 Gb/s"));
    }

    #[test]
    fn toml_values_keep_their_type() {
        let mut d = doc("");
        apply(&mut d, "seed", "42").unwrap();
        assert_eq!(d["seed"].as_integer(), Some(42));
        apply(&mut d, "switches", "[]").unwrap();
        assert!(d["switches"].as_array().is_some());
    }

    #[test]
    fn out_of_range_index_names_the_length() {
        let mut d = doc("[[links]]\nrate = \"1 Gb/s\"\n");
        let e = apply(&mut d, "links[3].rate", "1 Gb/s").unwrap_err();
        assert_eq!(e.path, "links[3].rate");
        assert!(e.message.contains("has 1 entries"), "{e}");
        assert!(parse_path("a[x]").is_err());
        assert!(parse_path("a..b").is_err());
    }
}
