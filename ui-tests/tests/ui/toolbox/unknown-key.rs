use mcp_runtime::prelude::*;

struct Clock;

#[toolbox(read_only)]
impl Clock {
    /// Tells the time.
    #[tool]
    async fn now(&self, zone: Option<String>) -> String {
        zone.unwrap_or_else(|| "UTC".into())
    }
}

fn main() {
    let table = tools![Clock];
    assert_eq!(table.names(), ["now"]);
}
