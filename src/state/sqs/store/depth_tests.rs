//! The kept counts against a recount through every transition: sends with and without delay,
//! receives (redrive included), visibility changes, delays and timeouts running out, deletes,
//! purges, dead letters coming in out of send order, move tasks taking and putting back,
//! retention in and out of order, event streams holding and releasing, FIFO groups. Every
//! `counts` of a debug build recounts and checks the indexes too (`Queue::check_counts`).
//! Tests only.

use super::*;
use crate::engine::rng::Rng;

fn queue(fifo: bool, retention_s: i64) -> Queue {
    let attributes = QueueAttributes {
        fifo,
        retention_s,
        ..QueueAttributes::default()
    };
    let key = QueueKey {
        account: "000000000000".into(),
        region: "us-east-1".into(),
        name: if fifo { "q.fifo" } else { "q" }.into(),
    };
    Queue::new(key, 0, attributes)
}

fn outgoing(n: u64, fifo: bool, delay_ms: Millis) -> Outgoing {
    let (group, dedup) = (format!("g{}", n % 3), format!("d{n}"));
    let (group, dedup) = (
        fifo.then_some(group.as_str()),
        fifo.then_some(dedup.as_str()),
    );
    Outgoing {
        delay_ms: if fifo { 0 } else { delay_ms },
        ..super::tests::out(&format!("body {n}"), group, dedup)
    }
}

/// Counts by walking every message, as GetQueueAttributes did before counts were kept.
fn recount(q: &Queue, now: Millis) -> (usize, usize, usize) {
    let (mut visible, mut in_flight, mut delayed) = (0, 0, 0);
    for m in q.peek(now) {
        match (m.visible_at <= now, m.receipt.is_some()) {
            (true, _) => visible += 1,
            (false, true) => in_flight += 1,
            (false, false) => delayed += 1,
        }
    }
    (visible, in_flight, delayed)
}

/// A walk of random operations on `q` and a dead-letter queue, counting after each.
fn walk(fifo: bool, seed: u64) {
    let mut rng = Rng::new(seed);
    let mut q = queue(fifo, 600);
    let mut dlq = queue(false, 900);
    let mut now: Millis = 0;
    let mut handles: Vec<(u64, u64)> = Vec::new();
    let mut taken: Vec<Message> = Vec::new();
    let mut sent = 0;
    for step in 0..3_000 {
        let pick = rng.next_u64() % 100;
        let mut nonce = || rng_nonce(step);
        match pick {
            0..=29 => {
                sent += 1;
                let delay = [0, 0, 5_000, 60_000][(sent % 4) as usize];
                q.send(now, format!("m{sent}"), outgoing(sent, fifo, delay));
            }
            30..=44 => {
                let max = 1 + step % 10;
                let visibility = [0, 2_000, 30_000][step % 3];
                if let Ok(r) = q.receive(now, max, visibility, Some(3), None, &mut nonce) {
                    handles.extend(r.messages.iter().map(|(s, m)| (*s, m.receipt.unwrap().0)));
                    for mut m in r.dead_lettered {
                        m.dead_letter_source_arn = Some(Arc::from(q.arn.as_str()));
                        dlq.take_moved(m, now);
                    }
                }
            }
            45..=54 if !handles.is_empty() => {
                let (seq, nonce) = handles.swap_remove(step % handles.len());
                let _ = q.delete(seq, nonce, now);
            }
            55..=61 if !handles.is_empty() => {
                let (seq, nonce) = handles[step % handles.len()];
                let timeout = [0, 1_000, 90_000][step % 3];
                let _ = q.change_visibility(seq, nonce, now, timeout);
            }
            62..=64 => taken.extend(q.take_visible(now, 1 + step % 4)),
            65..=66 => q.put_back(std::mem::take(&mut taken)),
            67..=68 => {
                // An event stream holds a message, then lets it go or deletes it.
                let r = q.receive(now, 1, HELD - now, None, None, &mut nonce);
                if let Some((seq, m)) = r.ok().and_then(|r| r.messages.into_iter().next()) {
                    let nonce = m.receipt.unwrap().0;
                    assert!(q.next_visible_at(now).is_none_or(|at| at < HELD));
                    match step % 2 {
                        0 => q.release(seq, nonce, now),
                        _ => handles.push((seq, nonce)),
                    }
                }
            }
            69 if step % 7 == 0 => q.purge(),
            70..=71 => {
                if let Some(m) = dlq.take_visible(now, 1).pop() {
                    q.take_moved(m, now);
                }
            }
            _ => now += [1, 500, 1_000, 20_000, 120_000][step % 5],
        }
        if step % 3 == 0 {
            q.settle(now);
        }
        assert_eq!(q.counts(now), recount(&q, now), "step {step} at {now}");
        assert_eq!(dlq.counts(now), recount(&dlq, now), "dlq, step {step}");
        // Over every message held, as before counts were kept (expired ones until dropped).
        let hidden = q
            .messages
            .values()
            .map(|m| m.visible_at)
            .filter(|&at| at > now && at < HELD)
            .min();
        assert_eq!(q.next_visible_at(now), hidden, "step {step}");
    }
    assert!(sent > 500, "the walk sends: {sent}");
}

fn rng_nonce(step: usize) -> u64 {
    step as u64 * 7 + 1
}

#[test]
fn kept_counts_match_a_recount_through_every_transition() {
    for seed in 1..=4 {
        walk(false, seed);
    }
}

#[test]
fn kept_counts_match_a_recount_on_fifo_queues() {
    for seed in 1..=4 {
        walk(true, seed);
    }
}

#[test]
fn each_transition_moves_one_count() {
    let mut q = queue(false, 60);
    q.send(0, "a".into(), outgoing(1, false, 0));
    q.send(0, "b".into(), outgoing(2, false, 10_000));
    assert_eq!(q.counts(0), (1, 0, 1), "sent; sent with a delay");
    let r = q.receive(0, 5, 5_000, None, None, || 9).unwrap();
    let (seq, nonce) = (r.messages[0].0, 9);
    assert_eq!(q.counts(0), (0, 1, 1), "received");
    assert_eq!(q.counts(5_000), (1, 0, 1), "the visibility timeout ran out");
    assert_eq!(q.counts(10_000), (2, 0, 0), "the delay ran out");
    q.change_visibility(seq, nonce, 1_000, 20_000).unwrap();
    assert_eq!(q.counts(1_000), (0, 1, 1), "hidden again");
    assert_eq!(q.next_visible_at(1_000), Some(10_000));
    q.change_visibility(seq, nonce, 2_000, 0).unwrap();
    assert_eq!(q.counts(2_000), (1, 0, 1), "made visible");
    q.delete(seq, nonce, 3_000).unwrap();
    assert_eq!(q.counts(3_000), (0, 0, 1), "deleted");
    assert_eq!(q.counts(60_000), (0, 0, 0), "past retention");
    q.settle(60_000);
    assert_eq!(q.counts(60_000), (0, 0, 0), "settled");
    q.send(60_000, "c".into(), outgoing(3, false, 0));
    q.purge();
    assert_eq!(q.counts(60_000), (0, 0, 0), "purged");
}
