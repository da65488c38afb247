//! Completion of a proxied prompt's arguments and a proxied template's variables: each one
//! gets a completer that asks the upstream (`completion/complete` on its original
//! reference, with the caller's context and capabilities) and answers with what it says.
//! An upstream that does not complete, or fails, completes nothing: completion is a hint,
//! never an error the caller must handle.

use std::sync::Arc;

use serde_json::{Value, json};

use super::callers::as_caller;
use super::link::Link;
use crate::completion::{CompletionRequest, ErasedCompleter};
use crate::context::Context;
use crate::future::BoxFuture;
use crate::protocol::{CompleteResult, Completion};

/// Forwards completion of one reference (`{"type": "ref/prompt", "name": …}` or
/// `{"type": "ref/resource", "uri": …}`, as the upstream names it).
pub(super) struct Forward {
    link: Arc<Link>,
    reference: Value,
}

impl Forward {
    /// Completes the arguments of the upstream prompt `name`.
    pub(super) fn prompt(link: &Arc<Link>, name: &str) -> Arc<dyn ErasedCompleter> {
        Arc::new(Self {
            link: link.clone(),
            reference: json!({"type": "ref/prompt", "name": name}),
        })
    }

    /// Completes the variables of the upstream template `uri_template`.
    pub(super) fn template(link: &Arc<Link>, uri_template: &str) -> Arc<dyn ErasedCompleter> {
        Arc::new(Self {
            link: link.clone(),
            reference: json!({"type": "ref/resource", "uri": uri_template}),
        })
    }
}

impl ErasedCompleter for Forward {
    fn complete(&self, request: CompletionRequest, cx: Context) -> BoxFuture<Completion> {
        let (link, reference) = (self.link.clone(), self.reference.clone());
        Box::pin(async move {
            let empty = Completion {
                values: Vec::new(),
                total: None,
                has_more: None,
            };
            let Ok(client) = link.client() else {
                return empty;
            };
            let mut params = json!({
                "ref": reference,
                "argument": {"name": request.argument, "value": request.value},
            });
            if !request.context.is_empty() {
                params["context"] = json!({"arguments": request.context});
            }
            let answer = client
                .request_with("completion/complete", params, &as_caller(&cx))
                .await
                .map_err(|e| e.to_string())
                .and_then(|v| {
                    serde_json::from_value::<CompleteResult>(v).map_err(|e| e.to_string())
                });
            match answer {
                Ok(result) => result.completion,
                Err(e) => {
                    tracing::debug!(target: "mcp_framework::proxy", upstream = %link.name, "completion: {e}");
                    empty
                }
            }
        })
    }
}
