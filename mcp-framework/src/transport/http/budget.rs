//! The body budget: how many request-body bytes every request being received may buffer
//! together ([`BodyBudget`]), and one body's share of it ([`Reservation`]).
//!
//! A body reserves what it will buffer before buffering it. Small bodies may use the whole
//! budget; a body larger than [`LARGE_SHARE`] of it may only fill it up to
//! [`LARGE_CEILING`], so that a handful of big (or stalled) uploads leaves room for ordinary
//! messages. An empty budget admits any one body, however large, so that a budget smaller
//! than the size limit slows large bodies down instead of refusing them for ever.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A body larger than `budget / LARGE_SHARE` bytes is a large one.
const LARGE_SHARE: usize = 64;
/// Large bodies may fill the budget up to `budget * LARGE_CEILING.0 / LARGE_CEILING.1`.
const LARGE_CEILING: (usize, usize) = (3, 4);

/// The bytes buffered by every body being received, against a limit. Shared by every
/// router of a server.
#[derive(Debug)]
pub(crate) struct BodyBudget {
    limit: usize,
    large: usize,
    large_ceiling: usize,
    used: AtomicUsize,
}

impl BodyBudget {
    /// A budget of `limit` bytes.
    pub(crate) fn new(limit: usize) -> Self {
        Self {
            limit,
            large: limit / LARGE_SHARE,
            large_ceiling: limit / LARGE_CEILING.1 * LARGE_CEILING.0,
            used: AtomicUsize::new(0),
        }
    }

    /// The bytes reserved now.
    #[cfg(test)]
    fn used(&self) -> usize {
        self.used.load(Ordering::Relaxed)
    }
}

/// One body's share of the budget, given back when dropped.
#[derive(Debug)]
pub(super) struct Reservation {
    budget: Arc<BodyBudget>,
    bytes: usize,
}

impl Reservation {
    /// An empty reservation.
    pub(super) fn new(budget: Arc<BodyBudget>) -> Self {
        Self { budget, bytes: 0 }
    }

    /// Grows the reservation to `total` bytes (nothing when it already holds as much);
    /// `false`, holding what it held, when the budget has no room for it.
    pub(super) fn grow_to(&mut self, total: usize) -> bool {
        let Some(more) = total.checked_sub(self.bytes).filter(|&m| m > 0) else {
            return true;
        };
        let b = &*self.budget;
        let ceiling = if total > b.large {
            b.large_ceiling
        } else {
            b.limit
        };
        let admitted = b
            .used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |used| {
                let after = used.checked_add(more)?;
                (after <= ceiling || used == 0).then_some(after)
            });
        if admitted.is_ok() {
            self.bytes = total;
        }
        admitted.is_ok()
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        if self.bytes > 0 {
            self.budget.used.fetch_sub(self.bytes, Ordering::AcqRel);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reservations_share_the_budget_and_give_it_back() {
        let budget = Arc::new(BodyBudget::new(6400));
        let mut a = Reservation::new(budget.clone());
        assert!(
            a.grow_to(100) && a.grow_to(50),
            "shrinking keeps what it has"
        );
        let mut b = Reservation::new(budget.clone());
        assert!(b.grow_to(4700), "large bodies fill up to 3/4 (4800)");
        let mut c = Reservation::new(budget.clone());
        assert!(!c.grow_to(101), "a large body beyond 3/4 is refused");
        assert!(c.grow_to(100), "a small one (at most 1/64, 100) still fits");
        let mut small: Vec<_> = (0..15).map(|_| Reservation::new(budget.clone())).collect();
        assert!(small.iter_mut().all(|r| r.grow_to(100)));
        let mut d = Reservation::new(budget.clone());
        assert!(!d.grow_to(1), "the whole budget is used");
        drop((a, b, c, d, small));
        assert_eq!(budget.used(), 0);
    }

    #[test]
    fn an_empty_budget_admits_any_one_body() {
        let budget = Arc::new(BodyBudget::new(1000));
        let mut a = Reservation::new(budget.clone());
        assert!(a.grow_to(5000));
        let mut b = Reservation::new(budget);
        assert!(!b.grow_to(1));
        drop(a);
        assert!(b.grow_to(1));
    }
}
