//! Ratings of notes: useful and wrong, with when they were last given.
//! Written once for every database, in plain SQL (`Sql`).

use crate::error::Result;
use crate::ids::NoteRid;
use crate::plain::{Sql, cells};
use keep_model::Rating;
use keep_model::time::Timestamp;

/// Ratings of notes: useful and wrong, with when they were last given.
pub trait Ratings: Sql {
    /// Adds one rating to note `rid` and returns its totals.
    fn rate(&self, rid: NoteRid, useful: bool, at: Timestamp) -> Result<Rating> {
        let (u, w) = if useful { (1, 0) } else { (0, 1) };
        self.execute(
            "INSERT INTO feedback (note, useful, wrong, updated) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (note) DO UPDATE SET useful = feedback.useful + ?2,
                 wrong = feedback.wrong + ?3, updated = ?4",
            &[rid.0.into(), u.into(), w.into(), at.millis().into()],
        )?;
        Ok(self.rating(rid)?.unwrap_or_default())
    }

    fn rating(&self, rid: NoteRid) -> Result<Option<Rating>> {
        Ok(self.rating_with_time(rid)?.map(|(rating, _)| rating))
    }

    /// A note's ratings and when it was last rated.
    fn rating_with_time(&self, rid: NoteRid) -> Result<Option<(Rating, Timestamp)>> {
        let rows = self.query(
            "SELECT useful, wrong, updated FROM feedback WHERE note = ?1",
            &[rid.0.into()],
        )?;
        rows.first()
            .map(|r| {
                let [useful, wrong, updated] = cells(r)?;
                let rating = Rating {
                    useful: useful.int()?,
                    wrong: wrong.int()?,
                };
                Ok((rating, Timestamp::from_millis(updated.int()?)))
            })
            .transpose()
    }

    /// Sets a note's ratings and when it was last rated (an import).
    fn set_rating(&self, rid: NoteRid, rating: &Rating, at: Timestamp) -> Result<()> {
        self.execute(
            "INSERT INTO feedback (note, useful, wrong, updated) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (note) DO UPDATE SET useful = ?2, wrong = ?3, updated = ?4",
            &[
                rid.0.into(),
                rating.useful.into(),
                rating.wrong.into(),
                at.millis().into(),
            ],
        )?;
        Ok(())
    }
}

impl<T: Sql + ?Sized> Ratings for T {}
