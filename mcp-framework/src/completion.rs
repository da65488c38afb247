//! Argument completion (`completion/complete`): completers attached to prompt arguments
//! and template variables.

use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;
use std::sync::Arc;

use crate::future::BoxFuture;
use crate::protocol::Completion;

/// The most values one completion result may carry.
pub(crate) const MAX_VALUES: usize = 100;

/// What the client is completing.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct CompletionRequest {
    /// The argument (or template variable) being completed.
    pub argument: String,
    /// What the user typed so far.
    pub value: String,
    /// Values of arguments already filled in.
    pub context: BTreeMap<String, String>,
}

impl CompletionRequest {
    /// The candidates starting with the typed value (ignoring ASCII case), in order.
    pub fn matching<I, S>(&self, candidates: I) -> Vec<String>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let prefix = self.value.to_ascii_lowercase();
        candidates
            .into_iter()
            .filter(|c| c.as_ref().to_ascii_lowercase().starts_with(&prefix))
            .map(|c| c.as_ref().to_owned())
            .collect()
    }
}

/// Values a completer can return.
pub trait IntoCompletion {
    /// Converts into a completion (the framework caps it at 100 values).
    fn into_completion(self) -> Completion;
}

impl IntoCompletion for Completion {
    fn into_completion(self) -> Completion {
        self
    }
}

impl IntoCompletion for Vec<String> {
    fn into_completion(self) -> Completion {
        Completion {
            values: self,
            total: None,
            has_more: None,
        }
    }
}

impl IntoCompletion for Vec<&str> {
    fn into_completion(self) -> Completion {
        self.into_iter()
            .map(str::to_owned)
            .collect::<Vec<_>>()
            .into_completion()
    }
}

/// Caps a completion at [`MAX_VALUES`], keeping `total`/`hasMore` truthful.
pub(crate) fn cap(mut c: Completion) -> Completion {
    if c.values.len() > MAX_VALUES {
        let len = c.values.len() as u64;
        c.values.truncate(MAX_VALUES);
        c.total = Some(c.total.unwrap_or(len).max(len));
        c.has_more = Some(true);
    }
    c
}

/// A function that completes an argument: `fn(CompletionRequest) -> R` or
/// `async fn(CompletionRequest) -> R`, where `R` is `Vec<String>`, `Vec<&str>` or
/// [`Completion`]. The marker `M` only tells the two shapes apart.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be used as a completer",
    note = "a completer is a `fn(CompletionRequest) -> Vec<String>` (or `Vec<&str>`, or `Completion`), sync or async"
)]
pub trait Completer<M>: Send + Sync + 'static {
    /// Completes.
    fn complete(&self, request: CompletionRequest) -> BoxFuture<Completion>;
}

#[doc(hidden)]
#[derive(Debug)]
pub enum SyncCompleter {}
#[doc(hidden)]
#[derive(Debug)]
pub enum AsyncCompleter {}

impl<F, R> Completer<(SyncCompleter, R)> for F
where
    F: Fn(CompletionRequest) -> R + Send + Sync + 'static,
    R: IntoCompletion,
{
    fn complete(&self, request: CompletionRequest) -> BoxFuture<Completion> {
        let c = self(request).into_completion();
        Box::pin(std::future::ready(c))
    }
}

impl<F, Fut> Completer<(AsyncCompleter, Fut)> for F
where
    F: Fn(CompletionRequest) -> Fut + Send + Sync + 'static,
    Fut: Future + Send + 'static,
    Fut::Output: IntoCompletion,
{
    fn complete(&self, request: CompletionRequest) -> BoxFuture<Completion> {
        let fut = self(request);
        Box::pin(async move { fut.await.into_completion() })
    }
}

/// A completer with its marker erased.
pub trait ErasedCompleter: Send + Sync {
    /// Completes.
    fn complete(&self, request: CompletionRequest) -> BoxFuture<Completion>;
}

struct Erased<C, M>(C, std::marker::PhantomData<fn() -> M>);

impl<C: Completer<M>, M: 'static> ErasedCompleter for Erased<C, M> {
    fn complete(&self, request: CompletionRequest) -> BoxFuture<Completion> {
        self.0.complete(request)
    }
}

impl fmt::Debug for dyn ErasedCompleter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Completer")
    }
}

/// Wraps a completer function for a definition's `complete(…)`.
pub fn completer<M: 'static, C: Completer<M>>(c: C) -> Arc<dyn ErasedCompleter> {
    Arc::new(Erased(c, std::marker::PhantomData))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[allow(clippy::needless_pass_by_value)]
    fn langs(req: CompletionRequest) -> Vec<String> {
        req.matching(["python", "pytorch", "rust", "Pyside"])
    }

    async fn slow(req: CompletionRequest) -> Vec<&'static str> {
        if req.value.is_empty() {
            vec!["a"]
        } else {
            vec![]
        }
    }

    #[tokio::test]
    async fn sync_and_async_completers() {
        let c = completer(langs);
        let req = CompletionRequest {
            argument: "language".into(),
            value: "py".into(),
            ..Default::default()
        };
        assert_eq!(
            c.complete(req).await.values,
            ["python", "pytorch", "Pyside"]
        );
        let c = completer(slow);
        assert_eq!(c.complete(CompletionRequest::default()).await.values, ["a"]);
    }

    #[test]
    fn caps_at_100() {
        let many: Vec<String> = (0..250).map(|i| i.to_string()).collect();
        let c = cap(many.into_completion());
        assert_eq!(c.values.len(), 100);
        assert_eq!(c.total, Some(250));
        assert_eq!(c.has_more, Some(true));
    }
}
