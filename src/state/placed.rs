//! Resources that live in one account and one region, and the ones of an account and region.
//! A leaf: the stores implement [`Placed`], and it imports none of them.

/// A resource that lives in one account and one region.
pub(crate) trait Placed {
    /// Its account and region.
    fn place(&self) -> (&str, &str);
}

/// Those of `resources` that live in `account` and `region`: what an account's lists show and
/// its limits count.
pub(crate) fn placed_in<'a, T: Placed + 'a>(
    resources: impl Iterator<Item = &'a T> + 'a,
    account: &'a str,
    region: &'a str,
) -> impl Iterator<Item = &'a T> + 'a {
    resources.filter(move |r| r.place() == (account, region))
}
