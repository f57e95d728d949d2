//! The store's settings (`meta`) and its vector spaces: the current one and the next, while the store changes model.
//! Written once for every database, in plain SQL (`Sql`).

use crate::error::Result;
use crate::plain::Sql;
use crate::vectors::{
    DIMS_KEY, MODEL_KEY, NEXT_DIMS_KEY, NEXT_MODEL_KEY, VectorSpace, clear_next_sql, space_of,
};

/// The store's settings (`meta`) and its vector spaces: the current one and the next, while the store changes model.
pub trait Meta: Sql {
    /// One of the store's settings (its schema version, vector space...).
    fn meta(&self, key: &str) -> Result<Option<String>> {
        let rows = self.query("SELECT value FROM meta WHERE key = ?1", &[key.into()])?;
        rows.first().map(|r| r[0].text()).transpose()
    }

    fn set_meta(&self, key: &str, value: &str) -> Result<()> {
        self.execute(
            "INSERT INTO meta (key, value) VALUES (?1, ?2)
             ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            &[key.into(), value.into()],
        )?;
        Ok(())
    }

    fn delete_meta(&self, key: &str) -> Result<()> {
        self.execute("DELETE FROM meta WHERE key = ?1", &[key.into()])?;
        Ok(())
    }

    /// The model and width of the store's vectors, once it has any.
    fn vector_space(&self) -> Result<Option<VectorSpace>> {
        Ok(space_of(self.meta(MODEL_KEY)?, self.meta(DIMS_KEY)?))
    }

    /// The space of the vectors kept beside the store's while it changes
    /// embedding model, if it is changing.
    fn next_vector_space(&self) -> Result<Option<VectorSpace>> {
        Ok(space_of(
            self.meta(NEXT_MODEL_KEY)?,
            self.meta(NEXT_DIMS_KEY)?,
        ))
    }

    /// Begins (or begins again) the vectors of `space` beside the store's.
    fn start_next_space(&self, space: &VectorSpace) -> Result<()> {
        self.clear_next_space()?;
        self.set_meta(NEXT_MODEL_KEY, &space.model)?;
        self.set_meta(NEXT_DIMS_KEY, &space.dims.to_string())
    }

    /// Drops the vectors of the next space and forgets it.
    fn clear_next_space(&self) -> Result<()> {
        self.batch(&clear_next_sql())
    }
}

impl<T: Sql + ?Sized> Meta for T {}
