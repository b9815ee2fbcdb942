//! The reviewer-facing Markdown report.
