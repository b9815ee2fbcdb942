//! Integration tests: trec.
