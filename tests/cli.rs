//! The command line as a person meets it, over the built example binaries (`quickstart`,
//! `everything`): help and version on stdout with status 0, usage errors on stderr with
//! status 2, the author's own flags, and errors that end a run as one readable line.

use std::io::{BufRead as _, BufReader, Write as _};
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

/// `bin args…`, without the deployment variables of the environment running the tests
/// (they would show in `--help` and change what is served), and without colour.
fn run(bin: &str, args: &[&str]) -> Output {
    command(bin, args).output().expect("the example runs")
}

fn command(bin: &str, args: &[&str]) -> Command {
    let mut command = Command::new(tests::example_binary(bin));
    command.args(args).env("NO_COLOR", "1").stdin(Stdio::null());
    for var in [
        "MCP_STATE_KEY_FILE",
        "MCP_METRICS_BIND",
        "MCP_REDIS_URL",
        "MCP_MAX_CONNECTIONS",
        "MCP_LOG_FORMAT",
        "MCP_SHUTDOWN_GRACE",
        "MCP_AUTH_ISSUER",
        "MCP_AUTH_AUDIENCE",
        "MCP_AUTH_REQUIRED_SCOPES",
        "EVERYTHING_INSTRUCTIONS",
        "RUST_LOG",
    ] {
        command.env_remove(var);
    }
    command
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("UTF-8 output")
}

/// `actual` against the snapshot `tests/cli/<name>`; `UPDATE_SNAPSHOTS=1` rewrites it.
fn snapshot(name: &str, actual: &str) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("cli")
        .join(name);
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, actual).unwrap();
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    assert_eq!(
        actual, expected,
        "{name} changed (UPDATE_SNAPSHOTS=1 rewrites it)"
    );
}

#[test]
fn help_is_printed_on_stdout_and_lists_what_the_binary_has() {
    for (args, name) in [
        (&["--help"][..], "quickstart-help.txt"),
        (&["-h"][..], "quickstart-h.txt"),
        (&["http", "--help"][..], "quickstart-http-help.txt"),
    ] {
        let out = run("quickstart", args);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert_eq!(text(&out.stderr), "", "{args:?}");
        snapshot(name, &text(&out.stdout));
    }
}

#[test]
fn version_is_the_servers() {
    for flag in ["-V", "--version"] {
        let out = run("quickstart", &[flag]);
        assert_eq!(out.status.code(), Some(0));
        assert_eq!(
            text(&out.stdout),
            format!("quickstart {}\n", env!("CARGO_PKG_VERSION"))
        );
        assert_eq!(text(&out.stderr), "");
    }
}

#[test]
fn a_usage_error_is_clap_style_on_stderr_with_status_2() {
    for (args, says) in [
        (
            &["http", "--nope"][..],
            "error: unexpected argument '--nope' found",
        ),
        (&["ftp"][..], "error: unrecognized subcommand 'ftp'"),
        (
            &["http", "--bind", "nope"][..],
            "error: invalid value 'nope' for '--bind <ADDR:PORT>'",
        ),
        (
            &["http", "--auth-issuer", "https://as.example.com"][..],
            "error: the following required arguments were not provided:\n  --auth-audience <URI>",
        ),
    ] {
        let out = run("quickstart", args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(text(&out.stdout), "", "{args:?}");
        let err = text(&out.stderr);
        assert!(err.starts_with(says), "{args:?}: {err}");
        assert!(
            err.ends_with("For more information, try '--help'.\n"),
            "{err}"
        );
    }
}

/// The last line of what `bin args…` wrote on stderr, and its status.
fn failure(bin: &str, args: &[&str]) -> (Option<i32>, String) {
    let out = run(bin, args);
    let err = text(&out.stderr);
    let last = err.lines().last().unwrap_or_default().to_owned();
    (out.status.code(), last)
}

#[test]
fn a_busy_port_is_named_in_one_line() {
    let busy = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = busy.local_addr().unwrap();
    let (code, last) = failure("quickstart", &["http", "--bind", &addr.to_string()]);
    assert_eq!(code, Some(1));
    assert_eq!(
        last,
        format!("Error: cannot bind {addr}: address already in use")
    );
}

#[test]
fn a_bad_setting_is_one_readable_line() {
    let (code, last) = failure("quickstart", &["http", "--allow-host", "user@evil.com"]);
    assert_eq!(code, Some(1));
    assert!(
        last.starts_with("Error: invalid configuration: ") && last.contains("user@evil.com"),
        "{last}"
    );
    let (code, last) = failure(
        "quickstart",
        &["--state-key-file", "/nonexistent/keys", "stdio"],
    );
    assert_eq!(code, Some(1));
    assert_eq!(
        last,
        "Error: cannot read the state key file /nonexistent/keys: no such file or directory"
    );
}

/// `everything` adds `--instructions` with `run_with` and its own `clap::Args`: listed by
/// the help, accepted before or after the command, and given to the builder.
#[test]
fn an_authors_flag_reaches_the_builder() {
    let help = text(&run("everything", &["--help"]).stdout);
    assert!(help.contains("--instructions <TEXT>"), "{help}");
    for args in [
        &["--instructions", "Be brief.", "stdio"][..],
        &["stdio", "--instructions", "Be brief."][..],
    ] {
        let mut child = command("everything", args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let init = json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{
            "protocolVersion":"2025-06-18","capabilities":{},
            "clientInfo":{"name":"t","version":"1"}}});
        let mut stdin = child.stdin.take().unwrap();
        writeln!(stdin, "{init}").unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        drop(stdin);
        let answer: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(answer["result"]["instructions"], "Be brief.", "{args:?}");
        assert!(child.wait().unwrap().success());
    }
}

/// Requests of a 2026-07-28 client for `quickstart`: a list, a call with an argument value
/// that must never be logged, and a call of an unknown tool.
fn three_requests() -> String {
    let meta = json!({"io.modelcontextprotocol/protocolVersion":"2026-07-28",
                      "io.modelcontextprotocol/clientCapabilities":{}});
    [
        json!({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":meta}}),
        json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"shout",
               "arguments":{"text":"a secret value"},"_meta":meta}}),
        json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"nope",
               "arguments":{},"_meta":meta}}),
    ]
    .iter()
    .map(|m| format!("{m}\n"))
    .collect()
}

/// What `quickstart args…` logs while it answers [`three_requests`], with `env` set.
fn logs(args: &[&str], env: &[(&str, &str)]) -> String {
    let mut child = command("quickstart", args)
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(three_requests().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    text(&out.stderr)
}

#[test]
fn a_line_per_request_at_info_by_default() {
    let err = logs(&["stdio"], &[]);
    let lines: Vec<&str> = err
        .lines()
        .filter(|l| l.contains(" INFO mcp_framework::request: "))
        .map(|l| l.split_once(" INFO mcp_framework::request: ").unwrap().1)
        .collect();
    assert_eq!(lines.len(), 3, "{err}");
    assert!(
        lines[0].starts_with("tools/list outcome=ok duration_ms="),
        "{err}"
    );
    assert!(
        lines[1].starts_with("tools/call shout outcome=ok duration_ms="),
        "{err}"
    );
    assert!(
        lines[2].starts_with("tools/call outcome=error code=-32602 duration_ms="),
        "{err}"
    );
    for line in &lines {
        // A few significant digits, not 0.050720999999999995.
        let ms = line.rsplit_once("duration_ms=").unwrap().1;
        assert!(ms.len() <= 6 && ms.parse::<f64>().is_ok(), "{line}");
    }
    assert!(!err.contains("a secret value"), "{err}");
    // Not a terminal: no colour.
    assert!(!err.contains('\x1b'), "{err}");
    // RUST_LOG overrides the default.
    let quiet = logs(&["stdio"], &[("RUST_LOG", "warn")]);
    assert!(!quiet.contains("mcp_framework::request"), "{quiet}");
}

#[test]
fn log_format_json_writes_an_object_per_line() {
    let err = logs(&["--log-format", "json"], &[]);
    let events: Vec<Value> = err
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let requests: Vec<&Value> = events
        .iter()
        .filter(|e| e["target"] == "mcp_framework::request")
        .collect();
    assert_eq!(requests.len(), 3, "{err}");
    let call = &requests[1]["fields"];
    assert_eq!(call["message"], "tools/call shout");
    assert_eq!(call["outcome"], "ok");
    assert!(call["duration_ms"].is_f64(), "{call}");
    assert_eq!(requests[2]["fields"]["code"], -32602);
    let bad = run("quickstart", &["--log-format", "xml"]);
    assert_eq!(bad.status.code(), Some(2));
}

/// In a terminal (`script` gives the server a pseudo-terminal), log lines are coloured,
/// unless `NO_COLOR` is set.
#[test]
fn colour_only_on_a_terminal_and_not_under_no_color() {
    let in_terminal = |no_color: Option<&str>| {
        let bin = tests::example_binary("quickstart");
        let mut command = Command::new("script");
        command
            .args([
                "-qec",
                &format!("{} -V && {} </dev/null", bin.display(), bin.display()),
            ])
            .arg("/dev/null")
            .env_remove("NO_COLOR")
            .env_remove("RUST_LOG")
            .stdin(Stdio::null());
        if let Some(v) = no_color {
            command.env("NO_COLOR", v);
        }
        let out = command.output().expect("script runs");
        text(&out.stdout)
    };
    let coloured = in_terminal(None);
    assert!(coloured.contains("serving stdio"), "{coloured}");
    assert!(coloured.contains("\x1b["), "{coloured}");
    let plain = in_terminal(Some("1"));
    assert!(plain.contains("serving stdio"), "{plain}");
    assert!(!plain.contains("\x1b["), "{plain}");
}

#[test]
fn inspect_shows_what_is_served() {
    let out = run("quickstart", &["inspect"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stderr), "");
    snapshot("quickstart-inspect.txt", &text(&out.stdout));
    // Scopes, task support and views come from the catalog, not from the lists.
    let out = run("everything", &["inspect"]);
    let table = text(&out.stdout);
    for says in [
        "whoami()",
        "scopes: profile:read",
        "task: required",
        "view: ui://everything/forecast",
        "notes://{title}",
    ] {
        assert!(table.contains(says), "{says}: {table}");
    }
}

#[test]
fn inspect_json_has_the_listed_items_and_what_lists_do_not_say() {
    let out = run("everything", &["inspect", "--json"]);
    assert_eq!(out.status.code(), Some(0));
    let all: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(all["serverInfo"]["name"], "everything");
    let tool = |name: &str| {
        all["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .unwrap_or_else(|| panic!("{name}"))
            .clone()
    };
    assert_eq!(tool("add")["inputSchema"]["type"], "object");
    assert_eq!(
        tool("whoami")["framework"]["scopes"],
        json!(["profile:read"])
    );
    assert_eq!(tool("failing_job")["framework"]["taskSupport"], "required");
    assert!(tool("add").get("framework").is_none());
    for kind in ["prompts", "resources", "resourceTemplates"] {
        assert!(!all[kind].as_array().unwrap().is_empty(), "{kind}");
    }
}

#[test]
fn call_prints_the_result() {
    // Structured content as JSON; a string argument stays a string ("123").
    let out = run("quickstart", &["call", "forecast", "city=Paris"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let forecast: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(forecast["city"], "Paris");
    let out = run("quickstart", &["call", "shout", "text=123"]);
    assert_eq!(text(&out.stdout), "123\n");
    let out = run(
        "quickstart",
        &["call", "shout", "--json", r#"{"text":"hi"}"#],
    );
    assert_eq!(text(&out.stdout), "HI\n");
    // JSON values where the schema does not say string.
    let out = run("everything", &["call", "add", "a=2", "b=3"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains('5'), "{}", text(&out.stdout));
    let out = run("quickstart", &["get-prompt", "haiku", "topic=rust"]);
    assert_eq!(text(&out.stdout), "[user]\nWrite a haiku about rust.\n");
    let out = run("quickstart", &["read", "greeting://bob"]);
    assert_eq!(text(&out.stdout), "Hello, bob!\n");
}

#[test]
fn a_failed_call_is_one_line_and_status_1() {
    let (code, last) = failure("quickstart", &["call", "forecast", "city= "]);
    assert_eq!(code, Some(1));
    assert_eq!(
        last,
        "Error: tool `forecast` failed: city must not be empty"
    );
    let (code, last) = failure("quickstart", &["call", "nope"]);
    assert_eq!(code, Some(1));
    assert_eq!(last, "Error: tools/call nope: Unknown tool: nope (-32602)");
    // A question for the user cannot be answered without a terminal: said, not hung.
    let (code, last) = failure("everything", &["call", "test_elicitation", "message=hi"]);
    assert_eq!(code, Some(1));
    assert!(
        last.ends_with("(`call` answers elicitation only when stdin is a terminal)"),
        "{last}"
    );
    let out = run("quickstart", &["call", "shout", "text"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn call_reports_progress_on_stderr() {
    let out = run("everything", &["call", "count_slowly", "n=3", "delay_ms=1"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stdout), "counted 3\n");
    assert_eq!(
        text(&out.stderr),
        "progress 1/3\nprogress 2/3\nprogress 3/3\n"
    );
}

/// `install` and `uninstall` with `HOME` and the project folder in a temporary folder: the
/// entries are merged into what is there (kept, and backed up first), parsed back here.
#[test]
fn install_merges_an_entry_and_uninstall_removes_it() {
    let root = tests::temp_dir("install");
    let (home, project) = (root.join("home"), root.join("project"));
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&project).unwrap();
    let existing = json!({"theme": "dark", "mcpServers": {"other": {"command": "x"}}});
    std::fs::write(home.join(".claude.json"), existing.to_string()).unwrap();
    let quickstart = std::fs::canonicalize(tests::example_binary("quickstart")).unwrap();
    let quickstart = quickstart.to_str().unwrap();
    let install = |args: &[&str]| {
        let out = command("quickstart", args)
            .env("HOME", &home)
            .env_remove("XDG_CONFIG_HOME")
            .current_dir(&project)
            .output()
            .unwrap();
        (out.status.code(), text(&out.stdout), text(&out.stderr))
    };
    let parsed = |path: std::path::PathBuf| -> Value {
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
    };

    let (code, said, _) = install(&["install", "claude-code", "--env", "MCP_LOG_FORMAT=json"]);
    assert_eq!(code, Some(0));
    assert!(said.starts_with("added quickstart in "), "{said}");
    let config = parsed(home.join(".claude.json"));
    assert_eq!(config["theme"], "dark");
    assert_eq!(config["mcpServers"]["other"], json!({"command": "x"}));
    assert_eq!(
        config["mcpServers"]["quickstart"],
        json!({"type": "stdio", "command": quickstart, "args": ["stdio"],
               "env": {"MCP_LOG_FORMAT": "json"}})
    );
    assert_eq!(parsed(home.join(".claude.json.bak")), existing);

    assert_eq!(install(&["install", "claude-desktop"]).0, Some(0));
    let desktop = if cfg!(target_os = "macos") {
        home.join("Library/Application Support/Claude/claude_desktop_config.json")
    } else {
        home.join(".config/Claude/claude_desktop_config.json")
    };
    assert_eq!(
        parsed(desktop)["mcpServers"]["quickstart"],
        json!({"command": quickstart, "args": ["stdio"]})
    );
    let url = "http://127.0.0.1:8080/mcp";
    assert_eq!(install(&["install", "vscode", "--url", url]).0, Some(0));
    assert_eq!(
        parsed(project.join(".vscode/mcp.json"))["servers"]["quickstart"],
        json!({"type": "http", "url": url})
    );
    assert_eq!(
        install(&["install", "cursor", "--project", "--name", "qs"]).0,
        Some(0)
    );
    assert_eq!(
        parsed(project.join(".cursor/mcp.json"))["mcpServers"]["qs"]["command"],
        quickstart
    );

    // --dry-run changes nothing.
    let (code, said, _) = install(&["install", "cursor", "--dry-run"]);
    assert_eq!(code, Some(0));
    assert!(said.contains("would write"), "{said}");
    assert!(!home.join(".cursor").exists());

    // A file that is not plain JSON is left alone.
    std::fs::write(project.join(".vscode/mcp.json"), "{ // mine\n}").unwrap();
    let (code, _, err) = install(&["install", "vscode"]);
    assert_eq!(code, Some(1));
    assert!(err.contains("not plain JSON"), "{err}");
    assert_eq!(
        std::fs::read_to_string(project.join(".vscode/mcp.json")).unwrap(),
        "{ // mine\n}"
    );

    let (code, said, _) = install(&["uninstall", "claude-code"]);
    assert_eq!(code, Some(0), "{said}");
    let config = parsed(home.join(".claude.json"));
    assert!(config["mcpServers"].get("quickstart").is_none());
    assert_eq!(config["mcpServers"]["other"], json!({"command": "x"}));
    std::fs::remove_dir_all(&root).unwrap();
}

/// With a terminal on stdin (`script` gives one), `call` declares form elicitation and asks
/// each field there; the answers reach the tool (MRTR rounds, in-process).
#[test]
fn call_asks_an_elicitation_on_the_terminal() {
    let bin = tests::example_binary("everything");
    let mut child = Command::new("script")
        .args([
            "-qec",
            &format!("{} call test_elicitation message=Who?", bin.display()),
            "/dev/null",
        ])
        .env("NO_COLOR", "1")
        .env_remove("RUST_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("script runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"alice\nalice@example.com\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let seen = text(&out.stdout);
    assert!(seen.contains("Who?"), "{seen}");
    assert!(seen.contains("username"), "{seen}");
    assert!(
        seen.contains(r#"action=accept, content={"username":"alice","email":"alice@example.com"}"#),
        "{seen}"
    );
}
