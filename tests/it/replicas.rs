//! Reads on hot standbys: a primary and a standby made from it with
//! `pg_basebackup` (streaming replication), both real PostgreSQL servers
//! of the test's own. Reads go to the standby while it is healthy, a
//! client sees its own writes, a standby stopped or held back is skipped,
//! and no acknowledged write is lost.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::backend::PrivateServer;
use crate::common::Env;
use crate::serve::{Server, exchange, keep_running, open_session};

/// A store on a primary with one hot standby, and an environment whose
/// reads go to the standby, with `config` in its config file.
fn primary_and_standby(config: &str) -> (Env, PrivateServer, PrivateServer) {
    let mut env = Env::on(false);
    let primary = PrivateServer::start(&env.path("pg"));
    let standby = PrivateServer::standby_of(&primary, &env.path("pg-standby"));
    env.set("KEEP_STORE", &primary.url);
    env.set("KEEP_REPLICAS", &standby.url);
    std::fs::write(env.path("config.toml"), config).unwrap();
    (env, primary, standby)
}

/// Waits until the standby has replayed everything the primary wrote.
fn replayed(primary: &PrivateServer, standby: &PrivateServer) {
    let head = primary.value("SELECT pg_current_wal_lsn()");
    let until = Instant::now() + Duration::from_secs(30);
    while Instant::now() < until {
        let behind = standby.value(&format!(
            "SELECT pg_last_wal_replay_lsn() < '{head}'::pg_lsn"
        ));
        if behind == "f" {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("the standby did not replay {head} in 30 s");
}

fn call(addr: &str, session: &str, tool: &str, arguments: &str) -> String {
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"{tool}","arguments":{arguments}}}}}"#
    );
    let (status, _, answer) = exchange(addr, Some(session), &body);
    assert_eq!(status, 200, "{tool}: {answer}");
    answer
}

/// What `keep doctor` prints (it fails here: the tests install no model).
fn doctor_says(env: &Env) -> String {
    String::from_utf8_lossy(&env.run(&["doctor"]).stdout).into_owned()
}

fn health(env: &Env) -> Value {
    let out = env.run(&["--json", "serve", "--status"]);
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "serve --status: {e}: {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

#[test]
fn a_session_reads_its_own_writes_while_others_read_a_held_back_standby() {
    if !crate::backend::postgres() {
        return;
    }
    // A bound far above the test's length keeps the held-back standby in use.
    let (env, primary, standby) = primary_and_standby("max_replica_lag = 3600\n");
    env.ok(&["put", "The harbour light is lit at dusk.", "--id", "light"]);
    replayed(&primary, &standby);
    standby.sql("SELECT pg_wal_replay_pause()");
    let server = Server::start(&env, &["--listen", "127.0.0.1:0"]);
    let writer = open_session(&server.addr);
    let other = open_session(&server.addr);

    let wrote = call(
        &server.addr,
        &writer,
        "remember",
        r#"{"text":"The tide turns at noon.","id":"tide"}"#,
    );
    assert!(!wrote.contains(r#""isError":true"#), "{wrote}");
    let own = call(&server.addr, &writer, "get", r#"{"id":"tide"}"#);
    assert!(
        own.contains("The tide turns at noon."),
        "the writing session reads its write at once: {own}"
    );
    let others = call(&server.addr, &other, "get", r#"{"id":"tide"}"#);
    assert!(
        !others.contains("The tide turns at noon."),
        "another session reads the standby, which has not replayed it: {others}"
    );
    let old = call(&server.addr, &other, "get", r#"{"id":"light"}"#);
    assert!(old.contains("harbour light"), "{old}");
    let status = health(&env);
    assert_eq!(status["replicas"][0]["reads"], true, "{status}");

    standby.sql("SELECT pg_wal_replay_resume()");
    replayed(&primary, &standby);
    let later = call(&server.addr, &other, "get", r#"{"id":"tide"}"#);
    assert!(
        later.contains("The tide turns at noon."),
        "once replayed, every session reads it: {later}"
    );
    assert!(
        !server.said().iter().any(|l| l.contains("skip replica")),
        "a healthy standby is never skipped: {:?}",
        server.said()
    );
}

#[test]
fn a_standby_held_back_past_the_lag_bound_is_skipped_and_a_script_reads_its_writes() {
    if !crate::backend::postgres() {
        return;
    }
    let (env, primary, standby) = primary_and_standby("max_replica_lag = 1\n");
    env.ok(&["put", "The harbour light is lit at dusk.", "--id", "light"]);
    replayed(&primary, &standby);
    let doctor = doctor_says(&env);
    assert!(
        doctor
            .lines()
            .any(|l| l.starts_with("ok") && l.contains("replica") && l.contains("takes reads")),
        "{doctor}"
    );
    standby.sql("SELECT pg_wal_replay_pause()");

    // A script's next command reads what the one before wrote.
    env.ok(&["put", "The tide turns at noon.", "--id", "tide"]);
    let read = env.run(&["get", "tide"]);
    assert!(
        read.status.success() && String::from_utf8_lossy(&read.stdout).contains("tide turns"),
        "{}",
        String::from_utf8_lossy(&read.stderr)
    );

    std::thread::sleep(Duration::from_millis(1500));
    // A command that did not write (the mark of the writes gone, as on
    // another machine) skips the standby now past the bound.
    let store = keep::config::server_store_dir(&env.path("data"), &primary.url);
    std::fs::remove_file(store.join("replica-mark")).expect("the mark of the last write");
    let read = env.run(&["get", "tide"]);
    let said = String::from_utf8_lossy(&read.stderr);
    assert!(
        read.status.success() && String::from_utf8_lossy(&read.stdout).contains("tide turns"),
        "{said}"
    );
    assert_eq!(
        said.matches("reads skip replica").count(),
        1,
        "named once: {said}"
    );
    assert!(
        said.contains("behind the primary (max_replica_lag 1 s), its replay is paused"),
        "{said}"
    );
    let out = env.run(&["--json", "doctor"]);
    let doctor: Value = serde_json::from_slice(&out.stdout).unwrap();
    let replica = doctor
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "replica")
        .expect("a replica check");
    assert_eq!(replica["outcome"], "warn", "{replica}");

    standby.sql("SELECT pg_wal_replay_resume()");
    replayed(&primary, &standby);
    let doctor = doctor_says(&env);
    assert!(doctor.contains("takes reads"), "{doctor}");
}

#[test]
fn a_standby_stopped_mid_run_is_skipped_reads_go_on_and_no_acknowledged_write_is_lost() {
    if !crate::backend::postgres() {
        return;
    }
    let (env, primary, standby) = primary_and_standby("");
    env.ok(&["put", "The harbour light is lit at dusk.", "--id", "light"]);
    replayed(&primary, &standby);
    let server = Server::start(&env, &["--listen", "127.0.0.1:0"]);
    let session = open_session(&server.addr);
    let env = Arc::new(env);
    let stop = Arc::new(AtomicBool::new(false));
    let writer = keep_running(&env, &stop, |i| {
        let id = format!("fact-{i}");
        (
            vec![
                "put".into(),
                format!("Fact number {i} while a standby stops."),
                "--id".into(),
                id.clone(),
            ],
            Some(id),
        )
    });
    let reader = keep_running(&env, &stop, |_| {
        (["get", "light"].map(String::from).to_vec(), None)
    });
    std::thread::sleep(Duration::from_secs(2));
    standby.stop();
    let stopped = Instant::now();
    let mut session_reads = 0;
    while stopped.elapsed() < Duration::from_secs(3) {
        let answer = call(&server.addr, &session, "get", r#"{"id":"light"}"#);
        assert!(answer.contains("harbour light"), "{answer}");
        session_reads += 1;
    }
    let during = health(&env);
    stop.store(true, Ordering::Relaxed);
    let (writes, reads) = (writer.join().unwrap(), reader.join().unwrap());

    let replica = &during["replicas"][0];
    assert_eq!(replica["reads"], false, "{during}");
    assert!(
        replica["skipped"]
            .as_str()
            .is_some_and(|s| s.contains("reached") || s.contains("lost")),
        "{during}"
    );
    for ran in writes.iter().chain(&reads) {
        assert!(ran.ok, "every command went on: {}", ran.stderr);
    }
    assert!(
        reads.iter().any(|r| r.at > stopped),
        "reads ran after the stop"
    );
    let acknowledged: Vec<&str> = writes.iter().filter_map(|r| r.id.as_deref()).collect();
    let stored = env.ok(&["list", "--ids", "-n", "100000"]);
    for id in &acknowledged {
        assert!(
            stored.lines().any(|l| l == *id),
            "{id} was acknowledged and lost"
        );
    }
    let named = server
        .said()
        .iter()
        .filter(|l| l.contains("reads skip replica"))
        .count();
    assert!(
        named >= 1,
        "the server names the skipped standby: {:?}",
        server.said()
    );

    standby.restart();
    let until = Instant::now() + Duration::from_secs(30);
    let back = loop {
        let status = health(&env);
        if status["replicas"][0]["reads"] == true {
            break status;
        }
        assert!(
            Instant::now() < until,
            "the standby never took reads again: {status}"
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    assert_eq!(back["replicas"][0]["skipped"], Value::Null, "{back}");
    println!(
        "{} writes and {} reads by commands, {session_reads} reads by one session while the standby was down",
        writes.len(),
        reads.len()
    );
}
