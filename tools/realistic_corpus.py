#!/usr/bin/env python3
"""A realistic passage corpus for scaling measurements of `pledge components` (not a test):
passages shaped like DPR's 21,015,324 Wikipedia passages, written as a stream.

Seeded (the same arguments and NumPy version give the same bytes) and streamed: articles are
made a chunk at a time and written as they are made, so memory stays bounded (the vocabulary,
about 0.6 GB at the default 4 M word types, and one chunk of articles) whatever the size.

What is modelled, the default values, and why they are realistic:

* Passages (Karpukhin et al., "Dense Passage Retrieval for Open-Domain Question Answering",
  EMNLP 2020, section 4.1): the English Wikipedia dump of 2018-12-20, cleaned to the text of each
  article, split into disjoint blocks of 100 words; 21,015,324 passages, each with its article's
  title. So every passage has 100 words except the last one of an article. Records are
  `{"id": "N", "title": ..., "text": ...}` (ids 1, 2, ... as in DPR's psgs_w100.tsv).
* Article lengths: lognormal (Voss, "Measuring Wikipedia", ISSI 2005, finds article sizes
  lognormal), sigma `--article-sigma` 1.0 (a choice), the median set so that an article has
  21,015,324 / 5,770,000 = 3.64 passages on average (English Wikipedia had about 5.77 M
  articles at the end of 2018, "Wikipedia:Size of Wikipedia"): about 72% of passages are full
  100-word blocks.
* Vocabulary: word types by rank r with a two-regime Zipf law (Ferrer i Cancho & Sole, "Two
  regimes in the frequency of words and the origins of complex lexicons", J. Quant. Linguistics
  8(3), 2001: exponent about 1 up to a knee of some 10^4 ranks, steeper after): `--zipf-head` 1.0
  (Zipf-Mandelbrot offset 2.7) up to `--zipf-knee` 10,000, `--zipf-tail` 1.65 after, over
  `--vocabulary` 4 M ranks. The tail exponent sets how the vocabulary grows with the text
  (Heaps' law V ~ N^beta, beta about 1/1.65 = 0.61; Heaps 1978 and later measurements put
  beta at 0.4-0.7 for English): the generator prints the types and tokens of what it wrote, to
  compare with text8 (the first 10^8 bytes of English Wikipedia, cleaned: 17,005,207 tokens,
  253,854 types).
* Word forms: letters drawn with the English letter frequencies and a mean word length of 4.79
  letters per token (Norvig, "English Letter Frequency Counts: Mayzner Revisited", 2013); a
  type's length grows with its rank (frequent words are short). Word types are random letter
  strings, so they share fewer character n-grams than English words do (no morphology): a
  simplification, stated.
* Text: sentences of 22 words on average (a choice) ending in a period, the next word
  capitalized; a comma after 5% of words; 30% of the types past rank 2,000 are proper nouns
  (capitalized); 2% of tokens are numbers (60% of them years 1800-2018). All choices.
* Burstiness: an article repeats its own topic words (Church, "Empirical estimates of
  adaptation", COLING 2000: a word seen once in a document is far likelier to be seen again):
  each article draws 12 topic words from the ranks past 500 and 6% of its tokens are one of
  them (`--topic-share`; a choice).
* Near-duplicates (`--near-duplicates` 0.005): a share of articles is a near copy of a recent one
  (one of the last 4,096), each word edited with a probability drawn from 0 to `--max-edit` 0.06
  (substituted, dropped, or followed by an inserted word). Lee et al., "Deduplicating Training
  Data Makes Language Models Better", ACL 2022, find 1.68% of C4's documents near-duplicated and
  far fewer in a curated corpus like Wikipedia, hence the smaller default.
* Boilerplate (`--boilerplate` 0.02, `--templates` 200): a share of articles are stubs filled
  into one of a fixed set of templates (as bot-written Wikipedia articles are, e.g. rambot's US
  census places: a template of 40-220 words with 5-35% of its words slots filled per article).
  Whether two stubs of one template are near-duplicates depends on the template's share of slots,
  so some templates make dense families of near-duplicate passages and most none.

Usage:
  tools/realistic_corpus.py OUT.jsonl[.gz] --passages N [--questions-out Q.jsonl --questions 10000] [--seed 1]
  (`-` writes JSON Lines to standard output; a name ending in .gz is written with gzip level 1)

The questions file has `--questions` records `{"id": "qK", "passages": [ID]}`, each on a
passage drawn uniformly (seeded), so that `pledge components` has candidates to count.
Needs NumPy (see benches/realistic/requirements.txt).
"""

import argparse
import gzip
import math
import sys
import time

import numpy as np

LETTERS = b"etaoinsrhldcumfpgwybvkxjqz"
# Norvig 2013 (Google Books), percent of letters.
LETTER_FREQ = [12.49, 9.28, 8.04, 7.64, 7.57, 7.23, 6.51, 6.28, 5.05, 4.07, 3.82, 3.34, 2.73,
               2.51, 2.40, 2.14, 1.87, 1.68, 1.66, 1.48, 1.05, 0.54, 0.23, 0.16, 0.12, 0.09]
MEAN_TOKEN_LETTERS = 4.79
DPR_PASSAGES = 21_015_324
WIKIPEDIA_ARTICLES_2018 = 5_770_000
WORDS_PER_PASSAGE = 100
RECENT = 4096
CHUNK_ARTICLES = 20_000


def parse():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--passages", type=int, required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--questions-out")
    ap.add_argument("--questions", type=int, default=10_000)
    ap.add_argument("--vocabulary", type=int, default=4_000_000)
    ap.add_argument("--zipf-head", type=float, default=1.0)
    ap.add_argument("--zipf-knee", type=int, default=10_000)
    ap.add_argument("--zipf-tail", type=float, default=2.0)
    ap.add_argument("--article-sigma", type=float, default=1.0)
    ap.add_argument("--sentence-words", type=float, default=22.0)
    ap.add_argument("--comma-share", type=float, default=0.05)
    ap.add_argument("--proper-share", type=float, default=0.30)
    ap.add_argument("--number-share", type=float, default=0.02)
    ap.add_argument("--topic-words", type=int, default=12)
    ap.add_argument("--topic-share", type=float, default=0.06)
    ap.add_argument("--near-duplicates", type=float, default=0.005)
    ap.add_argument("--max-edit", type=float, default=0.06)
    ap.add_argument("--boilerplate", type=float, default=0.02)
    ap.add_argument("--templates", type=int, default=200)
    return ap.parse_args()


def zipf_cdf(a):
    """The cumulative probabilities of ranks 1..V under the two-regime Zipf law."""
    r = np.arange(1, a.vocabulary + 1, dtype=np.float64)
    k = float(a.zipf_knee)
    w = np.where(r <= k, (r + 2.7) ** -a.zipf_head, (k + 2.7) ** -a.zipf_head * (r / k) ** -a.zipf_tail)
    cdf = np.cumsum(w)
    return w / cdf[-1], cdf / cdf[-1]


def vocabulary(a, p, rng):
    """Lower-case and capitalized forms of every type (index = rank - 1), and the proper-noun flags."""
    r = np.arange(1, a.vocabulary + 1, dtype=np.float64)
    # Type length 1 + Poisson(c + 0.55 ln r), c set so the token-weighted mean is 4.79 letters.
    slope = 0.55
    c = MEAN_TOKEN_LETTERS - 1 - slope * float(np.dot(p, np.log(r)))
    lam = np.clip(c + slope * np.log(r), 0.2, 14.0)
    lens = 1 + rng.poisson(lam)
    freq = np.array(LETTER_FREQ) / sum(LETTER_FREQ)
    letters = np.frombuffer(LETTERS, dtype=np.uint8)[rng.choice(26, size=int(lens.sum()), p=freq)]
    buf = letters.tobytes()
    ends = np.cumsum(lens).tolist()
    starts = [0] + ends[:-1]
    lower = [buf[s:e] for s, e in zip(starts, ends)]
    proper = (r > 2000) & (rng.random(a.vocabulary) < a.proper_share)
    upper = [w[:1].upper() + w[1:] for w in lower]
    forms = [u if pr else w for w, u, pr in zip(lower, upper, proper.tolist())]
    return forms, upper


class Generator:
    def __init__(self, a):
        self.a = a
        self.rng = np.random.default_rng(a.seed)
        self.p, self.cdf = zipf_cdf(a)
        self.forms, self.upper = vocabulary(a, self.p, np.random.default_rng([a.seed, 1]))
        self.years = [str(y).encode() for y in range(1800, 2019)]
        mean_passages = DPR_PASSAGES / WIKIPEDIA_ARTICLES_2018
        # Mean passages of a lognormal article length L (words): E[ceil(L / 100)] ~ E[L]/100 + 1/2.
        mean_words = (mean_passages - 0.5) * WORDS_PER_PASSAGE
        self.mu = math.log(mean_words) - a.article_sigma**2 / 2
        self.recent = []
        trng = np.random.default_rng([a.seed, 2])
        self.templates = []
        for _ in range(a.templates):
            n = int(trng.integers(40, 221))
            words = np.searchsorted(self.cdf, trng.random(n)).astype(np.int64)
            slots = trng.random(n) < trng.uniform(0.05, 0.35)
            self.templates.append((words, slots))
        self.seen = np.zeros(a.vocabulary, dtype=bool)

    def draw(self, n):
        return np.searchsorted(self.cdf, self.rng.random(n)).astype(np.int64)

    def tail_words(self, n, past):
        """Types drawn from the law restricted to ranks past `past`."""
        lo = self.cdf[past - 1]
        return np.searchsorted(self.cdf, lo + (1 - lo) * self.rng.random(n)).astype(np.int64)

    def chunk(self):
        """The word ids of a chunk of articles, one array each (normal articles drawn together)."""
        a = self.a
        rng = self.rng
        u = rng.random(CHUNK_ARTICLES)
        normal = np.flatnonzero(u >= a.boilerplate + a.near_duplicates)
        lens = np.maximum(1, np.rint(rng.lognormal(self.mu, a.article_sigma, len(normal)))).astype(np.int64)
        flat = self.draw(int(lens.sum()))
        topic = self.tail_words(len(normal) * a.topic_words, 500).reshape(len(normal), a.topic_words)
        owner = np.repeat(np.arange(len(normal)), lens)
        mask = rng.random(len(flat)) < a.topic_share
        flat[mask] = topic[owner[mask], rng.integers(a.topic_words, size=int(mask.sum()))]
        bodies = np.split(flat, np.cumsum(lens)[:-1])
        out = [None] * CHUNK_ARTICLES
        for i, words in zip(normal.tolist(), bodies):
            out[i] = words
        for i in np.flatnonzero(u < a.boilerplate + a.near_duplicates).tolist():
            if u[i] < a.boilerplate or not self.recent:
                words, slots = self.templates[int(rng.integers(len(self.templates)))]
                words = words.copy()
                words[slots] = self.tail_words(int(slots.sum()), 500)
            else:
                words = self.edit(self.recent[int(rng.integers(len(self.recent)))])
            out[i] = words
        for words in out:
            if len(self.recent) < RECENT:
                self.recent.append(words)
            else:
                self.recent[int(rng.integers(RECENT))] = words
        return out

    def edit(self, base):
        """A near copy of `base`: each word, with a probability drawn from 0 to --max-edit,
        substituted, dropped or followed by an inserted word."""
        rate = self.rng.uniform(0, self.a.max_edit)
        hit = self.rng.random(len(base)) < rate
        how = self.rng.random(len(base))
        new = self.draw(len(base))
        out = []
        for w, h, v, x in zip(base.tolist(), hit.tolist(), how.tolist(), new.tolist()):
            if not h:
                out.append(w)
            elif v < 0.5:
                out.append(x)
            elif v < 0.75:
                out.extend((w, x))
        return np.array(out or [int(new[0])], dtype=np.int64)

    def render(self, articles):
        """The tokens (bytes) of each article: numbers, proper nouns, sentence capitals,
        punctuation; the articles' tokens concatenated, with each article's end."""
        a = self.a
        rng = self.rng
        lens = np.array([len(w) for w in articles])
        ends = np.cumsum(lens)
        flat = np.concatenate(articles)
        n = len(flat)
        self.seen[flat] = True
        toks = list(map(self.forms.__getitem__, flat.tolist()))
        stop = rng.random(n) < 1 / a.sentence_words
        stop[ends - 1] = True
        start = np.zeros(n, dtype=bool)
        start[0] = True
        start[1:] = stop[:-1]
        number = rng.random(n) < a.number_share
        years = rng.integers(len(self.years), size=n)
        other = (10 ** rng.uniform(0, 6, size=n)).astype(np.int64)
        is_year = rng.random(n) < 0.6
        for i in np.flatnonzero(number).tolist():
            toks[i] = self.years[years[i]] if is_year[i] else b"%d" % other[i]
        for i in np.flatnonzero(start & ~number).tolist():
            toks[i] = self.upper[flat[i]]
        comma = (rng.random(n) < a.comma_share) & ~stop
        for i in np.flatnonzero(comma).tolist():
            toks[i] += b","
        for i in np.flatnonzero(stop).tolist():
            toks[i] += b"."
        return toks, ends.tolist()

    def titles(self, k):
        n = 1 + self.rng.integers(3, size=k)
        words = self.tail_words(int(n.sum()), 2000).tolist()
        out, at = [], 0
        for m in n.tolist():
            out.append(b" ".join(self.upper[w] for w in words[at:at + m]))
            at += m
        return out


def main():
    a = parse()
    t0 = time.time()
    g = Generator(a)
    out = sys.stdout.buffer if a.out == "-" else (
        gzip.open(a.out, "wb", compresslevel=1) if a.out.endswith(".gz") else open(a.out, "wb"))
    written = 0
    words = 0
    while written < a.passages:
        articles = g.chunk()
        toks, ends = g.render(articles)
        titles = g.titles(len(articles))
        lines = []
        begin = 0
        for title, end in zip(titles, ends):
            for s in range(begin, end, WORDS_PER_PASSAGE):
                if written == a.passages:
                    break
                block = toks[s:min(s + WORDS_PER_PASSAGE, end)]
                words += len(block)
                written += 1
                lines.append(b'{"id": "%d", "title": "%s", "text": "%s"}\n' % (written, title, b" ".join(block)))
            begin = end
        out.write(b"".join(lines))
    if out is not sys.stdout.buffer:
        out.close()
    else:
        out.flush()
    if a.questions_out:
        qrng = np.random.default_rng([a.seed, 3])
        picks = qrng.integers(1, a.passages + 1, size=a.questions)
        with open(a.questions_out, "w", encoding="utf-8") as q:
            for k, pid in enumerate(picks.tolist(), 1):
                q.write('{"id": "q%d", "passages": ["%d"]}\n' % (k, pid))
    print(f"{written} passages, {words} words, {int(g.seen.sum())} word types in the articles made, "
          f"{time.time() - t0:.0f} s (numpy {np.__version__})", file=sys.stderr)


if __name__ == "__main__":
    main()
