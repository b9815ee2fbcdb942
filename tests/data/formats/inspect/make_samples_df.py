"""Makes samples_df.csv and samples_df-model.csv from the two .eval logs beside it (inspect_ai's
own analysis API, run in a copy of this folder)."""
from inspect_ai.analysis import samples_df, EvalModel, SampleSummary

logs = ["quiz-mockllm.eval", "quiz-mockllm-other.eval"]
samples_df(logs).to_csv("samples_df.csv", index=False)
samples_df(logs, columns=EvalModel + SampleSummary).to_csv("samples_df-model.csv", index=False)
