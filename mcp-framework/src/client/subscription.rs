//! Listen subscriptions: `Client::listen` opens a `subscriptions/listen` stream, and a
//! `Subscription` reads its messages (routed to it by the connection) until it is
//! cancelled or the server ends it.

use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::error::ClientError;
use super::facade::Client;
use super::requests::RequestOptions;
use crate::protocol::RequestId;

/// An open `subscriptions/listen` stream.
#[derive(Debug)]
pub struct Subscription {
    id: RequestId,
    rx: mpsc::UnboundedReceiver<Value>,
    client: Client,
}

impl Subscription {
    /// The subscription id (the listen request's id).
    pub fn id(&self) -> &RequestId {
        &self.id
    }

    /// The next message of the stream (notifications, or the final result when the server
    /// ends it); `None` once it is over.
    pub async fn next(&mut self) -> Option<Value> {
        self.rx.recv().await
    }

    /// Ends the subscription (`notifications/cancelled`).
    pub async fn cancel(self) -> Result<(), ClientError> {
        self.client.conn.unsubscribe(&self.id);
        self.client.cancel(&self.id).await
    }
}

impl Client {
    /// Opens a `subscriptions/listen` stream (modern mode). `filter` is the `notifications`
    /// object, e.g. `json!({"toolsListChanged": true})`. The first message is the
    /// acknowledgement.
    pub async fn listen(&self, filter: Value) -> Result<Subscription, ClientError> {
        let id = self.conn.next_id();
        let rx = self.conn.subscribe(id.clone());
        let mut params = json!({"notifications": filter});
        params["_meta"] = Value::Object(self.meta(&RequestOptions::default()));
        self.conn
            .write_request(&id, "subscriptions/listen", params)
            .await?;
        Ok(Subscription {
            id,
            rx,
            client: self.clone(),
        })
    }
}
