//! The order in which calls reach the store: first come, first served,
//! counted from when a call arrives, not from when its slow preparation
//! (embedding its text) ends. A call takes a ticket on arrival, prepares
//! alongside the others, then waits for every earlier ticket to be done
//! with the store; so calls sent one after another without waiting act in
//! the order sent.

use std::sync::{Mutex, PoisonError};

use tokio::sync::oneshot;

/// Hands out tickets in arrival order.
#[derive(Default)]
pub struct Order {
    /// Signalled when the newest ticket is done; the next one waits on it.
    last: Mutex<Option<oneshot::Receiver<()>>>,
}

/// A place in line, not yet at the front.
pub struct Ticket {
    before: Option<oneshot::Receiver<()>>,
    done: Option<oneshot::Sender<()>>,
}

/// The front of the line: later tickets wait until this is dropped.
pub struct Turn {
    _done: oneshot::Sender<()>,
}

impl Order {
    pub fn ticket(&self) -> Ticket {
        let (done, after) = oneshot::channel();
        let before = self
            .last
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .replace(after);
        Ticket {
            before,
            done: Some(done),
        }
    }
}

impl Ticket {
    /// Waits until every earlier ticket is done.
    pub async fn turn(mut self) -> Turn {
        if let Some(before) = self.before.take() {
            let _ = before.await;
        }
        Turn {
            _done: self.done.take().expect("a ticket's turn is taken once"),
        }
    }
}

impl Drop for Ticket {
    /// A ticket given up before its turn (its call was cancelled) still
    /// holds its place: the next one waits for the one before it.
    fn drop(&mut self) {
        let (Some(before), Some(done)) = (self.before.take(), self.done.take()) else {
            return;
        };
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                // The call before ended either way: its turn is over.
                let _ = before.await;
                drop(done);
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::time::Duration;

    #[tokio::test]
    async fn turns_follow_arrival_not_readiness() {
        let order = Arc::new(Order::default());
        let log = Arc::new(Mutex::new(Vec::new()));
        let mut tasks = Vec::new();
        for (n, prepare_ms) in [(0, 30u64), (1, 0), (2, 15)] {
            let ticket = order.ticket();
            let log = Arc::clone(&log);
            tasks.push(tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(prepare_ms)).await;
                let _turn = ticket.turn().await;
                log.lock().unwrap().push(n);
                tokio::time::sleep(Duration::from_millis(5)).await;
            }));
        }
        for t in tasks {
            t.await.unwrap();
        }
        assert_eq!(*log.lock().unwrap(), vec![0, 1, 2]);
    }

    #[tokio::test]
    async fn a_ticket_given_up_keeps_later_ones_behind_earlier_ones() {
        let order = Order::default();
        let first = order.ticket();
        let dropped = order.ticket();
        let third = order.ticket();
        let turn = first.turn().await;
        drop(dropped);
        let waiting = tokio::spawn(third.turn());
        tokio::time::sleep(Duration::from_millis(30)).await;
        assert!(
            !waiting.is_finished(),
            "the third went before the first was done"
        );
        drop(turn);
        tokio::time::timeout(Duration::from_secs(1), waiting)
            .await
            .expect("the third never got its turn")
            .unwrap();
    }

    #[tokio::test]
    async fn a_turn_dropped_by_a_failed_call_lets_the_next_go() {
        let order = Order::default();
        let first = order.ticket();
        let second = order.ticket();
        drop(first.turn().await);
        tokio::time::timeout(Duration::from_secs(1), second.turn())
            .await
            .expect("the second never got its turn");
    }
}
