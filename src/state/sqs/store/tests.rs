//! The store's tests: sending, receiving, FIFO groups, deduplication, redrive and retention.
//! Tests only.

use super::*;

fn queue(fifo: bool) -> Queue {
    let attributes = QueueAttributes {
        fifo,
        ..QueueAttributes::default()
    };
    let key = QueueKey {
        account: "000000000000".into(),
        region: "us-east-1".into(),
        name: "q".into(),
    };
    Queue::new(key, 0, attributes)
}

/// A message to send (also the depth tests' fixture).
pub(super) fn out(body: &str, group: Option<&str>, dedup: Option<&str>) -> Outgoing {
    Outgoing {
        body: body.into(),
        md5_of_body: String::new(),
        attributes: BTreeMap::new(),
        md5_of_attributes: None,
        trace_header: None,
        md5_of_system_attributes: None,
        sender_id: Arc::from("000000000000"),
        group_id: group.map(str::to_string),
        dedup_id: dedup.map(str::to_string),
        delay_ms: 0,
    }
}

fn bodies(r: &Received) -> Vec<String> {
    r.messages
        .iter()
        .map(|(_, m)| m.body.text().into())
        .collect()
}

#[test]
fn fifo_groups_block_while_in_flight_and_keep_order() {
    let mut q = queue(true);
    for (i, (body, group)) in [
        ("a1", "a"),
        ("b1", "b"),
        ("a2", "a"),
        ("b2", "b"),
        ("a3", "a"),
    ]
    .iter()
    .enumerate()
    {
        q.send(0, format!("id{i}"), out(body, Some(group), Some(body)));
    }
    let mut n = 0;
    let mut nonce = || {
        n += 1;
        n
    };
    let r = q.receive(0, 2, 30_000, None, None, &mut nonce).unwrap();
    assert_eq!(
        bodies(&r),
        ["a1", "a2"],
        "as many of one group as possible, in order"
    );
    let r = q.receive(0, 10, 30_000, None, None, &mut nonce).unwrap();
    assert_eq!(
        bodies(&r),
        ["b1", "b2"],
        "group a is blocked while a1 and a2 are in flight"
    );
    let (seq, m) = &q
        .receive(30_000, 10, 30_000, None, None, &mut nonce)
        .unwrap()
        .messages[0];
    assert_eq!(m.body, "a1", "visible again after the timeout, still first");
    let nonce_a1 = m.receipt.unwrap().0;
    assert!(q.delete(*seq, nonce_a1, 30_000).is_ok());
}

#[test]
fn a_delayed_fifo_message_stops_its_group_without_blocking_earlier_ones() {
    let mut q = queue(true);
    q.send(0, "m1".into(), out("m1", Some("g"), Some("1")));
    let mut later = out("m2", Some("g"), Some("2"));
    later.delay_ms = 10_000;
    q.send(0, "m2".into(), later);
    q.send(0, "m3".into(), out("m3", Some("g"), Some("3")));
    q.send(0, "o1".into(), out("o1", Some("other"), Some("4")));
    let r = q.receive(0, 10, 30_000, None, None, || 1).unwrap();
    assert_eq!(
        bodies(&r),
        ["m1", "o1"],
        "m3 may not overtake the delayed m2"
    );
}

#[test]
fn fifo_duplicates_inside_five_minutes_return_the_original() {
    let mut q = queue(true);
    let first = q.send(0, "m1".into(), out("x", Some("g"), Some("d")));
    let dup = q.send(
        DEDUP_INTERVAL_MS - 1,
        "m2".into(),
        out("x", Some("g"), Some("d")),
    );
    assert!(dup.duplicate);
    assert_eq!(dup.message_id, "m1");
    assert_eq!(dup.sequence_number, first.sequence_number);
    let later = q.send(
        DEDUP_INTERVAL_MS,
        "m3".into(),
        out("x", Some("g"), Some("d")),
    );
    assert!(!later.duplicate);
    assert!(later.sequence_number > first.sequence_number);
    assert_eq!(q.counts(DEDUP_INTERVAL_MS), (2, 0, 0));
}

#[test]
fn dedup_scope_message_group_separates_groups() {
    let mut q = queue(true);
    q.attributes.dedup_scope = DedupScope::MessageGroup;
    q.send(0, "m1".into(), out("x", Some("g1"), Some("d")));
    assert!(
        !q.send(0, "m2".into(), out("x", Some("g2"), Some("d")))
            .duplicate
    );
    assert!(
        q.send(0, "m3".into(), out("x", Some("g1"), Some("d")))
            .duplicate
    );
}

#[test]
fn messages_over_max_receives_are_dead_lettered() {
    let mut q = queue(false);
    q.send(0, "m1".into(), out("x", None, None));
    let mut nonce = || 1;
    for t in [0, 10, 20] {
        assert_eq!(
            q.receive(t, 1, 10, Some(3), None, &mut nonce)
                .unwrap()
                .messages
                .len(),
            1
        );
    }
    let r = q.receive(30, 1, 10, Some(3), None, &mut nonce).unwrap();
    assert!(r.messages.is_empty());
    assert_eq!(r.dead_lettered.len(), 1);
    assert_eq!(q.counts(30), (0, 0, 0));
}

#[test]
fn dead_lettered_messages_expire_by_their_original_send_time() {
    let mut dlq = queue(false);
    dlq.attributes.retention_s = 60;
    dlq.send(50_000, "newer".into(), out("newer", None, None));
    let mut old = queue(false);
    old.send(0, "old".into(), out("old", None, None));
    let mut moved = old.take_visible(10_000, 1).pop().unwrap();
    moved.dead_letter_source_arn = Some(Arc::from("arn:aws:sqs:us-east-1:000000000000:q"));
    dlq.take_moved(moved, 10_000);
    assert_eq!(dlq.counts(59_999), (2, 0, 0));
    let r = dlq.receive(60_000, 10, 0, None, None, || 1).unwrap();
    let bodies: Vec<String> = r
        .messages
        .iter()
        .map(|(_, m)| m.body.text().into())
        .collect();
    assert_eq!(
        bodies,
        ["newer"],
        "the moved message expired 60 s after its first send"
    );
}

#[test]
fn retention_expires_messages() {
    let mut q = queue(false);
    q.attributes.retention_s = 60;
    q.send(0, "m1".into(), out("x", None, None));
    assert_eq!(q.counts(59_999), (1, 0, 0));
    assert_eq!(q.counts(60_000), (0, 0, 0));
    assert!(
        q.receive(60_000, 1, 0, None, None, || 1)
            .unwrap()
            .messages
            .is_empty()
    );
}

#[test]
fn visibility_changes_are_bounded_by_twelve_hours_from_the_receive() {
    for fifo in [false, true] {
        let mut q = queue(fifo);
        q.send(0, "m1".into(), out("x", Some("g"), Some("d")));
        let r = q.receive(0, 1, 30_000, None, None, || 7).unwrap();
        let seq = r.messages[0].0;
        // Another receive's handle: accepted on a standard queue, expired on a FIFO one.
        let other = if fifo {
            Err(Visibility::Expired)
        } else {
            Ok(())
        };
        assert_eq!(q.change_visibility(seq, 8, 0, 30_000), other);
        assert_eq!(
            q.change_visibility(seq, 7, 1_000, MAX_VISIBILITY_MS),
            Err(Visibility::BeyondLimit)
        );
        assert_eq!(
            q.change_visibility(seq, 7, 1_000, MAX_VISIBILITY_MS - 1_000),
            Ok(())
        );
        // Visible again: a FIFO queue calls it not in flight; a standard one takes the change
        // while it stays inside the 12 hours.
        let now = MAX_VISIBILITY_MS;
        let visible = if fifo {
            Err(Visibility::NotInFlight)
        } else {
            Err(Visibility::BeyondLimit)
        };
        assert_eq!(q.change_visibility(seq, 7, now, 10), visible);
        assert!(q.delete(seq, 7, now).is_err() == fifo);
        assert_eq!(
            q.change_visibility(seq, 7, now, 0),
            if fifo {
                Err(Visibility::NotInFlight)
            } else {
                Err(Visibility::Gone)
            }
        );
    }
}

#[test]
fn arns_name_queues() {
    let k = QueueKey::from_arn("arn:aws:sqs:eu-west-1:111122223333:jobs.fifo").unwrap();
    assert_eq!(
        (k.region.as_str(), k.account.as_str(), k.name.as_str()),
        ("eu-west-1", "111122223333", "jobs.fifo")
    );
    assert_eq!(k.arn(), "arn:aws:sqs:eu-west-1:111122223333:jobs.fifo");
    assert!(QueueKey::from_arn("arn:aws:sns:eu-west-1:1:x").is_none());
    assert!(QueueKey::from_arn("arn:aws:sqs:eu-west-1:1").is_none());
    for refused in [
        "arn:aws:sqs:eu-west-1:1:q:x",
        "arn:aws:sqs::1:q",
        "arn:aws:sqs:eu-west-1::q",
        "arn:aws:sqs:eu-west-1:1:",
        "urn:aws:sqs:eu-west-1:1:q",
    ] {
        assert!(QueueKey::from_arn(refused).is_none(), "{refused}");
    }
    let other = QueueKey::from_arn("arn:aws-cn:sqs:cn-north-1:1:q").unwrap();
    assert_eq!(other.name, "q");
}
