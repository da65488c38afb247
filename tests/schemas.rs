//! The schema zoo: the schemas of a large set of Rust types (as parameters and as outputs)
//! and of every example server, under each schema profile, with each rule of the profile
//! checked on what clients see, by rules written here independently of the transform.
//! Sample values of every type must still validate against every profile's schemas: a
//! profile may lose detail, never refuse what the tool produces or accepts.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::num::{NonZeroU8, NonZeroU64};

use mcp_framework::client::Client;
use mcp_framework::protocol::Tool;
use mcp_framework::{
    CallToolResult, Content, Error, SchemaProfile, SchemaRule, Server, ServerBuilder,
    ToolDefinition, ToolSet, tool, tools,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

// ---------------------------------------------------------------------------------------------
// The zoo.

/// Numbers of every width.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
struct Numbers {
    u8: u8,
    u16: u16,
    u32: u32,
    u64: u64,
    u128: u128,
    usize: usize,
    i8: i8,
    i16: i16,
    i32: i32,
    i64: i64,
    i128: i128,
    isize: isize,
    f32: f32,
    f64: f64,
    nonzero: NonZeroU8,
    big_nonzero: NonZeroU64,
}

fn numbers() -> Numbers {
    Numbers {
        u8: u8::MAX,
        u16: u16::MAX,
        u32: u32::MAX,
        u64: u64::MAX,
        u128: 1 << 60,
        usize: 7,
        i8: i8::MIN,
        i16: i16::MIN,
        i32: i32::MIN,
        i64: i64::MIN,
        i128: -(1 << 60),
        isize: -7,
        f32: 1.5,
        f64: -2.25,
        nonzero: NonZeroU8::MIN,
        big_nonzero: NonZeroU64::MAX,
    }
}

/// A unit-only enum (a string enum).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Color {
    /// Red.
    Red,
    DeepBlue,
}

/// Externally tagged, the serde default.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
enum Shape {
    Dot,
    Circle(f64),
    Rect { w: f64, h: f64 },
    Segment(Point, Point),
}

/// Internally tagged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "lowercase")]
enum Event {
    Click { x: i32, y: i32 },
    Key { code: u16, shift: bool },
    Quit,
}

/// Adjacently tagged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "t", content = "c")]
enum Message {
    Text(String),
    Bytes(Vec<u8>),
    Empty,
}

/// Untagged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
enum Loose {
    Number(f64),
    Words(Vec<String>),
    Named { name: String },
}

/// A point.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
struct Point {
    x: f64,
    y: f64,
}

/// Structs in structs, options, lists, arrays, sets, boxes, renamed fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Nested {
    /// Where it starts.
    origin: Point,
    maybe_point: Option<Point>,
    maybe_color: Option<Color>,
    maybe_text: Option<String>,
    path: Vec<Point>,
    corners: [Point; 2],
    tags: BTreeSet<String>,
    boxed: Box<Point>,
    shapes: Vec<Shape>,
    event: Event,
    message: Message,
    loose: Vec<Loose>,
    letter: char,
    flag: bool,
    nothing: (),
}

fn nested() -> Nested {
    Nested {
        origin: Point { x: 0.0, y: 1.0 },
        maybe_point: None,
        maybe_color: Some(Color::DeepBlue),
        maybe_text: None,
        path: vec![Point { x: 1.0, y: 2.0 }],
        corners: [Point { x: 0.0, y: 0.0 }, Point { x: 3.0, y: 4.0 }],
        tags: ["a".to_owned(), "b".to_owned()].into(),
        boxed: Box::new(Point { x: -1.0, y: -2.0 }),
        shapes: vec![
            Shape::Dot,
            Shape::Circle(1.0),
            Shape::Rect { w: 2.0, h: 3.0 },
            Shape::Segment(Point { x: 0.0, y: 0.0 }, Point { x: 1.0, y: 1.0 }),
        ],
        event: Event::Key {
            code: 13,
            shift: true,
        },
        message: Message::Bytes(vec![1, 2]),
        loose: vec![
            Loose::Number(1.0),
            Loose::Words(vec!["w".into()]),
            Loose::Named { name: "n".into() },
        ],
        letter: 'x',
        flag: true,
        nothing: (),
    }
}

/// What only `portable` can say: maps, tuples, defaults, flattened fields, any JSON.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
struct Loose2 {
    scores: HashMap<String, f64>,
    by_id: BTreeMap<u32, Point>,
    pair: (u8, String),
    #[serde(default)]
    retries: u32,
    #[serde(flatten)]
    extra: Extra,
    anything: Value,
}

/// Flattened into [`Loose2`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
struct Extra {
    note: String,
}

fn loose2() -> Loose2 {
    Loose2 {
        scores: [("a".to_owned(), 1.0)].into(),
        by_id: [(7, Point { x: 1.0, y: 1.0 })].into(),
        pair: (1, "one".into()),
        retries: 3,
        extra: Extra { note: "n".into() },
        anything: json!({"any": [1, "thing"]}),
    }
}

/// Types from the crates users reach for: `chrono`, `uuid`, `url`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
struct Ecosystem {
    at: chrono::DateTime<chrono::Utc>,
    day: chrono::NaiveDate,
    id: uuid::Uuid,
    link: url::Url,
}

fn ecosystem() -> Ecosystem {
    Ecosystem {
        at: "2026-07-28T12:00:00Z".parse().unwrap(),
        day: "2026-07-28".parse().unwrap(),
        id: "67e55044-10b1-426f-9247-bb680e5fe0c8".parse().unwrap(),
        link: "https://example.com/a?b=c".parse().unwrap(),
    }
}

/// A tree: recursive through a list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
struct Tree {
    value: i32,
    children: Vec<Self>,
}

/// A linked list: recursive through an option.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
struct Chain {
    value: u8,
    next: Option<Box<Self>>,
}

// ---------------------------------------------------------------------------------------------
// Tools: each zoo type as a parameter (echoed back) and as an output.

macro_rules! zoo_tools {
    ($($name:ident: $ty:ty = $sample:expr;)*) => {
        $(
            /// Takes the zoo type and returns it.
            #[tool(register = false)]
            fn $name(value: $ty, also: Option<$ty>) -> Result<$ty, String> {
                if also.is_some() { return Err("also is for the schema only".into()) }
                Ok(value)
            }
        )*

        /// Every zoo tool.
        fn zoo() -> ToolSet {
            tools![$($name),*]
        }

        /// `(tool, sample value)` for every zoo tool.
        fn samples() -> Vec<(&'static str, Value)> {
            vec![$((stringify!($name), serde_json::to_value($sample).unwrap())),*]
        }
    };
}

zoo_tools! {
    numbers_tool: Numbers = numbers();
    color_tool: Color = Color::Red;
    shape_tool: Shape = Shape::Rect { w: 1.0, h: 2.0 };
    event_tool: Event = Event::Quit;
    message_tool: Message = Message::Text("t".into());
    loose_tool: Loose = Loose::Named { name: "n".into() };
    nested_tool: Nested = nested();
    loose2_tool: Loose2 = loose2();
    ecosystem_tool: Ecosystem = ecosystem();
    list_tool: Vec<Point> = vec![Point { x: 1.0, y: 2.0 }];
    count_tool: u64 = 42_u64;
}

/// The zoo tools `openai_strict` accepts: all but `loose2_tool` (maps, a defaulted field).
fn strict_zoo() -> ToolSet {
    tools![
        numbers_tool,
        color_tool,
        shape_tool,
        event_tool,
        message_tool,
        loose_tool,
        nested_tool,
        ecosystem_tool,
        list_tool,
        count_tool,
    ]
}

/// A server of `tools` shaped with `profile`.
fn builder(profile: SchemaProfile, tools: ToolSet) -> ServerBuilder {
    Server::builder()
        .name("zoo")
        .schema_profile(profile)
        .tools(tools)
        .prompts(Default::default())
        .resources(Default::default())
}

async fn listed(server: &Server) -> Vec<Tool> {
    Client::connect(server)
        .await
        .unwrap()
        .list_tools()
        .await
        .unwrap()
}

// ---------------------------------------------------------------------------------------------
// The rules, as a client would check them.

/// Every schema object in `schema` (itself, and everything nested, keyword values included:
/// the zoo has no property named like a keyword), with its JSON pointer.
fn objects<'a>(schema: &'a Value, pointer: String, out: &mut Vec<(String, &'a Value)>) {
    match schema {
        Value::Object(obj) => {
            out.push((pointer.clone(), schema));
            for (k, v) in obj {
                if k != "enum" && k != "const" && k != "default" && k != "examples" {
                    objects(v, format!("{pointer}/{k}"), out);
                }
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                objects(v, format!("{pointer}/{i}"), out);
            }
        }
        _ => {}
    }
}

fn is_type(schema: &Value, kind: &str) -> bool {
    match &schema["type"] {
        Value::String(t) => t == kind,
        Value::Array(ts) => ts.iter().any(|t| t == kind),
        _ => false,
    }
}

const COMBINATORS: &[&str] = &["allOf", "anyOf", "oneOf", "not", "if", "then", "else"];

/// The `portable` rules; `Err` lists what breaks them.
fn check_portable(tool: &Tool) -> Result<(), Vec<String>> {
    let mut problems = Vec::new();
    if !tool
        .name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        || tool.name.len() > 64
    {
        problems.push(format!("name {:?}", tool.name));
    }
    let input = Value::Object(tool.input_schema.clone());
    let output = tool.output_schema.clone().map(Value::Object);
    for (role, schema) in [("input", Some(&input)), ("output", output.as_ref())] {
        let Some(schema) = schema else { continue };
        if !is_type(schema, "object") {
            problems.push(format!("{role}: root is not an object"));
        }
        for k in COMBINATORS {
            if schema.get(*k).is_some() {
                problems.push(format!("{role}: root `{k}`"));
            }
        }
        let mut all = Vec::new();
        objects(schema, String::new(), &mut all);
        for (pointer, s) in all {
            for k in ["$ref", "$defs", "definitions", "$schema", "prefixItems"] {
                if s.get(k).is_some() {
                    problems.push(format!("{role}{pointer}: `{k}`"));
                }
            }
            if let Some(f) = s.get("format")
                && f != "date-time"
            {
                problems.push(format!("{role}{pointer}: format {f}"));
            }
            if is_type(s, "array") && !s.get("items").is_some_and(Value::is_object) {
                problems.push(format!("{role}{pointer}: an array without `items`"));
            }
            if let Some(Value::Object(props)) = s.get("properties") {
                for (name, p) in props {
                    if !p.is_object() {
                        problems.push(format!("{role}{pointer}/properties/{name}: {p}"));
                    }
                }
            }
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    }
}

/// The `openai_strict` rules of the input schema, on top of `portable`.
fn check_strict(tool: &Tool) -> Result<(), Vec<String>> {
    let mut problems = check_portable(tool).err().unwrap_or_default();
    let input = Value::Object(tool.input_schema.clone());
    let mut all = Vec::new();
    objects(&input, String::new(), &mut all);
    for (pointer, s) in all {
        if !is_type(s, "object") {
            continue;
        }
        if s.get("additionalProperties") != Some(&Value::Bool(false)) {
            problems.push(format!("{pointer}: additionalProperties is not false"));
        }
        let props: Vec<&String> = s
            .get("properties")
            .and_then(Value::as_object)
            .map(|p| p.keys().collect())
            .unwrap_or_default();
        let required: Vec<&str> = s
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        for p in props {
            if !required.contains(&p.as_str()) {
                problems.push(format!("{pointer}: `{p}` is not required"));
            }
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    }
}

fn validate(schema: &Value, instance: &Value) -> Result<(), String> {
    let validator = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(schema)
        .map_err(|e| format!("the schema does not compile: {e}"))?;
    let problems: Vec<String> = validator
        .iter_errors(instance)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("; "))
    }
}

/// `value` without the `null` members its (portable, `$ref`-free) `schema` does not
/// require, at any depth.
fn drop_optional_nulls(value: &mut Value, schema: &Value) {
    let Value::Object(members) = value else {
        return;
    };
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    members.retain(|k, v| !v.is_null() || required.contains(&k.as_str()));
    for (k, v) in members.iter_mut() {
        drop_optional_nulls(v, &schema["properties"][k]);
    }
}

/// What a sample looks like as arguments and as `structuredContent` for a tool's schemas
/// (`also` is null where the strict profile requires it).
fn check_samples(tools: &[Tool], profile: SchemaProfile) {
    for (name, sample) in samples() {
        let Some(tool) = tools.iter().find(|t| t.name == name) else {
            continue;
        };
        let mut args = json!({"value": sample.clone()});
        if profile == SchemaProfile::OpenAiStrict {
            args["also"] = Value::Null;
        }
        // Portable optional properties are absent-or-`T`: a client leaves a `None` out (the
        // server still accepts `null`, checked against the schema as defined).
        if profile == SchemaProfile::Portable {
            drop_optional_nulls(&mut args, &Value::Object(tool.input_schema.clone()));
        }
        validate(&Value::Object(tool.input_schema.clone()), &args)
            .unwrap_or_else(|e| panic!("{profile}: {name}'s arguments: {e}"));
        let output = Value::Object(tool.output_schema.clone().expect("an output schema"));
        let content = if output["required"] == json!(["result"]) {
            json!({"result": sample})
        } else {
            sample
        };
        validate(&output, &content).unwrap_or_else(|e| panic!("{profile}: {name}'s output: {e}"));
    }
}

// ---------------------------------------------------------------------------------------------
// The tests.

#[tokio::test]
async fn standard_keeps_the_derived_schemas() {
    let server = builder(SchemaProfile::Standard, zoo()).build().unwrap();
    let tools = listed(&server).await;
    assert_eq!(tools.len(), samples().len());
    let numbers = tools.iter().find(|t| t.name == "numbers_tool").unwrap();
    assert_eq!(
        numbers.input_schema["$defs"]["Numbers"]["properties"]["u32"]["format"],
        "uint32"
    );
    let count = tools.iter().find(|t| t.name == "count_tool").unwrap();
    assert_eq!(count.output_schema.as_ref().unwrap()["type"], "integer");
    check_samples(&tools, SchemaProfile::Standard);
    // The rules here catch what the standard profile keeps.
    let problems = check_portable(numbers).unwrap_err();
    assert!(
        problems.iter().any(|p| p.contains("`$ref`")),
        "{problems:?}"
    );
    assert!(
        problems.iter().any(|p| p.contains("format \"uint32\"")),
        "{problems:?}"
    );
    let problems = check_portable(count).unwrap_err();
    assert!(
        problems.contains(&"output: root is not an object".to_owned()),
        "{problems:?}"
    );
}

#[tokio::test]
async fn portable_schemas_follow_every_rule() {
    let server = builder(SchemaProfile::Portable, zoo()).build().unwrap();
    let tools = listed(&server).await;
    assert_eq!(tools.len(), samples().len());
    for tool in &tools {
        if let Err(problems) = check_portable(tool) {
            panic!("{}:\n{}", tool.name, problems.join("\n"));
        }
    }
    check_samples(&tools, SchemaProfile::Portable);

    // Integer widths as ranges (without the bounds beyond JavaScript's safe integers, which
    // it cannot hold), floats as plain numbers, date-time kept, other formats gone.
    let numbers = &tools.iter().find(|t| t.name == "numbers_tool").unwrap();
    let props = &numbers.input_schema["properties"]["value"]["properties"];
    for (field, min, max) in [
        ("u8", json!(0), json!(255)),
        ("u16", json!(0), json!(65535)),
        ("u32", json!(0), json!(4_294_967_295_u64)),
        ("u64", json!(0), Value::Null),
        ("usize", json!(0), Value::Null),
        ("i8", json!(-128), json!(127)),
        ("i16", json!(-32768), json!(32767)),
        ("i32", json!(i32::MIN), json!(i32::MAX)),
        ("i64", Value::Null, Value::Null),
        ("isize", Value::Null, Value::Null),
        ("nonzero", json!(1), json!(255)),
        ("big_nonzero", json!(1), Value::Null),
    ] {
        assert_eq!(
            (&props[field]["minimum"], &props[field]["maximum"]),
            (&min, &max),
            "{field}: {}",
            props[field]
        );
    }
    assert_eq!(props["u128"], json!({"type": "integer", "minimum": 0}));
    assert_eq!(props["i128"], json!({"type": "integer"}));
    assert_eq!(props["f64"], json!({"type": "number"}));
    let eco = &tools.iter().find(|t| t.name == "ecosystem_tool").unwrap();
    let props = &eco.input_schema["properties"]["value"]["properties"];
    assert_eq!(
        props["at"],
        json!({"type": "string", "format": "date-time"})
    );
    assert_eq!(props["id"], json!({"type": "string"}));
    assert_eq!(props["link"], json!({"type": "string"}));

    // Tuples keep their length; their items admit every element type.
    let loose2 = &tools.iter().find(|t| t.name == "loose2_tool").unwrap();
    let pair = &loose2.input_schema["properties"]["value"]["properties"]["pair"];
    assert_eq!(pair["minItems"], 2);
    assert_eq!(
        pair["items"]["anyOf"].as_array().unwrap().len(),
        2,
        "{pair}"
    );

    // Outputs are objects: enums, lists and numbers are wrapped, and so is what is sent.
    for name in [
        "shape_tool",
        "loose_tool",
        "list_tool",
        "count_tool",
        "color_tool",
    ] {
        let t = tools.iter().find(|t| t.name == name).unwrap();
        assert_eq!(
            t.output_schema.as_ref().unwrap()["required"],
            json!(["result"]),
            "{name}"
        );
    }
    let nested = tools.iter().find(|t| t.name == "nested_tool").unwrap();
    assert!(nested.output_schema.as_ref().unwrap()["properties"]["origin"].is_object());
    let problems = check_strict(nested).unwrap_err();
    assert!(
        problems.iter().any(|p| p.contains("is not required")),
        "{problems:?}"
    );
    let client = Client::connect(&server).await.unwrap();
    let r = client
        .call_tool("count_tool", json!({"value": 7}))
        .await
        .unwrap();
    assert_eq!(r.structured_content, Some(json!({"result": 7})));
}

#[tokio::test]
async fn openai_strict_schemas_follow_every_rule() {
    let server = builder(SchemaProfile::OpenAiStrict, strict_zoo())
        .build()
        .unwrap();
    let tools = listed(&server).await;
    assert_eq!(tools.len(), samples().len() - 1);
    for tool in &tools {
        if let Err(problems) = check_strict(tool) {
            panic!("{}:\n{}", tool.name, problems.join("\n"));
        }
    }
    check_samples(&tools, SchemaProfile::OpenAiStrict);

    // Optional values are required and nullable: `type: [T, "null"]` where T is one type.
    let nested = tools.iter().find(|t| t.name == "nested_tool").unwrap();
    let props = &nested.input_schema["properties"]["value"]["properties"];
    assert_eq!(props["maybeText"]["type"], json!(["string", "null"]));
    assert_eq!(props["maybePoint"]["type"], json!(["object", "null"]));
    assert_eq!(props["maybePoint"]["additionalProperties"], false);
    assert_eq!(
        nested.input_schema["required"],
        json!(["value", "also"]),
        "{}",
        Value::Object(nested.input_schema.clone())
    );

    // A strict client sends `null` for what it has no value for: the tool gets `None`.
    let client = Client::connect(&server).await.unwrap();
    let r = client
        .call_tool("count_tool", json!({"value": 3, "also": null}))
        .await
        .unwrap();
    assert!(!r.is_error(), "{r:?}");

    // What strict mode cannot say fails `build()`, naming the rule and the place.
    let Err(Error::Schema { violations, .. }) =
        builder(SchemaProfile::OpenAiStrict, tools![loose2_tool]).build()
    else {
        panic!("loose2_tool builds under openai_strict");
    };
    let found: Vec<(SchemaRule, &str)> =
        violations.iter().map(|v| (v.rule(), v.pointer())).collect();
    assert_eq!(
        found,
        [
            (
                SchemaRule::OptionalField,
                "/inputSchema/properties/value/properties/retries"
            ),
            (
                SchemaRule::OpenObject,
                "/inputSchema/properties/value/properties/scores"
            ),
            (
                SchemaRule::OpenObject,
                "/inputSchema/properties/value/properties/by_id"
            ),
            (
                SchemaRule::OptionalField,
                "/inputSchema/properties/also/properties/retries"
            ),
            (
                SchemaRule::OpenObject,
                "/inputSchema/properties/also/properties/scores"
            ),
            (
                SchemaRule::OpenObject,
                "/inputSchema/properties/also/properties/by_id"
            ),
        ],
        "{violations:#?}"
    );
}

#[tokio::test]
async fn recursive_types_are_refused_with_the_rule_and_the_place() {
    /// Walks a tree.
    #[tool(register = false)]
    fn walk(tree: Tree) -> i32 {
        tree.value + tree.children.iter().map(|c| c.value).sum::<i32>()
    }
    /// Follows a chain.
    #[tool(register = false)]
    fn follow(chain: Chain) -> Chain {
        chain
    }
    /// A tree accepted knowingly: served with its `$ref`.
    #[tool(register = false, allow(recursive_type))]
    fn grow(tree: Tree) -> u8 {
        u8::try_from(tree.children.len()).unwrap_or(u8::MAX)
    }

    for profile in [SchemaProfile::Portable, SchemaProfile::OpenAiStrict] {
        let Err(e) = builder(profile, tools![walk]).build() else {
            panic!("{profile}: a recursive type builds");
        };
        let Error::Schema {
            name, violations, ..
        } = &e
        else {
            panic!("{e}");
        };
        assert_eq!(name, "walk");
        assert_eq!(violations[0].rule(), SchemaRule::RecursiveType);
        assert_eq!(
            violations[0].pointer(),
            "/inputSchema/properties/tree/properties/children/items"
        );
        let text = e.to_string();
        assert!(
            text.contains("`Tree` contains itself (Tree → Tree)") && text.contains("schemas.rs"),
            "{text}"
        );

        let Err(Error::Schema { violations, .. }) = builder(profile, tools![follow]).build() else {
            panic!("{profile}: a recursive output builds");
        };
        let pointers: Vec<&str> = violations.iter().map(|v| v.pointer()).collect();
        assert_eq!(
            pointers,
            [
                "/inputSchema/properties/chain/properties/next/anyOf/0",
                "/outputSchema/properties/next/anyOf/0"
            ],
            "{profile}"
        );
    }
    // Standard keeps `$ref`; an allowed recursion stays a `$ref` under Portable.
    builder(SchemaProfile::Standard, tools![walk, follow])
        .build()
        .unwrap();
    let server = builder(SchemaProfile::Portable, tools![grow])
        .build()
        .unwrap();
    let tools = listed(&server).await;
    let schema = &tools[0].input_schema;
    assert_eq!(
        schema["properties"]["tree"]["properties"]["children"]["items"]["$ref"],
        "#/$defs/Tree"
    );
    assert!(schema["$defs"]["Tree"].is_object());
}

#[tokio::test]
async fn builder_defined_tools_are_checked_at_build() {
    let tool = |name: &str, schema: Value| {
        ToolSet::new().with_fn(
            ToolDefinition::new(name.to_owned(), schema.as_object().cloned().unwrap()),
            |_, _| async { Ok(CallToolResult::success(vec![Content::text("ok")])) },
        )
    };
    let one_of = json!({"type": "object", "oneOf": [{"required": ["a"]}, {"required": ["b"]}]});
    let cases = [
        (
            "either",
            one_of.clone(),
            SchemaRule::RootCombinator,
            "/inputSchema",
        ),
        (
            "draft7",
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"}),
            SchemaRule::Dialect,
            "/inputSchema/$schema",
        ),
        (
            "anchored",
            json!({
                "type": "object",
                "properties": {"a": {"$ref": "#addr"}},
                "$defs": {"A": {"$anchor": "addr", "type": "string"}}
            }),
            SchemaRule::UnresolvableRef,
            "/inputSchema/properties/a",
        ),
        (
            "dotted.name",
            json!({"type": "object"}),
            SchemaRule::ToolName,
            "/name",
        ),
        (
            "a_name_that_fits_alone_but_not_with_the_server_name_before_it_xx",
            json!({"type": "object"}),
            SchemaRule::ToolName,
            "/name",
        ),
    ];
    for (name, schema, rule, pointer) in cases {
        let Err(Error::Schema { violations, .. }) =
            builder(SchemaProfile::Portable, tool(name, schema.clone())).build()
        else {
            panic!("{name} builds");
        };
        assert_eq!(
            (violations[0].rule(), violations[0].pointer()),
            (rule, pointer),
            "{name}"
        );
        // Accepted knowingly, or served with the standard profile.
        let allowed = ToolSet::new().with_fn(
            ToolDefinition::new(name.to_owned(), schema.as_object().cloned().unwrap()).allow(rule),
            |_, _| async { Ok(CallToolResult::success(vec![])) },
        );
        builder(SchemaProfile::Portable, allowed).build().unwrap();
        builder(SchemaProfile::Standard, tool(name, schema))
            .build()
            .unwrap();
    }

    // A root `$ref` without `type: "object"` (refused by some clients) is inlined.
    let server = builder(
        SchemaProfile::Portable,
        tool(
            "by_ref",
            json!({"$ref": "#/$defs/A", "$defs": {"A": {"type": "object", "properties": {"q": {"type": "string"}}}}}),
        ),
    )
    .build()
    .unwrap();
    assert_eq!(
        Value::Object(listed(&server).await[0].input_schema.clone()),
        json!({"type": "object", "properties": {"q": {"type": "string"}}})
    );

    // Tools added at run time are shaped and checked with the server's profile.
    let server = builder(SchemaProfile::Portable, ToolSet::new())
        .build()
        .unwrap();
    assert!(matches!(
        server.handle().add_tools(tool("either", one_of)),
        Err(Error::Schema { .. })
    ));
    server
        .handle()
        .add_tools(tool("plain", json!({"type": "object"})))
        .unwrap();
}

/// The tools an example binary lists over stdio (2026-07-28).
async fn example_tools(example: &str) -> Vec<Tool> {
    let mut child = tokio::process::Command::new(tests::example_binary(example))
        .arg("stdio")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("the example starts");
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    }}});
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(format!("{request}\n").as_bytes())
        .await
        .unwrap();
    stdin.flush().await.unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    loop {
        let line = tokio::time::timeout(std::time::Duration::from_secs(20), lines.next_line())
            .await
            .expect("an answer in time")
            .unwrap()
            .unwrap_or_else(|| panic!("{example} exited without listing its tools"));
        let message: Value = serde_json::from_str(&line).unwrap();
        if message["id"] == 1 {
            assert!(message["result"]["nextCursor"].is_null(), "one page");
            return serde_json::from_value(message["result"]["tools"].clone()).unwrap();
        }
    }
}

#[tokio::test]
async fn every_example_is_portable() {
    for example in ["everything", "quickstart", "notes"] {
        let tools = example_tools(example).await;
        assert!(tools.len() >= 2, "{example}");
        for tool in &tools {
            if tool.name == "json_schema_2020_12_tool" {
                // The conformance fixture opts into the standard profile: its 2020-12
                // keywords reach the client as written.
                let s = &tool.input_schema;
                assert!(s["$defs"]["address"]["$anchor"].is_string(), "{s:?}");
                assert_eq!(s["properties"]["address"]["$ref"], "#/$defs/address");
                for k in ["$schema", "allOf", "if", "then", "else"] {
                    assert!(s.contains_key(k), "{k} is gone: {s:?}");
                }
                continue;
            }
            if let Err(problems) = check_portable(tool) {
                panic!("{example}: {}:\n{}", tool.name, problems.join("\n"));
            }
        }
    }
    // quickstart's forecast: `celsius` is an f64, no longer `format: "double"`.
    let tools = example_tools("quickstart").await;
    let forecast = tools.iter().find(|t| t.name == "forecast").unwrap();
    assert_eq!(
        forecast.output_schema.as_ref().unwrap()["properties"]["celsius"],
        json!({"type": "number"})
    );
}
