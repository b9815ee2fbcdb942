//! One integration-test binary running the real `pledge` CLI in hermetic temporary git
//! repositories: fixed clock (`PLEDGE_NOW`), `GIT_CONFIG_GLOBAL=/dev/null`, no system config.

mod common;
mod tools;

mod analyze;
mod components;
mod damaged;
mod docs;
mod drafts;
mod formats;
mod ledger;
mod names;
mod power;
mod protocol;
mod readers_fuzz;
mod registration;
mod report;
mod trec;
mod walkthroughs;
mod witness;
