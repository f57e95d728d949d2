//! Listings on SQLite (the listings themselves are written once, in
//! `reads`): the count a listing reads from the store's note count.

#[cfg(test)]
mod tests {
    use crate::dialect::Dialect;
    use crate::prelude::*;
    use crate::reads::listing_query;
    use crate::sqlite::SqliteStore as Store;
    use keep_model::{ListKey, ListOrder, NoteFilter, PageFrom};

    /// The count of a listing with no filter, read from the store's count
    /// less the notes it hides, is the count of the notes it shows.
    #[test]
    fn an_unfiltered_count_is_every_note_less_the_hidden() {
        use crate::reads::NoteReads;
        use crate::store::test_note;
        use keep_model::keys;
        use keep_model::time::Timestamp;
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path()).unwrap();
        let at = Timestamp::parse_rfc3339("2026-06-01T00:00:00Z").unwrap();
        let notes: [(&str, &[(&str, &str)]); 9] = [
            ("plain-1", &[]),
            ("plain-2", &[("topic", "lamps")]),
            (".system", &[]),
            (".system-deleted", &[(keys::DELETED, "2026-01-01")]),
            ("deleted", &[(keys::DELETED, "2026-01-01")]),
            ("expired", &[(keys::EXPIRES, "2026-05-01T00:00:00Z")]),
            ("expires-later", &[(keys::EXPIRES, "2026-07-01T00:00:00Z")]),
            ("stub", &[(keys::STUB, "true")]),
            ("plain-3", &[]),
        ];
        store
            .write(|db| {
                for (id, tags) in notes {
                    let mut note = test_note(id, "text", at);
                    for (k, v) in tags {
                        note.tags.insert(*k, *v);
                    }
                    db.insert_note(&note)?;
                }
                Ok(())
            })
            .unwrap();
        let db = store.db();
        let plain = NoteFilter {
            as_of: Some(at),
            ..NoteFilter::default()
        };
        // The same notes, counted one by one (a pattern is a filter).
        let every = NoteFilter {
            pattern: Some("*".into()),
            ..plain.clone()
        };
        assert_eq!(db.count_notes(&plain).unwrap(), 4);
        assert_eq!(db.count_notes(&every).unwrap(), 4);
        let later = NoteFilter {
            as_of: Some(Timestamp::parse_rfc3339("2026-08-01T00:00:00Z").unwrap()),
            ..NoteFilter::default()
        };
        assert_eq!(db.count_notes(&later).unwrap(), 3);
    }

    /// A page of a listing reads notes in the order of an index and stops
    /// after the page, whatever the order and wherever the page begins: no
    /// sort of every note (which a bulk import sharing one date made cost
    /// a second at a million notes), no walk past the notes before it.
    #[test]
    fn a_listing_page_walks_an_index_in_its_order_without_sorting() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let filter = NoteFilter {
            as_of: Some(keep_model::Timestamp::from_millis(0)),
            ..NoteFilter::default()
        };
        for order in [
            ListOrder::Updated,
            ListOrder::Created,
            ListOrder::Accessed,
            ListOrder::Id,
        ] {
            let key = ListKey {
                at: 5,
                id: "m".into(),
            };
            for from in [
                PageFrom::First,
                PageFrom::Last,
                PageFrom::After(key.clone()),
                PageFrom::Before(key),
            ] {
                let (q, _) = listing_query(Dialect::Sqlite, &filter, order, &from, Some(20));
                let plan: Vec<String> = store
                    .db()
                    .query(&format!("EXPLAIN QUERY PLAN {}", q.sql), &q.args)
                    .unwrap()
                    .iter()
                    .map(|r| r[3].text().unwrap())
                    .collect();
                let walks = |step: &String| {
                    let ranged = matches!(from, PageFrom::After(_) | PageFrom::Before(_));
                    step.starts_with(if ranged {
                        "SEARCH n USING INDEX"
                    } else {
                        "SCAN n USING INDEX"
                    })
                };
                assert!(
                    plan.iter().any(walks) && !plan.iter().any(|step| step.contains("TEMP B-TREE")),
                    "{order:?} {from:?}: {plan:?}"
                );
            }
        }
    }

    /// Walking a listing page by page, forwards from its first note or
    /// backwards from its last, gives every note once and in order, with
    /// many notes sharing a date.
    #[test]
    fn pages_after_and_before_a_place_walk_the_whole_listing() {
        use crate::reads::NoteReads;
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path()).unwrap();
        store
            .write(|db| {
                for i in 0..50i64 {
                    let at = keep_model::Timestamp::from_millis(1_000 * (i % 7));
                    let id = format!("n{:02}", (i * 37) % 50);
                    db.insert_note(&crate::test_note(&id, "text", at))?;
                }
                Ok(())
            })
            .unwrap();
        let db = store.db();
        let filter = NoteFilter::default();
        for order in [ListOrder::Updated, ListOrder::Id] {
            let all: Vec<String> = db
                .list_notes_from(&filter, order, &PageFrom::First, None)
                .unwrap()
                .into_iter()
                .map(|n| n.id)
                .collect();
            assert_eq!(all.len(), 50);
            let walk = |mut from: PageFrom, forwards: bool| {
                let mut seen = Vec::new();
                loop {
                    let page = db.list_notes_from(&filter, order, &from, Some(7)).unwrap();
                    let Some(edge) = (if forwards { page.last() } else { page.first() }) else {
                        break;
                    };
                    let key = ListKey::of(edge, order);
                    let ids: Vec<String> = page.iter().map(|n| n.id.clone()).collect();
                    if forwards {
                        seen.extend(ids);
                        from = PageFrom::After(key);
                    } else {
                        seen.splice(0..0, ids);
                        from = PageFrom::Before(key);
                    }
                }
                seen
            };
            assert_eq!(walk(PageFrom::First, true), all, "{order:?} forwards");
            assert_eq!(walk(PageFrom::Last, false), all, "{order:?} backwards");
        }
    }
}
