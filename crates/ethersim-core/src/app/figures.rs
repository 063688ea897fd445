//! The figures an application adds to its flow's results: a small map from static names
//! to JSON values.
//!
//! A run reports every flow at once, so this is held 10,000 or 100,000 times over. A
//! `serde_json::Map` (a B-tree of owned `String` keys) took about 2.6 KiB for a TCP
//! flow's two dozen figures; a vector of `(&'static str, Value)` pairs kept sorted by
//! name takes 48 bytes a figure. It serializes exactly as the map did: an object whose
//! keys are in byte order, a name given twice keeping its last value.

use std::ops::Index;

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;

/// An application's own figures for its flow's row, by name (see
/// [`Endpoint::report`](super::Endpoint::report)).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AppFigures {
    /// Sorted by name, each name once.
    entries: Vec<(&'static str, Value)>,
}

impl AppFigures {
    /// No figures.
    pub fn new() -> Self {
        AppFigures::default()
    }

    /// Sets the figure `name` to `value` (replacing a value it had).
    pub fn insert(&mut self, name: &'static str, value: impl Into<Value>) {
        let value = value.into();
        match self.entries.binary_search_by(|(n, _)| n.cmp(&name)) {
            Ok(i) => self.entries[i].1 = value,
            Err(i) => self.entries.insert(i, (name, value)),
        }
    }

    /// The figure `name`, if the application reported it.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.entries.binary_search_by(|(n, _)| (*n).cmp(name)).ok().map(|i| &self.entries[i].1)
    }

    /// How many figures there are.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Gives back the room the vector grew into beyond its figures (it is kept until the
    /// results are written).
    pub fn shrink_to_fit(&mut self) {
        self.entries.shrink_to_fit();
    }
}

impl Index<&str> for AppFigures {
    type Output = Value;

    /// The figure `name`; panics if there is none, as `serde_json::Map` does.
    fn index(&self, name: &str) -> &Value {
        self.get(name).unwrap_or_else(|| panic!("no application figure named {name:?}"))
    }
}

impl Serialize for AppFigures {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.entries.len()))?;
        for (name, value) in &self.entries {
            map.serialize_entry(name, value)?;
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Map};

    #[test]
    fn serializes_as_the_map_it_replaces() {
        // Inserted out of order, one name twice: the same JSON as serde_json's map.
        let inserts: [(&'static str, Value); 5] = [
            ("srtt_s", json!(0.25)),
            ("aborted", json!(false)),
            ("rtt", json!({"mean_s": 1.0})),
            ("srtt_s", Value::Null),
            ("Zed", json!("x")),
        ];
        let mut figures = AppFigures::new();
        let mut map = Map::new();
        for (name, value) in inserts {
            figures.insert(name, value.clone());
            map.insert(name.into(), value);
        }
        assert_eq!(serde_json::to_string(&figures).unwrap(), serde_json::to_string(&map).unwrap());
        assert_eq!(figures.len(), 4);
        assert_eq!(figures["aborted"], json!(false));
        assert_eq!(figures.get("nothing"), None);
    }

    #[test]
    #[should_panic(expected = "no application figure named \"nothing\"")]
    fn indexing_a_missing_figure_panics() {
        let _ = &AppFigures::new()["nothing"];
    }
}
