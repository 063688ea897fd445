//! Scenario files: parse (TOML), override (`--set`), check against the schema, then
//! validate and build a runnable network.

pub mod build;
mod captures;
pub(crate) mod common;
pub mod error;
pub mod mpi;
pub mod overrides;
mod replay;
pub mod schema;
pub mod topology;
pub mod units;
pub mod variability;

pub use build::{build, Built};
pub use error::ScenarioError;
pub use schema::Scenario;

use serde::de::DeserializeOwned;
use toml::{Table, Value};

use schema::{
    AppSpec, OnOffSpec, PingSpec, SaturatingSpec, SourceSpec, TcpBulkSpec, TcpFileSpec, UdpFileSpec,
};

/// Deserializes `value` as `T`, reporting the key path of any error under `prefix`.
fn typed<T: DeserializeOwned>(value: Value, prefix: &str) -> Result<T, ScenarioError> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let inner = e.path().to_string();
        let path = match (prefix.is_empty(), inner.as_str()) {
            (_, ".") => prefix.to_owned(),
            (true, _) => inner,
            (false, _) if inner.starts_with('[') => format!("{prefix}{inner}"),
            (false, _) => format!("{prefix}.{inner}"),
        };
        ScenarioError::at(path, e.into_inner().message().to_owned())
    })
}

/// Checks each application table on its own first, so that an error inside one names
/// its full key path (`apps[1].size`) rather than just the entry.
fn check_apps(doc: &Table) -> Result<(), ScenarioError> {
    let Some(Value::Array(apps)) = doc.get("apps") else {
        return Ok(());
    };
    for (i, app) in apps.iter().enumerate() {
        let path = format!("apps[{i}]");
        let Value::Table(t) = app else {
            return Err(ScenarioError::at(path, "expected a table ([[apps]])"));
        };
        let mut rest = t.clone();
        let kind = match rest.remove("kind") {
            Some(Value::String(k)) => k,
            Some(_) => return Err(ScenarioError::at(format!("{path}.kind"), "expected a string")),
            None => {
                return Err(ScenarioError::at(
                    format!("{path}.kind"),
                    format!("missing; expected one of: {}", AppSpec::KINDS.join(", ")),
                ))
            }
        };
        let rest = Value::Table(rest);
        match kind.as_str() {
            "udp_file" => typed::<UdpFileSpec>(rest, &path).map(|_| ())?,
            "constant_rate" | "poisson" => typed::<SourceSpec>(rest, &path).map(|_| ())?,
            "on_off" => typed::<OnOffSpec>(rest, &path).map(|_| ())?,
            "saturating" => typed::<SaturatingSpec>(rest, &path).map(|_| ())?,
            "ping" => typed::<PingSpec>(rest, &path).map(|_| ())?,
            "tcp_file" => typed::<TcpFileSpec>(rest, &path).map(|_| ())?,
            "tcp_bulk" => typed::<TcpBulkSpec>(rest, &path).map(|_| ())?,
            "replay" => typed::<schema::ReplaySpec>(rest, &path).map(|_| ())?,
            "voip" => typed::<schema::VoipSpec>(rest, &path).map(|_| ())?,
            "web" => typed::<schema::WebSpec>(rest, &path).map(|_| ())?,
            other => {
                return Err(ScenarioError::at(
                    format!("{path}.kind"),
                    format!(
                        "unknown application kind {other:?}; expected one of: {}",
                        AppSpec::KINDS.join(", ")
                    ),
                ))
            }
        }
    }
    Ok(())
}

/// Parses scenario text, applies `overrides` (`(path, value)` pairs) in order, and
/// checks the result against the schema.
pub fn load(text: &str, overrides: &[(String, String)]) -> Result<Scenario, ScenarioError> {
    let doc = overridden(text, overrides)?;
    check_apps(&doc)?;
    typed(Value::Table(doc), "")
}

/// The scenario that runs, as TOML text: `text` with `overrides` applied in order (by
/// the same rules [`load`] uses) and `seed`, if given, as its `seed`. Running it with no
/// overrides runs the same scenario. Comments and layout are not kept; keys keep their
/// order. A seed beyond TOML's integers (above 2^63 - 1) is left out: the caller says
/// how to give it.
pub fn effective_text(
    text: &str,
    overrides: &[(String, String)],
    seed: Option<u64>,
) -> Result<String, ScenarioError> {
    let mut doc = overridden(text, overrides)?;
    if let Some(seed) = seed.and_then(|s| i64::try_from(s).ok()) {
        doc.insert("seed".into(), Value::Integer(seed));
    }
    // The document is the checked scenario's source; serializing plain TOML values
    // cannot fail.
    Ok(toml::to_string_pretty(&doc).expect("a TOML table serializes"))
}

/// `text` parsed, with `overrides` applied in order.
fn overridden(text: &str, overrides: &[(String, String)]) -> Result<Table, ScenarioError> {
    let mut doc: Table = toml::from_str(text).map_err(|e| {
        let msg = e.message().to_owned();
        let place = e.span().map(|sp| {
            let line = text[..sp.start.min(text.len())].matches('\n').count() + 1;
            format!(" (line {line})")
        });
        ScenarioError::at("", format!("not valid TOML{}: {msg}", place.unwrap_or_default()))
    })?;
    for (path, value) in overrides {
        overrides::apply(&mut doc, path, value)?;
    }
    Ok(doc)
}

/// The JSON Schema of scenario files, generated from the schema types.
pub fn json_schema() -> String {
    let schema = schemars::schema_for!(Scenario);
    // Serializing a generated schema (plain JSON values) cannot fail.
    serde_json::to_string_pretty(&schema).expect("schema serializes")
}
