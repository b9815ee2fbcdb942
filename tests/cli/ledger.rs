//! Integration tests: ledger.
