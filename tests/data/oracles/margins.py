# Oracle for pledge's hypotheses with a margin (equivalence, non-inferiority,
# superiority by a margin): paired TOST and one-sided paired t-tests, the matching-level
# interval, and their power and sample size.  Run: python margins.py > margins.txt
import numpy as np, scipy, statsmodels
from scipy import stats, integrate, optimize
from statsmodels.stats.weightstats import ttost_paired, DescrStatsW
from statsmodels.stats.power import TTestPower

print("python numpy", np.__version__, "scipy", scipy.__version__, "statsmodels", statsmodels.__version__)
X = np.array([0.70,0.30,0.20,0.60,0.40,0.40,0.00,0.70,0.10,0.30,0.50,0.40,0.00,0.60,0.50,0.30,0.10,0.50,0.20,0.10])
Y = np.array([0.50,0.10,0.00,0.20,0.40,0.30,0.00,0.50,0.30,0.30,0.40,0.40,0.10,0.40,0.20,0.10,0.10,0.60,0.30,0.20])
Z = np.array([0.00,0.00,0.20,0.10,0.30,0.30,0.10,0.20,0.40,0.40,0.40,0.30,0.30,0.20,0.20,0.20,0.10,0.50,0.40,0.30])

print("## Paired TOST (statsmodels ttost_paired(x1, x2, -M, M)): p = max of the two one-sided p")
for name, a, b in [("X-Y", X, Y), ("Y-Z", Y, Z), ("X-Z", X, Z)]:
    for M in (0.05, 0.1, 0.2):
        p, (t1, p1, df1), (t2, p2, df2) = ttost_paired(a, b, -M, M)
        print(f"tost {name} M {M}: p {float(p)!r} lower t {float(t1)!r} p {float(p1)!r} upper t {float(t2)!r} p {float(p2)!r} df {int(df1)}")
print("## One-sided paired t-tests shifted by the margin (scipy.stats.ttest_rel)")
for name, a, b in [("X-Y", X, Y), ("Y-Z", Y, Z), ("Z-X", Z, X)]:
    for M in (0.02, 0.05, 0.1):
        ni = stats.ttest_rel(a + M, b, alternative="greater")
        sm = stats.ttest_rel(a - M, b, alternative="greater")
        ni_less = stats.ttest_rel(a - M, b, alternative="less")
        print(f"shifted {name} M {M}: non-inferiority t {float(ni.statistic)!r} p {float(ni.pvalue)!r}; superiority-by-margin t {float(sm.statistic)!r} p {float(sm.pvalue)!r}; non-inferiority(less) p {float(ni_less.pvalue)!r}")
print("## Matching-level t interval (1 - 2 alpha = 0.90) of the mean difference (DescrStatsW)")
for name, a, b in [("X-Y", X, Y), ("Y-Z", Y, Z)]:
    lo, hi = DescrStatsW(a - b).tconfint_mean(alpha=0.10)
    print(f"ci90 {name}: [{float(lo)!r}, {float(hi)!r}]")

print("## Power and sample size: statsmodels TTestPower with the shifted effect (one-sided 'larger')")
tp = TTestPower()
for kind, delta, M, sd in [("non-inferiority", 0.0, 0.02, 0.1), ("non-inferiority", 0.0, 0.05, 0.2),
                           ("non-inferiority", -0.01, 0.03, 0.1), ("superiority-by-margin", 0.05, 0.02, 0.1)]:
    d = (delta + M) / sd if kind == "non-inferiority" else (delta - M) / sd
    n = tp.solve_power(effect_size=d, alpha=0.05, power=0.8, alternative="larger")
    pw = tp.power(effect_size=d, nobs=50, alpha=0.05, alternative="larger")
    # solve_power stops at its own tolerance; the root to machine precision (brentq, xtol 1e-14):
    root = optimize.brentq(lambda x: tp.power(effect_size=d, nobs=x, alpha=0.05, alternative="larger") - 0.8, 2, 1e6, xtol=1e-14)
    print(f"power {kind} true {delta} margin {M} sd {sd}: effect {d!r} n {float(n)!r} power@50 {float(pw)!r} root {float(root)!r}")

print("## Paired TOST power: exact integral over the sample SD (scipy.integrate.quad), normal approximation, and the statsmodels TTestPower lower bound")
def tost_power_exact(delta, M, sd, n, alpha):
    nu = n - 1
    tc = stats.t.isf(alpha, nu)
    a = M * np.sqrt(n) / sd
    b = delta * np.sqrt(n) / sd
    vmax = nu * (a / tc) ** 2
    f = lambda v: (stats.norm.cdf(a - b - tc * np.sqrt(v / nu)) - stats.norm.cdf(-a - b + tc * np.sqrt(v / nu))) * stats.chi2.pdf(v, nu)
    # The chi-square density is negligible beyond 40 SDs (sqrt(2 nu)) of its mean: integrate
    # that window only, split at the mode so quad sees the peak.
    lo = max(0.0, nu - 40 * np.sqrt(2 * nu))
    hi = min(vmax, nu + 40 * np.sqrt(2 * nu))
    if hi <= lo:
        return 0.0
    pts = [x for x in (max(nu - 2, 0.0),) if lo < x < hi]
    val, err = integrate.quad(f, lo, hi, points=pts or None, epsabs=1e-14, epsrel=1e-12, limit=500)
    return val
def tost_power_normal(delta, M, sd, n, alpha):
    z = stats.norm.isf(alpha)
    se = sd / np.sqrt(n)
    return max(0.0, stats.norm.cdf((M - delta) / se - z) + stats.norm.cdf((M + delta) / se - z) - 1)
def tost_power_bound(delta, M, sd, n, alpha):
    return max(0.0, tp.power((M + delta) / sd, n, alpha, alternative="larger") + tp.power((M - delta) / sd, n, alpha, alternative="larger") - 1)
for delta, M, sd, n in [(0.0, 0.05, 0.1, 20), (0.0, 0.05, 0.1, 40), (0.01, 0.05, 0.1, 40), (0.0, 0.1, 0.2, 10), (0.0, 0.02, 0.1, 300), (0.02, 0.05, 0.2, 150), (0.0, 0.3, 0.2, 2)]:
    print(f"tost power true {delta} margin {M} sd {sd} n {n}: exact {float(tost_power_exact(delta, M, sd, n, 0.05))!r} normal {float(tost_power_normal(delta, M, sd, n, 0.05))!r} bound {float(tost_power_bound(delta, M, sd, n, 0.05))!r}")
for delta, M, sd in [(0.0, 0.05, 0.1), (0.01, 0.05, 0.1), (0.0, 0.02, 0.1)]:
    n = optimize.brentq(lambda n: tost_power_exact(delta, M, sd, n, 0.05) - 0.8, 3, 5000, xtol=1e-12)
    nn = optimize.brentq(lambda n: tost_power_normal(delta, M, sd, n, 0.05) - 0.8, 2, 5000, xtol=1e-12)
    print(f"tost n true {delta} margin {M} sd {sd} power 0.8: exact {float(n)!r} normal {float(nn)!r}")
print("## Units an inconclusive verdict needs at the observed SD, and a protocol's requirement (the same exact roots)")
# Non-inferiority Z - Y > -0.02 on data set S: sigma = the SD of the paired differences Z - Y,
# d = M / sigma, one-sided; the verdict's units needed.
sd_yz = float(np.std(Z - Y, ddof=1))
d = 0.02 / sd_yz
root = optimize.brentq(lambda x: tp.power(effect_size=d, nobs=x, alpha=0.05, alternative="larger") - 0.8, 2, 1e6, xtol=1e-14)
print(f"needed non-inferiority Z-Y margin 0.02: sd {sd_yz!r} effect {d!r} root {float(root)!r} units {int(np.ceil(root))}")
# A protocol registering K = 3 samples per question: sigma_K = sqrt(0.3^2 + 0.4^2 / 3); its
# non-inferiority hypothesis with margin 0.1 at a true difference 0, one-sided.
sd_k = float(np.sqrt(0.3 ** 2 + 0.4 ** 2 / 3))
d = 0.1 / sd_k
root = optimize.brentq(lambda x: tp.power(effect_size=d, nobs=x, alpha=0.05, alternative="larger") - 0.8, 2, 1e6, xtol=1e-14)
print(f"protocol non-inferiority K 3 sd_topic 0.3 sd_within 0.4 margin 0.1: sd_K {sd_k!r} effect {d!r} root {float(root)!r} components {int(np.ceil(root))}")
