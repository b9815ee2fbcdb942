//! TREC runs and qrels: per-topic measures as trec_eval computes them, and pool bias.
