//! The one pager of every List operation (SQS, SNS, classic EventBridge, the custom bus, event
//! streams): items in key order, the caller's token and page size in, one page and the next
//! token out. What differs between services is data handed to [`Pager`]: the page sizes a caller
//! may ask for ([`Sizes`]), how a token looks on the wire ([`Tokens`]) and the service's own
//! error for a size or token it refuses. Nothing here knows a store, the engine's state or a
//! service's error type.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;

/// How one service's List operations page.
pub struct Pager<E> {
    pub sizes: Sizes<E>,
    pub tokens: Tokens<E>,
}

/// The page sizes a caller may ask for (`MaxResults`, `Limit`, ...).
pub enum Sizes<E> {
    /// Every page holds up to this many items: the operation takes no page size, and one a
    /// caller passes anyway is not looked at.
    Fixed(usize),
    /// 1 to `max` items, `max` when the caller asks for no size; `refuse` answers any other
    /// size (given the size asked for and `max`) with the service's error.
    UpTo {
        max: usize,
        refuse: fn(i64, usize) -> E,
    },
    /// As `UpTo`, except that a caller who asks for no size gets the first `max` items and never
    /// a next token (SQS).
    Capped {
        max: usize,
        refuse: fn(i64, usize) -> E,
    },
}

/// What a next token is: always the page's last key, as it is or encoded.
pub enum Tokens<E> {
    /// The last key as it is; any token is taken as a key.
    Key,
    /// The last key as it is; an empty token is refused with the service's error.
    NonEmptyKey(fn() -> E),
    /// The standard, padded base64 of the last key; a token that is not the base64 of UTF-8
    /// text is refused with the service's error.
    Base64Key(fn() -> E),
}

impl<E> Tokens<E> {
    fn encode(&self, key: &str) -> String {
        match self {
            Tokens::Key | Tokens::NonEmptyKey(_) => key.to_owned(),
            Tokens::Base64Key(_) => B64.encode(key),
        }
    }

    /// The key a token names.
    fn decode(&self, token: &str) -> Result<String, E> {
        match self {
            Tokens::Key => Ok(token.to_owned()),
            Tokens::NonEmptyKey(refuse) if token.is_empty() => Err(refuse()),
            Tokens::NonEmptyKey(_) => Ok(token.to_owned()),
            Tokens::Base64Key(refuse) => B64
                .decode(token)
                .ok()
                .and_then(|b| String::from_utf8(b).ok())
                .ok_or_else(*refuse),
        }
    }
}

impl<E> Pager<E> {
    /// The page size for a caller who asked for `asked`, or the service's error for a size out
    /// of range.
    pub fn size(&self, asked: Option<i64>) -> Result<usize, E> {
        match (&self.sizes, asked) {
            (Sizes::Fixed(n), _) => Ok(*n),
            (Sizes::UpTo { max, .. } | Sizes::Capped { max, .. }, None) => Ok(*max),
            (Sizes::UpTo { max, refuse } | Sizes::Capped { max, refuse }, Some(n)) => {
                usize::try_from(n)
                    .ok()
                    .filter(|size| (1..=*max).contains(size))
                    .ok_or_else(|| refuse(n, *max))
            }
        }
    }

    /// One page of `items` (in key order) after the key `token` names, of the size the caller
    /// `asked` for, and the token of the next page when more follow. The size is checked before
    /// the token.
    pub fn page<K: AsRef<str>, T>(
        &self,
        items: impl IntoIterator<Item = (K, T)>,
        token: Option<&str>,
        asked: Option<i64>,
    ) -> Result<(Vec<T>, Option<String>), E> {
        let size = self.size(asked)?;
        let (page, next) = self.page_of_size(items, token, size)?;
        let unpaged = asked.is_none() && matches!(self.sizes, Sizes::Capped { .. });
        Ok((page, next.filter(|_| !unpaged)))
    }

    /// [`Pager::page`] answered as the JSON services without typed outputs answer a List:
    /// `{"<list>": [...], "NextToken": "..."}`, the token only when more items follow.
    pub fn page_json<K: AsRef<str>>(
        &self,
        list: &str,
        items: impl IntoIterator<Item = (K, serde_json::Value)>,
        token: Option<&str>,
        asked: Option<i64>,
    ) -> Result<serde_json::Value, E> {
        let (page, next) = self.page(items, token, asked)?;
        let mut out = serde_json::Map::new();
        out.insert(list.to_owned(), page.into());
        if let Some(token) = next {
            out.insert("NextToken".to_owned(), token.into());
        }
        Ok(out.into())
    }

    /// One page of at most `size` items (a size already checked with [`Pager::size`]) after the
    /// key `token` names, and the token of the next page when more follow.
    pub fn page_of_size<K: AsRef<str>, T>(
        &self,
        items: impl IntoIterator<Item = (K, T)>,
        token: Option<&str>,
        size: usize,
    ) -> Result<(Vec<T>, Option<String>), E> {
        let after = token.map(|t| self.tokens.decode(t)).transpose()?;
        let (page, last) = page_after(items, after.as_deref(), size);
        Ok((page, last.map(|k| self.tokens.encode(k.as_ref()))))
    }
}

/// The paging loop: at most `size` of the `items` (in key order) whose key comes after `after`,
/// and the last key of the page when more items follow it.
fn page_after<K: AsRef<str>, T>(
    items: impl IntoIterator<Item = (K, T)>,
    after: Option<&str>,
    size: usize,
) -> (Vec<T>, Option<K>) {
    let mut rest = items
        .into_iter()
        .filter(|(k, _)| after.is_none_or(|a| k.as_ref() > a));
    let mut page = Vec::new();
    let mut last = None;
    for (k, v) in rest.by_ref().take(size) {
        last = Some(k);
        page.push(v);
    }
    let more = rest.next().is_some();
    (page, last.filter(|_| more))
}

/// The rule a page size out of 1 to `max` breaks, as the JSON services word it in their
/// validation messages.
pub fn size_rule(asked: i64, max: usize) -> String {
    if asked < 1 {
        "Member must have value greater than or equal to 1".to_owned()
    } else {
        format!("Member must have value less than or equal to {max}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bad_token() -> String {
        "bad token".into()
    }

    fn bad_size(asked: i64, max: usize) -> String {
        format!("bad size {asked} of {max}: {}", size_rule(asked, max))
    }

    const KEYS: Pager<String> = Pager {
        sizes: Sizes::UpTo {
            max: 3,
            refuse: bad_size,
        },
        tokens: Tokens::Key,
    };
    const NON_EMPTY: Pager<String> = Pager {
        sizes: Sizes::UpTo {
            max: 3,
            refuse: bad_size,
        },
        tokens: Tokens::NonEmptyKey(bad_token),
    };
    const BASE64: Pager<String> = Pager {
        sizes: Sizes::Fixed(2),
        tokens: Tokens::Base64Key(bad_token),
    };
    const CAPPED: Pager<String> = Pager {
        sizes: Sizes::Capped {
            max: 2,
            refuse: bad_size,
        },
        tokens: Tokens::Base64Key(bad_token),
    };

    type Answer = Result<(Vec<u32>, Option<&'static str>), String>;
    /// (case, pager, items k1..kn valued 1..n, token, size asked, answer)
    type Case = (
        &'static str,
        &'static Pager<String>,
        u32,
        Option<&'static str>,
        Option<i64>,
        Answer,
    );

    #[test]
    fn pages() {
        #[rustfmt::skip]
        let cases: [Case; 27] = [
            ("first page",          &KEYS,      5, None,         Some(2),  Ok((vec![1, 2], Some("k2")))),
            ("middle page",         &KEYS,      5, Some("k2"),   Some(2),  Ok((vec![3, 4], Some("k4")))),
            ("last page",           &KEYS,      5, Some("k4"),   Some(2),  Ok((vec![5], None))),
            ("exactly full",        &KEYS,      4, Some("k2"),   Some(2),  Ok((vec![3, 4], None))),
            ("default size",        &KEYS,      5, None,         None,     Ok((vec![1, 2, 3], Some("k3")))),
            ("empty",               &KEYS,      0, None,         Some(2),  Ok((vec![], None))),
            ("past the end",        &KEYS,      5, Some("k9"),   Some(2),  Ok((vec![], None))),
            ("between keys",        &KEYS,      5, Some("k2x"),  None,     Ok((vec![3, 4, 5], None))),
            ("any token is a key",  &KEYS,      5, Some(""),     Some(1),  Ok((vec![1], Some("k1")))),
            ("size 0",              &KEYS,      5, None,         Some(0),  Err(bad_size(0, 3))),
            ("size over max",       &KEYS,      5, None,         Some(4),  Err(bad_size(4, 3))),
            ("size before token",   &NON_EMPTY, 5, Some(""),     Some(-1), Err(bad_size(-1, 3))),
            ("empty token",         &NON_EMPTY, 5, Some(""),     None,     Err(bad_token())),
            ("plain key",           &NON_EMPTY, 5, Some("k3"),   None,     Ok((vec![4, 5], None))),
            ("base64 first",        &BASE64,    5, None,         None,     Ok((vec![1, 2], Some("azI=")))),
            ("base64 middle",       &BASE64,    5, Some("azI="), None,     Ok((vec![3, 4], Some("azQ=")))),
            ("base64 last",         &BASE64,    5, Some("azQ="), None,     Ok((vec![5], None))),
            ("fixed, size asked",   &BASE64,    5, None,         Some(9),  Ok((vec![1, 2], Some("azI=")))),
            ("base64 past the end", &BASE64,    5, Some("azk="), None,     Ok((vec![], None))),
            ("base64 empty",        &BASE64,    0, None,         None,     Ok((vec![], None))),
            ("not base64",          &BASE64,    5, Some("%%%"),  None,     Err(bad_token())),
            ("base64 of no UTF-8",  &BASE64,    5, Some("/w=="), None,     Err(bad_token())),
            ("capped, asked",       &CAPPED,    5, None,         Some(2),  Ok((vec![1, 2], Some("azI=")))),
            ("capped, not asked",   &CAPPED,    5, None,         None,     Ok((vec![1, 2], None))),
            ("capped, token",       &CAPPED,    5, Some("azI="), None,     Ok((vec![3, 4], None))),
            ("capped, bad token",   &CAPPED,    5, Some("%"),    None,     Err(bad_token())),
            ("capped, bad size",    &CAPPED,    5, Some("%"),    Some(3),  Err(bad_size(3, 2))),
        ];
        for (name, pager, n, token, asked, expected) in cases {
            let items = (1..=n).map(|i| (format!("k{i}"), i));
            let expected = expected.map(|(page, next)| (page, next.map(String::from)));
            assert_eq!(pager.page(items, token, asked), expected, "{name}");
        }
    }

    #[test]
    fn keys_may_be_borrowed() {
        let keys = ["a".to_owned(), "bb".to_owned(), "ccc".to_owned()];
        let by_ref = KEYS.page(keys.iter().map(|k| (k, k.len())), Some("a"), Some(1));
        assert_eq!(by_ref, Ok((vec![2], Some("bb".to_owned()))));
        let by_str = KEYS.page(keys.iter().map(|k| (k.as_str(), k.len())), Some("bb"), None);
        assert_eq!(by_str, Ok((vec![3], None)));
    }

    #[test]
    fn page_after_answers_the_last_key_only_when_more_follow() {
        let items = || vec![("a", 1), ("b", 2), ("c", 3)];
        assert_eq!(page_after(items(), None, 2), (vec![1, 2], Some("b")));
        assert_eq!(page_after(items(), Some("b"), 2), (vec![3], None));
        assert_eq!(page_after(items(), None, 3), (vec![1, 2, 3], None));
    }

    #[test]
    fn size_rules_as_the_json_services_word_them() {
        assert_eq!(
            size_rule(0, 100),
            "Member must have value greater than or equal to 1"
        );
        assert_eq!(
            size_rule(101, 100),
            "Member must have value less than or equal to 100"
        );
    }
}
