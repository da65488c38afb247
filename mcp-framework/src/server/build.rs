//! [`ServerBuilder::build`]: every definition validated and the server assembled — the
//! catalog, the access rules, the extensions' setups, the HTTP settings — into a
//! [`Server`] that does not change afterwards.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use arc_swap::ArcSwap;
use tokio_util::sync::CancellationToken;

use super::Server;
use super::builder::ServerBuilder;
use crate::admission::Admission;
use crate::apps::extension::AppsExtension;
use crate::bus::{EventBus, LocalBus};
use crate::catalog::Catalog;
use crate::error::Error;
use crate::middleware::Route;
use crate::mrtr::{Sealer, StateKey};
use crate::protocol::{
    JsonObject, ListChangedCapability, ResourcesCapability, ServerCapabilities, keys,
};
use crate::registry::entry::ToolRules;
use crate::registry::set::{PromptSet, ResourceSet, ToolSet, collected};
use crate::runtime::state::{ServerInner, StateMap};
use crate::skills::Skill;
use crate::skills::extension::SkillsExtension;
use crate::skills::index::SkillIndex;
use crate::tasks::extension::TasksExtension;
use crate::tasks::live::Tasks;
use crate::tasks::{MemoryTaskStore, TaskSupport};
#[cfg(feature = "http")]
use crate::transport::http::Http;

impl ServerBuilder {
    /// Validates every definition (schemas, names, templates, duplicates) and the HTTP
    /// settings (hosts, origins, proxies), and builds the server. Without explicit sets,
    /// every `#[tool]`, `#[prompt]` and `#[resource]` of the binary is served. What it
    /// builds does not change afterwards but for what [`ServerHandle`](crate::ServerHandle)
    /// changes (the served items).
    pub fn build(self) -> Result<Server, Error> {
        let needs_collection =
            self.tools.is_none() || self.prompts.is_none() || self.resources.is_none();
        let (c_tools, c_prompts, c_resources) = if needs_collection {
            collected()
        } else {
            Default::default()
        };
        let mut tools = self.tools.unwrap_or(c_tools);
        tools.items.extend(self.extra_tools.items);
        let mut prompts = self.prompts.unwrap_or(c_prompts);
        prompts.items.extend(self.extra_prompts.items);
        let mut resources = self.resources.unwrap_or(c_resources);
        resources.items.extend(self.extra_resources.items);
        check_states(&tools, &prompts, &resources, &self.app_state)?;
        let skills = load_skills(self.skills, &self.skill_dirs)?;
        if let Some((_, files)) = &skills {
            resources.items.extend(files.items.iter().cloned());
        }
        let rules = ToolRules {
            profile: self.config.schema_profile,
            server_name: &self.info.name,
        };
        let catalog = Catalog::from_sets(tools, prompts, resources, self.config.page_size, rules)?;
        if self.config.unauthenticated == crate::principal::Unauthenticated::NoScopes {
            let scoped = catalog.scoped_items();
            if !scoped.is_empty() {
                tracing::info!(
                    items = %scoped.join(", "),
                    "these items require scopes: callers without a principal (stdio, HTTP \
                     without authorization) hold none and are refused them; \
                     ServerBuilder::unauthenticated_callers_have_every_scope() lets them in"
                );
            }
        }
        let keeps_tasks = self.tasks.is_some()
            || self.task_store.is_some()
            || catalog
                .tools
                .iter()
                .any(|t| t.task.support != TaskSupport::Forbidden);
        let bus: Arc<dyn EventBus> = match self.bus {
            Some(bus) => Arc::from(bus),
            None => Arc::new(LocalBus::default()),
        };
        let tasks = if keeps_tasks {
            let config = self.tasks.unwrap_or_default();
            let store = match (self.make_task_store, self.task_store) {
                (Some(make), _) => make(&config)?,
                (None, Some(store)) => store,
                (None, None) => Box::new(
                    MemoryTaskStore::new(config.max_tasks).max_bytes(config.max_total_bytes),
                ),
            };
            Some(Arc::new(Tasks::new(store, config, bus.clone())))
        } else {
            None
        };
        // The built-in Tasks, Apps and Skills extensions go through the same registration
        // as anyone's.
        let skills = skills.map(|(index, _)| Arc::new(ArcSwap::from_pointee(index)));
        let mut builtin: Vec<Box<dyn crate::extension::Extension>> = Vec::new();
        if let Some(tasks) = &tasks {
            builtin.push(Box::new(TasksExtension {
                tasks: tasks.clone(),
            }));
        }
        if catalog.serves_views() {
            builtin.push(Box::new(AppsExtension));
        }
        if let Some(index) = &skills {
            builtin.push(Box::new(SkillsExtension {
                index: index.clone(),
                page_size: self.config.page_size,
                list_cache: self.config.cache.resources,
                read_cache: self.config.cache.read,
            }));
        }
        if let Some(taken) = self
            .extensions
            .iter()
            .find(|ext| builtin.iter().any(|own| own.id() == ext.id()))
        {
            return Err(Error::Config(format!(
                "extensions: `{}` is an extension this server provides itself",
                taken.id()
            )));
        }
        let mut all_extensions = self.extensions;
        all_extensions.extend(builtin);
        let registered = crate::extension::Extensions::build(
            &all_extensions,
            &crate::extension::Environment {
                profile: self.config.schema_profile,
                bus: bus.clone(),
                #[cfg(feature = "redis")]
                redis_url: self.redis_url.clone(),
            },
        )
        .map_err(|e| Error::Config(format!("extensions: {e}")))?;
        #[cfg(feature = "http")]
        let http = {
            #[cfg_attr(not(feature = "auth"), allow(unused_mut))]
            let mut config = self.http;
            #[cfg(feature = "auth")]
            default_scopes_supported(&mut config, &catalog);
            let card = self
                .card
                .map(|card| crate::card::Card::new(card, &self.info, &registered.card))
                .transpose()
                .map_err(|e| Error::Config(format!("the Server Card: {e}")))?;
            Arc::new(Http::new(config, card).map_err(|e| Error::Config(e.to_string()))?)
        };
        let mut extensions = JsonObject::new();
        for (id, settings) in &registered.declared {
            extensions.insert(id.clone(), serde_json::Value::Object(settings.clone()));
        }
        let extensions = (!extensions.is_empty()).then_some(extensions);
        // Change notifications need a stream to travel on: without listen there is none.
        let streams = self.config.listen.enabled.then_some(true);
        let capabilities = ServerCapabilities {
            tools: Some(ListChangedCapability {
                list_changed: streams,
            }),
            prompts: Some(ListChangedCapability {
                list_changed: streams,
            }),
            resources: Some(ResourcesCapability {
                subscribe: streams,
                list_changed: streams,
            }),
            completions: Some(JsonObject::new()),
            logging: Some(JsonObject::new()),
            experimental: None,
            extensions,
        };
        // A legacy client's `initialize` result leaves out the modern-only extensions.
        let legacy_capabilities = (!registered.modern_only.is_empty()).then(|| {
            let mut legacy = capabilities.clone();
            if let Some(declared) = legacy.extensions.as_mut() {
                declared.retain(|id, _| !registered.modern_only.contains(id));
            }
            if legacy.extensions.as_ref().is_some_and(JsonObject::is_empty) {
                legacy.extensions = None;
            }
            legacy
        });
        let mut server_info_meta = JsonObject::new();
        server_info_meta.insert(
            keys::SERVER_INFO.into(),
            serde_json::json!({"name": self.info.name, "version": self.info.version}),
        );
        for key in self.state_key.iter().chain(&self.previous_state_keys) {
            key.check().map_err(Error::Config)?;
        }
        let sealer = Sealer::new(
            self.state_key.unwrap_or_else(StateKey::random),
            self.previous_state_keys,
            self.state_ttl,
        );
        let inner = ServerInner {
            info: self.info,
            instructions: self.instructions,
            capabilities,
            legacy_capabilities,
            catalog: ArcSwap::from_pointee(catalog),
            change_lock: Mutex::new(()),
            bus,
            sealer,
            server_info_meta_json: serde_json::to_string(&server_info_meta)
                .expect("a JSON object serializes")
                .into_boxed_str(),
            server_info_meta,
            discover_bytes: OnceLock::new(),
            shutdown: CancellationToken::new(),
            cutoff: CancellationToken::new(),
            state: self.app_state,
            listen_slots: Arc::new(Admission::new(
                "listen streams",
                self.config.listen.max_streams,
                self.config.listen.max_streams_per_peer,
            )),
            middleware: self.layers.build(Route),
            tasks,
            skills,
            stdio_principal: match (self.stdio_principal, &registered.stdio_principal) {
                (Some(_), Some((ext, _))) => {
                    return Err(Error::Config(format!(
                        "extensions: `{ext}` gives stdio sessions an identity, and so does the application (ServerBuilder::stdio_principal)"
                    )));
                }
                (Some(p), None) => Some(p),
                (None, from_extension) => from_extension.as_ref().map(|(_, p)| p.clone()),
            },
            rpc: {
                let chain: Vec<_> = self
                    .rpc
                    .into_iter()
                    .chain(registered.rpc.iter().cloned())
                    .collect();
                (!chain.is_empty()).then(|| Arc::new(crate::middleware::rpc::RpcChain(chain)))
            },
            extensions: registered,
            config: self.config,
        };
        let server = Server::from_inner(
            inner,
            #[cfg(feature = "http")]
            http,
        );
        if !self.on_build.is_empty() {
            let handle = server.handle();
            for start in self.on_build {
                start(&handle);
            }
        }
        Ok(server)
    }
}

/// An authorization that does not say which scopes clients start with publishes every
/// scope the served items require (without it, clients ask for the authorization server's
/// own list, `openid` and all).
#[cfg(feature = "auth")]
fn default_scopes_supported(config: &mut crate::transport::http::HttpConfig, catalog: &Catalog) {
    if let Some(auth) = config.authorization.as_mut() {
        // Not shared yet: the builder has the only reference.
        if let Some(auth) = Arc::get_mut(auth) {
            auth.default_scopes_supported(catalog.scopes());
        }
    }
}

/// The skills given and those of the folders, checked and indexed (`None`: no skills).
fn load_skills(
    mut skills: Vec<Skill>,
    dirs: &[PathBuf],
) -> Result<Option<(SkillIndex, ResourceSet)>, Error> {
    let mut problems = Vec::new();
    for dir in dirs {
        let (found, trouble) = crate::skills::load_dir(dir);
        skills.extend(found);
        problems.extend(trouble);
    }
    if skills.is_empty() && problems.is_empty() {
        return Ok(None);
    }
    match SkillIndex::build(skills) {
        Ok(built) if problems.is_empty() => Ok(Some(built)),
        Ok(_) => Err(Error::Skills { problems }),
        Err(more) => {
            problems.extend(more);
            Err(Error::Skills { problems })
        }
    }
}

/// Every `State<T>` a handler takes (recorded by the macros) is registered.
fn check_states(
    tools: &ToolSet,
    prompts: &PromptSet,
    resources: &ResourceSet,
    state: &StateMap,
) -> Result<(), Error> {
    let needs = (tools.items.iter().map(|t| {
        (
            "tool",
            &t.definition.name,
            t.definition.location,
            &t.definition.states,
        )
    }))
    .chain(prompts.items.iter().map(|p| {
        (
            "prompt",
            &p.definition.name,
            p.definition.location,
            &p.definition.states,
        )
    }))
    .chain(resources.items.iter().map(|r| {
        (
            "resource",
            &r.definition.name,
            r.definition.location,
            &r.definition.states,
        )
    }));
    for (kind, name, location, states) in needs {
        if let Some(need) = states.iter().find(|n| !state.contains_key(&n.id)) {
            return Err(Error::MissingState {
                kind,
                name: name.to_string(),
                location,
                type_name: need.name,
            });
        }
    }
    Ok(())
}
