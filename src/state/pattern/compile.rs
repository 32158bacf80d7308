//! Parsing, validating and compiling an event pattern: the JSON text becomes an [`ObjNode`] tree
//! of compiled matchers, or AWS's `InvalidEventPatternException` reason; then the `$or` and
//! wildcard-complexity limits. Nothing here evaluates a pattern against an event (that is
//! `matching`'s); it must not depend on anything outside `serde_json` and the pattern's types.

use super::*;

// ---------------------------------------------------------------------------------------------
// Parsing and validation. Objects are walked in document order (serde_json's preserve_order), so
// the first error reported is the one AWS's streaming parser meets first.

/// Whether every `$or` in the pattern can be read as an OR (Event Ruler falls back to its legacy
/// compiler, where `$or` is a plain field, when one cannot).
pub(super) fn ors_well_formed(obj: &Map<String, Value>) -> bool {
    obj.iter().all(|(k, v)| match v {
        _ if k == "$or" => is_or_form(v),
        Value::Object(o) => ors_well_formed(o),
        _ => true,
    })
}

fn is_or_form(v: &Value) -> bool {
    let Value::Array(branches) = v else {
        return false;
    };
    branches.len() >= 2
        && branches
            .iter()
            .all(|b| b.as_object().is_some_and(or_branch_clean))
}

fn or_branch_clean(obj: &Map<String, Value>) -> bool {
    obj.iter().all(|(k, v)| match v {
        _ if k == "$or" => is_or_form(v),
        _ if RESERVED_IN_OR.split_whitespace().any(|r| r == k) => false,
        Value::Object(o) => or_branch_clean(o),
        _ => true,
    })
}

pub(super) fn parse_object(obj: &Map<String, Value>, or_mode: bool) -> Res<ObjNode> {
    if obj.is_empty() {
        return fail("Empty objects are not allowed");
    }
    let mut node = ObjNode::default();
    for (key, value) in obj {
        if or_mode && key == "$or" {
            let branches = value.as_array().into_iter().flatten();
            let group = branches
                .map(|b| parse_object(b.as_object().unwrap_or(&Map::new()), or_mode))
                .collect::<Res<Vec<_>>>()?;
            node.ors.push(group);
            continue;
        }
        let child = match value {
            Value::Object(o) => Node::Obj(parse_object(o, or_mode)?),
            Value::Array(a) => Node::Leaf(parse_leaf(a)?),
            _ => return fail(format!("\"{key}\" must be an object or an array")),
        };
        node.fields.push((key.clone(), child));
    }
    Ok(node)
}

fn parse_leaf(values: &[Value]) -> Res<Vec<Matcher>> {
    if values.is_empty() {
        return fail("Empty arrays are not allowed");
    }
    values
        .iter()
        .map(|v| match v {
            Value::String(s) => Ok(Matcher::Exact(s.clone(), parse_ip(s).ok())),
            Value::Number(n) => Ok(Matcher::Number(num(n))),
            Value::Bool(b) => Ok(Matcher::Bool(*b)),
            Value::Null => Ok(Matcher::Null),
            Value::Object(o) => parse_match_expression(o),
            Value::Array(_) => fail("Match value must be String, number, true, false, or null"),
        })
        .collect()
}

fn parse_match_expression(obj: &Map<String, Value>) -> Res<Matcher> {
    let Some((name, value)) = obj.iter().next() else {
        return fail("Match expression name not found");
    };
    let single = |m: Matcher| {
        if obj.len() > 1 {
            fail("Only one key allowed in match expression")
        } else {
            Ok(m)
        }
    };
    let string = |what: &str| match value {
        Value::String(s) => Ok(s.as_str()),
        _ => fail(format!("{what} match pattern must be a string")),
    };
    match name.as_str() {
        "prefix" | "suffix" => {
            let (text, ic) = match value {
                Value::Object(inner) => (parse_affix_ignore_case(name, inner)?, true),
                _ => (string(name)?.to_string(), false),
            };
            let prefix = name == "prefix";
            single(Matcher::Affix { prefix, ic, text })
        }
        "equals-ignore-case" => single(Matcher::EqIc(lower(string(name)?))),
        "wildcard" => single(Matcher::Wildcard(Wildcard::parse(string(name)?)?)),
        "exists" => match value {
            Value::Bool(b) => single(Matcher::Exists(*b)),
            _ => fail("exists match pattern must be either true or false."),
        },
        // AWS words a non-string CIDR as a prefix error (recorded: content_ip_address_type_EXC).
        "cidr" => single(parse_cidr(string("prefix")?)?),
        "numeric" => {
            let Value::Array(terms) = value else {
                return fail("Value of numeric must be an array.");
            };
            let range = parse_numeric(terms)?;
            too_many_elements(obj.len(), Matcher::Numeric(range))
        }
        "anything-but" => too_many_elements(obj.len(), parse_anything_but(value)?),
        _ => fail(format!("Unrecognized match type {name}")),
    }
}

/// Event Ruler's wording for an extra key after `numeric` or `anything-but`.
fn too_many_elements(keys: usize, m: Matcher) -> Res<Matcher> {
    if keys > 1 {
        fail("Too many elements in numeric expression")
    } else {
        Ok(m)
    }
}

/// `{"prefix": {"equals-ignore-case": "x"}}` (and suffix): returns the lower-cased operand.
fn parse_affix_ignore_case(op: &str, inner: &Map<String, Value>) -> Res<String> {
    let Some((name, value)) = inner.iter().next() else {
        let capitalised = if op == "prefix" { "Prefix" } else { "Suffix" };
        return fail(format!("{capitalised} expression name not found"));
    };
    if name != "equals-ignore-case" {
        return fail(format!("Unsupported {op} pattern: {name}"));
    }
    let Value::String(s) = value else {
        return fail("equals-ignore-case match pattern must be a string");
    };
    if inner.len() > 1 {
        return fail("Only one key allowed in match expression");
    }
    Ok(lower(s))
}

fn parse_anything_but(value: &Value) -> Res<Matcher> {
    const NOT_SCALAR: &str =
        "Value of anything-but must be an array or single string/number value.";
    let (op, operand, keys) = match value {
        Value::Object(inner) => {
            let Some((op, operand)) = inner.iter().next() else {
                return fail("Anything-But expression name not found");
            };
            if !["equals-ignore-case", "prefix", "suffix", "wildcard"].contains(&op.as_str()) {
                return fail(format!("Unsupported anything-but pattern: {op}"));
            }
            (op.as_str(), operand, inner.len())
        }
        Value::String(s) => return Ok(Matcher::AnythingBut(AnythingBut::Strings(vec![s.clone()]))),
        Value::Number(n) => return Ok(Matcher::AnythingBut(AnythingBut::Numbers(vec![num(n)]))),
        Value::Array(list) => return parse_anything_but_list(list),
        _ => return fail(NOT_SCALAR),
    };
    let items: Vec<&Value> = match operand {
        Value::Array(list) => list.iter().collect(),
        Value::String(_) | Value::Number(_) => vec![operand],
        _ => return fail(NOT_SCALAR),
    };
    let mut strings = Vec::with_capacity(items.len());
    for item in items {
        match item {
            Value::String(s) if s.is_empty() && (op == "prefix" || op == "suffix") => {
                return fail("Null prefix/suffix not allowed");
            }
            Value::String(s) => strings.push(s.as_str()),
            _ if op == "equals-ignore-case" => {
                return fail(
                    "Inside anything-but/equals-ignore-case list, number|start|null|boolean is \
                     not supported.",
                );
            }
            _ if op == "wildcard" => return fail("wildcard match pattern must be a string"),
            _ => return fail("prefix/suffix match pattern must be a string"),
        }
    }
    let owned = || strings.iter().map(|s| s.to_string()).collect();
    let m = Matcher::AnythingBut(match op {
        "prefix" => AnythingBut::Prefix(owned()),
        "suffix" => AnythingBut::Suffix(owned()),
        "equals-ignore-case" => AnythingBut::EqIc(strings.iter().map(|s| lower(s)).collect()),
        _ => AnythingBut::Wildcard(
            strings
                .iter()
                .map(|s| Wildcard::parse(s))
                .collect::<Res<_>>()?,
        ),
    });
    too_many_elements(keys, m)
}

fn parse_anything_but_list(list: &[Value]) -> Res<Matcher> {
    let (mut strings, mut numbers) = (Vec::new(), Vec::new());
    for item in list {
        match item {
            Value::String(s) => strings.push(s.clone()),
            Value::Number(n) => numbers.push(num(n)),
            _ => return fail("Inside anything but list, start|null|boolean is not supported."),
        }
    }
    match (strings.is_empty(), numbers.is_empty()) {
        (false, true) => Ok(Matcher::AnythingBut(AnythingBut::Strings(strings))),
        (true, false) => Ok(Matcher::AnythingBut(AnythingBut::Numbers(numbers))),
        _ => fail(
            "Inside anything but list, either all values are number or string, mixed type is not \
             supported",
        ),
    }
}

/// `["=", 5]`, `[">", 0]`, `[">=", 0, "<", 10]`, `["<=", 5]`... Decision: values are not limited
/// to ±5e9 (the 2023 guide's limit; Event Ruler now takes the full double range).
fn parse_numeric(terms: &[Value]) -> Res<Range> {
    let mut it = terms.iter();
    let first = it.next();
    let Some(Value::String(op)) = first else {
        return fail(format!(
            "Invalid member in numeric match: {}",
            token_text(first)
        ));
    };
    let number = |v: Option<&Value>, what: &str| match v {
        Some(Value::Number(n)) => Ok(num(n).value),
        _ => fail(format!("Value of {what} must be numeric")),
    };
    let end = |next: Option<&Value>, r: Range| match next {
        None => Ok(r),
        Some(_) => fail("Too many elements in numeric expression"),
    };
    let range = |lo, lo_open, hi, hi_open| Range {
        lo,
        lo_open,
        hi,
        hi_open,
    };
    match op.as_str() {
        "=" => {
            let v = number(it.next(), "equals")?;
            end(it.next(), range(v, false, v, false))
        }
        "<" | "<=" => {
            let hi = number(it.next(), op)?;
            end(it.next(), range(f64::NEG_INFINITY, false, hi, op == "<"))
        }
        ">" | ">=" => {
            let lo = number(it.next(), op)?;
            let lo_open = op == ">";
            let Some(next) = it.next() else {
                return Ok(range(lo, lo_open, f64::INFINITY, false));
            };
            let Value::String(op2) = next else {
                return fail(format!(
                    "Bad value in numeric range: {}",
                    token_text(Some(next))
                ));
            };
            if op2 != "<" && op2 != "<=" {
                return fail(format!("Bad numeric range operator: {op2}"));
            }
            let hi = number(it.next(), op2)?;
            if it.next().is_some() {
                return fail("Too many terms in numeric range expression");
            }
            if lo >= hi {
                return fail("Bottom must be less than top");
            }
            Ok(range(lo, lo_open, hi, op2 == "<"))
        }
        _ => fail(format!("Unrecognized numeric range operator: {op}")),
    }
}

/// The text Jackson reports for a token (used in a few numeric messages).
fn token_text(v: Option<&Value>) -> String {
    match v {
        None => "]".into(),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(_)) => "[".into(),
        Some(Value::Object(_)) => "{".into(),
        Some(other) => other.to_string(),
    }
}

pub(super) fn num(n: &Number) -> Num {
    let value = n.as_f64().unwrap_or(f64::NAN);
    let int = n.as_i64().map(i128::from).or(n.as_u64().map(i128::from));
    Num { value, int }
}

/// Lower case, char by char (the same mapping the matcher applies to event values).
fn lower(s: &str) -> String {
    s.chars().flat_map(char::to_lowercase).collect()
}

impl Wildcard {
    /// `*` is any run, `\*` a literal star, `\\` a backslash. Positions in messages count the
    /// operand's UTF-8 bytes from 1, as AWS does (it counts the opening quote as 0).
    pub(super) fn parse(s: &str) -> Res<Wildcard> {
        let bytes = s.as_bytes();
        let (mut parts, mut current) = (Vec::new(), Vec::new());
        let mut i = 0;
        while let Some(&byte) = bytes.get(i) {
            match byte {
                b'*' if bytes.get(i + 1) == Some(&b'*') => {
                    return fail(format!("Consecutive wildcard characters at pos {}", i + 1));
                }
                b'*' => parts.push(std::mem::take(&mut current)),
                b'\\' => match bytes.get(i + 1) {
                    Some(&next @ (b'*' | b'\\')) => {
                        current.push(next);
                        i += 1;
                    }
                    _ => return fail(format!("Invalid escape character at pos {}", i + 1)),
                },
                b => current.push(b),
            }
            i += 1;
        }
        parts.push(current);
        // Splits happen at ASCII bytes only, so every part is valid UTF-8.
        let parts = parts
            .into_iter()
            .map(|p| String::from_utf8_lossy(&p).into_owned());
        Ok(Wildcard {
            parts: parts.collect(),
        })
    }
}

/// An IP literal the way Event Ruler recognises one: four dotted decimal groups, or hex digits
/// and colons with at least one colon. Anything else is "Nonstandard".
pub(super) fn parse_ip(s: &str) -> Result<Ip, String> {
    let digits = |g: &str| !g.is_empty() && g.bytes().all(|b| b.is_ascii_digit());
    if s.split('.').count() == 4 && s.split('.').all(digits) {
        let mut addr = 0u128;
        for g in s.split('.') {
            match g.parse::<u8>() {
                Ok(octet) => addr = addr << 8 | u128::from(octet),
                Err(_) => return Err(format!("Invalid IP address: {s}")),
            }
        }
        return Ok(Ip { v6: false, addr });
    }
    if s.contains(':') && s.bytes().all(|b| b.is_ascii_hexdigit() || b == b':') {
        return match s.parse::<std::net::Ipv6Addr>() {
            Ok(a) => Ok(Ip {
                v6: true,
                addr: u128::from(a),
            }),
            Err(_) => Err(format!("Invalid IP address: {s}")),
        };
    }
    Err(format!("Nonstandard IP address: {s}"))
}

/// `"10.0.0.0/24"`: the range runs from the address as written to its last host address.
fn parse_cidr(s: &str) -> Res<Matcher> {
    let mut parts: Vec<&str> = s.split('/').collect();
    while parts.last() == Some(&"") {
        parts.pop(); // Java's split drops trailing empty strings.
    }
    let [ip, mask] = parts[..] else {
        return fail("Malformed CIDR, one '/' required");
    };
    let Ok(mask) = mask.parse::<i32>() else {
        return fail("Malformed CIDR, mask bits must be an integer");
    };
    if mask < 0 {
        return fail("Malformed CIDR, mask bits must not be negative");
    }
    let ip = parse_ip(ip).map_err(PatternError::new)?;
    let bits = if ip.v6 { 128 } else { 32 };
    if mask >= bits {
        let family = if ip.v6 { "IPv6" } else { "IPv4" };
        return fail(format!("{family} mask bits must be < {bits}"));
    }
    let host_bits = (bits - mask) as u32;
    let host_mask = if ip.v6 {
        u128::MAX >> (128 - host_bits)
    } else {
        u128::from(u32::MAX >> (32 - host_bits))
    };
    Ok(Matcher::Cidr {
        v6: ip.v6,
        lo: ip.addr,
        hi: ip.addr | host_mask,
    })
}

/// Jackson-like wording for text that is not JSON, with the location Jackson appends (AWS
/// returns Jackson's parser messages, recorded by LocalStack: "Unrecognized token 'this': was
/// expecting (JSON String, Number, Array, Object or token 'null', 'true' or 'false')\n at
/// [Source: (String)"this is valid json but not a dict"; line: 1, column: 5]"). The column is
/// the one after the offending token, except for a field name that does not start with a quote,
/// where it is the quote's own (both recorded).
pub(super) fn json_error(text: &str, e: &serde_json::Error) -> PatternError {
    let line_start: usize = text
        .split_inclusive('\n')
        .take(e.line().saturating_sub(1))
        .map(str::len)
        .sum();
    let at = (line_start + e.column().saturating_sub(1)).min(text.len());
    let at = (0..=at)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    let (reason, end) = json_error_reason(text, at, e);
    PatternError {
        reason,
        at: Some(jackson_location(text, end)),
    }
}

/// The reason, and the byte offset the parser's location points at.
fn json_error_reason(text: &str, at: usize, e: &serde_json::Error) -> (String, usize) {
    if e.is_eof() || at >= text.len() {
        return ("Unexpected end-of-input".into(), text.len());
    }
    let start = text[..at]
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_alphanumeric() || *c == '_')
        .last()
        .map_or(at, |(i, _)| i);
    let word: String = text[start..]
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    if word.starts_with(|c: char| c.is_alphabetic()) {
        let reason = format!(
            "Unrecognized token '{word}': was expecting (JSON String, Number, Array, Object or \
             token 'null', 'true' or 'false')"
        );
        return (reason, start + word.len());
    }
    let c = text[at..].chars().next().unwrap_or(' ');
    let detail = e.to_string();
    let (expecting, end) = if detail.starts_with("key must be a string") {
        ("was expecting double-quote to start field name", at)
    } else if detail.starts_with("expected `:`") {
        (
            "was expecting a colon to separate field name and value",
            at + c.len_utf8(),
        )
    } else if detail.starts_with("expected `,` or `}`") {
        (
            "was expecting comma to separate Object entries",
            at + c.len_utf8(),
        )
    } else if detail.starts_with("expected `,` or `]`") {
        (
            "was expecting comma to separate Array entries",
            at + c.len_utf8(),
        )
    } else {
        (
            "expected a valid value (JSON String, Number, Array, Object or token 'null', \
             'true' or 'false')",
            at + c.len_utf8(),
        )
    };
    let reason = format!(
        "Unexpected character ('{c}' (code {})): {expecting}",
        c as u32
    );
    (reason, end)
}

/// Where the first JSON token of `text` (valid JSON) ends: after the bracket of an array or
/// object, after the whole of a scalar.
pub(super) fn first_token_end(text: &str) -> usize {
    let start = text.len() - text.trim_start().len();
    match text[start..].chars().next() {
        Some('[' | '{') => start + 1,
        _ => text.trim_end().len(),
    }
}

/// Jackson's location suffix for byte offset `end` of `text`: 1-based line and column (in
/// characters), the text quoted as it is, cut after 500 characters as Jackson cuts it.
pub(super) fn jackson_location(text: &str, end: usize) -> String {
    let before = &text[..end.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    let total = text.chars().count();
    let source = if total > 500 {
        let kept: String = text.chars().take(500).collect();
        format!("\"{kept}\"[truncated {} chars]", total - 500)
    } else {
        format!("\"{text}\"")
    };
    format!("\n at [Source: (String){source}; line: {line}, column: {column}]")
}

// ---------------------------------------------------------------------------------------------
// Limits checked once the whole pattern is valid.

impl ObjNode {
    /// The number of AND-combinations the `$or`s expand to (products of branch counts).
    pub(super) fn combinations(&self) -> u64 {
        let mut n: u64 = 1;
        for (_, child) in &self.fields {
            if let Node::Obj(o) = child {
                n = n.saturating_mul(o.combinations());
            }
        }
        for group in &self.ors {
            let sum = group
                .iter()
                .fold(0u64, |acc, b| acc.saturating_add(b.combinations()));
            n = n.saturating_mul(sum);
        }
        n
    }

    pub(super) fn check_complexity(&self) -> Res<()> {
        for (_, child) in &self.fields {
            match child {
                Node::Obj(o) => o.check_complexity()?,
                Node::Leaf(matchers) => {
                    let wildcards: Vec<&Wildcard> = matchers
                        .iter()
                        .flat_map(|m| match m {
                            Matcher::Wildcard(w) => std::slice::from_ref(w),
                            Matcher::AnythingBut(AnythingBut::Wildcard(ws)) => ws.as_slice(),
                            _ => &[],
                        })
                        .collect();
                    if !wildcards.is_empty()
                        && wildcard_complexity(&wildcards) > MAX_WILDCARD_COMPLEXITY
                    {
                        return fail(TOO_COMPLEX);
                    }
                }
            }
        }
        self.ors
            .iter()
            .flatten()
            .try_for_each(ObjNode::check_complexity)
    }
}

/// Decision (AWS publishes no formula): an estimate of Event Ruler's "complexity", the number of
/// wildcard-pattern prefixes a worst-case value keeps alive at once. The operands of one field
/// (quoted, as Event Ruler sees them) become one automaton; all reachable sets of simultaneously
/// active states are explored and the largest is scored: each state counts 1, and a state that
/// was just entered by a literal byte and sits before a `*` counts 2 (it opens a new run).
/// Several wildcard operands on one field add up, as in Event Ruler's evaluator.
pub(super) fn wildcard_complexity(wildcards: &[&Wildcard]) -> usize {
    #[derive(Clone, Copy, PartialEq)]
    enum Tok {
        Lit(u8),
        Star,
    }
    let patterns: Vec<Vec<Tok>> = wildcards
        .iter()
        .map(|w| {
            let mut toks = vec![Tok::Lit(b'"')];
            for (i, part) in w.parts.iter().enumerate() {
                if i > 0 {
                    toks.push(Tok::Star);
                }
                toks.extend(part.bytes().map(Tok::Lit));
            }
            toks.push(Tok::Lit(b'"'));
            toks
        })
        .collect();
    let mut alphabet: Vec<u8> = patterns
        .iter()
        .flatten()
        .filter_map(|t| match t {
            Tok::Lit(b) => Some(*b),
            Tok::Star => None,
        })
        .collect();
    alphabet.sort_unstable();
    alphabet.dedup();
    if let Some(other) = (0..=255u8).find(|b| alphabet.binary_search(b).is_err()) {
        alphabet.push(other); // one byte standing for all bytes no operand names
    }
    // A state: (pattern, position of the next token, entered by a star's loop).
    type State = (usize, usize, bool);
    let weight = |&(p, pos, looped): &State| {
        let star = patterns.get(p).and_then(|toks| toks.get(pos)) == Some(&Tok::Star);
        1 + usize::from(!looped && star)
    };
    let start: Vec<State> = (0..patterns.len()).map(|p| (p, 0, false)).collect();
    let mut seen: HashSet<Vec<State>> = HashSet::from([start.clone()]);
    let mut queue = VecDeque::from([start]);
    let mut worst = 0;
    while let Some(set) = queue.pop_front() {
        for &byte in &alphabet {
            let mut next: Vec<State> = Vec::new();
            for &(p, pos, _) in &set {
                let toks = patterns.get(p).map_or(&[][..], Vec::as_slice);
                match toks.get(pos) {
                    Some(Tok::Star) => {
                        next.push((p, pos, true));
                        if toks.get(pos + 1) == Some(&Tok::Lit(byte)) {
                            next.push((p, pos + 2, false));
                        }
                    }
                    Some(Tok::Lit(b)) if *b == byte => next.push((p, pos + 1, false)),
                    _ => {}
                }
            }
            next.sort_unstable_by_key(|&(p, pos, looped)| (p, pos, looped));
            next.dedup();
            worst = worst.max(next.iter().map(weight).sum());
            if worst > MAX_WILDCARD_COMPLEXITY {
                return worst;
            }
            if !next.is_empty() && seen.len() < MAX_COMPLEXITY_SETS && seen.insert(next.clone()) {
                queue.push_back(next);
            }
        }
    }
    worst
}
