"""Makes the inspect_ai logs in tests/data/formats/inspect/ (run offline with the mock model)."""
import sys
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import match, model_graded_qa
from inspect_ai.solver import generate

ANSWERS = {  # what the mock model under test answers
    "What is 2 + 2?": "4",
    "What is 3 * 3?": "6",
    "Capital of France?": "Paris",
    "Capital of Italy?": "Milan",
    "How many legs has a spider?": "8",
    "Largest planet?": "Saturn",
}
# A second mock model (argv[3] == "other") answers the Italy and planet questions right.
OTHER = dict(ANSWERS, **{"Capital of Italy?": "Rome", "Largest planet?": "Jupiter", "What is 2 + 2?": "5"})
GRADES = {  # what the mock grader says (model_graded_qa with partial credit)
    "4": "C", "6": "I", "Paris": "C", "Milan": "P", "8": "C", "Saturn": "I", "Rome": "C", "Jupiter": "C", "5": "I",
}
USAGE = ModelUsage(input_tokens=10, output_tokens=2, total_tokens=12)

TABLE = OTHER if len(sys.argv) > 3 and sys.argv[3] == "other" else ANSWERS
NAME = "mockllm/other" if TABLE is OTHER else "mockllm/model"

def answer(input, tools, tool_choice, config):
    text = input[-1].text
    return ModelOutput.from_content(model="mockllm", content=TABLE.get(text, "?")).model_copy(update={"usage": USAGE})

def grade(input, tools, tool_choice, config):
    text = input[-1].text
    g = next((v for k, v in GRADES.items() if f"[Submission]: {k}\n" in text), "I")
    return ModelOutput.from_content(model="mockllm", content=f"GRADE: {g}").model_copy(update={"usage": USAGE})

samples = [Sample(id=f"q{i+1}", input=q, target=t) for i, (q, t) in enumerate(
    [("What is 2 + 2?", "4"), ("What is 3 * 3?", "9"), ("Capital of France?", "Paris"),
     ("Capital of Italy?", "Rome"), ("How many legs has a spider?", "8"), ("Largest planet?", "Jupiter")])]

task = Task(
    name="quiz",
    dataset=samples,
    solver=[generate()],
    scorer=[match(), model_graded_qa(partial_credit=True, model=get_model("mockllm/model", custom_outputs=grade))],
)
fmt = sys.argv[1]
logs = eval(task, model=get_model(NAME, custom_outputs=answer), epochs=int(sys.argv[2]),
            log_format=fmt, log_dir="logs", display="none")
for log in logs:
    print(log.status, log.location)
    for s in log.results.scores:
        print(s.name, {k: m.value for k, m in s.metrics.items()})
