//! Edges between notes and the tag lookups that edges and listings use: the keys declared as edges, notes tagged with a key or a value, the catalog of tags.
//! Written once for every database, in plain SQL (`Sql`).

use crate::error::Result;
use crate::ids::NoteRid;
use crate::plain::{Cell, ROWS_A_STATEMENT, Sql};
use keep_model::keys;

/// Edges between notes and the tag lookups that edges and listings use: the keys declared as edges, notes tagged with a key or a value, the catalog of tags.
pub trait Edges: Sql {
    fn delete_edges_with_key(&self, key: &str) -> Result<()> {
        self.execute("DELETE FROM edges WHERE key = ?1", &[key.into()])?;
        Ok(())
    }

    /// Replaces the outgoing edges of note `rid`.
    fn replace_edges(&self, rid: NoteRid, edges: &[(String, String)]) -> Result<()> {
        self.execute("DELETE FROM edges WHERE source = ?1", &[rid.0.into()])?;
        for (key, target) in edges {
            self.add_edge(rid, key, target)?;
        }
        Ok(())
    }

    /// Links note `rid` to `target` by edge `key`, once.
    fn add_edge(&self, rid: NoteRid, key: &str, target: &str) -> Result<()> {
        self.execute(
            "INSERT INTO edges (source, key, target) VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING",
            &[rid.0.into(), key.into(), target.into()],
        )?;
        Ok(())
    }

    /// Links each `(note, key, target)`, once, a few hundred to a
    /// statement.
    fn add_edges(&self, edges: &[(NoteRid, &str, &str)]) -> Result<()> {
        for chunk in edges.chunks(ROWS_A_STATEMENT) {
            let rows = (0..chunk.len())
                .map(|i| format!("(?{}, ?{}, ?{})", 3 * i + 1, 3 * i + 2, 3 * i + 3))
                .collect::<Vec<_>>()
                .join(", ");
            let params: Vec<Cell> = chunk
                .iter()
                .flat_map(|&(rid, key, target)| [rid.0.into(), key.into(), target.into()])
                .collect();
            self.execute(
                &format!(
                    "INSERT INTO edges (source, key, target) VALUES {rows} ON CONFLICT DO NOTHING"
                ),
                &params,
            )?;
        }
        Ok(())
    }

    /// The edges that point at `id`: (key, source id), by key then source.
    fn edges_to(&self, id: &str) -> Result<Vec<(String, String)>> {
        self.query(
            "SELECT e.key, n.id FROM edges e JOIN notes n ON n.rid = e.source
             WHERE e.target = ?1 ORDER BY e.key, n.id",
            &[id.into()],
        )?
        .iter()
        .map(|r| Ok((r[0].text()?, r[1].text()?)))
        .collect()
    }

    /// The edge keys declared by `.tag/KEY` notes, with their inverses.
    /// The ids are read as the range from `.tag/` up to `.tag0` (`0`
    /// follows `/`), which the id index answers whatever the planner
    /// knows of the tables: as a prefix test, PostgreSQL scanned every
    /// note on each call while an import's statistics were stale.
    fn declared_edge_keys(&self) -> Result<Vec<(String, String)>> {
        self.query(
            "SELECT substr(n.id, 6), t.value FROM notes n JOIN tags t ON t.note = n.rid
             WHERE n.id >= '.tag/' AND n.id < '.tag0' AND t.key = ?1 ORDER BY n.id",
            &[keys::INVERSE.into()],
        )?
        .iter()
        .map(|r| Ok((r[0].text()?, r[1].text()?)))
        .collect()
    }

    /// The notes carrying tag `key`, with each value.
    fn notes_tagged_key(&self, key: &str) -> Result<Vec<(NoteRid, String)>> {
        self.query(
            "SELECT note, value FROM tags WHERE key = ?1 ORDER BY note, value",
            &[key.into()],
        )?
        .iter()
        .map(|r| Ok((NoteRid(r[0].int()?), r[1].text()?)))
        .collect()
    }

    /// Up to `limit` notes tagged `key=value`.
    fn rids_with_tag(&self, key: &str, value: &str, limit: usize) -> Result<Vec<NoteRid>> {
        self.query(
            "SELECT note FROM tags WHERE key = ?1 AND value = ?2 LIMIT ?3",
            &[key.into(), value.into(), (limit as i64).into()],
        )?
        .iter()
        .map(|r| Ok(NoteRid(r[0].int()?)))
        .collect()
    }

    /// User tag keys with their values, most used first, at most
    /// `values_per_key` each (for completion).
    fn tag_catalog(&self, values_per_key: usize) -> Result<Vec<(String, Vec<String>)>> {
        let rows = self.query(
            "SELECT key, value, count(*) AS uses FROM tags
             WHERE substr(key, 1, 1) <> '_'
             GROUP BY key, value ORDER BY key, uses DESC, value",
            &[],
        )?;
        let mut catalog: Vec<(String, Vec<String>)> = Vec::new();
        for row in rows {
            let (key, value) = (row[0].text()?, row[1].text()?);
            match catalog.last_mut() {
                Some((k, values)) if *k == key => {
                    if values.len() < values_per_key {
                        values.push(value);
                    }
                }
                _ => catalog.push((key, vec![value])),
            }
        }
        Ok(catalog)
    }
}

impl<T: Sql + ?Sized> Edges for T {}
