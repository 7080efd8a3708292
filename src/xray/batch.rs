//! Batches: several scans at several refs in one run, each scan's answer apart. A batch is
//! what `xray --batch FILE.json`, `xray_search_batch` and a background job run.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::{Evaluator, ScriptLimits, XrayRequest};
use crate::query::Filters;

/// Matches per scan when a scan gives no limit.
pub const DEFAULT_SCAN_LIMIT: usize = 1000;

/// Several scans × several refs.
#[derive(Clone, Debug, Default, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Batch {
    /// The refs every scan runs at (branches, tags, commits); none: the working tree.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refs: Vec<String>,
    /// The scans.
    pub scans: Vec<Scan>,
    /// The whole batch stops after this many seconds; what was found is kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_seconds: Option<f64>,
    /// At most this many files parsed per scan and ref.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_files: Option<usize>,
}

/// One scan: a driver and an evaluator, with the filters of `xray`.
#[derive(Clone, Debug, Default, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scan {
    /// A name for the scan's answers (default: `scan N`, from 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Text every match contains (a regex; a literal with `literal`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub driver: Option<String>,
    /// The driver is a literal.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub literal: bool,
    /// The driver ignores case.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ignore_case: bool,
    /// A tree-sitter query.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// A Rhai script's text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub script: Option<String>,
    /// A Rhai script's file, relative to the batch file (command line only; read when the
    /// batch is loaded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub script_file: Option<String>,
    /// Only these languages.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lang: Vec<String>,
    /// Only paths matching these globs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub path: Vec<String>,
    /// Not paths matching these globs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exclude: Vec<String>,
    /// At most this many matches (default 1000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<usize>,
    /// A script's operation budget per file (default 1,000,000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_operations: Option<u64>,
    /// A script's time budget per file, in milliseconds (default 2,000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_time_ms: Option<u64>,
}

impl Scan {
    /// The scan's name in answers: its own, or `scan N` for the `index`-th (from 0).
    pub fn label(&self, index: usize) -> String {
        self.name.clone().unwrap_or_else(|| format!("scan {}", index + 1))
    }

    /// The request and filters of this scan, within `batch`'s limits; `timeout` is what is
    /// left of the batch's time. An error says what the scan lacks.
    pub fn request(&self, batch: &Batch, timeout: Option<Duration>) -> Result<(XrayRequest, Filters), String> {
        let evaluator = match (&self.query, &self.script) {
            (Some(q), None) => Evaluator::Query(q.clone()),
            (None, Some(s)) => Evaluator::Script(s.clone()),
            (Some(_), Some(_)) => return Err("give `query` or `script`, not both".to_owned()),
            (None, None) if self.script_file.is_some() => {
                return Err("`script_file` is read by the command line; give the script's text in `script`".to_owned());
            }
            (None, None) => return Err("a scan needs `query` or `script`".to_owned()),
        };
        let request = XrayRequest {
            driver: self.driver.clone(),
            literal: self.literal,
            ignore_case: self.ignore_case,
            evaluator,
            limit: self.limit.unwrap_or(DEFAULT_SCAN_LIMIT).max(1),
            max_files: batch.max_files,
            timeout,
            limits: ScriptLimits {
                max_operations: self.max_operations.unwrap_or(ScriptLimits::default().max_operations),
                file_time: self.file_time_ms.map_or(ScriptLimits::default().file_time, Duration::from_millis),
            },
        };
        let filters = Filters {
            langs: self.lang.clone(),
            paths: self.path.clone(),
            excludes: self.exclude.clone(),
            ..Filters::default()
        };
        Ok((request, filters))
    }
}

impl Batch {
    /// Checks what can be checked before running: at least one scan, a timeout that is a
    /// positive number, each scan with one evaluator.
    pub fn validate(&self) -> Result<(), String> {
        if self.scans.is_empty() {
            return Err("the batch has no scans".to_owned());
        }
        if let Some(t) = self.timeout_seconds
            && !(t > 0.0 && t.is_finite())
        {
            return Err("timeout_seconds must be a positive number".to_owned());
        }
        for (i, scan) in self.scans.iter().enumerate() {
            scan.request(self, None).map_err(|e| format!("{}: {e}", scan.label(i)))?;
        }
        Ok(())
    }
}
