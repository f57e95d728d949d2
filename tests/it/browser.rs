//! A real headless Chromium driven through its DevTools protocol over a
//! pipe (`--remote-debugging-pipe`: messages on fds 3 and 4, each ended by
//! a NUL byte), for the tests of keep serve's web page.

use std::io::{BufRead, BufReader, Write};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// How long a page may take to do what a test waits for.
const PATIENCE: Duration = Duration::from_secs(30);

pub struct Browser {
    child: Child,
    to: std::io::PipeWriter,
    from: Receiver<Value>,
    next: u64,
    session: String,
    _profile: tempfile::TempDir,
}

/// The Chromium on this machine (Debian's `chromium`, which the set-up
/// installs).
fn chromium() -> String {
    for name in ["chromium", "chromium-browser"] {
        let found = Command::new("sh")
            .args(["-c", &format!("command -v {name}")])
            .output()
            .is_ok_and(|o| o.status.success());
        if found {
            return name.to_string();
        }
    }
    panic!("chromium is not installed: ./scripts/setup.sh installs it");
}

impl Browser {
    /// A headless browser with one page of `width` × `height` pixels.
    pub fn start(width: u32, height: u32) -> Browser {
        let profile = tempfile::tempdir().unwrap();
        let (their_in, ours_out) = std::io::pipe().unwrap();
        let (ours_in, their_out) = std::io::pipe().unwrap();
        let (their_in, their_out): (OwnedFd, OwnedFd) = (their_in.into(), their_out.into());
        let (fd_in, fd_out) = (their_in.as_raw_fd(), their_out.as_raw_fd());
        let mut command = Command::new(chromium());
        command
            .args([
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--remote-debugging-pipe",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-extensions",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--hide-scrollbars",
                "--mute-audio",
                &format!("--window-size={width},{height}"),
                &format!("--user-data-dir={}", profile.path().display()),
                "about:blank",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        // SAFETY: only dup2, which is async-signal-safe, between fork and exec.
        unsafe {
            command.pre_exec(move || {
                // Above 4 first, so that neither end is overwritten by the
                // other's move; dup2 leaves the copies open across exec.
                let high_in = libc::fcntl(fd_in, libc::F_DUPFD, 10);
                let high_out = libc::fcntl(fd_out, libc::F_DUPFD, 10);
                if high_in < 0
                    || high_out < 0
                    || libc::dup2(high_in, 3) < 0
                    || libc::dup2(high_out, 4) < 0
                {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = command.spawn().expect("start chromium");
        drop((their_in, their_out));
        let (send, from) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(ours_in);
            let mut message = Vec::new();
            while reader.read_until(0, &mut message).is_ok_and(|n| n > 0) {
                message.pop_if(|b| *b == 0);
                if let Ok(value) = serde_json::from_slice::<Value>(&message)
                    && send.send(value).is_err()
                {
                    break;
                }
                message.clear();
            }
        });
        let mut browser = Browser {
            child,
            to: ours_out,
            from,
            next: 0,
            session: String::new(),
            _profile: profile,
        };
        let targets = browser.send("Target.getTargets", json!({}), false);
        let page = targets["targetInfos"]
            .as_array()
            .and_then(|t| t.iter().find(|t| t["type"] == "page"))
            .map(|t| t["targetId"].clone())
            .unwrap_or_else(|| panic!("no page in {targets}"));
        let attached = browser.send(
            "Target.attachToTarget",
            json!({ "targetId": page, "flatten": true }),
            false,
        );
        browser.session = attached["sessionId"].as_str().unwrap().to_string();
        browser.call("Page.enable", json!({}));
        browser.call("Runtime.enable", json!({}));
        browser
    }

    fn send(&mut self, method: &str, params: Value, in_page: bool) -> Value {
        self.next += 1;
        let id = self.next;
        let mut message = json!({ "id": id, "method": method, "params": params });
        if in_page {
            message["sessionId"] = json!(self.session);
        }
        let mut bytes = serde_json::to_vec(&message).unwrap();
        bytes.push(0);
        self.to.write_all(&bytes).expect("write to chromium");
        let deadline = Instant::now() + PATIENCE;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.from.recv_timeout(left) {
                Ok(answer) if answer["id"] == id => {
                    if let Some(error) = answer.get("error") {
                        panic!("{method}: {error}");
                    }
                    return answer["result"].clone();
                }
                Ok(_) => {}
                Err(RecvTimeoutError::Timeout) => panic!("chromium did not answer {method}"),
                Err(RecvTimeoutError::Disconnected) => panic!("chromium stopped during {method}"),
            }
        }
    }

    /// A DevTools method on the page.
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        self.send(method, params, true)
    }

    /// The value of a JavaScript expression in the page (promises awaited).
    pub fn eval(&mut self, expression: &str) -> Value {
        let result = self.call(
            "Runtime.evaluate",
            json!({ "expression": expression, "returnByValue": true, "awaitPromise": true }),
        );
        if let Some(thrown) = result.get("exceptionDetails") {
            panic!("{expression}: {thrown}");
        }
        result["result"]["value"].clone()
    }

    /// The strings an expression gives as an array.
    pub fn strings(&mut self, expression: &str) -> Vec<String> {
        let value = self.eval(expression);
        let items = value
            .as_array()
            .unwrap_or_else(|| panic!("{expression}: {value}"));
        items
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect()
    }

    /// Waits until `expression` is truthy and returns its value.
    pub fn wait_for(&mut self, expression: &str) -> Value {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let value = self.eval(&format!(
                "(() => {{ try {{ return {expression}; }} catch (e) {{ return null; }} }})()"
            ));
            let truthy = !matches!(&value, Value::Null | Value::Bool(false))
                && value != json!(0)
                && value != json!("");
            if truthy {
                return value;
            }
            if Instant::now() > deadline {
                let url = self.eval("location.href");
                let text = self.eval("document.body ? document.body.innerText.slice(0, 2000) : ''");
                panic!("waited for {expression} at {url}; the page says:\n{text}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Opens `url` and waits for the new page to load.
    pub fn open(&mut self, url: &str) {
        self.eval("window.__leaving = true");
        self.call("Page.navigate", json!({ "url": url }));
        self.settle();
    }

    /// Waits for a navigation begun in the page to load.
    pub fn settle(&mut self) {
        self.wait_for("!window.__leaving && document.readyState === 'complete'");
        self.eval("window.__leaving = undefined");
    }

    /// Marks the page so that `settle` waits for the next one.
    pub fn before_leaving(&mut self) {
        self.eval("window.__leaving = true");
    }

    /// Types `text` where the focus is, as a keyboard would insert it.
    pub fn type_text(&mut self, text: &str) {
        for c in text.chars() {
            self.call("Input.insertText", json!({ "text": c.to_string() }));
        }
    }

    /// Presses and releases a key: "Tab", "Enter", "ArrowDown".
    pub fn press(&mut self, key: &str) {
        let (code, text) = match key {
            "Tab" => (9, ""),
            "Enter" => (13, "\r"),
            "ArrowDown" => (40, ""),
            other => panic!("no key {other}"),
        };
        let mut down = json!({ "type": "keyDown", "key": key, "code": key, "windowsVirtualKeyCode": code, "nativeVirtualKeyCode": code });
        if !text.is_empty() {
            down["text"] = json!(text);
        }
        self.call("Input.dispatchKeyEvent", down);
        self.call(
            "Input.dispatchKeyEvent",
            json!({ "type": "keyUp", "key": key, "code": key, "windowsVirtualKeyCode": code, "nativeVirtualKeyCode": code }),
        );
    }

    /// Gives the page a viewport of `width` × `height` CSS pixels, as a
    /// phone's when it is narrow.
    pub fn resize(&mut self, width: u32, height: u32) {
        self.call(
            "Emulation.setDeviceMetricsOverride",
            json!({ "width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600 }),
        );
    }

    /// Whether nothing in the page ran a script a note carried, gave an
    /// element an event handler, or links anywhere but this server.
    pub fn inert(&mut self) -> Value {
        self.eval(
            "(() => {
                const handlers = [...document.querySelectorAll('*')]
                    .flatMap(e => [...e.attributes].filter(a => a.name.startsWith('on')).map(a => e.tagName + ' ' + a.name));
                const foreign = [...document.querySelectorAll('[href], [src], [action]')]
                    .map(e => e.getAttribute('href') || e.getAttribute('src') || e.getAttribute('action'))
                    .filter(u => !(u.startsWith('/') && !u.startsWith('//')) && !u.startsWith('#'));
                return { pwned: window.pwned === undefined ? null : window.pwned, handlers, foreign };
            })()",
        )
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
