//! Power, n and d of the paired t-test (statsmodels `TTestPower`) and its normal approximation,
//! re-exported from [`crate::stats::sizing`] (their one home, shared with the verdict's units
//! needed).

pub use crate::stats::sizing::{normal_mde_d, normal_n, normal_power, t_mde_d, t_n, t_power, MAX_N};
