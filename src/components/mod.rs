//! Component counting under link rules (issue: count components before building).
