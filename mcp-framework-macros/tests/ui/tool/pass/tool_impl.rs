//! `#[tool_impl]`: methods taking `&self` are tools (registered, and in `tool_set()`),
//! under strict lints; other items of the block are left alone.
#![forbid(unsafe_code)]
#![deny(warnings, missing_docs, unreachable_pub, unused_qualifications)]

use std::sync::Mutex;

use mcp_framework::{Context, Server, tool, tool_impl};

/// Notes.
#[derive(Debug, Default)]
pub struct Notes {
    notes: Mutex<Vec<String>>,
}

#[tool_impl]
impl Notes {
    /// Adds a note.
    #[tool]
    pub async fn add(
        &self,
        /// The note.
        text: &str,
        /// How many times.
        #[arg(default = 1)]
        times: u32,
        cx: Context,
    ) -> String {
        let _ = cx;
        let mut notes = self.notes.lock().unwrap();
        for _ in 0..times {
            notes.push(text.to_owned());
        }
        format!("{}", notes.len())
    }

    /// The notes.
    #[tool(name = "notes_list", read_only)]
    fn list(&self) -> Vec<String> {
        self.notes.lock().unwrap().clone()
    }

    /// A constructor, not a tool.
    pub fn new() -> Self {
        Self::default()
    }
}

fn main() {
    let _ = Notes::tool_set();
    let _ = Server::builder().state(Notes::new()).build().unwrap();
}
