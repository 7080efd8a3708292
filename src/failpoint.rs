//! Test-only failure injection: `CODECOMPASS_FAILPOINTS=name=action[,name=action]` makes the
//! named point sleep (`sleep(MS)`), exit abruptly as if killed (`exit`), or panic (`panic`).
//!
//! Crash-safety tests use it to stop a writer at chosen points and check that the store
//! still opens and answers from the last published state. Without the variable it costs one
//! environment lookup per point passed, and the points sit on no per-file path.

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
        }
    }
}
