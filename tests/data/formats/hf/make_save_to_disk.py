"""Makes tests/data/formats/hf/save_to_disk/: the HotpotQA-100 correctness table (the Parquet file
beside it, itself made by datasets from tests/data/hotpotqa-100/correctness.csv) written with
Hugging Face datasets' own Dataset.save_to_disk (an Arrow IPC stream, data-00000-of-00001.arrow,
with dataset_info.json and state.json)."""
import datasets

ds = datasets.Dataset.from_parquet("hotpotqa-100-correctness.parquet")
ds.save_to_disk("save_to_disk")
print(datasets.__version__, ds)
df = ds.to_pandas()
print({c: df[c].mean() for c in df.columns if df[c].dtype.kind in "fiub"})
