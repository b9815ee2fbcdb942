//! Per-topic computation of every [`Measure`], following trec_eval's `form_res_rels.c` (the
//! ranked list of relevance values) and `m_*.c` (one function per measure; the loops of the
//! gain-based measures and of the interpolated precisions are ported as they are).

use super::measures::{Gains, Measure};
use super::qrels::TopicQrels;

/// trec_eval's `RELVALUE_NONPOOL`: a retrieved document absent from the qrels.
const NONPOOL: i64 = -1;
/// trec_eval's `RELVALUE_UNJUDGED`: in the qrels with a negative grade, read as "in the pool,
/// unjudged" (`--negative-unjudged`).
const UNJUDGED: i64 = -2;
/// A negative grade read as judged and non-relevant (pledge's default reading).
const JUDGED_NEGATIVE: i64 = i64::MIN;
/// trec_eval's `INFAP_EPSILON`.
const INFAP_EPSILON: f64 = 0.00001;

/// How grades are read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Judging {
    /// Grade at or above which a document is relevant (trec_eval `-l`, default 1).
    pub relevance_level: i32,
    /// Treat negative grades as "in the pool but unjudged" (trec_eval's reading, which matters
    /// for the measures that tell judged from unjudged documents: `bpref`, `gm_bpref`,
    /// `infAP`, `num_nonrel_judged_ret`, `relstring`, `unj`, `rbp_resid`, `judged`,
    /// `judged_ret`, and `-J`). Default false: a negative grade is judged and non-relevant.
    pub negative_unjudged: bool,
}

impl Default for Judging {
    fn default() -> Self {
        Judging {
            relevance_level: 1,
            negative_unjudged: false,
        }
    }
}

/// Options of one topic's evaluation, as trec_eval's flags set them.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct TopicOptions {
    /// How grades are read (`-l`, negative grades).
    pub judging: Judging,
    /// trec_eval `-J`: unjudged documents are removed from the ranking before any measure
    /// (possibly leaving it empty).
    pub judged_only: bool,
    /// trec_eval `-M N`: only the first N documents of the ranking are used.
    pub max_retrieved: Option<usize>,
    /// trec_eval `-N N`: documents in the collection (used by `utility` only; default 0, as
    /// trec_eval's code has it).
    pub num_docs_in_coll: i64,
}

/// The values of one topic.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicValues {
    /// One value per non-string measure, in order (`relstring` has none).
    pub values: Vec<f64>,
    /// The `relstring` text, when that measure was asked for.
    pub relstring: Option<String>,
}

/// One gain level of `gain_init.c`'s `setup_gains`.
#[derive(Debug, Clone, Copy)]
struct GainLevel {
    level: i64,
    gain: f64,
    count: usize,
}

/// The ranked list of one topic and the counts of its qrels (trec_eval's `RES_RELS`).
struct Topic {
    /// Relevance value per rank: the grade, or NONPOOL / UNJUDGED / JUDGED_NEGATIVE.
    rels: Vec<i64>,
    /// (grade, number of judged documents) for grades >= 0, ascending.
    levels: Vec<(i64, usize)>,
    /// Documents of the qrels with a negative grade read as judged non-relevant.
    neg_judged: usize,
    level: i64,
    num_rel: usize,
    num_rel_ret: usize,
    nonpool: usize,
    unjudged: usize,
    /// Relevant among the top i, i = 0..=n.
    rel_prefix: Vec<usize>,
    /// Sum of precisions at the relevant documents among the top i.
    ap_prefix: Vec<f64>,
    /// Judged (not NONPOOL / UNJUDGED) among the top i.
    judged_prefix: Vec<usize>,
    /// 1-based rank of the first relevant document.
    first_rel: Option<usize>,
}

impl Topic {
    fn new(grades: &[Option<i32>], tq: Option<&TopicQrels>, o: &TopicOptions) -> Topic {
        let j = o.judging;
        let level = j.relevance_level as i64;
        let value = |g: Option<i32>| match g {
            None => NONPOOL,
            Some(g) if g < 0 && j.negative_unjudged => UNJUDGED,
            Some(g) if g < 0 => JUDGED_NEGATIVE,
            Some(g) => g as i64,
        };
        let take = o.max_retrieved.map_or(grades.len(), |m| m.min(grades.len()));
        let mut rels: Vec<i64> = grades[..take].iter().map(|&g| value(g)).collect();
        if o.judged_only {
            rels.retain(|&v| v != NONPOOL && v != UNJUDGED);
        }
        let mut counts: std::collections::BTreeMap<i64, usize> = std::collections::BTreeMap::new();
        let mut neg_judged = 0;
        if let Some(tq) = tq {
            for &g in tq.grades.values() {
                if g >= 0 {
                    *counts.entry(g as i64).or_insert(0) += 1;
                } else if !j.negative_unjudged {
                    neg_judged += 1;
                }
            }
        }
        let levels: Vec<(i64, usize)> = counts.into_iter().collect();
        let num_rel = levels.iter().filter(|(g, _)| *g >= level).map(|(_, c)| c).sum();
        let n = rels.len();
        let mut rel_prefix = Vec::with_capacity(n + 1);
        let mut ap_prefix = Vec::with_capacity(n + 1);
        let mut judged_prefix = Vec::with_capacity(n + 1);
        rel_prefix.push(0);
        ap_prefix.push(0.0);
        judged_prefix.push(0);
        let (mut rel, mut ap, mut judged, mut nonpool, mut unjudged) = (0usize, 0.0f64, 0usize, 0usize, 0usize);
        let mut first_rel = None;
        for (i, &v) in rels.iter().enumerate() {
            match v {
                NONPOOL => nonpool += 1,
                UNJUDGED => unjudged += 1,
                _ => judged += 1,
            }
            if v >= level {
                rel += 1;
                ap += rel as f64 / (i + 1) as f64;
                first_rel.get_or_insert(i + 1);
            }
            rel_prefix.push(rel);
            ap_prefix.push(ap);
            judged_prefix.push(judged);
        }
        Topic {
            rels,
            levels,
            neg_judged,
            level,
            num_rel,
            num_rel_ret: rel,
            nonpool,
            unjudged,
            rel_prefix,
            ap_prefix,
            judged_prefix,
            first_rel,
        }
    }

    fn n(&self) -> usize {
        self.rels.len()
    }

    fn is_rel(&self, v: i64) -> bool {
        v >= self.level
    }

    /// Judged and non-relevant (bpref's and infAP's "nonrel").
    fn is_nonrel(&self, v: i64) -> bool {
        (v >= 0 && v < self.level) || v == JUDGED_NEGATIVE
    }

    fn rel_at(&self, k: usize) -> usize {
        self.rel_prefix[k.min(self.n())]
    }

    /// `setup_gains`: the listed levels with their gains, every other level present in the
    /// qrels (and level 0) with its grade as gain; sorted by gain ascending.
    fn gains(&self, pairs: &[(i64, f64)]) -> Vec<GainLevel> {
        let mut g: Vec<GainLevel> = pairs
            .iter()
            .map(|&(level, gain)| GainLevel { level, gain, count: 0 })
            .collect();
        let zero = (!self.levels.is_empty() && self.levels[0].0 != 0).then_some((0, 0));
        for (level, count) in zero.into_iter().chain(self.levels.iter().copied()) {
            match g.iter_mut().find(|x| x.level == level) {
                Some(x) => x.count = count,
                None => g.push(GainLevel {
                    level,
                    gain: level as f64,
                    count,
                }),
            }
        }
        g.sort_by(|a, b| a.gain.total_cmp(&b.gain));
        g
    }

    fn interpolated(&self, cuts: &[i64]) -> Vec<f64> {
        // m_11pt_avg.c / m_iprec_at_recall.c: cuts in the given order.
        let n = self.n();
        let rr = self.num_rel_ret as i64;
        let mut vals = vec![0.0; cuts.len()];
        let mut cc = cuts.len() as isize - 1;
        while cc >= 0 && cuts[cc as usize] > rr {
            cc -= 1;
        }
        // trec_eval divides 0 by 0 here for an empty ranking (-J); pledge gives 0.
        let mut int_precis = if n > 0 { rr as f64 / n as f64 } else { 0.0 };
        let mut rel_so_far = rr;
        let mut i = n;
        while i > 0 && rel_so_far > 0 {
            let precis = rel_so_far as f64 / i as f64;
            if int_precis < precis {
                int_precis = precis;
            }
            if self.is_rel(self.rels[i - 1]) {
                while cc >= 0 && rel_so_far == cuts[cc as usize] {
                    vals[cc as usize] = int_precis;
                    cc -= 1;
                }
                rel_so_far -= 1;
            }
            i -= 1;
        }
        while cc >= 0 {
            vals[cc as usize] = int_precis;
            cc -= 1;
        }
        vals
    }

    fn bpref(&self) -> f64 {
        let num_nonrel: usize = self
            .levels
            .iter()
            .filter(|(g, _)| *g < self.level)
            .map(|(_, c)| c)
            .sum::<usize>()
            + self.neg_judged;
        let (mut nonrel_so_far, mut bpref) = (0usize, 0.0f64);
        let r = self.num_rel;
        for &v in &self.rels {
            if v == NONPOOL || v == UNJUDGED {
                continue;
            }
            if self.is_nonrel(v) {
                nonrel_so_far += 1;
            } else if nonrel_so_far > 0 {
                bpref += 1.0 - nonrel_so_far.min(r) as f64 / num_nonrel.min(r) as f64;
            } else {
                bpref += 1.0;
            }
        }
        if r > 0 {
            bpref /= r as f64;
        }
        bpref
    }

    fn inf_ap(&self) -> f64 {
        let (mut nonrel, mut rel, mut pool_unj, mut inf_ap) = (0usize, 0usize, 0usize, 0.0f64);
        for (j, &v) in self.rels.iter().enumerate() {
            if v == NONPOOL {
                continue;
            }
            if v == UNJUDGED {
                pool_unj += 1;
                continue;
            }
            if self.is_nonrel(v) {
                nonrel += 1;
            } else {
                rel += 1;
                if j == 0 {
                    inf_ap += 1.0;
                } else {
                    let fj = j as f64;
                    inf_ap += 1.0 / (fj + 1.0)
                        + (fj / (fj + 1.0))
                            * ((rel - 1 + nonrel + pool_unj) as f64 / fj)
                            * (((rel - 1) as f64 + INFAP_EPSILON) / ((rel - 1 + nonrel) as f64 + 2.0 * INFAP_EPSILON));
                }
            }
        }
        ratio(inf_ap, self.num_rel as f64)
    }

    fn bin_g(&self) -> f64 {
        let (mut rel_so_far, mut sum) = (0usize, 0.0f64);
        for (i, &v) in self.rels.iter().enumerate() {
            if self.is_rel(v) {
                rel_so_far += 1;
                sum += 1.0 / ((3 + i - rel_so_far) as f64).log2();
            }
        }
        if rel_so_far > 0 {
            ratio(sum, self.num_rel as f64)
        } else {
            0.0
        }
    }

    /// `m_ndcg.c`: (DCG of the ranking, ideal DCG of the topic).
    fn dcg(&self, gains: &Gains) -> (f64, f64) {
        let g = self.gains(&gains.pairs);
        let gain = |v: i64| get_gain(v, &g);
        let n = self.n();
        let mut ideal = Ideal::new(&g);
        let (mut rd, mut id) = (0.0, 0.0);
        let mut i = 0;
        while i < n && ideal.gain > 0.0 {
            let rg = gain(self.rels[i]);
            if rg != 0.0 {
                rd += rg / ((i + 2) as f64).log2();
            }
            ideal.step();
            if ideal.gain > 0.0 {
                id += ideal.gain / ((i + 2) as f64).log2();
            }
            i += 1;
        }
        while i < n {
            let rg = gain(self.rels[i]);
            if rg != 0.0 {
                rd += rg / ((i + 2) as f64).log2();
            }
            i += 1;
        }
        while ideal.gain > 0.0 {
            ideal.step();
            if ideal.gain > 0.0 {
                id += ideal.gain / ((i + 2) as f64).log2();
            }
            i += 1;
        }
        (rd, id)
    }

    /// `m_ndcg_rel.c`.
    fn ndcg_rel(&self, gains: &Gains) -> f64 {
        let g = self.gains(&gains.pairs);
        let n = self.n();
        let mut ideal = Ideal::new(&g);
        let (mut rd, mut id, mut sum) = (0.0, 0.0, 0.0);
        let (mut num_rel_ret, mut num_rel) = (0usize, 0usize);
        let mut i = 0;
        while i < n && ideal.gain > 0.0 {
            let rg = get_gain(self.rels[i], &g);
            if rg != 0.0 {
                rd += rg / ((i + 2) as f64).log2();
            }
            ideal.step();
            if ideal.gain > 0.0 {
                num_rel += 1;
                id += ideal.gain / ((i + 2) as f64).log2();
            }
            if rg > 0.0 {
                sum += ratio(rd, id);
                num_rel_ret += 1;
            }
            i += 1;
        }
        while i < n {
            let rg = get_gain(self.rels[i], &g);
            if rg != 0.0 {
                rd += rg / ((i + 2) as f64).log2();
            }
            if rg > 0.0 {
                sum += ratio(rd, id);
                num_rel_ret += 1;
            }
            i += 1;
        }
        while ideal.gain > 0.0 {
            ideal.step();
            if ideal.gain > 0.0 {
                num_rel += 1;
                id += ideal.gain / ((i + 2) as f64).log2();
            }
            i += 1;
        }
        sum += (num_rel as f64 - num_rel_ret as f64) * ratio(rd, id);
        if sum > 0.0 {
            ratio(sum, num_rel as f64)
        } else {
            0.0
        }
    }

    /// `m_Rndcg.c`.
    fn rndcg(&self, gains: &Gains) -> f64 {
        let g = self.gains(&gains.pairs);
        if self.num_rel == 0 {
            return 0.0;
        }
        let n = self.n();
        let mut ideal = Ideal::new(&g);
        let mut old_ideal_gain = ideal.gain;
        let (mut rd, mut id, mut sum, mut changes) = (0.0, 0.0, 0.0, 0usize);
        let mut i = 0;
        while i < n && ideal.gain > 0.0 {
            let rg = get_gain(self.rels[i], &g);
            ideal.step();
            if old_ideal_gain != ideal.gain {
                if id > 0.0 {
                    sum += rd / id;
                    changes += 1;
                }
                old_ideal_gain = ideal.gain;
            }
            if rg != 0.0 {
                rd += rg / ((i + 2) as f64).log2();
            }
            if ideal.gain > 0.0 {
                id += ideal.gain / ((i + 2) as f64).log2();
            }
            i += 1;
        }
        if i < n {
            while i < n {
                let rg = get_gain(self.rels[i], &g);
                if rg != 0.0 {
                    rd += rg / ((i + 2) as f64).log2();
                }
                i += 1;
            }
            if id > 0.0 {
                sum += rd / id;
                changes += 1;
            }
        }
        while ideal.gain > 0.0 {
            ideal.step();
            if old_ideal_gain != ideal.gain {
                if id > 0.0 {
                    sum += rd / id;
                    changes += 1;
                }
                old_ideal_gain = ideal.gain;
            }
            if ideal.gain > 0.0 {
                id += ideal.gain / ((i + 2) as f64).log2();
            }
            i += 1;
        }
        // trec_eval divides 0 by 0 when no gain is positive; pledge gives 0.
        ratio(sum, changes as f64)
    }

    /// `m_G.c`.
    fn g(&self, gains: &Gains) -> f64 {
        let g = self.gains(&gains.pairs);
        let n = self.n();
        let mut ideal = Ideal::new(&g);
        let (mut results_g, mut sum_results, mut sum_ideal, mut sum_cost) = (0.0, 0.0, 0.0, 0.0);
        let min_cost = 1.0;
        let mut i = 0;
        while i < n && ideal.gain > 0.0 {
            let rg = get_gain(self.rels[i], &g);
            sum_results += rg;
            ideal.step();
            if ideal.gain > 0.0 {
                sum_ideal += ideal.gain;
            }
            if ideal.gain >= min_cost {
                sum_cost += ideal.gain;
            } else {
                sum_cost += min_cost;
            }
            if rg != 0.0 {
                results_g += rg / (2.0 + sum_cost - sum_results).log2();
            }
            i += 1;
        }
        while i < n {
            let rg = get_gain(self.rels[i], &g);
            sum_results += rg;
            sum_cost += min_cost;
            if rg != 0.0 {
                results_g += rg / (2.0 + sum_cost - sum_results).log2();
            }
            i += 1;
        }
        while ideal.gain > 0.0 {
            ideal.step();
            if ideal.gain > 0.0 {
                sum_ideal += ideal.gain;
            }
        }
        ratio(results_g, sum_ideal)
    }

    fn rbp(&self, p: f64, gains: &Gains) -> f64 {
        let mut g = self.gains(&gains.pairs);
        // m_rbp.c: gains are normalized to [0, 1] when one lies outside it.
        let (mut min, mut max) = (0.0f64, 0.0f64);
        for x in &g {
            min = min.min(x.gain);
            max = max.max(x.gain);
        }
        if min < 0.0 || max > 1.0 {
            for x in g.iter_mut() {
                x.gain = (x.gain - min) / (max - min);
            }
        }
        let (mut sum, mut cur) = (0.0, 1.0);
        for &v in &self.rels {
            let gain = get_gain(v, &g);
            if gain != 0.0 {
                sum += gain * cur;
            }
            cur *= p;
        }
        (1.0 - p) * sum
    }

    fn rbp_resid(&self, p: f64) -> f64 {
        let (mut sum, mut cur, mut unj) = (0.0, 1.0, 0usize);
        for &v in &self.rels {
            if v == NONPOOL || v == UNJUDGED {
                unj += 1;
                sum += cur;
            }
            cur *= p;
        }
        if unj > 0 {
            cur + (1.0 - p) * sum
        } else {
            0.0
        }
    }

    fn ndcg_cut(&self, k: usize) -> f64 {
        let dcg: f64 = self
            .rels
            .iter()
            .take(k)
            .enumerate()
            .filter(|(_, v)| **v > 0)
            .map(|(i, v)| *v as f64 / ((i + 2) as f64).log2())
            .fold(0.0, |a, x| a + x); // not sum(): an empty f64 sum is -0.0
        ratio(dcg, self.ideal_by_grade(Some(k), |g| g as f64))
    }

    fn ndcg_burges(&self, k: Option<usize>) -> f64 {
        let exp = |g: i64| 2f64.powi(g.min(1023) as i32) - 1.0;
        let dcg: f64 = self
            .rels
            .iter()
            .take(k.unwrap_or(usize::MAX))
            .enumerate()
            .filter(|(_, v)| **v > 0)
            .map(|(i, v)| exp(*v) / ((i + 2) as f64).log2())
            .fold(0.0, |a, x| a + x);
        ratio(dcg, self.ideal_by_grade(k, exp))
    }

    /// Ideal DCG of the first `k` positions over the judged documents of grade > 0, grades
    /// descending, gain `gain(grade)`, discount log2(i + 2).
    fn ideal_by_grade(&self, k: Option<usize>, gain: impl Fn(i64) -> f64) -> f64 {
        let mut sum = 0.0;
        let mut i = 0usize;
        for &(g, count) in self.levels.iter().rev() {
            if g <= 0 {
                break;
            }
            for _ in 0..count {
                if k.is_some_and(|k| i >= k) {
                    return sum;
                }
                sum += gain(g) / ((i + 2) as f64).log2();
                i += 1;
            }
        }
        sum
    }

    fn relstring(&self, len: u32) -> String {
        self.rels
            .iter()
            .take(len as usize)
            .map(|&v| match v {
                v if v > 9 => '>',
                v if v >= 0 => char::from(b'0' + v as u8),
                NONPOOL => '-',
                UNJUDGED => '.',
                _ => '<',
            })
            .collect()
    }
}

/// The walk down the ideal ranking of `m_ndcg.c` (highest gain first, each level as often as
/// it has documents; gain 0 once the levels with positive gain are used up).
struct Ideal<'a> {
    g: &'a [GainLevel],
    cur: isize,
    num_at_level: usize,
    gain: f64,
}

impl<'a> Ideal<'a> {
    fn new(g: &'a [GainLevel]) -> Ideal<'a> {
        let cur = g.len() as isize - 1;
        Ideal {
            g,
            cur,
            num_at_level: 0,
            gain: if cur >= 0 { g[cur as usize].gain } else { 0.0 },
        }
    }

    fn step(&mut self) {
        self.num_at_level += 1;
        while self.cur >= 0 && self.num_at_level > self.g[self.cur as usize].count {
            self.num_at_level = 1;
            self.cur -= 1;
            self.gain = if self.cur >= 0 {
                self.g[self.cur as usize].gain
            } else {
                0.0
            };
        }
    }
}

fn get_gain(v: i64, g: &[GainLevel]) -> f64 {
    g.iter().find(|x| x.level == v).map_or(0.0, |x| x.gain)
}

/// The values of `measures` for one topic. `grades[i]` is the grade of the document at 0-based
/// position i in trec_eval's order (`None`: not in the qrels); `tq` the topic's judgments
/// (`None`: no judgments). Values where trec_eval divides 0 by 0 (and prints `nan`) are 0.
pub fn topic_values(
    grades: &[Option<i32>],
    tq: Option<&TopicQrels>,
    measures: &[Measure],
    opts: &TopicOptions,
) -> TopicValues {
    let t = Topic::new(grades, tq, opts);
    let mut relstring = None;
    let mut values = Vec::with_capacity(measures.len());
    for m in measures {
        let v = match m {
            Measure::RelString { len, .. } => {
                relstring = Some(t.relstring(*len));
                continue;
            }
            Measure::NumRet
            | Measure::NumRel
            | Measure::NumRelRet
            | Measure::Utility { .. }
            | Measure::SetP
            | Measure::SetRelativeP
            | Measure::SetRecall
            | Measure::SetMap
            | Measure::SetF { .. }
            | Measure::NumNonrelJudgedRet
            | Measure::Unj(_)
            | Measure::Judged(_)
            | Measure::JudgedRet(_) => counted(&t, m, opts),
            Measure::BinG
            | Measure::G(_)
            | Measure::Dcg(_)
            | Measure::IdealDcg(_)
            | Measure::Ndcg(_)
            | Measure::NdcgRel(_)
            | Measure::Rndcg(_)
            | Measure::NdcgCut(_)
            | Measure::Rbp { .. }
            | Measure::RbpResid { .. }
            | Measure::NdcgBurges
            | Measure::NdcgBurgesCut(_) => graded(&t, m),
            _ => ranked(&t, m),
        };
        values.push(v);
    }
    TopicValues { values, relstring }
}

/// The measures of counts and sets (`num_ret`, `utility`, `set_F`, `judged`, ...).
// Each measure keeps its own zero case beside its formula, as trec_eval writes it.
#[allow(clippy::collapsible_match)]
fn counted(t: &Topic, m: &Measure, opts: &TopicOptions) -> f64 {
    let (n, r, rr) = (t.n(), t.num_rel, t.num_rel_ret);
    match m {
        Measure::NumRet => n as f64,
        Measure::NumRel => r as f64,
        Measure::NumRelRet => rr as f64,
        Measure::Utility { coefficients: c, .. } => {
            // i128: -N comes from the user and may be near i64::MAX.
            let (a, n, r) = (rr as i128, n as i128, r as i128);
            c[0] * a as f64
                + c[1] * (n - a) as f64
                + c[2] * (r - a) as f64
                + c[3] * (opts.num_docs_in_coll as i128 + a - n - r) as f64
        }
        Measure::SetP => ratio(rr as f64, n as f64),
        Measure::SetRelativeP => {
            if n > 0 && r > 0 {
                rr as f64 / n.min(r) as f64
            } else {
                0.0
            }
        }
        Measure::SetRecall => ratio(rr as f64, r as f64),
        Measure::SetMap => {
            if n > 0 && r > 0 {
                (rr as f64 * rr as f64) / (n as f64 * r as f64)
            } else {
                0.0
            }
        }
        Measure::SetF { beta, .. } => {
            if rr > 0 {
                let p = rr as f64 / n as f64;
                let rc = rr as f64 / r as f64;
                (beta + 1.0) * p * rc / (beta * p + rc)
            } else {
                0.0
            }
        }
        // Signed: with a relevance level below 0 (-l -1) unjudged documents count as
        // relevant and this goes negative, as in trec_eval.
        Measure::NumNonrelJudgedRet => (n as i64 - t.nonpool as i64 - t.unjudged as i64 - rr as i64) as f64,
        Measure::Unj(k) => {
            let k = *k as usize;
            let m = k.min(n);
            (m - t.judged_prefix[m]) as f64 / k as f64
        }
        Measure::Judged(k) => t.judged_prefix[(*k as usize).min(n)] as f64 / *k as f64,
        Measure::JudgedRet(k) => {
            let m = k.map_or(n, |k| (k as usize).min(n));
            ratio(t.judged_prefix[m] as f64, m as f64)
        }
        _ => 0.0,
    }
}

/// The measures of graded gains (`ndcg`, `dcg`, `G`, `rbp`, ...).
// Each measure keeps its own zero case beside its formula, as trec_eval writes it.
#[allow(clippy::collapsible_match)]
fn graded(t: &Topic, m: &Measure) -> f64 {
    match m {
        Measure::BinG => t.bin_g(),
        Measure::G(g) => t.g(g),
        Measure::Dcg(g) => t.dcg(g).0,
        Measure::IdealDcg(g) => t.dcg(g).1,
        Measure::Ndcg(g) => {
            let (d, i) = t.dcg(g);
            ratio(d, i)
        }
        Measure::NdcgRel(g) => t.ndcg_rel(g),
        Measure::Rndcg(g) => t.rndcg(g),
        Measure::NdcgCut(k) => t.ndcg_cut(*k as usize),
        Measure::Rbp { p, gains } => t.rbp(*p, gains),
        Measure::RbpResid { p, .. } => t.rbp_resid(*p),
        Measure::NdcgBurges => t.ndcg_burges(None),
        Measure::NdcgBurgesCut(k) => t.ndcg_burges(Some(*k as usize)),

        _ => 0.0,
    }
}

/// The measures of the ranks of relevant documents (`map`, `P`, `recall`, `bpref`, ...).
// Each measure keeps its own zero case beside its formula, as trec_eval writes it.
#[allow(clippy::collapsible_match)]
fn ranked(t: &Topic, m: &Measure) -> f64 {
    let (n, r, rr) = (t.n(), t.num_rel, t.num_rel_ret);
    match m {
        Measure::Map | Measure::GmMap => {
            if rr > 0 {
                ratio(t.ap_prefix[n], r as f64)
            } else {
                0.0
            }
        }
        Measure::Rprec => {
            let m = n.min(r);
            if m == 0 {
                0.0
            } else {
                t.rel_prefix[m] as f64 / r as f64
            }
        }
        Measure::Bpref | Measure::GmBpref => t.bpref(),
        Measure::RecipRank => t.first_rel.map_or(0.0, |f| 1.0 / f as f64),
        Measure::IprecAtRecall(x) => t.interpolated(&[(x * r as f64).round() as i64])[0],
        Measure::P(k) => t.rel_at(*k as usize) as f64 / *k as f64,
        Measure::Recall(k) => ratio(t.rel_at(*k as usize) as f64, r as f64),
        Measure::InfAp => t.inf_ap(),
        Measure::RprecMult(x) => {
            let cut = (x * r as f64 + 0.9) as i64;
            if cut <= 0 {
                0.0
            } else {
                t.rel_at(cut as usize) as f64 / cut as f64
            }
        }
        Measure::ElevenPtAvg { levels, .. } => {
            let cuts: Vec<i64> = levels.iter().map(|x| (x * r as f64).round() as i64).collect();
            let sum = t.interpolated(&cuts).iter().fold(0.0, |a, x| a + x);
            ratio(sum, levels.len() as f64)
        }
        Measure::MapCut(k) => {
            if r == 0 {
                0.0
            } else {
                t.ap_prefix[(*k as usize).min(n)] / r as f64
            }
        }
        Measure::RelativeP(k) => {
            if r == 0 {
                0.0
            } else {
                t.rel_at(*k as usize) as f64 / (*k as usize).min(r) as f64
            }
        }
        Measure::Success(k) => {
            if t.rel_at(*k as usize) > 0 {
                1.0
            } else {
                0.0
            }
        }
        Measure::Yaap => {
            let s = t.ap_prefix[n];
            ((1.0 + s) / (1.0 + r as f64 - s)).ln()
        }
        Measure::RecipRankCut(k) => match t.first_rel {
            Some(f) if f <= *k as usize => 1.0 / f as f64,
            _ => 0.0,
        },
        _ => 0.0,
    }
}

/// `a / b`, or 0 when `b` is 0 (trec_eval leaves such values at 0).
fn ratio(a: f64, b: f64) -> f64 {
    if b > 0.0 {
        a / b
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::super::measures::{parse, Measure};
    use super::*;

    fn tq(pairs: &[(&str, i32)]) -> TopicQrels {
        TopicQrels {
            grades: pairs.iter().map(|(d, g)| (d.to_string(), *g)).collect(),
        }
    }

    fn m(spec: &str) -> Measure {
        super::super::measures::resolve(spec).unwrap()
    }

    fn values(grades: &[Option<i32>], q: &TopicQrels, ms: &[Measure], o: TopicOptions) -> Vec<f64> {
        topic_values(grades, Some(q), ms, &o).values
    }

    #[test]
    fn hand_computed_values() {
        // Qrels: a=1, b=2, c=0, d=-1; e unjudged. Ranking: e a c b d.
        let q = tq(&[("a", 1), ("b", 2), ("c", 0), ("d", -1)]);
        let grades = [None, Some(1), Some(0), Some(2), Some(-1)];
        let ms: Vec<Measure> = [
            "num_rel",
            "num_rel_ret",
            "map",
            "Rprec",
            "recip_rank",
            "P.5",
            "P.10",
            "judged.5",
            "judged.10",
            "ndcg",
            "rbp.p=0.5",
            "rbp_resid.p=0.5",
        ]
        .iter()
        .map(|s| m(s))
        .collect();
        let v = values(&grades, &q, &ms, TopicOptions::default());
        // AP = (1/2 + 2/4) / 2; Rprec = rel in top 2 / 2; RR = 1/2.
        assert_eq!(v[0..5], [2.0, 2.0, 0.5, 0.5, 0.5]);
        assert_eq!(v[5], 0.4);
        assert_eq!(v[6], 0.2);
        assert_eq!(v[7], 0.8); // e is the only unjudged document; d (-1) is judged.
        assert_eq!(v[8], 0.4); // denominator k = 10 although 5 were returned.
        let dcg = 1.0 / 3f64.log2() + 2.0 / 5f64.log2();
        let idcg = 2.0 + 1.0 / 3f64.log2();
        assert!((v[9] - dcg / idcg).abs() < 1e-12);
        // RBP, grades scaled by max 2: (1-.5)(.5*.5 + 1*.125).
        assert!((v[10] - 0.5 * (0.25 + 0.125)).abs() < 1e-12);
        // Residual: e unjudged at position 1, then p^5.
        assert!((v[11] - (0.5f64.powi(5) + 0.5 * 1.0)).abs() < 1e-12);
        let neg = TopicOptions {
            judging: Judging {
                negative_unjudged: true,
                ..Judging::default()
            },
            ..TopicOptions::default()
        };
        assert_eq!(values(&grades, &q, &[Measure::Judged(5)], neg), vec![0.6]);
    }

    #[test]
    fn new_measures_hand_computed() {
        // Qrels: a=1 b=2 c=0 d=0 x=1 (x never retrieved); ranking: e(unjudged) a c b d.
        let q = tq(&[("a", 1), ("b", 2), ("c", 0), ("d", 0), ("x", 1)]);
        let grades = [None, Some(1), Some(0), Some(2), Some(0)];
        let ms: Vec<Measure> = [
            "recall.2",
            "recall.5",
            "map_cut.2",
            "map_cut.5",
            "success.1",
            "success.2",
            "bpref",
            "set_P",
            "set_recall",
            "set_relative_P",
            "set_map",
            "set_F",
            "num_nonrel_judged_ret",
            "relative_P.2",
            "Rprec_mult.1.0",
            "utility",
            "unj.5",
            "recip_rank_cut.1",
            "recip_rank_cut.2",
            "Judged@2",
            "binG",
        ]
        .iter()
        .map(|s| m(s))
        .collect();
        let v = values(&grades, &q, &ms, TopicOptions::default());
        let third = 1.0 / 3.0;
        // R = 3 (a, b, x); relevant retrieved at ranks 2 and 4.
        assert_eq!(v[0], third); // one relevant in the top 2
        assert_eq!(v[1], 2.0 / 3.0);
        assert_eq!(v[2], 0.5 / 3.0); // precision 1/2 at rank 2, over R
        assert_eq!(v[3], (0.5 + 0.5) / 3.0); // + 2/4 at rank 4
        assert_eq!(v[4], 0.0);
        assert_eq!(v[5], 1.0);
        // bpref: a has 0 judged non-relevant above (e is unjudged): 1; b has c above:
        // 1 - min(1, 3) / min(2, 3) = 1/2. (1 + 1/2) / 3.
        assert_eq!(v[6], 1.5 / 3.0);
        assert_eq!(v[7], 2.0 / 5.0);
        assert_eq!(v[8], 2.0 / 3.0);
        assert_eq!(v[9], 2.0 / 3.0); // 2 / min(5, 3)
        assert_eq!(v[10], 4.0 / 15.0);
        let (p, r) = (0.4, 2.0 / 3.0);
        assert!((v[11] - 2.0 * p * r / (p + r)).abs() < 1e-15);
        assert_eq!(v[12], 2.0); // c and d
        assert_eq!(v[13], 0.5); // 1 / min(2, 3)
        assert_eq!(v[14], third); // cut = floor(3 + 0.9) = 3: 1 relevant in the top 3
        assert_eq!(v[15], 2.0 - 3.0); // 2 relevant retrieved, 3 non-relevant (incl. unjudged)
        assert_eq!(v[16], 0.2);
        assert_eq!(v[17], 0.0);
        assert_eq!(v[18], 0.5);
        assert_eq!(v[19], 0.5); // e unjudged, a judged, among the top 2
                                // binG: a at i=1 with rel_so_far 1: 1/log2(3); b at i=3, rel 2: 1/log2(4); over R.
        assert!((v[20] - (1.0 / 3f64.log2() + 0.5) / 3.0).abs() < 1e-15);
    }

    #[test]
    fn interpolated_precision_and_11pt() {
        // R = 2, relevant at ranks 1 and 4 of 4: precisions 1, 1/2 at the relevant ranks.
        let q = tq(&[("a", 1), ("b", 1), ("c", 0)]);
        let grades = [Some(1), Some(0), None, Some(1)];
        let v = values(
            &grades,
            &q,
            &parse("iprec_at_recall.0,0.5,1").unwrap(),
            TopicOptions::default(),
        );
        // Level 0 and 0.5 (round(1) = 1 relevant): max precision at or after rank 1 = 1;
        // level 1 (2 relevant): max precision at or after rank 4 = 1/2.
        assert_eq!(v, vec![1.0, 1.0, 0.5]);
        let v = values(&grades, &q, &[m("11pt_avg")], TopicOptions::default());
        // Levels × R = 0, .2, .4 round to 0 relevant (value 1), .6 ... 1.4 to 1 (value 1),
        // 1.6, 1.8, 2 to 2 (value 1/2): (3 + 5 + 3 × 0.5) / 11.
        assert!((v[0] - (8.0 + 1.5) / 11.0).abs() < 1e-15);
    }

    #[test]
    fn judged_only_and_max_retrieved() {
        let q = tq(&[("a", 1), ("b", 0)]);
        let grades = [None, Some(0), None, Some(1)];
        let ms = [Measure::P(2), Measure::NumRet, Measure::Map];
        let j = TopicOptions {
            judged_only: true,
            ..TopicOptions::default()
        };
        // -J: ranking b a.
        assert_eq!(values(&grades, &q, &ms, j), vec![0.5, 2.0, 0.5]);
        let top3 = TopicOptions {
            max_retrieved: Some(3),
            ..TopicOptions::default()
        };
        assert_eq!(values(&grades, &q, &ms, top3), vec![0.0, 3.0, 0.0]);
        let e = TopicOptions {
            judged_only: true,
            ..TopicOptions::default()
        };
        // All unjudged: an empty ranking, 0 where trec_eval prints nan.
        let v = values(&[None, None], &q, &[m("iprec_at_recall.0"), m("11pt_avg")], e);
        assert_eq!(v, vec![0.0, 0.0]);
    }

    #[test]
    fn gains_and_exponential_ndcg() {
        let q = tq(&[("a", 1), ("b", 2), ("c", 0)]);
        let grades = [Some(1), Some(2)];
        // ndcg with gains 1=3, 2=9: DCG 3 + 9/log2(3); ideal 9 + 3/log2(3).
        let v = values(
            &grades,
            &q,
            &[
                m("ndcg.1=3,2=9"),
                m("ndcg_burges"),
                m("ndcg_burges_cut.1"),
                m("dcg"),
                m("ideal_dcg"),
            ],
            TopicOptions::default(),
        );
        let l3 = 3f64.log2();
        assert!((v[0] - (3.0 + 9.0 / l3) / (9.0 + 3.0 / l3)).abs() < 1e-15);
        // exp gains: 1 and 3 -> (1 + 3/log2 3) / (3 + 1/log2 3); cut at 1: 1/3.
        assert!((v[1] - (1.0 + 3.0 / l3) / (3.0 + 1.0 / l3)).abs() < 1e-15);
        assert!((v[2] - 1.0 / 3.0).abs() < 1e-15);
        assert!((v[3] - (1.0 + 2.0 / l3)).abs() < 1e-15);
        assert!((v[4] - (2.0 + 1.0 / l3)).abs() < 1e-15);
    }

    #[test]
    fn relstring_characters() {
        let q = tq(&[("a", 12), ("b", 0), ("c", -1)]);
        let grades = [Some(12), Some(0), None, Some(-1)];
        let t = topic_values(
            &grades,
            Some(&q),
            &[m("relstring"), Measure::NumRet],
            &TopicOptions::default(),
        );
        assert_eq!(t.relstring.as_deref(), Some(">0-<"));
        assert_eq!(t.values, vec![4.0]);
        let neg = TopicOptions {
            judging: Judging {
                negative_unjudged: true,
                ..Judging::default()
            },
            ..TopicOptions::default()
        };
        let t = topic_values(&grades, Some(&q), &[m("relstring.2")], &neg);
        assert_eq!(t.relstring.as_deref(), Some(">0"));
        let t = topic_values(&grades, Some(&q), &[m("relstring")], &neg);
        assert_eq!(t.relstring.as_deref(), Some(">0-."));
    }

    #[test]
    fn extreme_options_do_not_panic() {
        // -l -1 (a document not in the qrels, value -1, then counts as relevant, as trec_eval's
        // `>=` comparison gives) and -N near i64::MAX, both from the command line.
        let q = tq(&[("a", 1), ("b", 0)]);
        let grades = [None, Some(1), Some(0)];
        let o = TopicOptions {
            judging: Judging {
                relevance_level: -1,
                ..Judging::default()
            },
            num_docs_in_coll: i64::MAX,
            ..TopicOptions::default()
        };
        let ms = Measure::all_trec();
        let t = topic_values(&grades, Some(&q), &ms, &o);
        assert_eq!(t.values.len(), ms.len() - 1);
        // 3 retrieved, 1 not judged, 3 "relevant": 3 - 1 - 0 - 3.
        let v = values(&grades, &q, &[Measure::NumNonrelJudgedRet, Measure::NumRelRet], o);
        assert_eq!(v, vec![-1.0, 3.0]);
        // N + rel_ret - ret - R = MAX + 3 - 3 - 2.
        let u = values(&grades, &q, &[m("utility.0,0,0,1")], o);
        assert!((u[0] - (i64::MAX - 2) as f64).abs() < 1e4);
    }

    #[test]
    fn empty_ranking_is_zero() {
        let q = tq(&[("a", 1)]);
        let ms = Measure::all_trec();
        let t = topic_values(&[], Some(&q), &ms, &TopicOptions::default());
        let numeric: Vec<&Measure> = ms.iter().filter(|m| !m.is_string()).collect();
        for (m, v) in numeric.iter().zip(&t.values) {
            let want = if matches!(m, Measure::NumRel) { 1.0 } else { 0.0 };
            assert_eq!(*v, want, "{}", m.canonical_name());
        }
        assert_eq!(t.relstring.as_deref(), Some(""));
    }
}
