"""The canonical pipeline text (ADR 0050): what producing it costs, and what each way of producing it
keeps of the person's text. Compares span patching (what Osiris does) with ruamel.yaml's round-trip
mode, when ruamel.yaml is installed (it is not a dependency). Prints figures; asserts nothing.

    .venv/bin/python bench/canonical.py [--runs 2000]
"""

from __future__ import annotations

import argparse
import difflib
import io
import time

from osiris.registry import load_registry
from osiris.validate import Validator

SAMPLE = '''\
# Nightly copy of the customers (comments and layout must survive)
oml_version: "0.1.0"
name: customers-to-supabase
steps:
- id: extract-customers   # from the shop database
  component: mysql.extractor
  mode: read
  config: {connection: "@mysql.default", table: customers, batch_size: "5000"}
- id: write-customers
  component: supabase.writer
  mode: write
  needs: [ "extract-customers" ]
  config:
    connection: '@supabase.default'
    table_name: customers       # the target table
    write_disposition: Append
  description: |
      keep   this   block
        as written
'''
CONNECTIONS = {"mysql": {"default": {}}, "supabase": {"default": {}}}


def changed_lines(before: str, after: str) -> int:
    return sum(1 for line in difflib.ndiff(before.splitlines(), after.splitlines()) if line.startswith("- "))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=2000)
    runs = parser.parse_args().runs
    validator = Validator(load_registry(), CONNECTIONS)
    report = validator.validate(SAMPLE)
    coerced = len(report.coerced)
    print(f"sample: {len(SAMPLE.splitlines())} lines, {coerced} coercions, valid={report.valid}")
    print(f"span patch: {changed_lines(report.source_text, report.oml_text)} lines changed (the coerced ones: "
          f"{len({i.line for i in report.coerced})})")
    clean = validator.validate(report.oml_text)
    print(f"span patch: canonical text validates with {len(clean.coerced)} coercions left, valid={clean.valid}")

    started = time.perf_counter()
    for _ in range(runs):
        validator.validate(SAMPLE)
    with_edits = (time.perf_counter() - started) / runs * 1000
    started = time.perf_counter()
    for _ in range(runs):
        validator.validate(report.oml_text)
    without = (time.perf_counter() - started) / runs * 1000
    from osiris.validate.canonical import Edit, canonical_text

    edits = [Edit("/steps/0/config/batch_size", value=5000), Edit("/steps/1/config/table_name", rename_to="table"),
             Edit("/steps/1/config/write_disposition", rename_to="write_mode", value="append")]
    started = time.perf_counter()
    for _ in range(runs):
        canonical_text(report.source_text, edits)
    print(f"canonical_text alone: {(time.perf_counter() - started) / runs * 1000:.3f} ms")
    print(f"validate with coercions (canonical text built): {with_edits:.3f} ms; "
          f"already canonical (no text built): {without:.3f} ms")

    try:
        from ruamel.yaml import YAML
    except ImportError:
        print("ruamel.yaml: not installed; round-trip figures skipped")
        return
    rt = YAML()
    rt.preserve_quotes = True
    rt.width = 10**6

    def round_trip(text: str) -> str:
        data = rt.load(text)
        config = data["steps"][1]["config"]
        config.insert(list(config).index("table_name"), "table", config.pop("table_name"))
        config["write_disposition"] = "append"
        data["steps"][0]["config"]["batch_size"] = 5000
        out = io.StringIO()
        rt.dump(data, out)
        return out.getvalue()

    dumped = round_trip(report.source_text)
    print(f"ruamel round trip (default indent): {changed_lines(report.source_text, dumped)} lines changed")
    started = time.perf_counter()
    for _ in range(max(runs // 10, 1)):
        round_trip(SAMPLE)
    per_call = (time.perf_counter() - started) / max(runs // 10, 1) * 1000
    print(f"ruamel round trip: {per_call:.3f} ms per load+dump")
    print("--- ruamel output ---")
    print(dumped)


if __name__ == "__main__":
    main()
