//! Injected faults (`/_switchyard/faults`): failures every attempt at a target meets while they
//! are in force. Plain data.
//! Part of the engine: it depends on nothing above it.

use serde::{Deserialize, Serialize};

/// A failure injected on purpose for every delivery attempt to `target`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Fault {
    pub id: String,
    pub target: String,
    pub status: u16,
    pub error_code: Option<String>,
    /// Failed attempts left before the fault removes itself; `None` lasts until deleted.
    pub count: Option<u64>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Faults {
    faults: Vec<Fault>,
}

impl Faults {
    pub fn add(&mut self, fault: Fault) {
        self.faults.push(fault);
    }

    pub fn list(&self) -> &[Fault] {
        &self.faults
    }

    pub fn remove(&mut self, id: &str) -> bool {
        let before = self.faults.len();
        self.faults.retain(|f| f.id != id);
        self.faults.len() != before
    }

    pub fn clear(&mut self) {
        self.faults.clear();
    }

    /// The fault an attempt to `target` meets now, counting the attempt against it.
    pub fn hit(&mut self, target: &str) -> Option<Fault> {
        let i = self.faults.iter().position(|f| f.target == target)?;
        let fault = self.faults[i].clone();
        if let Some(left) = &mut self.faults[i].count {
            *left = left.saturating_sub(1);
            if *left == 0 {
                self.faults.remove(i);
            }
        }
        Some(fault)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counted_fault_removes_itself() {
        let mut faults = Faults::default();
        faults.add(Fault {
            id: "f".into(),
            target: "x".into(),
            status: 500,
            error_code: None,
            count: Some(2),
        });
        assert!(faults.hit("y").is_none());
        assert_eq!(faults.hit("x").map(|f| f.status), Some(500));
        assert!(faults.hit("x").is_some());
        assert!(faults.hit("x").is_none());
        assert!(faults.list().is_empty());
    }
}
