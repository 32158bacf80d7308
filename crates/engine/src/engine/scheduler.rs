//! The one timer queue: items ordered by (due, sequence), so timers due at the same instant
//! fire in the order they were scheduled.
//! Part of the engine: it depends on nothing above it, and never on the wall clock.

use super::time::Millis;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

#[derive(Debug)]
struct Entry<T> {
    due: Millis,
    seq: u64,
    item: T,
}

impl<T> PartialEq for Entry<T> {
    fn eq(&self, other: &Self) -> bool {
        (self.due, self.seq) == (other.due, other.seq)
    }
}
impl<T> Eq for Entry<T> {}
impl<T> PartialOrd for Entry<T> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<T> Ord for Entry<T> {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.due, self.seq).cmp(&(other.due, other.seq))
    }
}

#[derive(Debug)]
pub struct Scheduler<T> {
    heap: BinaryHeap<Reverse<Entry<T>>>,
    seq: u64,
}

impl<T> Default for Scheduler<T> {
    fn default() -> Self {
        Scheduler {
            heap: BinaryHeap::new(),
            seq: 0,
        }
    }
}

impl<T> Scheduler<T> {
    pub fn schedule(&mut self, due: Millis, item: T) {
        self.seq += 1;
        self.heap.push(Reverse(Entry {
            due,
            seq: self.seq,
            item,
        }));
    }

    /// When the earliest timer is due.
    pub fn next_due(&self) -> Option<Millis> {
        self.heap.peek().map(|Reverse(e)| e.due)
    }

    /// Removes and returns the earliest timer if it is due at or before `limit`.
    pub fn pop_due(&mut self, limit: Millis) -> Option<(Millis, T)> {
        if self.next_due()? > limit {
            return None;
        }
        self.heap.pop().map(|Reverse(e)| (e.due, e.item))
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    pub fn clear(&mut self) {
        self.heap.clear();
    }
}

/// Written as the sequence counter and the timers in firing order, each `[due, seq, item]`, so
/// that a scheduler read back fires the same timers in the same order and numbers the next ones
/// as this one would have.
impl<T: Serialize> Serialize for Scheduler<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut entries: Vec<&Entry<T>> = self.heap.iter().map(|Reverse(e)| e).collect();
        entries.sort_unstable();
        let timers: Vec<(Millis, u64, &T)> = entries
            .into_iter()
            .map(|e| (e.due, e.seq, &e.item))
            .collect();
        (self.seq, timers).serialize(s)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Scheduler<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let (seq, timers) = <(u64, Vec<(Millis, u64, T)>)>::deserialize(d)?;
        if let Some((_, late, _)) = timers.iter().find(|(_, n, _)| *n > seq) {
            return Err(serde::de::Error::custom(format_args!(
                "timer number {late} is past the scheduler's count {seq}"
            )));
        }
        let heap = timers
            .into_iter()
            .map(|(due, seq, item)| Reverse(Entry { due, seq, item }))
            .collect();
        Ok(Scheduler { heap, seq })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_due_then_schedule_order() {
        let mut s = Scheduler::default();
        for (due, name) in [(30, "c"), (10, "a1"), (20, "b"), (10, "a2")] {
            s.schedule(due, name);
        }
        let mut order = vec![];
        while let Some((due, name)) = s.pop_due(100) {
            order.push((due, name));
        }
        assert_eq!(order, [(10, "a1"), (10, "a2"), (20, "b"), (30, "c")]);
    }

    #[test]
    fn nothing_pops_before_it_is_due() {
        let mut s = Scheduler::default();
        s.schedule(1000, ());
        assert_eq!(s.pop_due(999), None);
        assert_eq!(s.len(), 1);
        assert_eq!(s.pop_due(1000), Some((1000, ())));
        assert!(s.is_empty());
    }
}
