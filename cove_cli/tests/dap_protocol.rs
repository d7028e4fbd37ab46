//! `cove debug --dap` spoken to directly, framed message by framed message:
//! what the node client does not cover (hit conditions, the errors filter
//! turned off, refusals), and a check that needs nothing but the binary.

mod support;

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, ChildStdout, Stdio};

use serde_json::{Value, json};

use support::{cove, root};

struct Client {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
    seq: i64,
}

impl Client {
    fn start() -> Client {
        let mut child = cove(&["debug", "--dap"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("cove starts");
        let input = child.stdin.take().expect("stdin");
        let output = BufReader::new(child.stdout.take().expect("stdout"));
        Client {
            child,
            input,
            output,
            seq: 0,
        }
    }

    fn send(&mut self, command: &str, arguments: Value) -> i64 {
        self.seq += 1;
        let body =
            json!({"seq": self.seq, "type": "request", "command": command, "arguments": arguments})
                .to_string();
        write!(self.input, "Content-Length: {}\r\n\r\n{body}", body.len())
            .expect("the request is written");
        self.seq
    }

    fn message(&mut self) -> Value {
        let mut length = 0;
        loop {
            let mut line = String::new();
            assert!(
                self.output.read_line(&mut line).expect("a header") > 0,
                "the server closed"
            );
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some(n) = line.strip_prefix("Content-Length: ") {
                length = n.parse().expect("a length");
            }
        }
        let mut body = vec![0; length];
        self.output.read_exact(&mut body).expect("the body");
        serde_json::from_slice(&body).expect("JSON")
    }

    /// Reads until the response to `seq`, keeping the events met.
    fn response(&mut self, seq: i64, events: &mut Vec<Value>) -> Value {
        loop {
            let m = self.message();
            if m["type"] == "response" && m["request_seq"] == seq {
                return m;
            }
            events.push(m);
        }
    }

    /// Reads until an event named `name`.
    fn event(&mut self, name: &str, seen: &mut Vec<Value>) -> Value {
        if let Some(i) = seen.iter().position(|e| e["event"] == name) {
            return seen.remove(i);
        }
        loop {
            let m = self.message();
            if m["type"] == "event" && m["event"] == name {
                return m;
            }
            seen.push(m);
        }
    }

    fn request(&mut self, command: &str, arguments: Value, events: &mut Vec<Value>) -> Value {
        let seq = self.send(command, arguments);
        self.response(seq, events)
    }

    fn launch(&mut self, program: &str, events: &mut Vec<Value>) {
        let r = self.request("initialize", json!({"adapterID": "cove"}), events);
        assert_eq!(r["body"]["supportsConditionalBreakpoints"], true);
        let path = root().join(program).display().to_string();
        let r = self.request("launch", json!({"program": path}), events);
        assert_eq!(r["success"], true, "{r}");
        self.event("initialized", events);
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_hit_condition_stops_on_the_hits_it_names() {
    let mut c = Client::start();
    let mut events = Vec::new();
    c.launch("cove_cli/tests/fixtures/debug/shapes.cove", &mut events);
    let path = root()
        .join("cove_cli/tests/fixtures/debug/shapes.cove")
        .display()
        .to_string();
    let r = c.request(
        "setBreakpoints",
        json!({"source": {"path": path}, "breakpoints": [{"line": 24, "hitCondition": ">= 3"}, {"line": 900}]}),
        &mut events,
    );
    let bps = &r["body"]["breakpoints"];
    assert_eq!(bps[0]["verified"], true);
    assert_eq!(bps[1]["verified"], false);
    assert!(
        bps[1]["message"].as_str().unwrap().contains("no code"),
        "{r}"
    );
    c.request("configurationDone", json!({}), &mut events);
    let stopped = c.event("stopped", &mut events);
    assert_eq!(stopped["body"]["reason"], "breakpoint");
    let r = c.request(
        "evaluate",
        json!({"expression": "n", "frameId": 1}),
        &mut events,
    );
    assert_eq!(r["body"]["result"], "2", "the third hit is n = 2");
    let r = c.request(
        "evaluate",
        json!({"expression": "nosuch + 1", "frameId": 1}),
        &mut events,
    );
    assert_eq!(r["success"], false);
    assert!(r["message"].as_str().unwrap().contains("nosuch"), "{r}");
    let r = c.request("frobnicate", json!({}), &mut events);
    assert_eq!(r["success"], false);
    let r = c.request("disconnect", json!({}), &mut events);
    assert_eq!(r["success"], true);
}

#[test]
fn with_the_errors_filter_off_a_runtime_error_ends_the_run_without_stopping() {
    let mut c = Client::start();
    let mut events = Vec::new();
    c.launch("examples/fails.cove", &mut events);
    c.request(
        "setExceptionBreakpoints",
        json!({"filters": []}),
        &mut events,
    );
    c.request("configurationDone", json!({}), &mut events);
    let exited = c.event("exited", &mut events);
    assert_eq!(exited["body"]["exitCode"], 70);
    assert!(
        !events.iter().any(|e| e["event"] == "stopped"),
        "{events:?}"
    );
    let output: String = events
        .iter()
        .filter(|e| e["event"] == "output")
        .map(|e| e["body"]["output"].as_str().unwrap_or("").to_string())
        .collect();
    assert!(output.contains("spring: 82\n"), "{output}");
    assert!(output.contains("error: division by zero"), "{output}");
    c.event("terminated", &mut events);
}

#[test]
fn a_launch_of_a_program_that_does_not_compile_fails_with_its_diagnostics() {
    let mut c = Client::start();
    let mut events = Vec::new();
    c.request("initialize", json!({}), &mut events);
    let path = root()
        .join("cove_cli/tests/fixtures/broken.cove")
        .display()
        .to_string();
    let r = c.request("launch", json!({"program": path}), &mut events);
    assert_eq!(r["success"], false);
    let said: String = events
        .iter()
        .filter(|e| e["event"] == "output")
        .map(|e| e["body"]["output"].as_str().unwrap_or("").to_string())
        .collect();
    assert!(said.contains("type mismatch"), "{said}");
}
