//! Power and sample size: components needed for a minimum detectable difference.
