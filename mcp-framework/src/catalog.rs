//! An immutable snapshot of what the server serves, sorted, indexed and with its own
//! cache of rendered list pages. A change builds a new catalog and swaps it in.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use crate::cache::{ListKind, PageCache};
use crate::error::Error;
use crate::extension::ToolScreen;
use crate::location::Location;
use crate::principal::{Requirement, ScopePolicy};
use crate::registry::entry::{PromptEntry, ResourceEntry, TemplateEntry, ToolEntry, ToolRules};
use crate::registry::set::{PromptSet, ResourceSet, ToolSet};

/// The concrete resource, or the template and the variables it matched (decoded, in
/// order), that a resource URI names.
#[derive(Debug, Clone)]
pub(crate) enum FoundResource {
    Fixed(Arc<ResourceEntry>),
    Template(Arc<TemplateEntry>, Vec<(String, String)>),
}

impl FoundResource {
    /// The scopes the resource (or its template) requires.
    pub(crate) fn requirement(&self) -> &Requirement {
        match self {
            Self::Fixed(e) => &e.requirement,
            Self::Template(e, _) => &e.requirement,
        }
    }
}

/// Everything served at one moment.
#[derive(Debug)]
pub(crate) struct Catalog {
    pub(crate) tools: Vec<Arc<ToolEntry>>,
    tool_index: HashMap<String, usize>,
    pub(crate) prompts: Vec<Arc<PromptEntry>>,
    prompt_index: HashMap<String, usize>,
    pub(crate) resources: Vec<Arc<ResourceEntry>>,
    resource_index: HashMap<String, usize>,
    pub(crate) templates: Vec<Arc<TemplateEntry>>,
    pub(crate) page_size: usize,
    pub(crate) pages: PageCache,
    /// Which of the server's tool screens hide each tool (bit `i`: screen `i`; see
    /// [`Setup::hide_tools`](crate::extension::Setup::hide_tools)), worked out on first
    /// use (the screens are fixed once the server is built).
    screened: OnceLock<Vec<u8>>,
    /// The tool lists of the requests some screens apply to, by the set of those screens
    /// (at most one per set), each with its own page cache.
    screened_lists: Mutex<Vec<(u8, Arc<Self>)>>,
}

fn check_unique<T>(
    kind: &'static str,
    items: &[Arc<T>],
    key: impl Fn(&T) -> &str,
    location: impl Fn(&T) -> Location,
) -> Result<HashMap<String, usize>, Error> {
    let mut index: HashMap<String, usize> = HashMap::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let k = key(item);
        if let Some(&j) = index.get(k) {
            return Err(Error::Duplicate {
                kind,
                name: k.to_owned(),
                first: location(&items[j]),
                second: location(item),
            });
        }
        index.insert(k.to_owned(), i);
    }
    Ok(index)
}

/// Leaves out each upstream item (`Location::UPSTREAM`) whose key another item has: a
/// resource served here, or by an upstream attached earlier, wins; the one left out is
/// logged. `items` is sorted by key, stably, so equal keys are adjacent in definition order.
fn yield_upstream<T>(
    kind: &'static str,
    items: &mut Vec<Arc<T>>,
    key: impl Fn(&T) -> &str,
    location: impl Fn(&T) -> Location,
) {
    let mut i = 0;
    while i < items.len() {
        let mut end = i + 1;
        while end < items.len() && key(&items[end]) == key(&items[i]) {
            end += 1;
        }
        if end - i > 1 {
            // The first item that is not an upstream's, else the first upstream's.
            let keep = (i..end)
                .find(|&j| location(&items[j]) != Location::UPSTREAM)
                .unwrap_or(i);
            let before = items.len();
            let mut j = i;
            items.retain(|item| {
                let index = j;
                j += 1;
                let drop = (i..end).contains(&index)
                    && index != keep
                    && location(item) == Location::UPSTREAM;
                if drop {
                    tracing::warn!(
                        target: "mcp_framework::proxy",
                        "an upstream's {kind} `{}` is left out: this server serves that URI already",
                        key(item)
                    );
                }
                !drop
            });
            end -= before - items.len();
        }
        i = end;
    }
}

fn pages(len: usize, page_size: usize) -> usize {
    len.div_ceil(page_size).max(1)
}

impl Catalog {
    pub(crate) fn new(
        mut tools: Vec<Arc<ToolEntry>>,
        mut prompts: Vec<Arc<PromptEntry>>,
        mut resources: Vec<Arc<ResourceEntry>>,
        mut templates: Vec<Arc<TemplateEntry>>,
        page_size: usize,
    ) -> Result<Self, Error> {
        // Deterministic order; stable sorts keep duplicates adjacent in definition order.
        tools.sort_by(|a, b| a.tool.name.cmp(&b.tool.name));
        prompts.sort_by(|a, b| a.prompt.name.cmp(&b.prompt.name));
        resources.sort_by(|a, b| a.resource.uri.cmp(&b.resource.uri));
        templates.sort_by(|a, b| a.template.uri_template.cmp(&b.template.uri_template));
        let tool_index = check_unique("tool", &tools, |t| &t.tool.name, |t| t.location)?;
        let prompt_index = check_unique("prompt", &prompts, |p| &p.prompt.name, |p| p.location)?;
        yield_upstream(
            "resource",
            &mut resources,
            |r| &r.resource.uri,
            |r| r.location,
        );
        yield_upstream(
            "resource template",
            &mut templates,
            |t| &t.template.uri_template,
            |t| t.location,
        );
        let resource_index =
            check_unique("resource", &resources, |r| &r.resource.uri, |r| r.location)?;
        check_unique(
            "resource template",
            &templates,
            |t| &t.template.uri_template,
            |t| t.location,
        )?;
        let page_size = page_size.max(1);
        let pages = PageCache::new([
            pages(tools.len(), page_size),
            pages(prompts.len(), page_size),
            pages(resources.len(), page_size),
            pages(templates.len(), page_size),
        ]);
        Ok(Self {
            tools,
            tool_index,
            prompts,
            prompt_index,
            resources,
            resource_index,
            templates,
            page_size,
            pages,
            screened: OnceLock::new(),
            screened_lists: Mutex::new(Vec::new()),
        })
    }

    /// Builds the entries of explicit or collected sets.
    pub(crate) fn from_sets(
        tools: ToolSet,
        prompts: PromptSet,
        resources: ResourceSet,
        page_size: usize,
        rules: ToolRules<'_>,
    ) -> Result<Self, Error> {
        let tools = tools.into_entries(rules)?;
        let prompts = prompts.into_entries()?;
        let (fixed, templates) = resources.into_entries()?;
        let catalog = Self::new(tools, prompts, fixed, templates, page_size)?;
        catalog.check_views()?;
        Ok(catalog)
    }

    /// Every view a tool names (MCP Apps `_meta.ui.resourceUri`) is a `ui://` resource of
    /// this catalog.
    fn check_views(&self) -> Result<(), Error> {
        for tool in &self.tools {
            let Some(uri) = &tool.view else { continue };
            if self.resource(uri).is_none() {
                return Err(Error::Definition {
                    kind: "tool",
                    name: tool.tool.name.clone(),
                    location: tool.location,
                    reason: format!(
                        "its view `{uri}` (`_meta.ui.resourceUri`) is not a resource of this \
                         server: define it with `#[resource(uri = \"{uri}\")]` or \
                         `ResourceDefinition::fixed(\"{uri}\", …)`"
                    ),
                });
            }
        }
        Ok(())
    }

    /// Whether anything here is MCP Apps: a view, or a tool with `_meta.ui`.
    pub(crate) fn serves_views(&self) -> bool {
        self.resources
            .iter()
            .any(|r| crate::apps::is_view_uri(&r.resource.uri))
            || self
                .tools
                .iter()
                .any(|t| t.view.is_some() || !t.model_visible)
    }

    /// Which of `screens` hide each tool, in order.
    fn screened(&self, screens: &[ToolScreen]) -> &[u8] {
        self.screened.get_or_init(|| {
            self.tools
                .iter()
                .map(|t| {
                    screens
                        .iter()
                        .enumerate()
                        .filter(|(_, s)| (s.hidden)(&t.tool))
                        .fold(0, |set, (i, _)| set | (1 << i))
                })
                .collect()
        })
    }

    /// Which of `screens` hide the tool `name` (none for a tool not here).
    pub(crate) fn screens_hiding(&self, screens: &[ToolScreen], name: &str) -> u8 {
        match self.tool_index.get(name) {
            Some(&i) => self.screened(screens)[i],
            None => 0,
        }
    }

    /// The tools a request the screens `applying` apply to lists, when they leave some
    /// out (`None`: all of this catalog's).
    pub(crate) fn screened_for(&self, screens: &[ToolScreen], applying: u8) -> Option<Arc<Self>> {
        if applying == 0 {
            return None;
        }
        let screened = self.screened(screens);
        if screened.iter().all(|set| set & applying == 0) {
            return None;
        }
        let mut lists = self.screened_lists.lock().expect("screened lists");
        if let Some((_, list)) = lists.iter().find(|(set, _)| *set == applying) {
            return Some(list.clone());
        }
        let keep: Vec<bool> = screened.iter().map(|set| set & applying == 0).collect();
        let list = Arc::new(self.subset(ListKind::Tools, &keep)?);
        lists.push((applying, list.clone()));
        Some(list)
    }

    pub(crate) fn tool(&self, name: &str) -> Option<&Arc<ToolEntry>> {
        self.tool_index.get(name).map(|&i| &self.tools[i])
    }

    pub(crate) fn prompt(&self, name: &str) -> Option<&Arc<PromptEntry>> {
        self.prompt_index.get(name).map(|&i| &self.prompts[i])
    }

    pub(crate) fn resource(&self, uri: &str) -> Option<&Arc<ResourceEntry>> {
        self.resource_index.get(uri).map(|&i| &self.resources[i])
    }

    pub(crate) fn template(&self, uri_template: &str) -> Option<&Arc<TemplateEntry>> {
        self.templates
            .iter()
            .find(|t| t.template.uri_template == uri_template)
    }

    pub(crate) fn len(&self, kind: ListKind) -> usize {
        match kind {
            ListKind::Tools => self.tools.len(),
            ListKind::Prompts => self.prompts.len(),
            ListKind::Resources => self.resources.len(),
            ListKind::Templates => self.templates.len(),
        }
    }

    /// The requirements of the entries of `kind`, in list order. Read on every list
    /// request, so it allocates nothing: the other kinds' lists are chained in empty.
    fn requirements(&self, kind: ListKind) -> impl Iterator<Item = &Requirement> {
        fn only<T>(items: &[Arc<T>], wanted: bool) -> &[Arc<T>] {
            if wanted { items } else { &[] }
        }
        let tools = only(&self.tools, kind == ListKind::Tools);
        let prompts = only(&self.prompts, kind == ListKind::Prompts);
        let resources = only(&self.resources, kind == ListKind::Resources);
        let templates = only(&self.templates, kind == ListKind::Templates);
        (tools.iter().map(|e| &e.requirement))
            .chain(prompts.iter().map(|e| &e.requirement))
            .chain(resources.iter().map(|e| &e.requirement))
            .chain(templates.iter().map(|e| &e.requirement))
    }

    /// Every scope an entry requires, sorted, once each.
    #[cfg(feature = "auth")]
    pub(crate) fn scopes(&self) -> Vec<String> {
        let all = [
            ListKind::Tools,
            ListKind::Prompts,
            ListKind::Resources,
            ListKind::Templates,
        ];
        let mut scopes: Vec<String> = all
            .into_iter()
            .flat_map(|kind| self.requirements(kind))
            .flat_map(|r| r.scopes.iter().map(|s| s.to_string()))
            .collect();
        scopes.sort();
        scopes.dedup();
        scopes
    }

    /// The items that require scopes, named for a person (`tool \`x\``, …).
    pub(crate) fn scoped_items(&self) -> Vec<String> {
        let named = |kind: &str, name: &str| format!("{kind} `{name}`");
        let tools = self
            .tools
            .iter()
            .map(|e| (&e.requirement, named("tool", &e.tool.name)));
        let prompts =
            (self.prompts.iter()).map(|e| (&e.requirement, named("prompt", &e.prompt.name)));
        let resources =
            (self.resources.iter()).map(|e| (&e.requirement, named("resource", &e.resource.uri)));
        let templates = (self.templates.iter())
            .map(|e| (&e.requirement, named("template", &e.template.uri_template)));
        tools
            .chain(prompts)
            .chain(resources)
            .chain(templates)
            .filter(|(r, _)| !r.is_open())
            .map(|(_, name)| name)
            .collect()
    }

    /// What `uri` names among the entries `visible` keeps: the concrete resource, else the
    /// first template that matches it. A resource hidden from the caller is not there (a
    /// template may still match), and neither is a hidden template.
    pub(crate) fn find_resource(
        &self,
        uri: &str,
        visible: impl Fn(&Requirement) -> bool,
    ) -> Option<FoundResource> {
        if let Some(entry) = self.resource(uri).filter(|e| visible(&e.requirement)) {
            return Some(FoundResource::Fixed(entry.clone()));
        }
        self.templates
            .iter()
            .filter(|t| visible(&t.requirement))
            .find_map(|t| {
                let vars = t.matcher.match_uri(uri)?;
                Some(FoundResource::Template(t.clone(), vars))
            })
    }

    /// Whether an entry of `kind` may be hidden from some callers (it requires scopes and
    /// its policy, or `default`, is to hide it): then every list of `kind` depends on who
    /// asks.
    pub(crate) fn may_hide(&self, kind: ListKind, default: ScopePolicy) -> bool {
        self.requirements(kind)
            .any(|r| !r.is_open() && r.policy.unwrap_or(default) == ScopePolicy::Hide)
    }

    /// A catalog of the entries of `kind` that `visible` keeps (and nothing of the other
    /// kinds), for one caller's list; `None` when it keeps them all.
    pub(crate) fn visible(
        &self,
        kind: ListKind,
        visible: impl Fn(&Requirement) -> bool,
    ) -> Option<Self> {
        let keep: Vec<bool> = self.requirements(kind).map(&visible).collect();
        self.subset(kind, &keep)
    }

    /// The entries of `kind` whose `keep` is true (and nothing of the other kinds); `None`
    /// when that is all of them.
    fn subset(&self, kind: ListKind, keep: &[bool]) -> Option<Self> {
        if keep.iter().all(|k| *k) {
            return None;
        }
        fn pick<T>(items: &[Arc<T>], keep: &[bool]) -> Vec<Arc<T>> {
            items
                .iter()
                .zip(keep)
                .filter(|(_, k)| **k)
                .map(|(e, _)| e.clone())
                .collect()
        }
        let (mut tools, mut prompts, mut resources, mut templates) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        match kind {
            ListKind::Tools => tools = pick(&self.tools, keep),
            ListKind::Prompts => prompts = pick(&self.prompts, keep),
            ListKind::Resources => resources = pick(&self.resources, keep),
            ListKind::Templates => templates = pick(&self.templates, keep),
        }
        // A subset of a checked catalog has no duplicates.
        Self::new(tools, prompts, resources, templates, self.page_size).ok()
    }

    pub(crate) fn page_count(&self, kind: ListKind) -> usize {
        pages(self.len(kind), self.page_size)
    }

    /// A copy with different parts, for run-time changes.
    pub(crate) fn with(
        &self,
        tools: Option<Vec<Arc<ToolEntry>>>,
        prompts: Option<Vec<Arc<PromptEntry>>>,
        resources: Option<Vec<Arc<ResourceEntry>>>,
        templates: Option<Vec<Arc<TemplateEntry>>>,
    ) -> Result<Self, Error> {
        let catalog = Self::new(
            tools.unwrap_or_else(|| self.tools.clone()),
            prompts.unwrap_or_else(|| self.prompts.clone()),
            resources.unwrap_or_else(|| self.resources.clone()),
            templates.unwrap_or_else(|| self.templates.clone()),
            self.page_size,
        )?;
        catalog.check_views()?;
        Ok(catalog)
    }
}
