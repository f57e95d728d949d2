//! The health of a store on PostgreSQL beyond what the server guarantees
//! (its references cascade and its word columns are computed): versions
//! and parts numbered from 1 without gaps, rows marked embedded that have
//! their vector; and a repair that rebuilds the indexes and sends rows
//! whose vector is gone back to the model.

use super::{MIGRATIONS, PgDb};
use crate::error::Result;
use crate::prelude::*;
use crate::vectors::VecKind;

/// The tables whose indexes a repair rebuilds.
const TABLES: &[&str] = &[
    "notes",
    "bodies",
    "tags",
    "versions",
    "parts",
    "edges",
    "vec_notes",
    "vec_versions",
    "vec_parts",
];

/// The length columns whose totals BM25 reads (`text_totals`).
const LENGTHS: &[(&str, &str)] = &[
    ("notes", "words_length"),
    ("notes", "name_length"),
    ("bodies", "length"),
    ("parts", "length"),
    ("versions", "length"),
];

/// The SQL counting the texts and words of a length column.
fn counted(table: &str, column: &str) -> String {
    format!("SELECT count(*)::bigint, coalesce(sum({column}), 0)::bigint FROM {table}")
}

/// Texts and words of a length column.
type Totals = (i64, i64);

impl PgDb<'_> {
    /// The word totals that differ from their rows: name, kept, counted.
    fn totals_astray(&self) -> Result<Vec<(String, Totals, Totals)>> {
        let mut astray = Vec::new();
        for (table, column) in LENGTHS {
            let name = format!("{table}.{column}");
            let kept = self.kept_totals(&name)?;
            let row = self.one(&counted(table, column), &[])?;
            let counted = (row.get(0), row.get(1));
            if kept != counted {
                astray.push((name, kept, counted));
            }
        }
        Ok(astray)
    }

    fn count_of(&self, sql: &str) -> Result<i64> {
        Ok(self.one(sql, &[])?.get(0))
    }

    /// Problems found, one line each; empty when all is well.
    pub fn check(&self) -> Result<Vec<String>> {
        let mut found = self.health()?.problems;
        let version = self.count_of("SELECT coalesce(max(version), 0)::bigint FROM keep_schema")?;
        let known = MIGRATIONS.last().map_or(0, |m| m.0);
        if version != known {
            found.push(format!("schema version {version}, this keep's is {known}"));
        }
        for (table, column) in [("versions", "seq"), ("parts", "number")] {
            let n = self.count_of(&format!(
                "SELECT count(*) FROM (SELECT note FROM {table} GROUP BY note
                 HAVING min({column}) != 1 OR max({column}) != count(*)) AS gaps"
            ))?;
            if n > 0 {
                found.push(format!(
                    "{n} note(s) whose {table} are not numbered 1, 2, 3, ..."
                ));
            }
        }
        for (kind, n) in self.embedded_without_vector()? {
            found.push(format!(
                "{n} row(s) of {} marked embedded without a vector",
                kind.row_table()
            ));
        }
        for (name, (rows, words), (counted_rows, counted_words)) in self.totals_astray()? {
            found.push(format!(
                "word totals of {name} say {rows} texts and {words} words, the rows hold {counted_rows} and {counted_words}"
            ));
        }
        Ok(found)
    }

    fn embedded_without_vector(&self) -> Result<Vec<(VecKind, i64)>> {
        let mut found = Vec::new();
        for kind in VecKind::ALL {
            let n = self.count_of(&format!(
                "SELECT count(*) FROM {rows} r WHERE r.embedded IS NOT NULL
                 AND NOT EXISTS (SELECT 1 FROM {vecs} v WHERE v.key = r.{key})",
                rows = kind.row_table(),
                vecs = kind.vec_table(),
                key = kind.key(),
            ))?;
            if n > 0 {
                found.push((kind, n));
            }
        }
        Ok(found)
    }

    /// Rebuilds every index of keep's tables and sends rows whose vector
    /// is gone back to the model; returns what it did, one line each.
    pub fn repair(&self) -> Result<Vec<String>> {
        let mut done = Vec::new();
        for (kind, n) in self.embedded_without_vector()? {
            self.exec(
                &format!(
                    "UPDATE {rows} r SET embedded = NULL WHERE r.embedded IS NOT NULL
                     AND NOT EXISTS (SELECT 1 FROM {vecs} v WHERE v.key = r.{key})",
                    rows = kind.row_table(),
                    vecs = kind.vec_table(),
                    key = kind.key(),
                ),
                &[],
            )?;
            done.push(format!(
                "{n} row(s) of {} wait for the model again",
                kind.row_table()
            ));
        }
        for (name, _, _) in self.totals_astray()? {
            let (table, column) = name.split_once('.').expect("table.column");
            self.exec("DELETE FROM text_totals WHERE name = $1", &[&name])?;
            self.exec(
                &format!(
                    "INSERT INTO text_totals (name, rows, words) SELECT $1, * FROM ({}) AS c",
                    counted(table, column)
                ),
                &[&name],
            )?;
            done.push(format!("word totals of {name} counted again"));
        }
        for table in TABLES {
            self.batch(&format!("REINDEX TABLE {table}"))?;
        }
        done.push(format!("indexes of {} rebuilt", TABLES.join(", ")));
        Ok(done)
    }
}
