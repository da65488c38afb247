//! [`ServerHandle`]: run-time changes to what a server serves (a new catalog swapped in,
//! then a change event on the bus) and the shutdown signal.

use std::fmt;
use std::sync::{Arc, Weak};

use super::state::ServerInner;
use crate::bus::ChangeEvent;
use crate::catalog::Catalog;
use crate::context::{Context, FromContext};
use crate::error::Error;
use crate::registry::set::{PromptSet, ResourceSet, ToolSet};
use crate::skills::Skill;
use crate::skills::index::SkillIndex;

/// Changes what a running server serves, from anywhere (handlers, background tasks,
/// other threads). Every change is visible to the next request, invalidates the cached
/// list pages and notifies listeners (`subscriptions/listen`, legacy sessions).
#[derive(Clone)]
pub struct ServerHandle {
    inner: Arc<ServerInner>,
}

impl fmt::Debug for ServerHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerHandle").finish_non_exhaustive()
    }
}

/// Names of served items (tools, prompts, and resource URIs or templates).
#[derive(Debug, Default, Clone)]
#[cfg_attr(not(feature = "proxy"), allow(dead_code))]
pub(crate) struct ItemNames {
    pub(crate) tools: Vec<String>,
    pub(crate) prompts: Vec<String>,
    pub(crate) resources: Vec<String>,
}

/// A handle that does not keep its server alive (what a task following another server's
/// catalog holds): [`upgrade`](Self::upgrade) it for each change.
#[derive(Clone)]
#[cfg_attr(not(feature = "proxy"), allow(dead_code))]
pub(crate) struct WeakServerHandle {
    inner: Weak<ServerInner>,
}

#[cfg_attr(not(feature = "proxy"), allow(dead_code))]
impl WeakServerHandle {
    /// The server's handle, while the server exists.
    pub(crate) fn upgrade(&self) -> Option<ServerHandle> {
        self.inner.upgrade().map(ServerHandle::from_inner)
    }
}

impl ServerHandle {
    pub(crate) fn from_inner(inner: Arc<ServerInner>) -> Self {
        Self { inner }
    }

    /// A handle that does not keep the server alive.
    #[cfg_attr(not(feature = "proxy"), allow(dead_code))]
    pub(crate) fn downgrade(&self) -> WeakServerHandle {
        WeakServerHandle {
            inner: Arc::downgrade(&self.inner),
        }
    }

    /// The handle of the server a request runs on.
    fn of(cx: &Context) -> Self {
        let host: Arc<dyn std::any::Any + Send + Sync> = cx.host().clone();
        let inner = host
            .downcast::<ServerInner>()
            .expect("a request's host is its server");
        Self { inner }
    }

    fn change(
        &self,
        event: ChangeEvent,
        f: impl FnOnce(&Catalog) -> Result<Option<Catalog>, Error>,
    ) -> Result<bool, Error> {
        let _guard = self.inner.change_lock.lock().expect("change lock");
        let current = self.inner.catalog.load();
        let Some(next) = f(&current)? else {
            return Ok(false);
        };
        self.inner.catalog.store(Arc::new(next));
        drop(_guard);
        self.inner.bus.publish(event);
        Ok(true)
    }

    /// Adds tools; fails (changing nothing) if a name is already served.
    pub fn add_tools(&self, tools: ToolSet) -> Result<(), Error> {
        let entries = tools.into_entries(self.inner.tool_rules())?;
        if entries.is_empty() {
            return Ok(());
        }
        self.change(ChangeEvent::ToolsChanged, |c| {
            let mut all = c.tools.clone();
            all.extend(entries);
            c.with(Some(all), None, None, None).map(Some)
        })
        .map(drop)
    }

    /// Removes a tool; `false` if there was none of that name.
    pub fn remove_tool(&self, name: &str) -> bool {
        self.change(ChangeEvent::ToolsChanged, |c| {
            if c.tool(name).is_none() {
                return Ok(None);
            }
            let rest = c
                .tools
                .iter()
                .filter(|t| t.tool.name != name)
                .cloned()
                .collect();
            c.with(Some(rest), None, None, None).map(Some)
        })
        .unwrap_or(false)
    }

    /// Replaces items in one change: the tools, prompts and resources (URIs or templates)
    /// named in `out` go, the sets come (what a proxy does when its upstream's lists
    /// change). Listeners hear once for each kind that changed.
    #[cfg_attr(not(feature = "proxy"), allow(dead_code))]
    pub(crate) fn replace_items(
        &self,
        out: &ItemNames,
        tools: ToolSet,
        prompts: PromptSet,
        resources: ResourceSet,
    ) -> Result<(), Error> {
        let tools = tools.into_entries(self.inner.tool_rules())?;
        let prompts = prompts.into_entries()?;
        let (fixed, templates) = resources.into_entries()?;
        let (tools_in, prompts_in) = (!tools.is_empty(), !prompts.is_empty());
        let resources_in = !fixed.is_empty() || !templates.is_empty();
        let _guard = self.inner.change_lock.lock().expect("change lock");
        let c = self.inner.catalog.load();
        let all_tools: Vec<_> = c
            .tools
            .iter()
            .filter(|t| !out.tools.iter().any(|n| *n == t.tool.name))
            .cloned()
            .chain(tools)
            .collect();
        let all_prompts: Vec<_> = c
            .prompts
            .iter()
            .filter(|p| !out.prompts.iter().any(|n| *n == p.prompt.name))
            .cloned()
            .chain(prompts)
            .collect();
        let all_resources: Vec<_> = c
            .resources
            .iter()
            .filter(|r| !out.resources.iter().any(|n| *n == r.resource.uri))
            .cloned()
            .chain(fixed)
            .collect();
        let all_templates: Vec<_> = c
            .templates
            .iter()
            .filter(|t| !out.resources.iter().any(|n| *n == t.template.uri_template))
            .cloned()
            .chain(templates)
            .collect();
        // A kind changes when something of it goes or comes.
        let changed = [
            (!out.tools.is_empty() || tools_in).then_some(ChangeEvent::ToolsChanged),
            (!out.prompts.is_empty() || prompts_in).then_some(ChangeEvent::PromptsChanged),
            (!out.resources.is_empty() || resources_in).then_some(ChangeEvent::ResourcesChanged),
        ];
        let next = c.with(
            Some(all_tools),
            Some(all_prompts),
            Some(all_resources),
            Some(all_templates),
        )?;
        self.inner.catalog.store(Arc::new(next));
        drop(_guard);
        for event in changed.into_iter().flatten() {
            self.inner.bus.publish(event);
        }
        Ok(())
    }

    /// Whether a tool of that name is served.
    pub fn has_tool(&self, name: &str) -> bool {
        self.inner.catalog.load().tool(name).is_some()
    }

    /// Adds prompts; fails if a name is already served.
    pub fn add_prompts(&self, prompts: PromptSet) -> Result<(), Error> {
        let entries = prompts.into_entries()?;
        if entries.is_empty() {
            return Ok(());
        }
        self.change(ChangeEvent::PromptsChanged, |c| {
            let mut all = c.prompts.clone();
            all.extend(entries);
            c.with(None, Some(all), None, None).map(Some)
        })
        .map(drop)
    }

    /// Removes a prompt; `false` if there was none of that name.
    pub fn remove_prompt(&self, name: &str) -> bool {
        self.change(ChangeEvent::PromptsChanged, |c| {
            if c.prompt(name).is_none() {
                return Ok(None);
            }
            let rest = c
                .prompts
                .iter()
                .filter(|p| p.prompt.name != name)
                .cloned()
                .collect();
            c.with(None, Some(rest), None, None).map(Some)
        })
        .unwrap_or(false)
    }

    /// Adds resources and templates; fails if a URI (or template) is already served.
    pub fn add_resources(&self, resources: ResourceSet) -> Result<(), Error> {
        let (fixed, templates) = resources.into_entries()?;
        if fixed.is_empty() && templates.is_empty() {
            return Ok(());
        }
        self.change(ChangeEvent::ResourcesChanged, |c| {
            let mut all = c.resources.clone();
            all.extend(fixed);
            let mut all_templates = c.templates.clone();
            all_templates.extend(templates);
            c.with(None, None, Some(all), Some(all_templates)).map(Some)
        })
        .map(drop)
    }

    /// Removes a resource (by URI) or a template (by URI template); `false` if none matched.
    pub fn remove_resource(&self, uri: &str) -> bool {
        self.change(ChangeEvent::ResourcesChanged, |c| {
            if c.resource(uri).is_none() && c.template(uri).is_none() {
                return Ok(None);
            }
            let rest = c
                .resources
                .iter()
                .filter(|r| r.resource.uri != uri)
                .cloned()
                .collect();
            let rest_t = c
                .templates
                .iter()
                .filter(|t| t.template.uri_template != uri)
                .cloned()
                .collect();
            c.with(None, None, Some(rest), Some(rest_t)).map(Some)
        })
        .unwrap_or(false)
    }

    /// Serves more skills (see [`ServerBuilder::skill`](crate::ServerBuilder::skill)):
    /// they are checked with those already served (every problem reported at once,
    /// nothing changed then), their files become resources, and listeners hear that the
    /// resource list changed. A server built without any skill does not declare the
    /// extension, so it cannot add them ([`Error::Config`]).
    pub fn add_skills(&self, skills: impl IntoIterator<Item = Skill>) -> Result<(), Error> {
        let added: Vec<Skill> = skills.into_iter().collect();
        if added.is_empty() {
            return Ok(());
        }
        self.replace_skills(|current| {
            let mut all = current.to_vec();
            all.extend(added);
            Some(all)
        })
        .map(drop)
    }

    /// Stops serving the skill whose `SKILL.md` is at `uri` (its files with it); `false`
    /// if no skill is there.
    pub fn remove_skill(&self, uri: &str) -> bool {
        let Some(path) = uri
            .strip_prefix("skill://")
            .and_then(|p| p.strip_suffix("/SKILL.md"))
        else {
            return false;
        };
        self.replace_skills(|current| {
            let rest: Vec<Skill> = current
                .iter()
                .filter(|s| s.path() != path)
                .cloned()
                .collect();
            (rest.len() < current.len()).then_some(rest)
        })
        .unwrap_or(false)
    }

    /// Rebuilds the skills from what `f` makes of the current ones (`None`: no change) and
    /// swaps their files in the catalog, under the change lock.
    fn replace_skills(
        &self,
        f: impl FnOnce(&[Skill]) -> Option<Vec<Skill>>,
    ) -> Result<bool, Error> {
        let Some(slot) = &self.inner.skills else {
            return Err(Error::Config(
                "this server was built without skills, so it does not declare the Skills \
                 extension: give it one at build time to add more later"
                    .into(),
            ));
        };
        self.change(ChangeEvent::ResourcesChanged, |c| {
            let current = slot.load();
            let Some(next) = f(current.sources()) else {
                return Ok(None);
            };
            let (index, files) =
                SkillIndex::build(next).map_err(|problems| Error::Skills { problems })?;
            let (fixed, _) = files.into_entries()?;
            let old = current.file_uris();
            let mut all: Vec<_> = c
                .resources
                .iter()
                .filter(|r| !old.contains(r.resource.uri.as_str()))
                .cloned()
                .collect();
            all.extend(fixed);
            let catalog = c.with(None, None, Some(all), None)?;
            slot.store(Arc::new(index));
            Ok(Some(catalog))
        })
    }

    /// Announces that a resource's contents changed: subscribers of that URI (or of a
    /// parent URI) get `notifications/resources/updated`.
    pub fn resource_updated(&self, uri: &str) {
        self.inner
            .bus
            .publish(ChangeEvent::ResourceUpdated(Arc::from(uri)));
    }

    /// Starts a graceful shutdown: the transports stop taking requests, listen streams end
    /// with their final result, and the requests still running after the grace period
    /// ([`ServerBuilder::shutdown_grace`](crate::ServerBuilder::shutdown_grace)) are cut.
    pub fn shutdown(&self) {
        self.inner.begin_shutdown();
    }

    /// Completes when a shutdown has started.
    pub async fn shutdown_started(&self) {
        self.inner.shutdown.cancelled().await;
    }
}

impl FromContext for ServerHandle {
    fn from_context(cx: &Context) -> Self {
        Self::of(cx)
    }
}

impl Context {
    /// A handle to change what the server serves.
    pub fn server(&self) -> ServerHandle {
        ServerHandle::of(self)
    }
}
