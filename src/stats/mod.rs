//! Resampling statistics: paired, stratified and component bootstrap; paired t, randomization.
