//! How SNS's List operations page: one page size and SNS's tokens, for topics, subscriptions,
//! platform applications and endpoints and the SMS lists. A leaf: the shared pager and the error
//! type only.

use super::errors::{SnsError, invalid};
use crate::services::page::{Pager, Sizes, Tokens};

/// SNS's `NextToken`: the base64 of a page's last key; one that does not decode is an invalid
/// parameter.
pub(crate) const TOKENS: Tokens<SnsError> = Tokens::Base64Key(|| invalid("NextToken"));

/// How SNS's List operations without a page size (topics, subscriptions, platform applications
/// and endpoints, opted-out numbers) page: 100 items a page, [`TOKENS`] as tokens.
const PAGER: Pager<SnsError> = Pager {
    sizes: Sizes::Fixed(100),
    tokens: TOKENS,
};

/// One page of 100 items after the item named by `token` (base64 of the last item's key).
pub(crate) fn page<'a, T>(
    items: impl Iterator<Item = (&'a String, T)>,
    token: Option<&str>,
) -> Result<(Vec<T>, Option<String>), SnsError> {
    PAGER.page(items, token, None)
}
