//! A queue's messages by their place in it (the number receipt handles carry), in chunks of
//! [`CHUNK`] places: a place is found in constant time, places are walked in order, and a chunk
//! whose messages are all gone is freed at once, so a drain gives memory back as it goes. Places
//! only grow: a message always goes after every place used before.

use super::Message;
use std::collections::VecDeque;

/// Places a chunk holds: large enough that the chunk list stays short, small enough that one
/// message left behind holds little.
const CHUNK: u64 = 256;

#[derive(Debug)]
struct Chunk {
    live: usize,
    slots: Box<[Option<Message>]>,
}

/// A state snapshot holds the messages as `[[place, message], ...]` in place order; reading it
/// back puts each at its place again.
#[derive(Debug, Default)]
pub(super) struct Slots {
    /// The first chunk holds places `base * CHUNK ..`.
    base: u64,
    /// `None`: a chunk whose messages are all gone.
    chunks: VecDeque<Option<Chunk>>,
    len: usize,
}

/// The chunk and the slot of place `seq`.
fn split(seq: u64) -> (u64, usize) {
    (seq / CHUNK, (seq % CHUNK) as usize)
}

impl Slots {
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Puts `m` at place `seq`, after every place used so far.
    #[expect(
        clippy::indexing_slicing,
        reason = "the list was just grown to hold the chunk of `seq`, and a chunk has a slot for \
                  every place in it (`split`)"
    )]
    pub(super) fn insert(&mut self, seq: u64, m: Message) {
        let (chunk, slot) = split(seq);
        if self.chunks.is_empty() {
            self.base = chunk;
        }
        assert!(chunk >= self.base, "places only grow");
        while self.base + (self.chunks.len() as u64) <= chunk {
            self.chunks.push_back(None);
        }
        let chunk = self.chunks[(chunk - self.base) as usize].get_or_insert_with(|| Chunk {
            live: 0,
            slots: (0..CHUNK).map(|_| None).collect(),
        });
        if chunk.slots[slot].replace(m).is_none() {
            chunk.live += 1;
            self.len += 1;
        }
    }

    fn chunk_index(&self, seq: u64) -> Option<(usize, usize)> {
        let (chunk, slot) = split(seq);
        let i = chunk.checked_sub(self.base)?;
        ((i as usize) < self.chunks.len()).then_some((i as usize, slot))
    }

    pub(super) fn get(&self, seq: u64) -> Option<&Message> {
        let (i, slot) = self.chunk_index(seq)?;
        self.chunks.get(i)?.as_ref()?.slots.get(slot)?.as_ref()
    }

    pub(super) fn get_mut(&mut self, seq: u64) -> Option<&mut Message> {
        let (i, slot) = self.chunk_index(seq)?;
        self.chunks
            .get_mut(i)?
            .as_mut()?
            .slots
            .get_mut(slot)?
            .as_mut()
    }

    /// Takes the message at `seq` out; frees its chunk when it was the chunk's last.
    pub(super) fn remove(&mut self, seq: u64) -> Option<Message> {
        let (i, slot) = self.chunk_index(seq)?;
        let entry = self.chunks.get_mut(i)?;
        let chunk = entry.as_mut()?;
        let m = chunk.slots.get_mut(slot)?.take()?;
        chunk.live -= 1;
        self.len -= 1;
        if chunk.live == 0 {
            *entry = None;
            while let Some(None) = self.chunks.front() {
                self.chunks.pop_front();
                self.base += 1;
            }
            while let Some(None) = self.chunks.back() {
                self.chunks.pop_back();
            }
        }
        Some(m)
    }

    pub(super) fn clear(&mut self) {
        self.chunks = VecDeque::new();
        self.len = 0;
    }

    /// The messages at places `from` and later, in order.
    pub(super) fn iter_from(&self, from: u64) -> impl Iterator<Item = (u64, &Message)> {
        let skip = split(from).0.saturating_sub(self.base) as usize;
        let base = self.base;
        self.chunks
            .iter()
            .enumerate()
            .skip(skip)
            .filter_map(move |(i, c)| Some((base + i as u64, c.as_ref()?)))
            .flat_map(|(chunk, c)| {
                c.slots
                    .iter()
                    .enumerate()
                    .filter_map(move |(slot, m)| Some((chunk * CHUNK + slot as u64, m.as_ref()?)))
            })
            .filter(move |(seq, _)| *seq >= from)
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = (u64, &Message)> {
        self.iter_from(0)
    }

    /// The messages, in order, to change in place (not their places).
    pub(super) fn iter_mut(&mut self) -> impl Iterator<Item = (u64, &mut Message)> {
        let base = self.base;
        self.chunks
            .iter_mut()
            .enumerate()
            .filter_map(move |(i, c)| Some((base + i as u64, c.as_mut()?)))
            .flat_map(|(chunk, c)| {
                c.slots
                    .iter_mut()
                    .enumerate()
                    .filter_map(move |(slot, m)| Some((chunk * CHUNK + slot as u64, m.as_mut()?)))
            })
    }

    pub(super) fn values(&self) -> impl Iterator<Item = &Message> {
        self.iter().map(|(_, m)| m)
    }
}

/// The widest span of places a snapshot may give one queue's messages.
const MAX_SPAN: u64 = 1 << 32;

impl serde::Serialize for Slots {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

impl<'de> serde::Deserialize<'de> for Slots {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Places;
        impl<'de> serde::de::Visitor<'de> for Places {
            type Value = Slots;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a list of [place, message] in place order")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Slots, A::Error> {
                let mut slots = Slots::default();
                let (mut first, mut last) = (None, None);
                while let Some((place, m)) = seq.next_element::<(u64, Message)>()? {
                    if last.is_some_and(|l| place <= l) {
                        return Err(serde::de::Error::custom(format_args!(
                            "message place {place} is not after the one before"
                        )));
                    }
                    // The chunks between the first place and the last are kept (empty ones as
                    // one word): a queue's places never span more than the messages it ever took,
                    // and a file claiming a larger span would only ask for memory.
                    let first = *first.get_or_insert(place);
                    if place - first > MAX_SPAN {
                        return Err(serde::de::Error::custom(format_args!(
                            "message places {first} to {place} span more than {MAX_SPAN}"
                        )));
                    }
                    last = Some(place);
                    slots.insert(place, m);
                }
                Ok(slots)
            }
        }
        d.deserialize_seq(Places)
    }
}
