//! Text forms of `check` and `new`.

use super::Human;
use crate::ops::check::CheckOutcome;

impl Human for CheckOutcome {
    fn human(&self) -> String {
        let mut out = format!("protocol  {}", self.protocol.display());
        if let Some(s) = &self.study {
            out.push_str(&format!(" (study `{}`)", s));
        }
        out.push('\n');
        for line in &self.inputs {
            out.push_str(&format!("input     {}\n", line));
        }
        if self.problems.is_empty() {
            out.push_str("\nOK: the protocol can be registered and used as it stands\n");
            return out;
        }
        out.push_str("\nproblems:\n");
        for p in &self.problems {
            out.push_str(&format!("  {}\n", p.message));
            for c in &p.causes {
                out.push_str(&format!("    because: {}\n", c));
            }
            if let Some(f) = &p.fix {
                out.push_str(&format!("    fix: {}\n", f));
            }
        }
        let n = self.problems.len();
        out.push_str(&format!("\nFAILED: {} problem{}\n", n, if n == 1 { "" } else { "s" }));
        out
    }
}
