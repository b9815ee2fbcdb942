//! Integration tests: power.
