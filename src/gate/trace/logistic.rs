//! L2-regularized logistic regression on sparse features, fitted by Newton's method with
//! conjugate-gradient steps (truncated Newton; Nocedal & Wright, *Numerical Optimization*, 2nd
//! ed., 2006, §7.1) and a backtracking (Armijo) line search.
//!
//! The objective is scikit-learn's `LogisticRegression(penalty="l2", C=C)`:
//!
//! f(w, b) = ½‖w‖² + C · Σᵢ log(1 + exp(−yᵢ (xᵢ·w + b))),  yᵢ ∈ {−1, +1},
//!
//! with the intercept b **not** penalized (as scikit-learn's `lbfgs` solver). It is strictly
//! convex when both classes are present, so the minimum is unique and any solver that reaches
//! it gives the same scores; the fit stops when the gradient's largest component is at most
//! [`TOLERANCE`] times that at the start (w = 0, b = 0; at least 1), or when a Newton step no
//! longer decreases f (the gradient is then at rounding level; [`Model::converged`] says
//! whether the tolerance was reached).

/// One row of features: (feature index, value), indices strictly increasing.
pub type Row = Vec<(u32, f64)>;

/// The stopping tolerance on ‖∇f‖∞, relative to max(1, ‖∇f(0)‖∞).
pub const TOLERANCE: f64 = 1e-9;

/// At most this many Newton steps.
pub const MAX_NEWTON: usize = 100;

/// A fitted model.
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    /// Weights, one per feature.
    pub w: Vec<f64>,
    /// The intercept (unpenalized).
    pub b: f64,
    /// Newton steps taken.
    pub iterations: u32,
    /// ‖∇f‖∞ at the solution.
    pub gradient: f64,
    /// Whether ‖∇f‖∞ reached the tolerance within [`MAX_NEWTON`] steps.
    pub converged: bool,
}

impl Model {
    /// The decision function xᵢ·w + b of `row` (the log-odds of the positive class).
    pub fn score(&self, row: &Row) -> f64 {
        dot(row, &self.w) + self.b
    }
}

fn dot(row: &Row, w: &[f64]) -> f64 {
    row.iter().map(|&(j, v)| v * w[j as usize]).sum()
}

/// log(1 + exp(−t)), without overflow.
fn log1p_exp_neg(t: f64) -> f64 {
    if t > 0.0 {
        (-t).exp().ln_1p()
    } else {
        -t + t.exp().ln_1p()
    }
}

/// The logistic function 1 / (1 + exp(−t)), without overflow.
fn sigmoid(t: f64) -> f64 {
    if t >= 0.0 {
        1.0 / (1.0 + (-t).exp())
    } else {
        let e = t.exp();
        e / (1.0 + e)
    }
}

/// The data of one fit: rows, labels (±1) and C.
struct Problem<'a> {
    rows: &'a [&'a Row],
    y: &'a [f64],
    c: f64,
    d: usize,
}

impl Problem<'_> {
    /// The margins zᵢ = xᵢ·w + b.
    fn margins(&self, w: &[f64], b: f64) -> Vec<f64> {
        self.rows.iter().map(|r| dot(r, w) + b).collect()
    }

    /// f at (w, b) with margins `z`.
    fn objective(&self, w: &[f64], z: &[f64]) -> f64 {
        let loss: f64 = z.iter().zip(self.y).map(|(zi, yi)| log1p_exp_neg(yi * zi)).sum();
        0.5 * w.iter().map(|x| x * x).sum::<f64>() + self.c * loss
    }

    /// ∇f (the intercept's component last) and the Hessian weights Dᵢ = σ(zᵢ)(1 − σ(zᵢ)).
    fn gradient(&self, w: &[f64], z: &[f64]) -> (Vec<f64>, Vec<f64>) {
        let mut g = w.to_vec();
        g.push(0.0);
        let mut dw = Vec::with_capacity(z.len());
        for ((r, zi), yi) in self.rows.iter().zip(z).zip(self.y) {
            let s = sigmoid(yi * zi);
            let coef = self.c * (s - 1.0) * yi;
            for &(j, v) in r.iter() {
                g[j as usize] += coef * v;
            }
            g[self.d] += coef;
            let p = sigmoid(*zi);
            dw.push(p * (1.0 - p));
        }
        (g, dw)
    }

    /// H·v with H = diag(1, …, 1, 0) + C X̃ᵀ D X̃ (X̃ the rows with a column of ones).
    fn hessian_times(&self, dw: &[f64], v: &[f64]) -> Vec<f64> {
        let mut out = v.to_vec();
        out[self.d] = 0.0;
        for (r, di) in self.rows.iter().zip(dw) {
            let xv = dot(r, v) + v[self.d];
            let coef = self.c * di * xv;
            for &(j, val) in r.iter() {
                out[j as usize] += coef * val;
            }
            out[self.d] += coef;
        }
        out
    }

    /// The Newton direction: H p = −g solved by conjugate gradients to a residual of at most
    /// min(½, √‖g‖)·‖g‖ (Euclidean norms), at most d + 1 steps.
    fn direction(&self, g: &[f64], dw: &[f64]) -> Vec<f64> {
        let norm = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>().sqrt();
        let gn = norm(g);
        let eta = 0.5f64.min(gn.sqrt());
        let mut p = vec![0.0; g.len()];
        let mut r: Vec<f64> = g.iter().map(|x| -x).collect();
        let mut s = r.clone();
        let mut rr = r.iter().map(|x| x * x).sum::<f64>();
        for _ in 0..g.len().max(1) {
            if rr.sqrt() <= eta * gn {
                break;
            }
            let hs = self.hessian_times(dw, &s);
            let shs: f64 = s.iter().zip(&hs).map(|(a, b)| a * b).sum();
            if shs.is_nan() || shs <= 0.0 {
                break;
            }
            let alpha = rr / shs;
            for i in 0..p.len() {
                p[i] += alpha * s[i];
                r[i] -= alpha * hs[i];
            }
            let rr_new = r.iter().map(|x| x * x).sum::<f64>();
            let beta = rr_new / rr;
            rr = rr_new;
            for i in 0..s.len() {
                s[i] = r[i] + beta * s[i];
            }
        }
        if p.iter().all(|x| *x == 0.0) {
            // No CG progress (a degenerate curvature): the steepest-descent direction.
            return g.iter().map(|x| -x).collect();
        }
        p
    }
}

/// Fits the model on `rows` (features below `d`) with labels `positive` (true: y = +1) and
/// inverse regularization strength `c` > 0, starting from w = 0, b = 0.
pub fn fit(rows: &[&Row], positive: &[bool], c: f64, d: usize) -> Model {
    let y: Vec<f64> = positive.iter().map(|&p| if p { 1.0 } else { -1.0 }).collect();
    let pb = Problem { rows, y: &y, c, d };
    let (mut w, mut b) = (vec![0.0; d], 0.0);
    let mut z = pb.margins(&w, b);
    let mut f = pb.objective(&w, &z);
    let (mut g, mut dw) = pb.gradient(&w, &z);
    let inf = |g: &[f64]| g.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let tol = TOLERANCE * inf(&g).max(1.0);
    let mut iterations = 0;
    while inf(&g) > tol && (iterations as usize) < MAX_NEWTON {
        let p = pb.direction(&g, &dw);
        let slope: f64 = g.iter().zip(&p).map(|(a, b)| a * b).sum();
        let mut step = 1.0;
        let (mut w2, mut b2, mut z2, mut f2);
        loop {
            w2 = w.iter().zip(&p).map(|(x, px)| x + step * px).collect::<Vec<f64>>();
            b2 = b + step * p[d];
            z2 = pb.margins(&w2, b2);
            f2 = pb.objective(&w2, &z2);
            if f2 <= f + 1e-4 * step * slope || step < 1e-12 {
                break;
            }
            step *= 0.5;
        }
        iterations += 1;
        if f2.is_nan() || f2 >= f {
            // No decrease even at a tiny step: the gradient is at rounding level.
            break;
        }
        (w, b, z, f) = (w2, b2, z2, f2);
        (g, dw) = pb.gradient(&w, &z);
    }
    let gradient = inf(&g);
    Model {
        w,
        b,
        iterations,
        gradient,
        converged: gradient <= tol,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One feature x ∈ {0, 1}, C = 1: with no regularization on b, the optimum satisfies the
    /// first-order conditions, checked here directly (∂f/∂b = 0 and ∂f/∂w = 0).
    #[test]
    fn the_fit_solves_the_first_order_conditions() {
        let rows: Vec<Row> = vec![vec![(0, 1.0)], vec![(0, 1.0)], vec![], vec![(0, 1.0)], vec![]];
        let pos = [true, true, false, false, true];
        let refs: Vec<&Row> = rows.iter().collect();
        let m = fit(&refs, &pos, 1.0, 1);
        assert!(m.converged, "{:?}", m);
        // ∂f/∂b = Σ (σ(zᵢ) − [yᵢ = 1]) = 0; ∂f/∂w = w + Σ xᵢ (σ(zᵢ) − [yᵢ = 1]) = 0.
        let resid: Vec<f64> = rows
            .iter()
            .zip(pos)
            .map(|(r, p)| sigmoid(m.score(r)) - if p { 1.0 } else { 0.0 })
            .collect();
        assert!(resid.iter().sum::<f64>().abs() < 1e-9);
        let gw = m.w[0] + resid[0] + resid[1] + resid[3];
        assert!(gw.abs() < 1e-9, "{}", gw);
        assert!(m.w[0] > 0.0);
    }

    /// Separable data stay bounded under the penalty, and the intercept alone fits the base
    /// rate when there are no features: b = log(3/2) for 3 positives of 5.
    #[test]
    fn the_intercept_is_the_log_odds_without_features() {
        let rows: Vec<Row> = vec![vec![]; 5];
        let refs: Vec<&Row> = rows.iter().collect();
        let m = fit(&refs, &[true, true, true, false, false], 10.0, 0);
        assert!((m.b - (1.5f64).ln()).abs() < 1e-10, "{:?}", m);
        let rows: Vec<Row> = vec![vec![(0, 1.0)], vec![(0, -1.0)]];
        let refs: Vec<&Row> = rows.iter().collect();
        let m = fit(&refs, &[true, false], 100.0, 1);
        assert!(m.converged && m.w[0].is_finite() && m.w[0] > 0.0, "{:?}", m);
    }
}
