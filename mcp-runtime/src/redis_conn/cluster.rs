//! Redis Cluster: the `redis+cluster://` URL, the connection, and the hash tags that keep the keys
//! of one script or transaction in one slot.
//!
//! A cluster is named by one URL rather than a list of flags so that `--redis` and every store
//! constructor take it unchanged: `redis+cluster://host:port,host:port` (the seed nodes, any of
//! the cluster's nodes; the client learns the rest with `CLUSTER SLOTS`), with an optional
//! `user:password@` that applies to every node. A cluster has one database, so no `/db`.

use redis::RedisError;
use redis::cluster::ClusterClientBuilder;
use redis::cluster_async::ClusterConnection;

use super::RedisTimeouts;

/// The scheme of a cluster URL.
pub const CLUSTER_SCHEME: &str = "redis+cluster://";

/// How many times a command is sent again after a node failed or moved its slot (within the
/// response timeout, which bounds the whole).
const RETRIES: u32 = 6;

/// The seed nodes of `rest`, what follows [`CLUSTER_SCHEME`], as `redis://` URLs.
pub(super) fn seeds(rest: &str) -> Result<Vec<String>, String> {
    let bad = |why: &str| format!("bad Redis Cluster URL `{CLUSTER_SCHEME}{rest}`: {why}");
    let rest = rest.strip_suffix('/').unwrap_or(rest);
    let rest = rest.strip_suffix("/0").unwrap_or(rest);
    if rest.contains(['/', '?', '#']) {
        return Err(bad("a cluster has one database and takes no options"));
    }
    let (user, hosts) = match rest.rsplit_once('@') {
        Some((user, hosts)) => (format!("{user}@"), hosts),
        None => (String::new(), rest),
    };
    if hosts.is_empty() {
        return Err(bad("no seed node"));
    }
    hosts
        .split(',')
        .map(|host| {
            let port = host.rsplit_once(':').map(|(h, p)| (h, p.parse::<u16>()));
            match port {
                Some((h, Ok(_))) if !h.is_empty() => Ok(format!("redis://{user}{host}")),
                _ => Err(bad(&format!("`{host}` is not host:port"))),
            }
        })
        .collect()
}

/// Connects to the cluster through `seeds`.
pub(super) async fn connect(
    seeds: &[String],
    timeouts: RedisTimeouts,
) -> Result<ClusterConnection, RedisError> {
    ClusterClientBuilder::new(seeds.iter().map(String::as_str))
        .connection_timeout(timeouts.connection)
        .response_timeout(timeouts.response)
        .overall_response_timeout(Some(timeouts.response))
        .retries(RETRIES)
        .min_retry_wait(50)
        .max_retry_wait(500)
        .build()?
        .get_async_connection()
        .await
}

/// `{text}`: in a key, Redis Cluster hashes only this part, so keys that carry the same tag share
/// a slot. Braces and `%` in `text` are percent-encoded (a brace would end the tag early) and an
/// empty `text` becomes `_` (an empty tag would hash the whole key).
pub fn hash_tag(text: &str) -> String {
    if text.is_empty() {
        return "{_}".into();
    }
    let escaped = text
        .replace('%', "%25")
        .replace('{', "%7B")
        .replace('}', "%7D");
    format!("{{{escaped}}}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tag_is_braced_never_empty_and_never_holds_a_brace() {
        assert_eq!(hash_tag("ab12:0"), "{ab12:0}");
        assert_eq!(hash_tag(""), "{_}");
        assert_eq!(hash_tag("a}b{%"), "{a%7Db%7B%25}");
    }
}
