//! One page of a list method (`tools/list`, `prompts/list`, `resources/list`,
//! `resources/templates/list`), from the request's cursor, with the next page's cursor.

use serde_json::Value;

use super::Server;
use crate::error::ProtocolError;
use crate::protocol::{Listing, Page, Request};

impl Server {
    /// One page of a list method's `entries` under `key`, from the request's `cursor`, with the
    /// next page's cursor when there is one (`page_size` entries a page). The entries were
    /// encoded when their table was built; the page refers to them.
    pub(super) fn page(
        &self,
        req: &Request,
        key: &'static str,
        entries: &Listing,
    ) -> Result<Page, ProtocolError> {
        let len = entries.len();
        let start = match req.params.as_deref().and_then(|p| p.get("cursor")) {
            None | Some(Value::Null) => 0,
            Some(c) => c
                .as_str()
                .and_then(|c| decode_cursor(c.strip_prefix(key)?))
                .filter(|&n| n > 0 && n < len)
                .ok_or_else(|| ProtocolError::invalid_params("Invalid params: invalid cursor"))?,
        };
        let end = match self.inner.options.page_size {
            Some(n) => (start + n).min(len),
            None => len,
        };
        let next_cursor = (end < len).then(|| format!("{key}{}", encode_cursor(end)));
        Ok(Page::new(key, entries, start..end, next_cursor))
    }
}

/// Cursors are opaque to clients; this one is the list's key (`tools`, `prompts`), then the
/// offset of the page's first item: `tools-1a`.
fn encode_cursor(offset: usize) -> String {
    format!("-{offset:x}")
}

fn decode_cursor(cursor: &str) -> Option<usize> {
    usize::from_str_radix(cursor.strip_prefix('-')?, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::{decode_cursor, encode_cursor};

    #[test]
    fn cursors_round_trip_and_reject_garbage() {
        assert_eq!(decode_cursor(&encode_cursor(26)), Some(26));
        assert_eq!(encode_cursor(26), "-1a");
        assert_eq!(decode_cursor("nope"), None);
        assert_eq!(decode_cursor("-zz"), None);
    }
}
