//! Lambda's pages: `MaxItems` a page, the next one after `Marker` (the key of the last item of
//! the page before, which `NextMarker` answers). One pager for versions, aliases and layers.

use super::errors::validation;
use crate::error::AwsError;

/// The page size `MaxItems` asks for, checked against the model's range (`1..=upper`) and cut
/// at `most`, the most Lambda answers in a page (also the default).
pub(super) fn page_size(
    max_items: Option<i64>,
    upper: i64,
    most: usize,
) -> Result<usize, AwsError> {
    match max_items {
        None => Ok(most),
        Some(n) if (1..=upper).contains(&n) => Ok(usize::try_from(n).unwrap_or(most).min(most)),
        Some(n) => Err(validation(
            n,
            "maxItems",
            &format!("Member must have value between 1 and {upper}"),
        )),
    }
}

/// The items after the one keyed `after` (all when `None`, or when no item has that key any
/// more), `size` at most, in their order, and the key to ask for the next page with when more
/// are left.
pub(super) fn page<T>(
    items: Vec<(String, T)>,
    after: Option<&str>,
    size: usize,
) -> (Vec<T>, Option<String>) {
    let start = after
        .and_then(|a| items.iter().position(|(key, _)| key == a))
        .map_or(0, |i| i + 1);
    let total = items.len();
    let mut page = Vec::new();
    let mut last = None;
    for (key, item) in items.into_iter().skip(start).take(size) {
        page.push(item);
        last = Some(key);
    }
    let next = (start + page.len() < total).then_some(last).flatten();
    (page, next)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_follow_the_marker_and_end_without_one() {
        let items = || (1..=5).map(|n| (n.to_string(), n)).collect::<Vec<_>>();
        assert_eq!(page(items(), None, 2), (vec![1, 2], Some("2".into())));
        assert_eq!(page(items(), Some("2"), 2), (vec![3, 4], Some("4".into())));
        assert_eq!(page(items(), Some("4"), 2), (vec![5], None));
        assert_eq!(page(items(), Some("3"), 2), (vec![4, 5], None));
        // A marker no item has any more starts at the top.
        assert_eq!(page(items(), Some("9"), 9), (vec![1, 2, 3, 4, 5], None));
        assert!(page_size(Some(0), 50, 50).is_err());
        assert_eq!(page_size(Some(10_000), 10_000, 50).ok(), Some(50));
    }
}
