//! Argument completion (`completion/complete`): completers attached to prompt arguments
//! and template variables.

use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;
use std::sync::Arc;

use crate::context::{Context, FromContext};
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

/// A function that completes an argument. Its first parameter is the
/// [`CompletionRequest`]; a second one, if any, is taken from the request like a
/// handler's injected parameters ([`FromContext`]): the [`Context`] itself (its
/// [`principal`](Context::principal), say), a [`State<T>`](crate::State) or a
/// [`ServerHandle`](crate::ServerHandle). It is sync or `async`, and returns `Vec<String>`,
/// `Vec<&str>` or [`Completion`]. The marker `M` only tells the shapes apart.
///
/// A completer runs only for callers who may use the prompt or template it belongs to
/// (the same scope check as `prompts/get` and `resources/read`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be used as a completer",
    note = "a completer is a `fn(CompletionRequest) -> Vec<String>` (or `Vec<&str>`, or `Completion`), sync or async, optionally with a second parameter such as `Context` or `State<T>`"
)]
pub trait Completer<M>: Send + Sync + 'static {
    /// Completes.
    fn complete(&self, request: CompletionRequest, cx: Context) -> BoxFuture<Completion>;
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
    fn complete(&self, request: CompletionRequest, _: Context) -> BoxFuture<Completion> {
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
    fn complete(&self, request: CompletionRequest, _: Context) -> BoxFuture<Completion> {
        let fut = self(request);
        Box::pin(async move { fut.await.into_completion() })
    }
}

impl<F, E, R> Completer<(SyncCompleter, E, R)> for F
where
    F: Fn(CompletionRequest, E) -> R + Send + Sync + 'static,
    E: FromContext,
    R: IntoCompletion,
{
    fn complete(&self, request: CompletionRequest, cx: Context) -> BoxFuture<Completion> {
        let c = self(request, E::from_context(&cx)).into_completion();
        Box::pin(std::future::ready(c))
    }
}

impl<F, E, Fut> Completer<(AsyncCompleter, E, Fut)> for F
where
    F: Fn(CompletionRequest, E) -> Fut + Send + Sync + 'static,
    E: FromContext,
    Fut: Future + Send + 'static,
    Fut::Output: IntoCompletion,
{
    fn complete(&self, request: CompletionRequest, cx: Context) -> BoxFuture<Completion> {
        let fut = self(request, E::from_context(&cx));
        Box::pin(async move { fut.await.into_completion() })
    }
}

/// A completer with its marker erased.
pub trait ErasedCompleter: Send + Sync {
    /// Completes, for the request `cx` serves.
    fn complete(&self, request: CompletionRequest, cx: Context) -> BoxFuture<Completion>;
}

struct Erased<C, M>(C, std::marker::PhantomData<fn() -> M>);

impl<C: Completer<M>, M: 'static> ErasedCompleter for Erased<C, M> {
    fn complete(&self, request: CompletionRequest, cx: Context) -> BoxFuture<Completion> {
        self.0.complete(request, cx)
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

    #[allow(clippy::needless_pass_by_value)]
    fn for_caller(req: CompletionRequest, cx: Context) -> Vec<String> {
        let who = cx.principal().map_or("anyone", |p| p.subject()).to_owned();
        req.matching([who])
    }

    async fn with_state(
        _: CompletionRequest,
        names: crate::State<Vec<&'static str>>,
    ) -> Vec<&'static str> {
        names.to_vec()
    }

    #[test]
    fn every_completer_shape_is_a_completer() {
        // What each returns is checked over the wire (tests/runtime.rs, tests/security.rs).
        let _ = [
            completer(langs),
            completer(slow),
            completer(for_caller),
            completer(with_state),
        ];
        let req = CompletionRequest {
            value: "py".into(),
            ..Default::default()
        };
        assert_eq!(langs(req), ["python", "pytorch", "Pyside"]);
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
