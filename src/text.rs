//! Splitting short ASCII-delimited text (host names, queue URL paths, SigV4 headers and
//! credential scopes) by byte loops: `split` and `split_once` with a char pattern set up a
//! searcher on each call that costs more than the search on strings this short, and these are
//! split on every request.
//! A leaf: any layer may use it.

/// `s` around the first `byte` (ASCII), as `str::split_once` with that char.
pub(crate) fn split_at(s: &str, byte: u8) -> Option<(&str, &str)> {
    let i = s.bytes().position(|b| b == byte)?;
    Some((&s[..i], &s[i + 1..]))
}

/// The parts of `s` between `byte`s (ASCII), as `str::split` with that char gives them.
pub(crate) fn split(s: &str, byte: u8) -> impl Iterator<Item = &str> {
    let mut rest = Some(s);
    std::iter::from_fn(move || {
        let text = rest?;
        match split_at(text, byte) {
            Some((part, after)) => {
                rest = Some(after);
                Some(part)
            }
            None => {
                rest = None;
                Some(text)
            }
        }
    })
}

/// The first `N` parts of `s` between `byte`s (the rest `""`), and how many parts `s` has,
/// counted up to `N + 1`: enough to tell a text of exactly `N` parts.
pub(crate) fn first_parts<const N: usize>(s: &str, byte: u8) -> ([&str; N], usize) {
    let mut parts = [""; N];
    let mut count = 0;
    for part in split(s, byte).take(N + 1) {
        if let Some(slot) = parts.get_mut(count) {
            *slot = part;
        }
        count += 1;
    }
    (parts, count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_as_str_split_does() {
        for s in ["", "a", "a/b", "/a/", "//", "a//b/", "ü/é"] {
            assert_eq!(
                split(s, b'/').collect::<Vec<_>>(),
                s.split('/').collect::<Vec<_>>(),
                "{s}"
            );
            assert_eq!(split_at(s, b'/'), s.split_once('/'), "{s}");
        }
    }

    #[test]
    fn first_parts_counts_one_past_what_it_keeps() {
        assert_eq!(first_parts::<2>("a/b", b'/'), (["a", "b"], 2));
        assert_eq!(first_parts::<2>("a", b'/'), (["a", ""], 1));
        assert_eq!(first_parts::<2>("a/b/c/d", b'/'), (["a", "b"], 3));
    }
}
