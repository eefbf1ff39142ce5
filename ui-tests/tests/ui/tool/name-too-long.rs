use mcp_runtime::prelude::*;

/// Counts words.
#[tool(name = "count_the_words_in_a_text_and_return_how_many_there_are_which_is_a_fine_thing_to_do_but_this_name_is_far_longer_than_any_client_accepts")]
fn count(text: String) -> usize {
    text.split_whitespace().count()
}

fn main() {
    let _table = tools![count];
}
