//! The contract every [`TaskStore`] keeps, as a test any implementation can run:
//! `mcp_framework::tasks::contract::check(&my_store).await` in an async test panics with
//! the first broken rule. The store must start empty and hold at least [`MIN_CAPACITY`]
//! records.

use serde_json::json;

use super::raw::RawJson;
use super::record::{TaskRecord, TaskUpdate};
use super::store::{TaskStore, TaskStoreError};
use crate::protocol::{ErrorObject, TaskStatus};

/// The records [`check`] creates at most at once.
pub const MIN_CAPACITY: usize = 8;

/// The quota [`check`] creates its records under (any store holds this many per holder).
const QUOTA: usize = 2;

fn record(id: &str, created_at_ms: u64, ttl_ms: Option<u64>) -> TaskRecord {
    TaskRecord::new(
        id.to_owned(),
        Some("alice".into()),
        created_at_ms,
        ttl_ms,
        Some(500),
    )
}

/// Runs every rule against `store`; panics (with the rule) on the first one broken.
pub async fn check(store: &dyn TaskStore) {
    let id = "contract-task-1";
    // Creation is strongly consistent, and ids are unique.
    store
        .create(record(id, 1_000, Some(60_000)), QUOTA)
        .await
        .expect("create");
    let got = store
        .get(id)
        .await
        .expect("get")
        .expect("a created task is found at once");
    assert_eq!(
        got,
        record(id, 1_000, Some(60_000)),
        "get returns what was created"
    );
    assert!(
        matches!(
            store.create(record(id, 1_000, None), QUOTA).await,
            Err(TaskStoreError::Exists(_))
        ),
        "a second task with the same id is refused"
    );
    assert_eq!(
        store.get("contract-unknown").await.expect("get"),
        None,
        "unknown ids are None"
    );

    // Updates apply in order and report the record after them.
    let mut questions = crate::protocol::JsonObject::new();
    questions.insert(
        "elicitation-1".into(),
        json!({"method": "elicitation/create"}),
    );
    let after = store
        .update(
            id,
            TaskUpdate::at(2_000)
                .status(TaskStatus::InputRequired)
                .input_requests(questions.clone())
                .status_message(Some("waiting".into())),
        )
        .await
        .expect("update")
        .expect("the task is there");
    assert_eq!(after.status, TaskStatus::InputRequired);
    assert_eq!(after.input_requests, questions);
    assert_eq!(after.updated_at_ms, 2_000);
    assert_eq!(
        store.get(id).await.expect("get").expect("kept"),
        after,
        "updates are kept"
    );
    let after = store
        .update(id, TaskUpdate::at(2_500).cancel_requested())
        .await
        .expect("update")
        .expect("there");
    assert!(after.cancel_requested, "a cancellation request is recorded");
    assert_eq!(
        after.status,
        TaskStatus::InputRequired,
        "and does not end the task by itself"
    );

    // A final record never changes again. Its result is kept as its JSON text, exactly.
    let text = r#"{"content": [], "isError": true, "structuredContent": [0,0, 0]}"#;
    let result = RawJson::from_slice(text.as_bytes()).expect("valid JSON");
    let done = store
        .update(id, TaskUpdate::at(3_000).completed(result))
        .await
        .expect("update")
        .expect("there");
    assert_eq!(done.status, TaskStatus::Completed);
    assert_eq!(
        done.result.as_ref().map(RawJson::get),
        Some(text),
        "the result is kept verbatim"
    );
    assert_eq!(
        store.get(id).await.expect("get").expect("kept"),
        done,
        "the result is kept"
    );
    assert!(
        done.input_requests.is_empty(),
        "a final task has no questions"
    );
    let again = store
        .update(
            id,
            TaskUpdate::at(4_000).failed(ErrorObject::internal("late")),
        )
        .await
        .expect("update")
        .expect("there");
    assert_eq!(again, done, "a final task is not changed by a later update");
    assert_eq!(
        store
            .update("contract-unknown", TaskUpdate::at(1))
            .await
            .expect("update"),
        None,
        "updating an unknown id is None"
    );

    // Expiry lists what outlived its TTL, and removal forgets it.
    store
        .create(record("contract-task-2", 1_000, Some(500)), QUOTA)
        .await
        .expect("create");
    store
        .create(record("contract-task-3", 1_000, None), QUOTA)
        .await
        .expect("create");
    let mut expired = store.expired(1_600, 100).await.expect("expired");
    expired.sort();
    assert_eq!(
        expired,
        ["contract-task-2"],
        "only the task past its TTL is expired"
    );
    assert_eq!(store.expired(61_000, 100).await.expect("expired").len(), 2);
    assert_eq!(
        store.expired(61_000, 1).await.expect("expired").len(),
        1,
        "limit is kept"
    );
    for id in [id, "contract-task-2", "contract-task-3"] {
        assert!(store.remove(id).await.expect("remove"), "{id} is removed");
        assert!(
            !store.remove(id).await.expect("remove"),
            "{id} is removed once"
        );
        assert_eq!(store.get(id).await.expect("get"), None, "{id} is gone");
    }

    // A holder holds at most its quota of records, finished or not, until they are
    // removed; other holders, and records of no holder, are not held back by it.
    // (Without a TTL: a store may forget what it would have dropped on its own.)
    let held = |id: &str, holder: &str| record(id, 1_000, None).held_by(Some(holder.to_owned()));
    for id in ["contract-quota-1", "contract-quota-2"] {
        store
            .create(held(id, "contract-holder-a"), QUOTA)
            .await
            .expect("within the quota");
    }
    store
        .update(
            "contract-quota-1",
            TaskUpdate::at(2_000).completed(json!({"content": []}).into()),
        )
        .await
        .expect("update");
    assert_eq!(
        store
            .create(held("contract-quota-3", "contract-holder-a"), QUOTA)
            .await,
        Err(TaskStoreError::HolderFull { max: QUOTA }),
        "a holder at its quota is refused, its finished records counted"
    );
    assert_eq!(
        store.get("contract-quota-3").await.expect("get"),
        None,
        "a refused record is not kept"
    );
    store
        .create(held("contract-quota-4", "contract-holder-b"), QUOTA)
        .await
        .expect("another holder is not held back");
    store
        .create(record("contract-quota-5", 1_000, None), 0)
        .await
        .expect("a record of no holder counts against no quota");
    assert_eq!(
        store
            .get("contract-quota-4")
            .await
            .expect("get")
            .expect("kept")
            .holder
            .as_deref(),
        Some("contract-holder-b"),
        "the holder is kept"
    );
    assert!(store.remove("contract-quota-1").await.expect("remove"));
    store
        .create(held("contract-quota-3", "contract-holder-a"), QUOTA)
        .await
        .expect("a removed record frees its place");
    for id in [
        "contract-quota-2",
        "contract-quota-3",
        "contract-quota-4",
        "contract-quota-5",
    ] {
        assert!(store.remove(id).await.expect("remove"), "{id} is removed");
    }

    // Records round-trip through JSON (what a shared store keeps).
    let mut r = record("contract-task-4", 5, Some(10)).held_by(Some("h".into()));
    TaskUpdate::at(6)
        .failed(ErrorObject::internal("boom"))
        .apply(&mut r);
    let text = serde_json::to_string(&r).expect("records serialize");
    assert_eq!(
        serde_json::from_str::<TaskRecord>(&text).expect("and parse"),
        r
    );
    let mut r = record("contract-task-5", 5, Some(10));
    TaskUpdate::at(6)
        .completed(RawJson::from_slice(br#"{"a": [1, 2]}"#).expect("valid"))
        .apply(&mut r);
    let text = serde_json::to_string(&r).expect("records serialize");
    assert_eq!(
        serde_json::from_str::<TaskRecord>(&text).expect("and parse"),
        r
    );
}
