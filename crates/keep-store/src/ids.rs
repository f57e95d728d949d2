//! The row keys of the store's tables, typed so that the key of one table
//! cannot be passed where another's is expected.

/// Declares a row id: the integer key of a table, typed so that the key
/// of one table cannot be passed where another's is expected.
macro_rules! row_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub i64);

        impl rusqlite::ToSql for $name {
            fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
                Ok(rusqlite::types::ToSqlOutput::from(self.0))
            }
        }

        impl rusqlite::types::FromSql for $name {
            fn column_result(
                value: rusqlite::types::ValueRef<'_>,
            ) -> rusqlite::types::FromSqlResult<Self> {
                i64::column_result(value).map($name)
            }
        }
    };
}

row_id!(
    /// The key of a note's row (`notes.rid`), used by its tags, versions,
    /// parts, edges and index entries.
    NoteRid
);
row_id!(
    /// The key of an archived version's row (`versions.vid`).
    VersionRid
);
row_id!(
    /// The key of a part's row (`parts.pid`).
    PartRid
);
