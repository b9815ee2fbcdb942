//! One integration-test binary running the real `pledge` CLI in hermetic temporary git
//! repositories: fixed clock (`PLEDGE_NOW`), `GIT_CONFIG_GLOBAL=/dev/null`, no system config.

mod alloc;
mod common;
mod tools;

/// Counts what each thread holds, so reader tests can bound their memory (`alloc::peak`).
#[global_allocator]
static ALLOC: alloc::Counting = alloc::Counting;

mod analyze;
mod budget;
mod clock;
mod components;
mod confirmatory;
mod damaged;
mod docs;
mod drafts;
mod environment;
mod estimators;
mod family;
mod figures;
mod formats;
mod gate;
mod layers;
mod ledger;
mod limits;
mod names;
mod power;
mod precommit;
mod protocol;
mod ranking_direction;
mod readers;
mod readers_fuzz;
mod readme;
mod registration;
mod report;
mod reviewing;
mod samples;
mod snapshots_commands;
mod stats;
mod trace;
mod trec;
mod verdicts;
mod walkthroughs;
mod witness;
