#![doc = "Write Model Context Protocol servers by annotating ordinary Rust functions."]
#![deny(missing_docs)]

pub mod protocol;
