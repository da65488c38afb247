//! A real Redis for the tests: Debian's `redis-server`, started on a free port of
//! 127.0.0.1 without persistence, stopped (by its process id) when dropped; restartable on
//! the same port.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, Command};

/// A running `redis-server` started by a test.
#[derive(Debug)]
pub struct Redis {
    port: u16,
    child: Option<Child>,
}

impl Redis {
    /// Starts one on a free port and waits until it answers `PING`.
    pub async fn start() -> Self {
        let port = crate::free_port();
        let mut redis = Self { port, child: None };
        redis.restart().await;
        redis
    }

    /// `redis://127.0.0.1:PORT/`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// Kills it (as a crash would: no goodbye to its clients).
    pub async fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.start_kill();
            let _ = child.wait().await;
        }
    }

    /// Starts it again on the same port (after [`stop`](Self::stop)).
    pub async fn restart(&mut self) {
        self.stop().await;
        let child = Command::new(crate::installed_binary("redis-server", "redis-server"))
            .args(["--bind", "127.0.0.1", "--port", &self.port.to_string()])
            .args([
                "--save",
                "",
                "--appendonly",
                "no",
                "--protected-mode",
                "yes",
            ])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("spawn redis-server");
        self.child = Some(child);
        for _ in 0..100 {
            if self.ping().await {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("redis-server on port {} did not answer PING", self.port);
    }

    async fn ping(&self) -> bool {
        let Ok(mut conn) = tokio::net::TcpStream::connect(("127.0.0.1", self.port)).await else {
            return false;
        };
        if conn.write_all(b"PING\r\n").await.is_err() {
            return false;
        }
        let mut buf = [0u8; 7];
        matches!(
            tokio::time::timeout(Duration::from_secs(1), conn.read_exact(&mut buf)).await,
            Ok(Ok(_)) if &buf == b"+PONG\r\n"
        )
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        if let Some(child) = &mut self.child {
            let _ = child.start_kill();
        }
    }
}
