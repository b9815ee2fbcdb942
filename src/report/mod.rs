//! The reviewer-facing Markdown report.
pub mod svg;
