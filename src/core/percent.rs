//! `%XX` escapes both ways, for names a person chose (keys, routes, a caption) inside text whose
//! own separators must stay separators: a link's query (`core::url`), its trace list and its
//! composed segments (`core::compose`). Decoding never fails: an address bar can hold anything.

/// Escapes everything but ASCII letters, digits and `-._~:`, byte by byte of the UTF-8: so the
/// result holds none of the characters any reader here splits on (`&`, `=`, `#`, `,`, `;`, `@`,
/// `*`, `+`, `%`, space, quotes), and no character outside ASCII.
pub fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~:".contains(&b) {
            out.push(b as char);
        } else {
            const HEX: &[u8; 16] = b"0123456789ABCDEF";
            out.push('%');
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 15)]));
        }
    }
    out
}

/// Decodes `%XX` escapes and `+` (a space in a query's form encoding). Invalid escapes are kept
/// as text and invalid UTF-8 is replaced, so decoding never fails.
pub fn percent_decode(text: &str) -> String {
    decode(text, true)
}

/// Decodes `%XX` escapes only: a `+` stays a `+`. For a name inside a value the query has
/// already decoded once (a composed segment's key), where a `+` is the name's own.
pub fn percent_decode_name(text: &str) -> String {
    decode(text, false)
}

fn decode(text: &str, plus_is_space: bool) -> String {
    let escaped = text.contains('%') || (plus_is_space && text.contains('+'));
    if !escaped {
        return text.to_string();
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' if plus_is_space => {
                out.push(b' ');
                i += 1;
            }
            b'%' if i + 2 < bytes.len() => {
                let hex = |b: u8| (b as char).to_digit(16);
                match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                    (Some(h), Some(l)) => {
                        out.push((h * 16 + l) as u8);
                        i += 3;
                    }
                    _ => {
                        out.push(b'%');
                        i += 1;
                    }
                }
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_separator_and_every_character_outside_ascii_is_escaped() {
        let name = "acme, inc \"x\" 50% a&b #1 a+b k=v a;b a@b a*b é 🦀";
        let encoded = percent_encode(name);
        assert!(
            encoded
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-._~:%".contains(&b)),
            "{encoded}"
        );
        assert_eq!(percent_decode(&encoded), name);
        assert_eq!(percent_decode_name(&encoded), name);
        assert_eq!(percent_encode("tenant:a-b_c.d~"), "tenant:a-b_c.d~");
    }

    #[test]
    fn a_plus_is_a_space_in_a_query_and_itself_in_a_name() {
        assert_eq!(percent_decode("a+b%20c%zz%"), "a b c%zz%");
        assert_eq!(percent_decode_name("a+b%20c%zz%"), "a+b c%zz%");
    }
}
