//! The request id of a message known only by its first bytes (a stdio line over the size
//! limit, of which only a bounded prefix is kept): a scan of the top-level object's members,
//! skipping every value but the top-level `"id"`, so that an `id` nested in `params` is never
//! taken. Nothing is allocated but the id itself.

use super::jsonrpc::RequestId;

/// How many of a message's first bytes are kept to read its id from.
pub(crate) const ID_PREFIX_BYTES: usize = 4096;

/// The top-level `"id"` of the JSON object `prefix` begins (the rest of the message may be
/// missing), when it is complete within `prefix` and is an integer or a string; `None`
/// otherwise (not an object, malformed, no `"id"` member among the members in `prefix`, or
/// one cut off at its end).
pub(crate) fn request_id(prefix: &[u8]) -> Option<RequestId> {
    let mut s = Scan { b: prefix, i: 0 };
    s.ws();
    s.eat(b'{')?;
    loop {
        s.ws();
        let key = s.string()?;
        s.ws();
        s.eat(b':')?;
        s.ws();
        let start = s.i;
        s.value()?;
        let value = &prefix[start..s.i];
        s.ws();
        // The member ends here: the value is whole (a number is not cut short).
        let next = s.next()?;
        if is_id(key) {
            return serde_json::from_slice(value).ok();
        }
        match next {
            b',' => {}
            _ => return None, // `}`: no id; anything else is malformed
        }
    }
}

/// Whether a key (its quoted JSON text) is `"id"`, escapes decoded.
fn is_id(key: &[u8]) -> bool {
    key == b"\"id\""
        || (key.contains(&b'\\') && serde_json::from_slice::<String>(key).is_ok_and(|k| k == "id"))
}

/// A position in the prefix.
struct Scan<'a> {
    b: &'a [u8],
    i: usize,
}

impl<'a> Scan<'a> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn next(&mut self) -> Option<u8> {
        let c = self.peek()?;
        self.i += 1;
        Some(c)
    }

    fn eat(&mut self, c: u8) -> Option<()> {
        (self.next()? == c).then_some(())
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    /// A string, returned with its quotes (escapes not decoded).
    fn string(&mut self) -> Option<&'a [u8]> {
        let start = self.i;
        self.eat(b'"')?;
        loop {
            match self.next()? {
                b'"' => return Some(&self.b[start..self.i]),
                b'\\' => {
                    self.next()?;
                }
                _ => {}
            }
        }
    }

    /// Skips one value: a string, an object or array (nested to any depth), or a literal.
    fn value(&mut self) -> Option<()> {
        match self.peek()? {
            b'"' => self.string().map(drop),
            b'{' | b'[' => {
                // The closers expected, innermost last: a mismatched one is malformed.
                let mut open = Vec::new();
                loop {
                    match self.peek()? {
                        b'"' => {
                            self.string()?;
                            continue;
                        }
                        b'{' => open.push(b'}'),
                        b'[' => open.push(b']'),
                        c @ (b'}' | b']') => (open.pop()? == c).then_some(())?,
                        _ => {}
                    }
                    self.i += 1;
                    if open.is_empty() {
                        return Some(());
                    }
                }
            }
            _ => {
                let start = self.i;
                while matches!(self.peek()?, b'-' | b'+' | b'.' | b'0'..=b'9' | b'a'..=b'z' | b'A'..=b'Z')
                {
                    self.i += 1;
                }
                (self.i > start).then_some(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(text: &str) -> Option<RequestId> {
        request_id(text.as_bytes())
    }

    #[test]
    fn the_top_level_id_is_read_before_or_after_the_method() {
        assert_eq!(
            id(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"text":"xx"#),
            Some(RequestId::Number(7))
        );
        assert_eq!(
            id(
                r#" { "method" : "m", "params": {"id": 1, "a": [{"id": 2}, "}{\"id\":3"]}, "id" : "x\"y" , "pad":"#
            ),
            Some(RequestId::String("x\"y".into()))
        );
        assert_eq!(id(r#"{"\u0069d":-3,"#), Some(RequestId::Number(-3)));
    }

    #[test]
    fn nested_cut_off_and_invalid_ids_are_not_taken() {
        // Only a nested id within the prefix.
        assert_eq!(id(r#"{"jsonrpc":"2.0","params":{"id":1,"text":"xxx"#), None);
        // A number that may go on past the prefix.
        assert_eq!(id(r#"{"jsonrpc":"2.0","id":12"#), None);
        assert_eq!(id(r#"{"jsonrpc":"2.0","id":"ab"#), None);
        // Not an integer or a string.
        assert_eq!(id(r#"{"id":null,"method":"m"}"#), None);
        assert_eq!(id(r#"{"id":1.5,"method":"m"}"#), None);
        assert_eq!(id(r#"{"id":{"a":1},"method":"m"}"#), None);
        // Not an object, or malformed.
        assert_eq!(id(r#"[{"id":1}]"#), None);
        assert_eq!(id(r#"{"id" 1,"#), None);
        assert_eq!(id(r#"{"a":1 "id":2,"#), None);
        assert_eq!(id(r#"{"params":{"a":[1}],"id":2,"#), None);
        assert_eq!(id(""), None);
        // Complete, without an id (a notification).
        assert_eq!(id(r#"{"jsonrpc":"2.0","method":"m"}"#), None);
    }
}
