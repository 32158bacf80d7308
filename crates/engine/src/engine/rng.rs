//! The one seeded generator behind ids and retry jitter (`--seed`), so that the same
//! inputs and seed give the same bytes.
//! Part of the engine: it depends on nothing above it, and never on the wall clock.

/// SplitMix64: small, fast and statistically sound for ids and jitter (not for secrets).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Rng {
    state: u64,
}

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng { state: seed }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniformly distributed value in `0.0..1.0`.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A random (version 4) UUID in its lowercase hyphenated form.
    pub fn uuid(&mut self) -> String {
        let mut bytes = [0u8; 16];
        bytes[..8].copy_from_slice(&self.next_u64().to_le_bytes());
        bytes[8..].copy_from_slice(&self.next_u64().to_le_bytes());
        uuid::Builder::from_random_bytes(bytes)
            .into_uuid()
            .hyphenated()
            .to_string()
    }

    /// `len` random characters from `alphabet`.
    pub fn token(&mut self, alphabet: &[u8], len: usize) -> String {
        (0..len)
            .map(|_| alphabet[(self.next_u64() % alphabet.len() as u64) as usize] as char)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_ids() {
        let (mut a, mut b) = (Rng::new(7), Rng::new(7));
        assert_eq!(a.uuid(), b.uuid());
        assert_ne!(a.uuid(), Rng::new(8).uuid());
    }

    #[test]
    fn uuids_are_version_4() {
        let id = Rng::new(1).uuid();
        assert_eq!(id.len(), 36);
        assert_eq!(&id[14..15], "4");
    }

    #[test]
    fn floats_stay_in_unit_interval() {
        let mut r = Rng::new(3);
        assert!(
            (0..10_000)
                .map(|_| r.next_f64())
                .all(|x| (0.0..1.0).contains(&x))
        );
    }
}
