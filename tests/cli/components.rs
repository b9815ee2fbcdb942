//! Integration tests: components.
