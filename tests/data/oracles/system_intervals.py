# Oracle for pledge's per-system intervals and the per-pair detail (win/tie/loss, McNemar,
# correlation, paired and unpaired SE). Run: python system_intervals.py > system-intervals.txt
import numpy as np, scipy, statsmodels
from scipy import stats
import statsmodels.api as sm
from statsmodels.stats.proportion import proportion_confint
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.weightstats import DescrStatsW

print("python numpy", np.__version__, "scipy", scipy.__version__, "statsmodels", statsmodels.__version__)
X = [0.70,0.30,0.20,0.60,0.40,0.40,0.00,0.70,0.10,0.30,0.50,0.40,0.00,0.60,0.50,0.30,0.10,0.50,0.20,0.10]
Y = [0.50,0.10,0.00,0.20,0.40,0.30,0.00,0.50,0.30,0.30,0.40,0.40,0.10,0.40,0.20,0.10,0.10,0.60,0.30,0.20]
Z = [0.00,0.00,0.20,0.10,0.30,0.30,0.10,0.20,0.40,0.40,0.40,0.30,0.30,0.20,0.20,0.20,0.10,0.50,0.40,0.30]

print("## t interval of a system mean (statsmodels DescrStatsW.tconfint_mean, df = n - 1)")
for name, v in [("X", X), ("Y", Y), ("Z", Z)]:
    d = DescrStatsW(np.array(v))
    for level in (0.95, 0.90):
        lo, hi = d.tconfint_mean(alpha=1 - level)
        print(f"{name} level {level}: mean {float(d.mean)!r} se {float(d.std_mean)!r} ci [{float(lo)!r}, {float(hi)!r}]")

print("## Wilson score interval (statsmodels proportion_confint method='wilson')")
for count, nobs in [(8, 12), (9, 12), (4, 12), (0, 10), (10, 10), (1, 1), (37, 50)]:
    for level in (0.95, 0.90):
        lo, hi = proportion_confint(count, nobs, alpha=1 - level, method="wilson")
        print(f"wilson {count}/{nobs} level {level}: [{float(lo)!r}, {float(hi)!r}]")

print("## Cluster-robust (CRV1) SE and t interval of a system mean, df = G - 1")
A = [1,1,1,1,0, 1,0, 0,0,1, 1,1]
B = [0,0,1,0,0, 1,1, 0,0,0, 1,0]
g = [0,0,0,0,0, 1,1, 2,2,2, 3,3]
for name, v in [("A", A), ("B", B)]:
    y = np.array(v, dtype=float)
    fit = sm.OLS(y, np.ones(len(y))).fit(cov_type="cluster", cov_kwds={"groups": np.array(g)}, use_t=True)
    lo, hi = fit.conf_int(alpha=0.05)[0]
    print(f"crv1 {name}: mean {float(fit.params[0])!r} se {float(fit.bse[0])!r} df {fit.df_resid_inference} ci95 [{float(lo)!r}, {float(hi)!r}]")
# Mean of component means with the t interval over the G component means.
for name, v in [("A", A), ("B", B)]:
    y = np.array(v, dtype=float)
    cm = np.array([y[np.array(g) == k].mean() for k in range(4)])
    d = DescrStatsW(cm)
    lo, hi = d.tconfint_mean(alpha=0.05)
    print(f"component-mean {name}: means {cm.tolist()} mean {float(d.mean)!r} se {float(d.std_mean)!r} ci95 [{float(lo)!r}, {float(hi)!r}]")

print("## scipy.stats.bootstrap percentile interval of a system mean (Monte-Carlo, 1,000,000 resamples)")
for name, v in [("X", X), ("Y", Y)]:
    r = stats.bootstrap((np.array(v),), np.mean, n_resamples=1_000_000, method="percentile",
                        confidence_level=0.95, random_state=np.random.default_rng(20240601), vectorized=True)
    print(f"scipy bootstrap {name}: [{float(r.confidence_interval.low)!r}, {float(r.confidence_interval.high)!r}] se {float(r.standard_error)!r}")

print("## Per-pair detail over topics (numpy): wins/ties/losses, Pearson r, paired and unpaired SE")
for name, a, b in [("X-Y", X, Y), ("X-Z", X, Z), ("Y-Z", Y, Z), ("A-B", A, B)]:
    a, b = np.array(a, float), np.array(b, float)
    d = a - b
    n = len(d)
    w, t, l = int((d > 1e-9).sum()), int((abs(d) <= 1e-9).sum()), int((d < -1e-9).sum())
    r = np.corrcoef(a, b)[0, 1]
    se_p = d.std(ddof=1) / np.sqrt(n)
    se_u = np.sqrt(a.var(ddof=1) / n + b.var(ddof=1) / n)
    print(f"pair {name}: wins {w} ties {t} losses {l} r {float(r)!r} paired_se {float(se_p)!r} unpaired_se {float(se_u)!r}")

print("## McNemar (statsmodels mcnemar exact=True) and the mid-p (scipy.stats.binom)")
def midp(b, c):
    n, k = b + c, min(b, c)
    return min(1.0, 2 * (stats.binom.cdf(k - 1, n, 0.5) + 0.5 * stats.binom.pmf(k, n, 0.5)))
for b, c in [(15, 5), (5, 1), (3, 3), (0, 4), (40, 22), (0, 0)]:
    if b + c == 0:
        print(f"mcnemar b {b} c {c}: exact 1.0 midp 1.0 (no discordant pairs)")
        continue
    ex = mcnemar(np.array([[0, b], [c, 0]]), exact=True).pvalue
    print(f"mcnemar b {b} c {c}: exact {float(ex)!r} midp {float(midp(b, c))!r}")
