//! Test-only failure injection: `CODECOMPASS_FAILPOINTS=name=action[,name=action]` makes the
//! named point sleep (`sleep(MS)`), exit abruptly as if killed (`exit`), panic (`panic`), wait
//! for a test to let it go on (`wait(PATH)`: it creates `PATH.reached`, then waits until `PATH`
//! exists, a minute at most), or, where the code asks with [`fails`], fail as the real
//! operation can (`fail`).
//!
//! Crash-safety tests use it to stop a writer at chosen points and check that the store
//! still opens and answers from the last published state. Without the variable it costs one
//! environment lookup per point passed, and the points sit on no per-file path.

/// Whether the point `name` is asked to fail (`name=fail`); it also does what [`hit`] does.
pub fn fails(name: &str) -> bool {
    hit(name);
    std::env::var("CODECOMPASS_FAILPOINTS").is_ok_and(|spec| {
        spec.split(',').filter_map(|item| item.split_once('=')).any(|(p, a)| p.trim() == name && a.trim() == "fail")
    })
}

/// Passes the point `name`, doing what the environment asks of it.
pub fn hit(name: &str) {
    let Ok(spec) = std::env::var("CODECOMPASS_FAILPOINTS") else {
        return;
    };
    for item in spec.split(',') {
        let Some((point, action)) = item.split_once('=') else {
            continue;
        };
        if point.trim() != name {
            continue;
        }
        let action = action.trim();
        if action == "exit" {
            // As abrupt as a kill: no destructors, no flushing.
            std::process::abort();
        } else if action == "panic" {
            panic!("failpoint {name}");
        } else if let Some(ms) = action.strip_prefix("sleep(").and_then(|a| a.strip_suffix(')')) {
            std::thread::sleep(std::time::Duration::from_millis(ms.parse().unwrap_or(0)));
        } else if let Some(path) = action.strip_prefix("wait(").and_then(|a| a.strip_suffix(')')) {
            let go = std::path::Path::new(path);
            let _ = std::fs::write(format!("{path}.reached"), b"");
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
            while !go.exists() && std::time::Instant::now() < deadline {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
        }
    }
}
