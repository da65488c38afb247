//! Generated code names nothing the user can shadow: prelude items, `serde`, `schemars`,
//! `core`/`std`-like modules, and it works inside functions and `macro_rules!`.
#![deny(warnings)]
#![allow(non_snake_case, dead_code, non_camel_case_types)]

use mcp_framework::{prompt, resource, tool, tools};

// Shadow the prelude and common names.
struct Box;
struct Vec;
struct String;
struct Option;
struct Result;
struct Value;
struct Context2;
fn Ok() {}
fn Err() {}
fn Some() {}
fn None() {}
mod serde {}
mod schemars {}
mod inventory {}
mod __private {}
mod mcp_framework_fake {}
trait Deserialize {}
trait JsonSchema {}
trait Send {}

/// Uses only fully qualified types itself.
#[tool]
async fn shadowed(
    text: ::std::string::String,
    list: ::std::vec::Vec<u32>,
    maybe: ::core::option::Option<u8>,
) -> ::core::result::Result<::std::string::String, ::std::string::String> {
    let _ = (list, maybe);
    ::core::result::Result::Ok(text)
}

/// A prompt under the same shadowing.
#[prompt]
fn shadowed_prompt(topic: ::std::string::String) -> ::std::string::String {
    topic
}

/// A template under the same shadowing.
#[resource(template = "test://shadow/{id}")]
fn shadowed_resource(id: u32) -> ::std::string::String {
    ::std::format!("{id}")
}

macro_rules! make_tool {
    ($name:ident, $param:ident) => {
        /// Made by a macro.
        #[tool]
        fn $name($param: u8) -> u8 {
            $param
        }
    };
}

make_tool!(from_macro, value);

fn main() {
    /// A tool local to a function.
    #[tool]
    fn local(x: u8) -> u8 {
        x
    }

    let set = tools![shadowed, from_macro, local];
    assert_eq!(set.len(), 3);
}
