//! Per-topic score inputs: long and wide CSV/TSV, JSON Lines, trec_eval -q output.
