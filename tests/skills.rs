//! Agent Skills (the Skills extension, SEP-2640) over the real transports: `skills/list`
//! and `skills/get` entries whose manifests match the bytes `resources/read` returns,
//! `resources/directory/read`, legacy sessions seeing the files as plain resources, and
//! `build()` reporting every broken rule of a folder of skills at once.

use std::path::{Path, PathBuf};

use base64::Engine as _;
use mcp_framework::client::Client;
use mcp_framework::protocol::ProtocolVersion;
use mcp_framework::skills::Skill;
use mcp_framework::{Error, Server};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tests::wire::{json_of, post, request};

/// A folder of skills under the system's temporary directory, removed when dropped.
struct Folder(PathBuf);

impl Folder {
    fn new(tag: &str, files: &[(&str, &[u8])]) -> Self {
        let dir = std::env::temp_dir().join(format!(
            "mcp-skills-{tag}-{}-{}",
            std::process::id(),
            fastrand::u64(..)
        ));
        for (path, bytes) in files {
            let path = dir.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, bytes).unwrap();
        }
        Self(dir)
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

const PDF: &str = "---\nname: pdf\ndescription: Fill PDF forms\nlicense: MIT\nmetadata:\n  version: \"2\"\n---\n# PDF\nSee `templates/`.\n";
const PNG: &[u8] = &[0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0x00];

fn folder() -> Folder {
    Folder::new(
        "good",
        &[
            ("pdf/SKILL.md", PDF.as_bytes()),
            ("pdf/templates/invoice.md", b"# Invoice"),
            ("pdf/templates/regional/eu.md", b"# EU invoice"),
            ("pdf/img/logo.png", PNG),
            ("pdf/.DS_Store", b"hidden, left out"),
            (
                "acme/refunds/SKILL.md",
                b"---\nname: refunds\ndescription: Refunds per policy\n---\nbody\n",
            ),
            (
                "pdf/nested/SKILL.md",
                b"---\nname: nested\ndescription: A skill inside pdf\n---\n",
            ),
        ],
    )
}

fn server(dir: &Path) -> Server {
    Server::builder()
        .name("skills-test")
        .skills_dir(dir)
        .skill(Skill::new(
            "built/in-code",
            "---\nname: in-code\ndescription: Built in code\n---\n",
        ))
        .build()
        .unwrap()
}

fn sha256(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    format!(
        "sha256:{}",
        digest
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    )
}

/// The bytes `resources/read` returns for `uri` (text or base64 blob).
async fn read(client: &Client, uri: &str) -> Vec<u8> {
    let r = client
        .request("resources/read", json!({"uri": uri}))
        .await
        .unwrap();
    let c = &r["contents"][0];
    match c.get("text").and_then(Value::as_str) {
        Some(text) => text.as_bytes().to_vec(),
        None => base64::engine::general_purpose::STANDARD
            .decode(c["blob"].as_str().unwrap())
            .unwrap(),
    }
}

#[tokio::test]
async fn entries_list_every_file_with_digests_that_match_what_is_read() {
    let dir = folder();
    let server = server(dir.path());
    let client = Client::connect(&server).await.unwrap();
    let discover = client.request("server/discover", json!({})).await.unwrap();
    assert_eq!(
        discover["capabilities"]["extensions"]["io.modelcontextprotocol/skills"],
        json!({"directoryRead": true})
    );
    assert!(discover["capabilities"]["resources"].is_object());

    let list = client.request("skills/list", json!({})).await.unwrap();
    assert_eq!(list["resultType"], "complete");
    assert!(
        list["ttlMs"].is_u64() && list["cacheScope"].is_string(),
        "{list}"
    );
    let uris: Vec<&str> = list["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["uri"].as_str().unwrap())
        .collect();
    assert_eq!(
        uris,
        [
            "skill://acme/refunds/SKILL.md",
            "skill://built/in-code/SKILL.md",
            "skill://pdf/SKILL.md",
            "skill://pdf/nested/SKILL.md"
        ]
    );
    let pdf = &list["skills"][2];
    // The frontmatter verbatim, every field the author wrote.
    assert_eq!(
        pdf["frontmatter"],
        json!({"name": "pdf", "description": "Fill PDF forms", "license": "MIT", "metadata": {"version": "2"}})
    );
    // The manifest is complete (nested skills' files included, hidden files not), and each
    // digest and size is that of the bytes resources/read returns.
    let manifest = pdf["resources"].as_array().unwrap();
    let files: Vec<&str> = manifest
        .iter()
        .map(|r| r["uri"].as_str().unwrap())
        .collect();
    assert_eq!(
        files,
        [
            "skill://pdf/SKILL.md",
            "skill://pdf/img/logo.png",
            "skill://pdf/nested/SKILL.md",
            "skill://pdf/templates/invoice.md",
            "skill://pdf/templates/regional/eu.md"
        ]
    );
    for entry in manifest {
        let bytes = read(&client, entry["uri"].as_str().unwrap()).await;
        assert_eq!(entry["digest"], sha256(&bytes), "{entry}");
        assert_eq!(entry["size"], bytes.len(), "{entry}");
    }
    assert_eq!(read(&client, "skill://pdf/img/logo.png").await, PNG);

    // skills/get: the same entry, cacheable, no cursor; unknown URIs are -32602.
    let got = client
        .request("skills/get", json!({"uri": "skill://pdf/SKILL.md"}))
        .await
        .unwrap();
    assert_eq!(got["skill"], *pdf);
    assert!(got.get("nextCursor").is_none() && got["ttlMs"].is_u64());
    for unknown in [
        "skill://pdf/templates/invoice.md",
        "skill://nothing/SKILL.md",
    ] {
        let e = client
            .request("skills/get", json!({"uri": unknown}))
            .await
            .unwrap_err();
        assert_eq!(e.rpc().unwrap().code, -32602, "{unknown}");
    }

    // The SKILL.md resource carries the skill's name and description.
    let resources = client.list_resources().await.unwrap();
    let md = resources
        .iter()
        .find(|r| r.uri == "skill://pdf/SKILL.md")
        .unwrap();
    assert_eq!(
        (
            md.name.as_str(),
            md.description.as_deref(),
            md.mime_type.as_deref()
        ),
        ("pdf", Some("Fill PDF forms"), Some("text/markdown"))
    );
}

#[tokio::test]
async fn directories_list_their_direct_children() {
    let dir = folder();
    let server = server(dir.path());
    let client = Client::connect(&server).await.unwrap();
    let read_dir = |uri: &'static str| {
        let client = client.clone();
        async move {
            client
                .request("resources/directory/read", json!({"uri": uri}))
                .await
        }
    };
    let root = read_dir("skill://pdf").await.unwrap();
    assert_eq!(root["resultType"], "complete");
    let children: Vec<(String, String)> = root["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["uri"].as_str().unwrap().to_owned(),
                r["mimeType"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let expect = [
        ("skill://pdf/SKILL.md", "text/markdown"),
        ("skill://pdf/img", "inode/directory"),
        ("skill://pdf/nested", "inode/directory"),
        ("skill://pdf/templates", "inode/directory"),
    ];
    assert_eq!(
        children,
        expect.map(|(u, m)| (u.to_owned(), m.to_owned())).to_vec()
    );
    let templates = read_dir("skill://pdf/templates").await.unwrap();
    assert_eq!(templates["resources"].as_array().unwrap().len(), 2);
    assert_eq!(templates["resources"][1]["name"], "regional");
    // A prefix is a directory too; a file, a trailing slash or an unknown path is not.
    assert_eq!(
        read_dir("skill://acme").await.unwrap()["resources"][0]["uri"],
        "skill://acme/refunds"
    );
    for not_a_dir in ["skill://pdf/SKILL.md", "skill://pdf/", "skill://nowhere"] {
        let e = read_dir(not_a_dir).await.unwrap_err();
        assert_eq!(e.rpc().unwrap().code, -32602, "{not_a_dir}");
    }
}

#[tokio::test]
async fn skills_over_http_and_in_legacy_sessions() {
    let dir = folder();
    let r = tests::wire::start(server(dir.path())).await;
    let (status, list) = json_of(
        post(&r, &request(1, "skills/list", json!({})))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(list["result"]["skills"].as_array().unwrap().len(), 4);
    let (_, read) = json_of(
        post(
            &r,
            &request(
                2,
                "resources/read",
                json!({"uri": "skill://acme/refunds/SKILL.md"}),
            ),
        )
        .send()
        .await
        .unwrap(),
    )
    .await;
    assert!(
        read["result"]["contents"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("---\nname: refunds")
    );

    // A legacy client sees the files as resources, and no skills methods.
    let legacy = Client::builder()
        .legacy(ProtocolVersion::V2025_11_25)
        .connect(&r.server)
        .await
        .unwrap();
    let resources = legacy.list_resources().await.unwrap();
    assert!(
        resources
            .iter()
            .any(|r| r.uri == "skill://pdf/templates/invoice.md")
    );
    let text = legacy
        .request(
            "resources/read",
            json!({"uri": "skill://pdf/templates/invoice.md"}),
        )
        .await
        .unwrap();
    assert_eq!(text["contents"][0]["text"], "# Invoice");
    let e = legacy.request("skills/list", json!({})).await.unwrap_err();
    assert_eq!(e.rpc().unwrap().code, -32601);
}

#[tokio::test]
async fn skills_list_pages_never_split_an_entry() {
    let mut builder = Server::builder().page_size(2);
    for i in 0..5 {
        let name = format!("skill-{i}");
        builder = builder.skill(
            Skill::new(
                name.clone(),
                format!("---\nname: {name}\ndescription: number {i}\n---\n"),
            )
            .file("notes.md", "n"),
        );
    }
    let server = builder.build().unwrap();
    let client = Client::connect(&server).await.unwrap();
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let params = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        let page = client.request("skills/list", params).await.unwrap();
        let skills = page["skills"].as_array().unwrap();
        assert!(skills.len() <= 2);
        for s in skills {
            assert_eq!(s["resources"].as_array().unwrap().len(), 2, "{s}");
            seen.push(s["frontmatter"]["name"].as_str().unwrap().to_owned());
        }
        match page["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
    }
    assert_eq!(
        seen,
        ["skill-0", "skill-1", "skill-2", "skill-3", "skill-4"]
    );
    let e = client
        .request("skills/list", json!({"cursor": "not-a-cursor"}))
        .await
        .unwrap_err();
    assert_eq!(e.rpc().unwrap().code, -32602);
}

#[test]
fn build_reports_every_broken_rule_of_every_skill() {
    let dir = Folder::new(
        "bad",
        &[
            (
                "no-description/SKILL.md",
                b"---\nname: no-description\n---\n",
            ),
            (
                "mismatch/SKILL.md",
                b"---\nname: other\ndescription: d\n---\n",
            ),
            ("broken-yaml/SKILL.md", b"---\nname: [broken\n---\n"),
            ("Upper/SKILL.md", b"---\nname: Upper\ndescription: d\n---\n"),
            ("no-frontmatter/SKILL.md", b"# just markdown\n"),
            ("fine/SKILL.md", b"---\nname: fine\ndescription: d\n---\n"),
            ("fine/bad name.md", b"x"),
            ("SKILL.md", b"---\nname: root\ndescription: d\n---\n"),
        ],
    );
    let err = Server::builder()
        .skills_dir(dir.path())
        .build()
        .unwrap_err();
    let Error::Skills { problems } = &err else {
        panic!("{err}");
    };
    let text = err.to_string();
    for needle in [
        "no `description`",
        "names the skill \"other\", but its folder is \"mismatch\"",
        "not valid YAML",
        "lowercase",
        "must begin with YAML frontmatter",
        "\"bad name.md\"",
        "directly in the skills folder",
    ] {
        assert!(text.contains(needle), "{needle:?} missing from:\n{text}");
    }
    assert_eq!(problems.len(), 7, "{problems:#?}");
    // Each problem names the folder it is about.
    assert!(
        problems
            .iter()
            .all(|p| p.contains(&*dir.path().to_string_lossy())),
        "{problems:#?}"
    );

    let too_many: Vec<(String, Vec<u8>)> = (0..=512)
        .map(|i| (format!("big/f{i}.txt"), b"x".to_vec()))
        .chain([(
            "big/SKILL.md".to_owned(),
            b"---\nname: big\ndescription: d\n---\n".to_vec(),
        )])
        .collect();
    let files: Vec<(&str, &[u8])> = too_many
        .iter()
        .map(|(p, b)| (p.as_str(), b.as_slice()))
        .collect();
    let big = Folder::new("big", &files);
    let err = Server::builder()
        .skills_dir(big.path())
        .build()
        .unwrap_err();
    assert!(err.to_string().contains("at most 512 files"), "{err}");
    let missing = Server::builder()
        .skills_dir("/nonexistent/skills")
        .build()
        .unwrap_err();
    assert!(missing.to_string().contains("cannot be read"), "{missing}");
}

#[cfg(unix)]
#[tokio::test]
async fn links_within_the_folder_are_served_and_links_out_of_it_or_loops_fail_build() {
    use std::os::unix::fs::symlink;
    let outside = Folder::new("outside", &[("secret.txt", b"not a skill file")]);
    let folder = Folder::new(
        "links",
        &[
            (
                "notes/SKILL.md",
                b"---\nname: notes\ndescription: Notes\n---\n",
            ),
            ("common/style.md", b"# House style"),
        ],
    );
    let notes = folder.path().join("notes");
    // Within the folder: followed, served.
    symlink("../common/style.md", notes.join("style.md")).unwrap();
    symlink("../common", notes.join("common")).unwrap();
    let client = Client::connect(&server(folder.path())).await.unwrap();
    assert_eq!(
        read(&client, "skill://notes/style.md").await,
        b"# House style"
    );
    assert_eq!(
        read(&client, "skill://notes/common/style.md").await,
        b"# House style"
    );

    let build = |dir: PathBuf| {
        // In a thread of its own, bounded: a walk that followed a loop would not end.
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(Server::builder().skills_dir(dir).build().map(drop));
        });
        match rx
            .recv_timeout(std::time::Duration::from_secs(30))
            .expect("build() returns within 30 s")
        {
            Err(Error::Skills { problems }) => problems,
            Err(e) => panic!("{e}"),
            Ok(()) => Vec::new(),
        }
    };
    // Out of the folder, to a file or a folder: refused.
    symlink(outside.path().join("secret.txt"), notes.join("secret.txt")).unwrap();
    symlink(outside.path(), notes.join("elsewhere")).unwrap();
    let problems = build(folder.path().to_owned());
    assert_eq!(problems.len(), 2, "{problems:#?}");
    assert!(
        problems
            .iter()
            .all(|p| p.contains("a symbolic link out of the skills folder")),
        "{problems:#?}"
    );
    std::fs::remove_file(notes.join("secret.txt")).unwrap();
    std::fs::remove_file(notes.join("elsewhere")).unwrap();
    // Two links back to the skill's own folder: followed, they would make 2^n paths.
    symlink(".", notes.join("again")).unwrap();
    symlink("..", notes.join("up")).unwrap();
    let problems = build(folder.path().to_owned());
    assert_eq!(problems.len(), 2, "{problems:#?}");
    assert!(
        problems.iter().all(|p| p.contains("a loop")),
        "{problems:#?}"
    );
}

#[tokio::test]
async fn skills_added_and_removed_at_run_time_announce_a_list_change() {
    let server = Server::builder()
        .skill(Skill::new(
            "first",
            "---\nname: first\ndescription: There from the start\n---\n",
        ))
        .build()
        .unwrap();
    let client = Client::connect(&server).await.unwrap();
    let mut sub = client
        .listen(json!({"resourcesListChanged": true}))
        .await
        .unwrap();
    assert_eq!(
        sub.next().await.unwrap()["method"],
        "notifications/subscriptions/acknowledged"
    );
    let names = |list: &Value| -> Vec<String> {
        list["skills"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["frontmatter"]["name"].as_str().unwrap().to_owned())
            .collect()
    };
    let handle = server.handle();
    handle
        .add_skills([Skill::new(
            "later",
            "---\nname: later\ndescription: Added at run time\n---\n",
        )
        .file("notes.md", "later notes")])
        .unwrap();
    let note = tokio::time::timeout(std::time::Duration::from_secs(5), sub.next())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(note["method"], "notifications/resources/list_changed");
    let list = client.request("skills/list", json!({})).await.unwrap();
    assert_eq!(names(&list), ["first", "later"]);
    assert_eq!(
        read(&client, "skill://later/notes.md").await,
        b"later notes"
    );

    // A broken skill changes nothing, and says why.
    let err = handle
        .add_skills([Skill::new("Broken", "no frontmatter")])
        .unwrap_err();
    assert!(matches!(err, Error::Skills { .. }), "{err}");
    let again = handle
        .add_skills([Skill::new(
            "first",
            "---\nname: first\ndescription: A second one at the same path\n---\n",
        )])
        .unwrap_err();
    assert!(again.to_string().contains("a second skill"), "{again}");
    assert_eq!(
        names(&client.request("skills/list", json!({})).await.unwrap()),
        ["first", "later"]
    );

    assert!(handle.remove_skill("skill://later/SKILL.md"));
    assert!(!handle.remove_skill("skill://later/SKILL.md"));
    assert_eq!(
        names(&client.request("skills/list", json!({})).await.unwrap()),
        ["first"]
    );
    let gone = client
        .request("resources/read", json!({"uri": "skill://later/notes.md"}))
        .await
        .unwrap_err();
    assert_eq!(gone.rpc().unwrap().code, -32602);

    // Without skills at build time the extension is not declared: nothing to add to.
    let plain = Server::builder().build().unwrap();
    let err = plain
        .handle()
        .add_skills([Skill::new("x", "---\nname: x\ndescription: d\n---\n")])
        .unwrap_err();
    assert!(matches!(err, Error::Config(_)), "{err}");
}

#[tokio::test]
async fn generated_files_make_a_dynamic_skill() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let reads = Arc::new(AtomicUsize::new(0));
    let counter = reads.clone();
    let server = Server::builder()
        .skill(
            Skill::new(
                "reports/daily",
                "---\nname: daily\ndescription: Today's report from live data\n---\nRead `report.md`.\n",
            )
            .file("how-to.md", "steady text")
            .generated_file("report.md", move || {
                let n = counter.fetch_add(1, Ordering::SeqCst) + 1;
                async move { Ok::<_, String>(format!("report #{n}")) }
            })
            .generated_file("broken.md", || async { Err::<String, _>("the source is down") }),
        )
        .build()
        .unwrap();
    let client = Client::connect(&server).await.unwrap();
    let got = client
        .request(
            "skills/get",
            json!({"uri": "skill://reports/daily/SKILL.md"}),
        )
        .await
        .unwrap();
    assert_eq!(got["skill"]["resources"], "dynamic", "{got}");
    assert_eq!(
        read(&client, "skill://reports/daily/report.md").await,
        b"report #1"
    );
    assert_eq!(
        read(&client, "skill://reports/daily/report.md").await,
        b"report #2"
    );
    assert_eq!(
        read(&client, "skill://reports/daily/how-to.md").await,
        b"steady text"
    );
    let e = client
        .request(
            "resources/read",
            json!({"uri": "skill://reports/daily/broken.md"}),
        )
        .await
        .unwrap_err();
    assert_eq!(e.rpc().unwrap().code, -32603);
    // The directory is the way to discover a dynamic skill's files.
    let dir = client
        .request(
            "resources/directory/read",
            json!({"uri": "skill://reports/daily"}),
        )
        .await
        .unwrap();
    let names: Vec<&str> = dir["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["SKILL.md", "broken.md", "how-to.md", "report.md"]);
    // Removing it removes the generated files too.
    assert!(
        server
            .handle()
            .remove_skill("skill://reports/daily/SKILL.md")
    );
    let gone = client
        .request(
            "resources/read",
            json!({"uri": "skill://reports/daily/report.md"}),
        )
        .await
        .unwrap_err();
    assert_eq!(gone.rpc().unwrap().code, -32602);
}
