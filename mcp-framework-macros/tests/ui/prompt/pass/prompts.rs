//! Prompts: argument docs, completers (sync and async), `#[ctx]`, return types.
#![deny(warnings)]

use mcp_framework::{
    Completion, CompletionRequest, Content, Context, GetPromptResult, PromptMessage, Role, Server,
    prompt, prompts,
};

fn languages(req: CompletionRequest) -> Vec<String> {
    req.matching(["python", "rust"])
}

async fn frameworks(_: CompletionRequest) -> Completion {
    Completion {
        values: vec!["axum".into()],
        total: None,
        has_more: None,
    }
}

mod completers {
    pub fn levels(_: mcp_framework::CompletionRequest) -> Vec<&'static str> {
        vec!["junior", "senior"]
    }
}

/// Asks for a code review.
#[prompt(
    name = "code-review",
    title = "Code review",
    icon = "https://example.com/r.png"
)]
fn code_review(
    /// The language.
    #[complete(languages)]
    language: &str,
    /// The framework.
    #[complete(frameworks)]
    framework: Option<String>,
    #[complete(completers::levels)] level: Option<String>,
    /// How many issues.
    max: Option<u32>,
) -> String {
    format!("{language} {framework:?} {level:?} {max:?}")
}

/// Several messages, async, with the context.
#[prompt]
async fn conversation(topic: String, cx: Context) -> Vec<PromptMessage> {
    let _ = cx.is_cancelled();
    vec![
        PromptMessage {
            role: Role::User,
            content: Content::text(topic),
        },
        PromptMessage {
            role: Role::Assistant,
            content: Content::text("OK"),
        },
    ]
}

/// A full result in a `Result`.
#[prompt(meta = r#"{"k": 1}"#)]
fn full(#[ctx] cx: &Context) -> Result<GetPromptResult, std::fmt::Error> {
    let _ = cx.protocol_version();
    Ok(GetPromptResult::default())
}

/// Not registered.
#[prompt(register = false)]
fn later() -> PromptMessage {
    PromptMessage {
        role: Role::User,
        content: Content::text("later"),
    }
}

fn main() {
    Server::builder()
        .prompts(prompts![code_review, conversation, full, later])
        .build()
        .unwrap();
}
