"""Oracle for `pledge power --samples-per-topic` (src/power/samples.rs): the topics a paired
t-test needs at the SD of a question's K-sample mean difference, sigma_K = sqrt(sigma_topic^2 +
sigma_within^2 / K) (Miller 2024, "Adding Error Bars to Evals", section 3), by statsmodels
TTestPower at the effect size delta / sigma_K. Run: python3 samples_power.py > samples-power.md
"""
import math
import sys

import statsmodels
from statsmodels.stats.power import TTestPower

SD_TOPIC, SD_WITHIN, DELTA, ALPHA, POWER = 0.3, 0.4, 0.1, 0.05, 0.8
print("# Power with K samples per question: oracle values\n")
print("Made by `python3 samples_power.py` (Python %s, statsmodels %s): sigma_topic %s, sigma_within %s,"
      % (sys.version.split()[0], statsmodels.__version__, SD_TOPIC, SD_WITHIN))
print("delta %s, alpha %s, power %s, two-sided; TTestPower().solve_power(effect_size=delta/sigma_K).\n"
      % (DELTA, ALPHA, POWER))
print("| K | sigma_K | effect size | n (unrounded) | n |")
print("| --- | --- | --- | --- | --- |")
for k in [1, 2, 3, 4, 8, 16, None]:
    sd = SD_TOPIC if k is None else math.sqrt(SD_TOPIC ** 2 + SD_WITHIN ** 2 / k)
    n = TTestPower().solve_power(effect_size=DELTA / sd, alpha=ALPHA, power=POWER, alternative="two-sided")
    print("| %s | %r | %r | %r | %d |" % ("unlimited" if k is None else k, sd, DELTA / sd, n, math.ceil(n)))
