"""LLM answers for engine tests: valid pipelines and pipelines with known, distinct errors."""

from __future__ import annotations


def fenced(oml: str, preamble: str = "Here is the pipeline:") -> str:
    return f"{preamble}\n\n```yaml\n{oml.strip()}\n```\n"


VALID = """\
oml_version: "0.1.0"
name: active-customers-to-csv
steps:
  - id: read-customers
    component: filesystem.csv_extractor
    mode: read
    config:
      path: data/customers.csv
  - id: write-active
    component: filesystem.csv_writer
    mode: write
    needs: [read-customers]
    config:
      path: output/active_customers.csv
"""

# mode `extract` is not an OML mode (OML212)
BAD_MODE = VALID.replace("mode: read", "mode: extract")
# a misspelt component (OML301)
BAD_COMPONENT = VALID.replace("filesystem.csv_writer", "filesystem.csv_writter")
# a step that needs an unknown id (OML401)
BAD_NEEDS = VALID.replace("needs: [read-customers]", "needs: [read-clients]")

PROSE_ONLY = "I would read the customers file and write the active ones to a CSV. Shall I go ahead?"
CUT_OFF = "```yaml\n" + VALID[: len(VALID) // 2]
