//! How the front shows a mechanism's record of results. A mechanism that adds columns to
//! a results table (PAUSE, Low Power Idle, rate switching to `ports`) reports them as a
//! record of its own and declares its view beside it: the table, a title, when a row has
//! something to show, and the columns a terminal table shows with short headers. The
//! command line and the report render every record from its view alone (values
//! formatted by the unit their column's name says), so no mechanism has a printer of its
//! own; the files hold every column.

use serde::Serialize;

/// The view of one mechanism's record in a results table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct RecordView {
    /// The table whose rows carry the record (`ports`).
    pub table: &'static str,
    /// The title of its table on the terminal.
    pub title: &'static str,
    /// A row is shown when any of these columns is true or non-zero.
    pub shown_when: &'static [&'static str],
    /// The columns shown, in order, each with its short header. A column may be one of
    /// the table's own (a port's `rate_changes`) when the record reads best beside it.
    pub columns: &'static [(&'static str, &'static str)],
}
