# ir_measures 0.4.3 (pip install ir_measures==0.4.3), on the robust03 subset of tests/data/trec
# (qrels.txt = zcat robust03_qrels.subset.txt.gz, RUN.run = zcat input.RUN.subset.gz):
ir_measures qrels.txt InexpC2.run 'AP nDCG@10 P@10' -q > InexpC2.irm.q.tsv
ir_measures qrels.txt InexpC2.run 'AP nDCG@10 P@10' -q -o jsonl > InexpC2.irm.q.jsonl
ir_measures qrels.txt uic0301.run 'AP nDCG@10 P@10' -q > uic0301.irm.q.tsv
